"""Snapshot TensorFlow's op registries into lint/tf/data/ for tflint to ship.

Three modes, all maintainer tools (tflint never needs TensorFlow):

- no arguments, under a Python with the newest TensorFlow: the default registry
  (ops.binpb, registry.json with DataType names);
- `--dump DIR`, under a Python with any TensorFlow from 1.15 on (it runs on Python
  3.7 for TF <= 2.11): that release's full OpList, GraphDef version range and the
  field and enum-value names of its protobuf schema, as DIR/tf-<major.minor>.json;
- `--combine DIR` (any Python with tflint installed): every dump of DIR merged into
  the compact multi-release tables releases.binpb + releases.json (see
  tflint.tf.releases for the format).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import sys
import zlib
from pathlib import Path
from typing import Any

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")  # keep TF's start-up chatter out of the report

REPO = Path(__file__).resolve().parents[1]
DATA_DIR = REPO / "lint" / "tf" / "data"
OPS_PATH = DATA_DIR / "ops.binpb"
OPS_INDEX_PATH = DATA_DIR / "ops.index"
REGISTRY_PATH = DATA_DIR / "registry.json"
TEST_OPS_PATH = DATA_DIR / "test_ops.txt"

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


def test_only_ops(ops: Any) -> list[str]:
    """The ops TensorFlow registers for its own tests (tensorflow/python/framework/test_ops): valid, never suggested."""
    import tensorflow.python.framework.test_ops as test_ops

    with open(test_ops.__file__, encoding="utf-8") as file:
        wrapped = set(re.findall(r'_apply_op_helper\(\s*"([^"]+)"', file.read()))
    found = sorted(wrapped & {op.name for op in ops.op})
    if "Foo3" not in found:
        raise SystemExit("tensorflow/python/framework/test_ops.py no longer wraps Foo3: check how it registers ops")
    return found


def check(ops: Any, names: dict[int, str]) -> None:
    missing = [name for name in SENTINEL_OPS if not any(op.name == name for op in ops.op)]
    if missing:
        raise SystemExit(f"op registry incomplete, missing {missing}")
    if len({op.name for op in ops.op}) != len(ops.op):
        raise SystemExit("duplicate op names in registry")
    for number, name in names.items():
        if not re.fullmatch(r"[a-z0-9_]+", name):
            raise SystemExit(f"odd DataType name {number}: {name!r}")


# The protobuf messages whose schema a text graph is parsed with; everything reachable from them is dumped.
SCHEMA_ROOTS = (
    ("tensorflow.core.protobuf.saved_model_pb2", "SavedModel"),
    ("tensorflow.core.protobuf.meta_graph_pb2", "MetaGraphDef"),
    ("tensorflow.core.framework.graph_pb2", "GraphDef"),
    ("tensorflow.core.framework.op_def_pb2", "OpList"),
)


def tf_c_api() -> Any:
    """TF's C API module: pywrap_tf_session from 2.2 on, pywrap_tensorflow before."""
    try:
        from tensorflow.python.client import pywrap_tf_session as c_api
    except ImportError:
        from tensorflow.python import pywrap_tensorflow as c_api
    return c_api


def schema_names() -> dict[str, dict[str, list[str]]]:
    """Field names of every message and value names of every enum reachable from SCHEMA_ROOTS."""
    import importlib

    messages: dict[str, list[str]] = {}
    enums: dict[str, list[str]] = {}
    todo = [getattr(importlib.import_module(module), name).DESCRIPTOR for module, name in SCHEMA_ROOTS]
    while todo:
        descriptor = todo.pop()
        if descriptor.full_name in messages:
            continue
        messages[descriptor.full_name] = sorted(field.name for field in descriptor.fields)
        for field in descriptor.fields:
            if field.message_type is not None:
                todo.append(field.message_type)
            if field.enum_type is not None:
                enums[field.enum_type.full_name] = sorted(value.name for value in field.enum_type.values)
    return {"messages": dict(sorted(messages.items())), "enums": dict(sorted(enums.items()))}


def dump(out_dir: Path) -> None:
    """One release's registry, GraphDef version range and schema names into out_dir (runs on Python 3.7 too)."""
    import tensorflow as tf
    from tensorflow.core.framework import op_def_pb2
    from tensorflow.python.framework import versions

    c_api = tf_c_api()
    buf = c_api.TF_GetAllOpList()
    try:
        data = c_api.TF_GetBuffer(buf)
    finally:
        c_api.TF_DeleteBuffer(buf)
    ops = strip_docs(op_def_pb2.OpList.FromString(bytes(data)))
    missing = [
        name for name in SENTINEL_OPS if name != "StatefulPartitionedCall" and not any(op.name == name for op in ops.op)
    ]
    if missing:
        raise SystemExit(f"op registry incomplete, missing {missing}")
    release = ".".join(tf.__version__.split(".")[:2])
    info = {
        "release": release,
        "tensorflow_version": tf.__version__,
        "graph_def_version": versions.GRAPH_DEF_VERSION,
        "graph_def_version_min_producer": versions.GRAPH_DEF_VERSION_MIN_PRODUCER,
        "graph_def_version_min_consumer": versions.GRAPH_DEF_VERSION_MIN_CONSUMER,
        "op_count": len(ops.op),
        "schema": schema_names(),
    }
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / f"tf-{release}.binpb").write_bytes(ops.SerializeToString(deterministic=True))
    (out_dir / f"tf-{release}.json").write_text(json.dumps(info, indent=1) + "\n")
    print(
        f"dumped TF {tf.__version__}: {len(ops.op)} ops, GraphDef version {versions.GRAPH_DEF_VERSION}", file=sys.stderr
    )


def release_key(release: str) -> tuple[int, ...]:
    return tuple(int(part) for part in release.split("."))


def combine(dump_dir: Path) -> None:
    """Merge every dump of dump_dir into releases.binpb (distinct OpDefs) + releases.json (masks, versions, schema)."""
    sys.path.insert(0, str(REPO))
    from tflint import protos

    infos = [json.loads(path.read_text()) for path in dump_dir.glob("tf-*.json")]
    infos.sort(key=lambda info: release_key(info["release"]))
    if not infos:
        raise SystemExit(f"no dumps (tf-*.json) in {dump_dir}")
    releases = [info["release"] for info in infos]
    everyone = (1 << len(releases)) - 1
    # Distinct OpDefs (by serialized bytes) with the set of releases (a bitmask, bit i = releases[i]) having them.
    variants: dict[bytes, int] = {}
    for bit, info in enumerate(infos):
        ops = protos.OpList.FromString((dump_dir / f"tf-{info['release']}.binpb").read_bytes())
        for op in ops.op:
            blob = op.SerializeToString(deterministic=True)
            variants[blob] = variants.get(blob, 0) | (1 << bit)
    table = protos.OpList()
    masks = []
    for blob, mask in sorted(variants.items(), key=lambda item: (protos.OpDef.FromString(item[0]).name, item[1])):
        table.op.add().ParseFromString(blob)
        masks.append(mask)
    schema: dict[str, dict[str, dict[str, int]]] = {"messages": {}, "enums": {}}
    for kind in ("messages", "enums"):
        union: dict[str, dict[str, int]] = {}
        for bit, info in enumerate(infos):
            for owner, names in info["schema"][kind].items():
                for name in names:
                    entry = union.setdefault(owner, {})
                    entry[name] = entry.get(name, 0) | (1 << bit)
        # Only what some release lacks: a name every release knows needs no entry.
        for owner in sorted(union):
            partial = {name: mask for name, mask in sorted(union[owner].items()) if mask != everyone}
            if partial:
                schema[kind][owner] = partial
    out = {
        "releases": releases,
        "tensorflow_versions": [info["tensorflow_version"] for info in infos],
        "graph_def_versions": [
            [
                info["graph_def_version"],
                info["graph_def_version_min_consumer"],
                info["graph_def_version_min_producer"],
            ]
            for info in infos
        ],
        "op_masks": masks,
        "schema": schema,
        "generated_by": "tools/gen_registry.py --combine",
    }
    blob = zlib.compress(table.SerializeToString(deterministic=True), 9)
    (DATA_DIR / "releases.binpb.z").write_bytes(blob)
    (DATA_DIR / "releases.json").write_text(json.dumps(out, separators=(",", ":")) + "\n")
    print(
        f"wrote releases {', '.join(releases)}: {len(masks)} distinct OpDefs, {len(blob)} bytes compressed",
        file=sys.stderr,
    )


def ops_index(ops: Any) -> str:
    """ops.index: each op's name and where its bytes lie in the serialized OpList (`name start end` lines).

    In the list, each op's bytes follow a key byte and their length as a varint;
    tflint.tf.registry.BundledOps reads an op from its span when first asked for it.
    """
    lines, position = [], 0
    for op in ops.op:
        size = op.ByteSize()
        position += 1 + max(1, (size.bit_length() + 6) // 7)
        lines.append(f"{op.name} {position} {position + size}\n")
        position += size
    return "".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dump", metavar="DIR", type=Path, help="dump this TensorFlow's registry and schema into DIR")
    parser.add_argument("--combine", metavar="DIR", type=Path, help="merge the dumps of DIR into lint/tf/data/")
    args = parser.parse_args(argv)
    if args.combine is not None:
        combine(args.combine)
        return
    if importlib.util.find_spec("tensorflow") is None:
        raise SystemExit(
            "needs TensorFlow: run it with a Python that has tensorflow installed "
            "(a maintainer tool; tflint never needs it)"
        )
    if args.dump is not None:
        dump(args.dump)
        return
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
    OPS_INDEX_PATH.write_text(ops_index(ops))
    REGISTRY_PATH.write_text(json.dumps(registry, indent=2) + "\n")
    TEST_OPS_PATH.write_text("".join(f"{name}\n" for name in test_only_ops(ops)))
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
