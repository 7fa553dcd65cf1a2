"""Shape functions of random ops (TensorFlow's core/ops/random_ops.cc)."""

from __future__ import annotations

from tflint.tf.shapes.algebra import (
    Shape,
    with_rank,
)
from tflint.tf.shapes.common import (
    scalar_input_size,
    shape_from_const,
)
from tflint.tf.shapes.context import Context, ShapeFn


def _random_shape(c: Context) -> list[Shape]:
    """RandomUniform, RandomStandardNormal, TruncatedNormal: the shape is input 0's value."""
    c.expect_inputs(1)
    return [shape_from_const(c, 0)]


def _random_uniform_int(c: Context) -> list[Shape]:
    """RandomUniformInt: scalar bounds, and the shape is input 0's value."""
    c.expect_inputs(3)
    with_rank(c.shapes[1], 0, 1)
    with_rank(c.shapes[2], 0, 2)
    return [shape_from_const(c, 0)]


def _multinomial(c: Context) -> list[Shape]:
    c.expect_inputs(2)
    logits = with_rank(c.shapes[0], 2, 0)
    with_rank(c.shapes[1], 0, 1)
    return [(logits[0], scalar_input_size(c, 1))]


SHAPE_FNS: dict[str, ShapeFn] = {
    "RandomUniform": _random_shape,
    "RandomUniformInt": _random_uniform_int,
    "RandomStandardNormal": _random_shape,
    "TruncatedNormal": _random_shape,
    "Multinomial": _multinomial,
}
