"""Differential harness for `missing-kernel`: mutated nodes of real graphs, placed by TensorFlow (maintainer tool).

    python tools/check_kernels_tf.py cases OUT.jsonl GRAPH...         # no TensorFlow: draw the cases
    $TF_PYTHON tools/check_kernels_tf.py run CASES.jsonl OUT.json     # TensorFlow: record its verdicts
    python tools/check_kernels_tf.py record VERDICTS.json ROWS.jsonl  # no TensorFlow: the rows tests replay
    python tools/check_kernels_tf.py check [--target 2.15] ROWS.jsonl # no TensorFlow: agreement with tflint

`cases` takes every distinct (op, attrs) of the top-level nodes of the graphs
(GraphDef, MetaGraphDef or SavedModel files, text or binary) and mutates it:
each type attr set to each dtype its OpDef allows (all of TensorFlow's
numeric, bool and string types when the OpDef has no list), and the
original node pinned to `/device:CPU:0`, `/device:GPU:0` and `/device:CPU:1`,
and colocated with its first input (`_class`) with either of them pinned to
the GPU (or the input to the CPU), each with and without soft placement. A case is a small GraphDef: a
Placeholder of the right dtype per input, and the node. Ops with reference
inputs or function-valued attrs, or inputs whose count or types the attrs do not fix, are skipped.

`run` (TensorFlow 2.21, CPU only) imports each case with TensorFlow's C++
importer (as TF Serving's loader does: Python's `import_graph_def` also
moves a colocated node to its colocation target's device), adds a `probe`
Const, opens a `tf.compat.v1.Session` with the case's
`allow_soft_placement`, and runs the probe. The first run places the whole graph, fetched or not (checked:
fetching only the probe fails with the node's `No OpKernel was registered`),
so this is the verdict running the node would give, without executing it:
kernels fed scalars abort the process on some shape CHECKs. The placer's
errors (`No OpKernel was registered`, `Cannot assign a device`, `Could not
satisfy`, `Cannot colocate`) are the verdict `placement-fails`; a run is
`placed`. A case TensorFlow does not import
is dropped. The verdicts file holds each case with TensorFlow's verdict and
message.

`record` compacts the verdicts into rows (op, the attrs a kernel lookup
reads, input dtypes, pin, soft placement, TF's verdict and the head of its
message), keeping up to 3 dtype cases per op and verdict and the pin and
colocation cases of one op in ten:
tests/data/kernels/verdicts_tf221.jsonl, which tests/test_kernel_verdicts.py
replays. `check` prints where tflint disagrees and the tallies: ops that no
wheel has a CPU or GPU kernel for (TPU ops) are counted apart, as the rule
does not judge them.
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

# Dtypes tried where an OpDef constrains nothing: TensorFlow's numeric, bool and string types.
ALL_TYPES = (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 14, 17, 18, 19, 22, 23)
PINS = ("/device:CPU:0", "/device:GPU:0", "/device:CPU:1")
# (the node's pin, its first input's pin) with the node colocated with that input (`_class: loc:@in0`).
COLOCATED_PINS = (("", ""), ("/device:GPU:0", ""), ("/device:GPU:0", "/device:CPU:0"), ("", "/device:GPU:0"))
PLACEMENT_ERRORS = ("No OpKernel was registered", "Cannot assign a device", "Could not satisfy", "Cannot colocate")


def _graphs(path: Path) -> list[Any]:
    from google.protobuf import text_format

    from tflint import protos

    data = path.read_bytes()
    name = path.name
    kinds = (
        [protos.SavedModel]
        if "saved_model" in name
        else [protos.MetaGraphDef]
        if ".meta" in name
        else [protos.GraphDef, protos.MetaGraphDef]
    )
    for kind in kinds:
        message = kind()
        try:
            if name.endswith("txt"):
                text_format.Parse(data.decode("utf-8"), message)
            else:
                message.ParseFromString(data)
        except Exception:
            continue
        if isinstance(message, protos.SavedModel):
            return [meta.graph_def for meta in message.meta_graphs]
        if isinstance(message, protos.MetaGraphDef):
            return [message.graph_def]
        return [message]
    return []


def _input_types(op_def: Any, attrs: dict[str, Any]) -> list[int] | None:
    """The dtype of each input the node takes, or None when the attrs do not fix them (or an input is a ref)."""
    types: list[int] = []
    for arg in op_def.input_arg:
        if arg.is_ref:
            return None
        if arg.type_list_attr:
            value = attrs.get(arg.type_list_attr)
            if value is None:
                return None
            types.extend(value.list.type)
            continue
        if arg.type:
            kind = arg.type
        else:
            value = attrs.get(arg.type_attr)
            if value is None or value.WhichOneof("value") != "type":
                return None
            kind = value.type
        count = 1
        if arg.number_attr:
            value = attrs.get(arg.number_attr)
            if value is None:
                return None
            count = value.i
        if not 0 <= count <= 8:
            return None
        types.extend([kind] * count)
    return types


def _case_graph(node: Any, input_types: list[int], device: str = "", colocate: str | None = None) -> str:
    """The case's GraphDef text; `colocate` (a device string, "" for none) colocates `n` with `in0` pinned there."""
    from google.protobuf import text_format

    from tflint import protos

    graph = protos.GraphDef()
    graph.versions.producer = 2000
    for index, kind in enumerate(input_types):
        placeholder = graph.node.add(name=f"in{index}", op="Placeholder")
        placeholder.attr["dtype"].type = kind
        if index == 0 and colocate:
            placeholder.device = colocate
    target = graph.node.add(name="n", op=node.op, device=device)
    if colocate is not None:
        target.attr["_class"].list.s.append(b"loc:@in0")
    target.input.extend(f"in{index}" for index in range(len(input_types)))
    for key, value in node.attr.items():
        if not key.startswith("_") or key == "_kernel":
            target.attr[key].CopyFrom(value)
    return text_format.MessageToString(graph)


def _type_key(attrs: dict[str, Any]) -> tuple[Any, ...]:
    """What decides a kernel: the type attrs (and `_kernel`); other attrs only change what runs."""
    key = []
    for name in sorted(attrs):
        value = attrs[name]
        kind = value.WhichOneof("value")
        if kind == "type":
            key.append((name, value.type))
        elif kind == "list" and value.list.type:
            key.append((name, tuple(value.list.type)))
        elif name == "_kernel":
            key.append((name, value.s))
    return tuple(key)


def draw_cases(paths: list[Path]) -> list[dict[str, Any]]:
    """Every case the graphs give, one per op, type attr values and pin (with soft placement or not)."""
    from tflint import protos
    from tflint.tf.registry import bundled_ops

    ops = bundled_ops()
    cases: dict[tuple[Any, ...], dict[str, Any]] = {}
    for path in paths:
        for graph in _graphs(path):
            for node in graph.node:
                op_def = ops.get(node.op)
                if op_def is None or any(attr.type in ("func", "list(func)") for attr in op_def.attr):
                    continue  # unknown, or calling a function the case's graph would lack
                attrs = {key: value for key, value in node.attr.items()}
                for attr_def in op_def.attr:
                    if attr_def.name not in attrs or attr_def.type != "type":
                        continue
                    allowed = list(attr_def.allowed_values.list.type) or list(ALL_TYPES)
                    for kind in allowed:
                        mutated = protos.NodeDef()
                        mutated.CopyFrom(node)
                        mutated.attr[attr_def.name].type = kind
                        mutated_attrs = {key: value for key, value in mutated.attr.items()}
                        types = _input_types(op_def, mutated_attrs)
                        if types is not None:
                            key = (node.op, _type_key(mutated_attrs), "", False)
                            if key not in cases:
                                text = _case_graph(mutated, types)
                                cases[key] = {"graph": text, "soft": False, "origin": path.name}
                types = _input_types(op_def, attrs)
                if types is None:
                    continue
                for pin in PINS:
                    for soft in (False, True):
                        key = (node.op, _type_key(attrs), pin, soft)
                        if key not in cases:
                            cases[key] = {"graph": _case_graph(node, types, pin), "soft": soft, "origin": path.name}
                if not types:
                    continue
                for pin, colocate in COLOCATED_PINS:
                    for soft in (False, True):
                        key = (node.op, _type_key(attrs), pin, colocate, soft)
                        if key not in cases:
                            text = _case_graph(node, types, pin, colocate)
                            cases[key] = {"graph": text, "soft": soft, "origin": path.name}
    return list(cases.values())


def _cpp_import(tf: Any, graph_def: Any) -> Any:
    """The graph as TensorFlow's C++ importer builds it (TF Serving's loader), without the Python importer's
    extra step: it gives a colocated node its colocation target's device, which the C++ loaders do not."""
    from tensorflow.python.client import pywrap_tf_session as c_api
    from tensorflow.python.framework import c_api_util

    graph = tf.Graph()
    options = c_api.TF_NewImportGraphDefOptions()
    try:
        with c_api_util.tf_buffer(graph_def.SerializeToString()) as buffer:
            if hasattr(graph._c_graph, "get"):  # TF 2.16 on: a scoped handle
                with graph._c_graph.get() as c_graph:
                    c_api.TF_GraphImportGraphDefWithResults(c_graph, buffer, options)
            else:
                c_api.TF_GraphImportGraphDefWithResults(graph._c_graph, buffer, options)
    finally:
        c_api.TF_DeleteImportGraphDefOptions(options)
    graph._add_new_tf_operations(compute_devices=False)
    return graph


def run_cases(cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """TensorFlow's verdict on each case (import, then the first run, of a probe: it places the whole graph)."""
    import tensorflow as tf
    from google.protobuf import text_format

    tf.compat.v1.disable_eager_execution()
    verdicts = []
    for number, case in enumerate(cases):
        graph_def = tf.compat.v1.GraphDef()
        text_format.Parse(case["graph"], graph_def)
        try:
            with tf.Graph().as_default():
                tf.graph_util.import_graph_def(graph_def, name="")
        except Exception:
            continue  # TensorFlow refuses the graph at import: not a kernel case
        probe = graph_def.node.add(name="probe", op="Const")
        probe.attr["dtype"].type = tf.float32.as_datatype_enum
        probe.attr["value"].tensor.dtype = tf.float32.as_datatype_enum
        probe.attr["value"].tensor.float_val.append(0.0)
        graph = _cpp_import(tf, graph_def)
        config = tf.compat.v1.ConfigProto(allow_soft_placement=case["soft"])
        message = ""
        try:
            with tf.compat.v1.Session(graph=graph, config=config) as session:
                session.run("probe:0")
            verdict = "placed"
        except Exception as error:
            full = str(getattr(error, "message", error))
            lines = [line for line in full.splitlines() if any(text in line for text in PLACEMENT_ERRORS)]
            verdict = "placement-fails" if lines else "placed"
            message = (lines[0] if lines else full.strip().replace("\n", " "))[:300]
        verdicts.append({**case, "verdict": verdict, "message": message})
        if number % 200 == 0:
            print(f"{number}/{len(cases)}", file=sys.stderr)
    return verdicts


def _kept_attrs(op: str) -> set[str]:
    """The attrs a kernel lookup reads for `op` (every type attr, `_kernel`, value-constrained ones), and the
    input counts (which input carries a resource decides colocation)."""
    from tflint.tf.kernels import builds, kernels
    from tflint.tf.registry import bundled_ops

    op_def = bundled_ops().get(op)
    names = {"_kernel", *(arg.number_attr for arg in op_def.input_arg if arg.number_attr)} if op_def else {"_kernel"}
    for build in builds():
        for kernel in kernels(build, op) or ():
            names.update(name for name, _ in kernel.values)
    return names


def compact(case: dict[str, Any]) -> dict[str, Any]:
    """A verdict as a small row: the node's op, the attrs a kernel lookup reads, input dtypes, pin, verdict,
    and `colocate` (the first input's pin) when the node is colocated with it."""
    from google.protobuf import text_format

    from tflint import protos

    graph = protos.GraphDef()
    text_format.Parse(case["graph"], graph)
    node = graph.node[-1]
    kept = _kept_attrs(node.op)
    attrs: dict[str, Any] = {}
    for key, value in sorted(node.attr.items()):
        kind = value.WhichOneof("value")
        if kind == "type":
            attrs[key] = {"type": value.type}
        elif kind == "list" and value.list.type:
            attrs[key] = {"list": list(value.list.type)}
        elif key in kept and kind in ("s", "i", "b"):
            item = getattr(value, kind)
            attrs[key] = {kind: item.decode("utf-8", "replace") if kind == "s" else item}
    inputs = [item.attr["dtype"].type for item in graph.node[:-1]]
    row = {"op": node.op, "attrs": attrs, "inputs": inputs, "device": node.device, "soft": case["soft"]}
    if "_class" in node.attr:
        row["colocate"] = graph.node[0].device
    row["tf"] = "fails" if case["verdict"] == "placement-fails" else "runs"
    if row["tf"] == "fails":
        row["message"] = case["message"].split(" with these attrs")[0][:120]
    return row


def row_graph(row: dict[str, Any]) -> str:
    """The GraphDef text of a compact row: a Placeholder per input, then the node `n`."""
    colocate = row.get("colocate")
    lines = [
        f'node {{ name: "in{index}" op: "Placeholder" attr {{ key: "dtype" value {{ type: {kind} }} }}'
        + (f' device: "{colocate}"' if index == 0 and colocate else "")
        + " }"
        for index, kind in enumerate(row["inputs"])
    ]
    fields = [f'name: "n" op: "{row["op"]}"', *(f'input: "in{index}"' for index in range(len(row["inputs"])))]
    if row["device"]:
        fields.append(f'device: "{row["device"]}"')
    if colocate is not None:
        fields.append('attr { key: "_class" value { list { s: "loc:@in0" } } }')
    for key, value in row["attrs"].items():
        ((kind, item),) = value.items()
        if kind == "list":
            shown = "list { " + " ".join(f"type: {number}" for number in item) + " }"
        elif kind == "s":
            shown = f"s: {json.dumps(item)}"
        elif kind == "b":
            shown = f"b: {str(item).lower()}"
        else:
            shown = f"{kind}: {item}"
        fields.append(f'attr {{ key: "{key}" value {{ {shown} }} }}')
    lines.append("node { " + " ".join(fields) + " }")
    return "\n".join(lines) + "\n"


@functools.cache
def _registry(target: str | None = None) -> Any:
    from tflint.api import registry_for
    from tflint.config.settings import default_config

    return registry_for(default_config(), (), [target] if target else None)


def tflint_flags(row: dict[str, Any], target: str | None = None) -> bool:
    """Whether missing-kernel reports the row's case (a CPU-only server, the row's soft placement), judged
    against the newest kernels and, with `target`, that release's."""
    from tflint.engine.run import build_index
    from tflint.read.load import load_bytes
    from tflint.rules import missing_kernel

    artifact = load_bytes(row_graph(row).encode("utf-8"), "case.pbtxt")
    graph = build_index(artifact.graphs[0], _registry(target), artifact)
    options = {"devices": ["CPU"], "soft-placement": row["soft"]}
    return any(True for _ in missing_kernel.check(graph, options))  # the case's only failures are about n


def judged(op: str) -> bool:
    """Whether missing-kernel judges `op` at all (some bundled wheel has a CPU or GPU kernel for it)."""
    from tflint.tf.kernels import registered_anywhere

    return registered_anywhere(op)


def check(rows: list[dict[str, Any]], target: str | None = None) -> int:
    """Print where tflint and TensorFlow disagree, and the tallies; 0 when >= 99% caught and no false error."""
    tally: Counter[tuple[str, bool]] = Counter()
    unjudged: Counter[str] = Counter()
    for row in rows:
        flagged = tflint_flags(row, target)
        if not judged(row["op"]):
            unjudged[row["tf"]] += 1
            continue
        tally[(row["tf"], flagged)] += 1
        if flagged != (row["tf"] == "fails"):
            where = f"{row['device']!r}" + (f" colocated with in0 at {row['colocate']!r}" if "colocate" in row else "")
            soft = " soft" if row["soft"] else ""
            print(f"disagree: TF {row['tf']}, tflint flags={flagged}: {row['op']} {row['attrs']} {where}{soft}")
    fails = tally[("fails", True)] + tally[("fails", False)]
    caught = tally[("fails", True)]
    runs = tally[("runs", True)] + tally[("runs", False)]
    print(
        f"{len(rows)} cases; judged: TF fails {fails}, tflint catches {caught}; TF runs {runs}, tflint flags ", end=""
    )
    print(f"{tally[('runs', True)]}; not judged (no CPU/GPU kernel in any wheel: TPU ops): {dict(unjudged)}")
    return 0 if tally[("runs", True)] == 0 and caught >= 0.99 * fails else 1


def record(verdicts: list[dict[str, Any]], pin_every: int, per_op: int) -> list[dict[str, Any]]:
    """Compact rows of the dtype cases (at most `per_op` of each op and verdict), and of the pin cases of one
    op in `pin_every` (sorted by op)."""
    rows: dict[str, dict[str, Any]] = {}
    for case in verdicts:
        row = compact(case)
        rows.setdefault(json.dumps({key: row[key] for key in row if key != "message"}, sort_keys=True), row)
    placed_ops = sorted({row["op"] for row in rows.values() if row["device"] or "colocate" in row})
    sampled = set(placed_ops[::pin_every])
    kept = [row for row in rows.values() if (not row["device"] and "colocate" not in row) or row["op"] in sampled]
    kept.sort(key=lambda row: json.dumps(row, sort_keys=True))
    counts: Counter[tuple[Any, ...]] = Counter()
    capped = []
    for row in kept:
        key = (row["op"], row["device"], row.get("colocate"), row["soft"], row["tf"])
        counts[key] += 1
        if counts[key] <= per_op:
            capped.append(row)
    return capped


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    draw = commands.add_parser("cases")
    draw.add_argument("out", type=Path)
    draw.add_argument("graphs", type=Path, nargs="+")
    run = commands.add_parser("run")
    run.add_argument("cases", type=Path)
    run.add_argument("out", type=Path)
    keep = commands.add_parser("record")
    keep.add_argument("verdicts", type=Path)
    keep.add_argument("out", type=Path)
    keep.add_argument("--pin-every", type=int, default=10, help="keep the pin cases of one op in N")
    keep.add_argument("--per-op", type=int, default=3, help="keep at most N dtype cases per op and verdict")
    judge = commands.add_parser("check")
    judge.add_argument("rows", type=Path)
    judge.add_argument("--target", help="the release the verdicts were recorded on, when not the newest")
    args = parser.parse_args(argv)
    if args.command == "cases":
        cases = draw_cases(args.graphs)
        args.out.write_text("".join(json.dumps(case, sort_keys=True) + "\n" for case in cases), encoding="utf-8")
        print(f"{args.out}: {len(cases)} cases")
        return 0
    if args.command == "run":
        cases = [json.loads(line) for line in args.cases.read_text(encoding="utf-8").splitlines() if line]
        verdicts = run_cases(cases)
        args.out.write_text(json.dumps(verdicts, indent=0, sort_keys=True) + "\n", encoding="utf-8")
        print(f"{args.out}: {len(verdicts)} verdicts, {Counter(item['verdict'] for item in verdicts)}")
        return 0
    if args.command == "record":
        rows = record(json.loads(args.verdicts.read_text(encoding="utf-8")), args.pin_every, args.per_op)
        lines = (json.dumps(row, sort_keys=True, separators=(",", ":")) + "\n" for row in rows)
        args.out.write_text("".join(lines), encoding="utf-8")
        print(f"{args.out}: {len(rows)} rows, {Counter(row['tf'] for row in rows)}")
        return 0
    rows = [json.loads(line) for line in args.rows.read_text(encoding="utf-8").splitlines() if line]
    return check(rows, args.target)


if __name__ == "__main__":
    sys.exit(main())
