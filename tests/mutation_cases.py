"""Real graphs broken one way at a time (and legal-but-tricky variants that must stay clean).

Each case edits a GraphDef-like message in place using field names only, so
the same table runs on tflint's messages in the suite and on TensorFlow's own
in tools/check_mutations_with_tf.py, which confirms TensorFlow's verdict.
`expected` lists the (rule, node) errors tflint must report, exactly; an
empty list means the variant is legal and TensorFlow imports it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

CONTROL_FLOW = "d_tf1_control_flow_v1.pb"
KERAS_CNN = "b_keras_cnn_frozen.pb"


@dataclass(frozen=True)
class Mutation:
    """One edit of a real graph and the errors it must produce."""

    id: str
    graph: str
    edit: Callable[[Any], None]
    expected: tuple[tuple[str, str], ...]


def node(graph: Any, name: str) -> Any:
    return next(n for n in graph.node if n.name == name)


def _rename(graph: Any, old: str, new: str) -> None:
    """Rename a node and every reference to it."""
    node(graph, old).name = new
    for n in graph.node:
        for i, raw in enumerate(n.input):
            base = raw.lstrip("^").split(":")[0]
            if base == old:
                n.input[i] = raw.replace(old, new, 1)


def _set_input(graph: Any, name: str, index: int, value: str) -> None:
    node(graph, name).input[index] = value


def _set_type(graph: Any, name: str, attr: str, value: int) -> None:
    node(graph, name).attr[attr].type = value


def _duplicate_name(graph: Any) -> None:
    node(graph, "cond/switch_f").name = "cond/switch_t"


def _add_input(graph: Any, name: str, value: str) -> None:
    node(graph, name).input.append(value)


def _delete_attr(graph: Any, name: str, attr: str) -> None:
    del node(graph, name).attr[attr]


def _move_control_first(graph: Any) -> None:
    n = node(graph, "outer/inner/add/y")
    n.input.append("outer/inner/Identity")  # a data input after the control one
    # Const takes no data inputs either: both problems are real


def _break_loop(graph: Any) -> None:
    # Without the NextIteration input the Merge waits on itself through the loop: a plain cycle.
    n = node(graph, "outer/Merge")
    n.input[1] = "outer/Switch"


FLOAT, INT32, INT64 = 1, 3, 9

MUTATIONS = [
    # --- broken ---------------------------------------------------------------------
    Mutation(
        "duplicate-name",
        CONTROL_FLOW,
        _duplicate_name,
        (("duplicate-node-name", "cond/switch_t"), ("unresolved-input", "cond/sub/y")),
    ),
    Mutation(
        "dangling-input",
        CONTROL_FLOW,
        lambda g: _set_input(g, "result", 0, "cond/Merged"),
        (("unresolved-input", "result"),),
    ),
    Mutation(
        "dangling-control-input",
        CONTROL_FLOW,
        lambda g: _set_input(g, "outer/Const", 0, "^outer/Identityy"),
        (("unresolved-input", "outer/Const"),),
    ),
    Mutation(
        "unknown-op", CONTROL_FLOW, lambda g: setattr(node(g, "result"), "op", "Identiti"), (("unknown-op", "result"),)
    ),
    Mutation("empty-op", CONTROL_FLOW, lambda g: setattr(node(g, "result"), "op", ""), (("empty-op", "result"),)),
    Mutation(
        "bad-node-name", CONTROL_FLOW, lambda g: _rename(g, "result", "_result"), (("node-name-syntax", "_result"),)
    ),
    Mutation(
        "output-index",
        CONTROL_FLOW,
        lambda g: _set_input(g, "result", 0, "cond/Merge:2"),
        (("output-index-out-of-range", "result"),),
    ),
    Mutation(
        "dtype-along-edge",
        CONTROL_FLOW,
        lambda g: _set_type(g, "result", "T", INT32),
        (("type-attr-consistency", "result"),),
    ),
    Mutation(
        "missing-required-attr", CONTROL_FLOW, lambda g: _delete_attr(g, "result", "T"), (("missing-attr", "result"),)
    ),
    Mutation("too-many-inputs", CONTROL_FLOW, lambda g: _add_input(g, "result", "Const"), (("input-count", "result"),)),
    Mutation(
        "control-before-data",
        CONTROL_FLOW,
        _move_control_first,
        (("control-input-order", "outer/inner/add/y"), ("input-count", "outer/inner/add/y")),
    ),
    Mutation("cycle-without-next-iteration", CONTROL_FLOW, _break_loop, (("cycle", "outer/Merge"),)),
    Mutation(
        "control-input-with-index",
        CONTROL_FLOW,
        lambda g: _set_input(g, "outer/Const", 0, "^outer/Identity:0"),
        (("input-syntax", "outer/Const"), ("unresolved-input", "outer/Const")),
    ),
    Mutation(
        "malformed-device",
        CONTROL_FLOW,
        lambda g: setattr(node(g, "result"), "device", "/device:GPU:x"),
        (("device-spec-syntax", "result"),),
    ),
    Mutation(
        "colocation-unknown",
        CONTROL_FLOW,
        lambda g: node(g, "result").attr["_class"].list.s.append(b"loc:@nowhere"),
        (("colocation-unresolved", "result"),),
    ),
    Mutation(
        "type-not-allowed",
        CONTROL_FLOW,
        lambda g: _set_type(g, "Greater", "T", 7),
        (("allowed-values", "Greater"), ("type-attr-consistency", "Greater")),
    ),
    Mutation(
        "attr-kind",
        KERAS_CNN,
        lambda g: setattr(node(g, "image").attr["dtype"], "i", 1),
        (("attr-type-mismatch", "image"),),
    ),
    Mutation(
        "const-dtype-vs-tensor",
        KERAS_CNN,
        lambda g: _set_type(g, "small_cnn_1/conv1_1/Reshape/shape", "dtype", INT64),
        (
            ("tensor-content", "small_cnn_1/conv1_1/Reshape/shape"),
            ("type-attr-consistency", "small_cnn_1/conv1_1/Reshape"),
        ),
    ),
    Mutation(
        "const-without-value",
        KERAS_CNN,
        lambda g: _delete_attr(g, "small_cnn_1/bn1_1/batchnorm/add/y", "value"),
        (
            ("missing-attr", "small_cnn_1/bn1_1/batchnorm/add/y"),
            ("tensor-content", "small_cnn_1/bn1_1/batchnorm/add/y"),
        ),
    ),
    Mutation(
        "min-consumer-too-new",
        CONTROL_FLOW,
        lambda g: setattr(g.versions, "min_consumer", 100000),
        (("graph-version", ""),),
    ),
    # --- legal but tricky: TensorFlow imports these ------------------------------------
    Mutation("explicit-output-zero", CONTROL_FLOW, lambda g: _set_input(g, "result", 0, "cond/Merge:0"), ()),
    Mutation("leading-zero-index", CONTROL_FLOW, lambda g: _set_input(g, "outer/Identity", 0, "outer/Switch:01"), ()),
    Mutation("legacy-device", CONTROL_FLOW, lambda g: setattr(node(g, "result"), "device", "/cpu:0"), ()),
    Mutation(
        "star-device",
        CONTROL_FLOW,
        lambda g: setattr(node(g, "result"), "device", "/job:worker/replica:0/task:0/device:GPU:*"),
        (),
    ),
    Mutation("internal-attr", CONTROL_FLOW, lambda g: setattr(node(g, "result").attr["_tflint_internal"], "i", 3), ()),
    Mutation("names-with-dash-dot-angle", CONTROL_FLOW, lambda g: _rename(g, "result", "out-1.v2>final"), ()),
    Mutation(
        "duplicate-data-inputs", CONTROL_FLOW, lambda g: _set_input(g, "outer/inner/add", 1, "outer/inner/Identity"), ()
    ),
    Mutation(
        "omitted-default-attr",
        KERAS_CNN,
        lambda g: [n.attr.pop("data_format", None) for n in g.node if n.op == "Conv2D"],
        (),
    ),
]
