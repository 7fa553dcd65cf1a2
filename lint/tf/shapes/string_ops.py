"""Shape functions of string ops (TensorFlow's core/ops/string_ops.cc)."""

from __future__ import annotations

from tflint.tf.shapes.algebra import Shape, merge
from tflint.tf.shapes.common import scalar, unchanged
from tflint.tf.shapes.context import Context, ShapeFn


def _string_join(c: Context) -> list[Shape]:
    """StringJoin: scalars broadcast; every other input of known rank has the output's shape."""
    shapes = c.shapes
    if all(shape == () for shape in shapes):
        return [()]
    out: Shape = None
    for shape in shapes:
        if shape is not None and shape != ():
            out = merge(out, shape)
    return [out]


SHAPE_FNS: dict[str, ShapeFn] = {
    "StringJoin": _string_join,
    "StaticRegexFullMatch": unchanged,
    "StringToHashBucketFast": unchanged,
    "AsString": unchanged,
    "StringFormat": scalar,  # always a scalar, whatever the inputs (TensorFlow 2.21)
    "StringLower": unchanged,
    "StringUpper": unchanged,
    "StringStrip": unchanged,
    "StaticRegexReplace": unchanged,
    "StringLength": unchanged,
    "StringToNumber": unchanged,
}
