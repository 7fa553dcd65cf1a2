"""Shape functions of reference-variable ops (TensorFlow's core/ops/state_ops.cc)."""

from __future__ import annotations

from tflint.tf.shapes.algebra import (
    Shape,
    merge,
)
from tflint.tf.shapes.common import (
    explicit_shape,
    scalar,
)
from tflint.tf.shapes.context import Context, ShapeFn


def _variable_v1(c: Context) -> list[Shape]:
    """Variable (v1): a scalar shape attr means an unknown shape."""
    shape = c.attr_shape("shape")
    return [shape if shape else None]


def _assign(c: Context) -> list[Shape]:
    c.expect_inputs(2)
    if c.attr("validate_shape", "b"):
        return [merge(c.shapes[0], c.shapes[1])]
    return [c.shapes[1]]


def _merge_both(c: Context) -> list[Shape]:
    c.expect_inputs(2)
    return [merge(c.shapes[0], c.shapes[1])]


SHAPE_FNS: dict[str, ShapeFn] = {
    "VariableV2": explicit_shape,
    "Variable": _variable_v1,
    "Assign": _assign,
    "IsVariableInitialized": scalar,
    "AssignAdd": _merge_both,
    "AssignSub": _merge_both,
}
