"""Shape functions of function arguments and results (TensorFlow's core/ops/function_ops.cc)."""

from __future__ import annotations

from tflint.tf.shapes.common import no_outputs, unknown_outputs
from tflint.tf.shapes.context import ShapeFn

SHAPE_FNS: dict[str, ShapeFn] = {
    # An argument's shape is its `_output_shapes` entry, else unknown: the refinement does that.
    "_Arg": unknown_outputs,
    "_Retval": no_outputs,
}
