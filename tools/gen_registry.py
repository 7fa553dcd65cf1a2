"""Snapshot TensorFlow's full op registry and DataType names into lint/data/ for tflint to ship."""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import sys
from pathlib import Path
from typing import Any

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")  # keep TF's start-up chatter out of the report

REPO = Path(__file__).resolve().parents[1]
DATA_DIR = REPO / "lint" / "tf" / "data"
OPS_PATH = DATA_DIR / "ops.binpb"
REGISTRY_PATH = DATA_DIR / "registry.json"

# Ops every TF build registers; a snapshot without them means the registry was not fully loaded.
SENTINEL_OPS = (
    "Const",
    "MatMul",
    "Placeholder",
    "_Arg",
    "_Retval",
    "Merge",
    "Switch",
    "Enter",
    "VarHandleOp",
    "VariableV2",
    "SaveV2",
    "RestoreV2",
    "StatefulPartitionedCall",
)

# Ops whose attr "T" has an allowed-type list: a type outside the list makes TF's graph importer
# print the C++ DataTypeString() name, the spelling OpDefs and error messages use.
PROBE_OPS = ("BitwiseAnd", "Sqrt")
PROBE_MESSAGE = re.compile(r"Value for attr 'T' of (\w+) is not in the list of allowed values")


def all_op_defs() -> Any:
    """Every op registered in this TensorFlow build, internal `_` ops included."""
    from tensorflow.core.framework import op_def_pb2
    from tensorflow.python.client import pywrap_tf_session as c_api

    buf = c_api.TF_GetAllOpList()
    try:
        data = c_api.TF_GetBuffer(buf)
    finally:
        c_api.TF_DeleteBuffer(buf)
    return op_def_pb2.OpList.FromString(bytes(data))


def strip_docs(op_list: Any) -> Any:
    """Sorted copy without summaries/descriptions: prose tflint never shows, and most of the size."""
    out = type(op_list)()
    for op in sorted(op_list.op, key=lambda o: o.name):
        new = out.op.add()
        new.CopyFrom(op)
        new.ClearField("summary")
        new.ClearField("description")
        for arg in (*new.input_arg, *new.output_arg):
            arg.ClearField("description")
        for attr in new.attr:
            attr.ClearField("description")
    return out


def data_type_names(op_list: Any) -> dict[int, str]:
    """TF's own name for every non-reference DataType, asked of TF rather than derived."""
    import tensorflow as tf
    from tensorflow.core.framework import graph_pb2, types_pb2

    allowed = {
        op.name: set(next(a for a in op.attr if a.name == "T").allowed_values.list.type)
        for op in op_list.op
        if op.name in PROBE_OPS
    }
    names: dict[int, str] = {}
    for value in types_pb2.DataType.DESCRIPTOR.values:
        if value.number == 0 or value.number >= 100:  # DT_INVALID; *_REF are number + 100
            continue
        probe = next(op for op in PROBE_OPS if value.number not in allowed[op])
        graph = graph_pb2.GraphDef()
        x = graph.node.add(name="x", op="Placeholder")
        x.attr["dtype"].type = value.number
        y = graph.node.add(name="y", op=probe, input=["x", "x"] if probe == "BitwiseAnd" else ["x"])
        y.attr["T"].type = value.number
        try:
            with tf.Graph().as_default():
                tf.graph_util.import_graph_def(graph, name="")
        except Exception as err:  # noqa: BLE001 - the message is the answer
            match = PROBE_MESSAGE.search(str(err))
            if match:
                names[value.number] = match.group(1)
                continue
            raise SystemExit(f"{value.name}: unexpected error from TF: {err}") from err
        raise SystemExit(f"{value.name}: TF accepted {probe} with this type; pick another probe op")
    return names


def check(ops: Any, names: dict[int, str]) -> None:
    missing = [name for name in SENTINEL_OPS if not any(op.name == name for op in ops.op)]
    if missing:
        raise SystemExit(f"op registry incomplete, missing {missing}")
    if len({op.name for op in ops.op}) != len(ops.op):
        raise SystemExit("duplicate op names in registry")
    for number, name in names.items():
        if not re.fullmatch(r"[a-z0-9_]+", name):
            raise SystemExit(f"odd DataType name {number}: {name!r}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.parse_args(argv)
    if importlib.util.find_spec("tensorflow") is None:
        raise SystemExit(
            "needs TensorFlow: run it with a Python that has tensorflow installed "
            "(a maintainer tool; tflint never needs it)"
        )
    import tensorflow as tf

    ops = strip_docs(all_op_defs())
    names = data_type_names(ops)
    check(ops, names)

    blob = ops.SerializeToString(deterministic=True)
    if type(ops).FromString(blob) != ops:
        raise SystemExit("OpList does not round-trip")
    registry = {
        "tensorflow_version": tf.__version__,
        "graph_def_version": tf.version.GRAPH_DEF_VERSION,
        "graph_def_version_min_producer": tf.version.GRAPH_DEF_VERSION_MIN_PRODUCER,
        "graph_def_version_min_consumer": tf.version.GRAPH_DEF_VERSION_MIN_CONSUMER,
        "op_count": len(ops.op),
        # JSON keys are strings; kept in numeric order for readable diffs.
        "data_types": {str(n): names[n] for n in sorted(names)},
        "generated_by": "tools/gen_registry.py",
    }
    DATA_DIR.mkdir(parents=True, exist_ok=True)
    OPS_PATH.write_bytes(blob)
    REGISTRY_PATH.write_text(json.dumps(registry, indent=2) + "\n")
    internal = sum(op.name.startswith("_") for op in ops.op)
    print(
        f"wrote {OPS_PATH.relative_to(REPO)}: {len(ops.op)} ops ({internal} internal), {len(blob)} bytes",
        file=sys.stderr,
    )
    print(
        f"wrote {REGISTRY_PATH.relative_to(REPO)}: TF {tf.__version__}, "
        f"GraphDef version {tf.version.GRAPH_DEF_VERSION}, {len(names)} data types",
        file=sys.stderr,
    )


if __name__ == "__main__":
    main()
