"""Shape functions of random ops (TensorFlow's core/ops/random_ops.cc)."""

from __future__ import annotations

from tflint.tf.shapes.algebra import (
    Shape,
)
from tflint.tf.shapes.common import (
    shape_from_const,
)
from tflint.tf.shapes.context import Context, ShapeFn


def _random_shape(c: Context) -> list[Shape]:
    """RandomUniform, RandomStandardNormal, TruncatedNormal: the shape is input 0's value."""
    c.expect_inputs(1)
    return [shape_from_const(c, 0)]


SHAPE_FNS: dict[str, ShapeFn] = {
    "RandomUniform": _random_shape,
    "RandomStandardNormal": _random_shape,
    "TruncatedNormal": _random_shape,
}
