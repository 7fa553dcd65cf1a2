"""Shape functions of TF1 control-flow ops (TensorFlow's core/ops/control_flow_ops.cc)."""

from __future__ import annotations

from tflint.tf.shapes.algebra import (
    Shape,
    Unknown,
    with_rank,
)
from tflint.tf.shapes.common import (
    no_outputs,
    unchanged,
)
from tflint.tf.shapes.context import Context, ShapeFn


def _switch(c: Context) -> list[Shape]:
    c.expect_inputs(2)
    with_rank(c.shapes[1], 0, 1)
    return [c.shapes[0], c.shapes[0]]


def _merge(c: Context) -> list[Shape]:
    """Merge: the inputs' shapes relaxed to what they share (`MergeShape`).

    A loop's back edge (from a NextIteration) does not exist yet when
    TensorFlow's importer reaches the Merge, so it counts as unknown and so
    does the loop Merge's output.
    """
    shapes = c.shapes
    if not shapes:
        raise Unknown
    first = shapes[0]
    if first is None:
        return [None, ()]
    out = list(first)
    for shape in shapes[1:]:
        if shape is None or len(shape) != len(out):
            return [None, ()]
        for position, size in enumerate(shape):
            if size != out[position]:
                out[position] = -1
    return [tuple(out), ()]


def _enter(c: Context) -> list[Shape]:
    c.expect_inputs(1)
    return [c.shapes[0] if c.attr("is_constant", "b") else None]


def _loop_cond(c: Context) -> list[Shape]:
    c.expect_inputs(1)
    return [with_rank(c.shapes[0], 0, 0)]


SHAPE_FNS: dict[str, ShapeFn] = {
    "Switch": _switch,
    "RefSwitch": _switch,
    "Merge": _merge,
    "RefMerge": _merge,
    "Enter": _enter,
    "RefEnter": unchanged,
    "Exit": unchanged,
    "RefExit": unchanged,
    "NextIteration": unchanged,
    "RefNextIteration": unchanged,
    "LoopCond": _loop_cond,
    "ControlTrigger": no_outputs,
}
