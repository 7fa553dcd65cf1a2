"""A held-out set of one-change mutations of real graphs, labelled by TensorFlow's import (maintainer tool).

    $TF_PYTHON tools/shape_mutations.py label --seed 17 --per-graph 12 [--bodies] OUT.jsonl GRAPH.pb ...
    python tools/shape_mutations.py check OUT.jsonl GRAPH.pb ...

`label` (needs TensorFlow) draws random one-change mutations of each graph (a shape argument's
constant value, a placeholder's or variable's dimension, a window attr, an axis attr, a flag, a
data format), imports each mutated graph with `tf.graph_util.import_graph_def` and records the
mutation recipe with TensorFlow's verdict and message, one JSON line each. With `--bodies` the
mutations are of nodes inside the library functions' bodies (the recipe names the `function`),
which TensorFlow shape-checks only when a call reaches them. A `*saved_model.pb[txt]` file gives
its first meta graph's GraphDef (what the TF1 loader imports). `check` (no
TensorFlow) replays every recipe on tflint's own GraphDef message, lints it, and prints:

- TensorFlow's rejections through a shape function (its message names the node and its input
  shapes, or the node's `_output_shapes`) that tflint reports as an error;
- graphs TensorFlow imports on which tflint reports an error or warning that the original
  graph does not have (must be 0).

A recipe edits the message by field names only, so the same code runs on TensorFlow's and
tflint's protobuf classes.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import Counter
from pathlib import Path
from typing import Any

WINDOW_ATTRS = ("strides", "ksize", "dilations")
INT_ATTRS = ("axis", "num_split", "squeeze_dims", "seq_dim", "batch_dim", "block_size", "N", "num")
BOOL_ATTRS = ("transpose_a", "transpose_b", "adj_x", "adj_y", "keep_dims", "validate_shape")
INT_TYPES = (3, 9)  # DT_INT32, DT_INT64


def _small_int_const(node: Any) -> bool:
    if node.op != "Const" or "value" not in node.attr:
        return False
    tensor = node.attr["value"].tensor
    count = 1
    for dim in tensor.tensor_shape.dim:
        count *= dim.size
    return tensor.dtype in INT_TYPES and 0 < count <= 16


def _known_shape_attr(node: Any) -> bool:
    if node.op not in ("Placeholder", "VariableV2", "VarHandleOp") or "shape" not in node.attr:
        return False
    shape = node.attr["shape"].shape
    return not shape.unknown_rank and len(shape.dim) > 0


def _nodes(graph: Any, function: str | None) -> Any:
    """The top-level nodes (function None) or the body nodes of library function `function`."""
    if function is None:
        return graph.node
    return next(f.node_def for f in graph.library.function if f.signature.name == function)


def candidates(graph: Any, function: str | None = None) -> list[tuple[str, str]]:
    """(kind, node name) pairs a mutation can apply to, among the top-level nodes or a function's body."""
    found = []
    for node in _nodes(graph, function):
        if _small_int_const(node):
            found.append(("const-value", node.name))
        if _known_shape_attr(node):
            found.append(("shape-dim", node.name))
        for key in WINDOW_ATTRS:
            if key in node.attr and len(node.attr[key].list.i) >= 4:
                found.append((f"list:{key}", node.name))
        for key in INT_ATTRS:
            if key in node.attr and node.attr[key].WhichOneof("value") == "i" and node.op not in ("Const",):
                found.append((f"int:{key}", node.name))
        for key in BOOL_ATTRS:
            if key in node.attr and node.attr[key].WhichOneof("value") == "b":
                found.append((f"bool:{key}", node.name))
        if "data_format" in node.attr and node.attr["data_format"].s in (b"NHWC", b"NCHW"):
            found.append(("data-format", node.name))
    return found


def _ints(tensor: Any) -> list[int]:
    import struct

    count = 1
    for dim in tensor.tensor_shape.dim:
        count *= dim.size
    if tensor.tensor_content:
        return list(struct.unpack(f"<{count}{'i' if tensor.dtype == 3 else 'q'}", tensor.tensor_content))
    values = list(tensor.int_val if tensor.dtype == 3 else tensor.int64_val)
    if not values:
        return [0] * count
    return values + [values[-1]] * (count - len(values))


def _set_ints(tensor: Any, values: list[int]) -> None:
    tensor.tensor_content = b""
    field = tensor.int_val if tensor.dtype == 3 else tensor.int64_val
    del field[:]
    field.extend(values)


def apply(graph: Any, recipe: dict) -> None:
    """Apply one recipe ({kind, node, position, value}, and `function` for a body node) to a GraphDef in place."""
    node = next(n for n in _nodes(graph, recipe.get("function")) if n.name == recipe["node"])
    kind = recipe["kind"]
    position = recipe["position"]
    value = recipe["value"]
    if kind == "const-value":
        tensor = node.attr["value"].tensor
        values = _ints(tensor)
        values[position % len(values)] = value
        _set_ints(tensor, values)
    elif kind == "shape-dim":
        dims = node.attr["shape"].shape.dim
        dims[position % len(dims)].size = value
    elif kind.startswith("list:"):
        items = node.attr[kind[5:]].list.i
        items[position % len(items)] = value
    elif kind.startswith("int:"):
        node.attr[kind[4:]].i = value
    elif kind.startswith("bool:"):
        node.attr[kind[5:]].b = not node.attr[kind[5:]].b
    elif kind == "data-format":
        node.attr["data_format"].s = b"NCHW" if node.attr["data_format"].s == b"NHWC" else b"NHWC"


def draw(rng: random.Random, graph: Any, count: int, bodies: bool = False) -> list[dict]:
    """`count` random recipes for `graph` (`bodies`: of nodes inside its library functions' bodies)."""
    if bodies:
        pool = [
            (kind, name, f.signature.name)
            for f in graph.library.function
            for kind, name in candidates(graph, f.signature.name)
        ]
    else:
        pool = [(kind, name, None) for kind, name in candidates(graph)]
    recipes = []
    for _ in range(min(count, len(pool) * 3)):
        kind, name, function = rng.choice(pool)
        node = next(n for n in _nodes(graph, function) if n.name == name)
        if kind == "const-value":
            old = _ints(node.attr["value"].tensor)
            position = rng.randrange(len(old))
            value = rng.choice([old[position] + 1, old[position] - 1, old[position] * 2, -1, 0, 1, 3, 7])
        elif kind == "shape-dim":
            dims = node.attr["shape"].shape.dim
            position = rng.randrange(len(dims))
            old = dims[position].size
            value = rng.choice([old + 1, old * 2, 1, 3, -1] if old > 0 else [1, 2, 5])
        elif kind.startswith("list:"):
            items = node.attr[kind[5:]].list.i
            position = rng.randrange(len(items))
            value = rng.choice([1, 2, 3, 5])
        elif kind.startswith("int:"):
            position = 0
            old = node.attr[kind[4:]].i
            value = rng.choice([old + 1, old - 1, -1, 0, 2, 4])
        else:
            position, value = 0, 0
        recipe = {"kind": kind, "node": name, "position": position, "value": value}
        if function is not None:
            recipe["function"] = function
        recipes.append(recipe)
    return recipes


def read_graph(cls: Any, path: str, saved_model: Any = None) -> Any:
    """A GraphDef from a binary or text file, as an instance of `cls`.

    A file named `*saved_model.pb[txt]` is read as a SavedModel (class `saved_model`) and its first
    meta graph's GraphDef returned: what the TF1 loader imports.
    """
    from google.protobuf import message, text_format

    data = Path(path).read_bytes()
    if saved_model is not None and Path(path).name.endswith(("saved_model.pb", "saved_model.pbtxt")):
        try:
            model = saved_model.FromString(data)
        except message.DecodeError:
            model = text_format.Parse(data.decode("utf-8"), saved_model())
        graph = cls()
        graph.CopyFrom(model.meta_graphs[0].graph_def)
        return graph
    try:
        return cls.FromString(data)
    except message.DecodeError:
        return text_format.Parse(data.decode("utf-8"), cls())


# Seconds one import may take before the worker counts as hung (TF 2.21 deadlocks on a few mutated bodies).
IMPORT_TIMEOUT_S = 60


class _Worker:
    """A TensorFlow process that imports mutated graphs one at a time (restarted when an import hangs)."""

    def __init__(self) -> None:
        import subprocess

        self.process = subprocess.Popen(
            [sys.executable, __file__, "worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )

    def verdict(self, path: str, recipe: dict) -> tuple[str, str] | None:
        """TensorFlow's (verdict, message), or None when the import did not finish in time."""
        import select

        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps({"path": path, "recipe": recipe}) + "\n")
        self.process.stdin.flush()
        ready, _, _ = select.select([self.process.stdout], [], [], IMPORT_TIMEOUT_S)
        line = self.process.stdout.readline() if ready else ""
        if not line:
            self.process.kill()
            self.process.wait()
            return None
        answer = json.loads(line)
        return answer["tf"], answer["message"]


def worker() -> int:
    """Read {path, recipe} lines, answer each with TensorFlow's import verdict (run by `label`)."""
    import os

    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow as tf
    from tensorflow.core.framework import graph_pb2
    from tensorflow.core.protobuf import saved_model_pb2

    originals: dict[str, Any] = {}
    for line in sys.stdin:
        request = json.loads(line)
        path = request["path"]
        if path not in originals:
            originals[path] = read_graph(graph_pb2.GraphDef, path, saved_model_pb2.SavedModel)
        graph = graph_pb2.GraphDef()
        graph.CopyFrom(originals[path])
        apply(graph, request["recipe"])
        with tf.Graph().as_default():
            try:
                tf.graph_util.import_graph_def(graph, name="")
                verdict, message = "imports", ""
            except Exception as error:  # noqa: BLE001 - any rejection is TensorFlow's verdict
                verdict, message = "rejects", f"{type(error).__name__}: {str(error).splitlines()[0][:300]}"
        print(json.dumps({"tf": verdict, "message": message}), flush=True)
    return 0


def label(args: argparse.Namespace) -> int:
    """Draw recipes and have a TensorFlow worker process judge them.

    A mutation whose import hangs is left out (and named on stderr): it has no verdict to record.
    """
    from tensorflow.core.framework import graph_pb2
    from tensorflow.core.protobuf import saved_model_pb2

    rng = random.Random(args.seed)
    pool: _Worker | None = None
    with open(args.out, "w") as out:
        for path in args.graphs:
            try:
                original = read_graph(graph_pb2.GraphDef, path, saved_model_pb2.SavedModel)
            except Exception:  # noqa: BLE001 - not a GraphDef: not a source for mutations
                print(f"skipped {path}: not a GraphDef", file=sys.stderr)
                continue
            print(f"labelling {path}", file=sys.stderr, flush=True)
            for recipe in draw(rng, original, args.per_graph, args.bodies):
                if pool is None:
                    pool = _Worker()
                answer = pool.verdict(path, recipe)
                if answer is None:
                    print(f"hung: {path} {recipe}", file=sys.stderr, flush=True)
                    pool = None
                    continue
                verdict, message = answer
                out.write(json.dumps({"graph": Path(path).name, **recipe, "tf": verdict, "message": message}) + "\n")
                out.flush()
    return 0


def shape_rejection(message: str) -> bool:
    """A rejection by a shape function (or an `_output_shapes` check), not by the importer's other checks."""
    return "with input shapes" in message or "_output_shapes attribute inconsistent" in message


def check(args: argparse.Namespace) -> int:
    from tflint import protos
    from tflint.api import lint_graph
    from tflint.engine.findings import NEVER_CALLED

    by_name = {Path(path).name: path for path in args.graphs}
    originals: dict[str, Any] = {}
    baseline: dict[str, Counter] = {}
    stats: Counter = Counter()
    misses: list[str] = []
    alarms: list[str] = []
    for line in open(args.labels):
        record = json.loads(line)
        name = record["graph"]
        if name not in originals:
            originals[name] = read_graph(protos.GraphDef, by_name[name], protos.SavedModel)
            report = lint_graph(originals[name], name=name)
            baseline[name] = Counter((f.rule, f.node) for f in report.findings if f.severity >= 2)
        graph = protos.GraphDef()
        graph.CopyFrom(originals[name])
        apply(graph, record)
        findings = [f for f in lint_graph(graph, name=name).findings if f.severity >= 2]
        new = Counter((f.rule, f.node) for f in findings) - baseline[name]
        # Warnings about a function nothing calls (issue 22): TF imports such a graph, by design tflint warns.
        uncalled = Counter((f.rule, f.node) for f in findings if f.message.endswith(f"({NEVER_CALLED})"))
        errors = [f for f in findings if f.severity >= 3]
        if record["tf"] == "imports":
            stats["accepted"] += 1
            if new and not new - uncalled:
                stats["uncalled warnings"] += 1
            elif new:
                stats["false alarms"] += 1
                alarms.append(f"{name} {record.get('function', '')} {record['kind']} {record['node']}: {sorted(new)}")
        elif shape_rejection(record["message"]):
            stats["shape rejections"] += 1
            if errors:
                stats["caught"] += 1
            else:
                misses.append(
                    f"{name} {record.get('function', '')} {record['kind']} {record['node']}: {record['message'][:200]}"
                )
        else:
            stats["other rejections"] += 1
            stats["other caught"] += bool(errors)
    for text in misses[: args.show]:
        print("MISS", text)
    for text in alarms[: args.show]:
        print("FALSE ALARM", text)
    rejections = stats["shape rejections"]
    print(
        f"shape-function rejections caught: {stats['caught']} / {rejections}"
        f" ({100 * stats['caught'] / max(rejections, 1):.1f}%)"
    )
    print(f"other rejections caught: {stats['other caught']} / {stats['other rejections']}")
    print(
        f"TF-accepted graphs with a new error or warning: {stats['false alarms']} / {stats['accepted']}"
        f" (and {stats['uncalled warnings']} with only 'never called' warnings about a function nothing calls)"
    )
    return 1 if stats["false alarms"] else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    make = sub.add_parser("label")
    make.add_argument("--seed", type=int, default=17)
    make.add_argument("--per-graph", type=int, default=12)
    make.add_argument("--bodies", action="store_true", help="mutate nodes inside library functions' bodies")
    make.add_argument("out")
    make.add_argument("graphs", nargs="+")
    replay = sub.add_parser("check")
    replay.add_argument("--show", type=int, default=20)
    replay.add_argument("labels")
    replay.add_argument("graphs", nargs="+")
    sub.add_parser("worker")
    args = parser.parse_args()
    if args.command == "worker":
        return worker()
    return label(args) if args.command == "label" else check(args)


if __name__ == "__main__":
    sys.exit(main())
