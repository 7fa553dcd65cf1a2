"""Shape functions of tf.data iterator ops (TensorFlow's core/ops/dataset_ops.cc)."""

from __future__ import annotations

from tflint.tf.shapes.algebra import Shape, ShapeError, partial_shape, with_rank
from tflint.tf.shapes.context import Context, ShapeFn


def _iterator_get_next(c: Context) -> list[Shape]:
    """IteratorGetNext (`DatasetIteratorShape`): a scalar iterator; the outputs' shapes are `output_shapes`."""
    c.expect_inputs(1)
    with_rank(c.shapes[0], 0, 0)
    shapes = [partial_shape(proto) for proto in c.attr_list("output_shapes", "shape")]
    types = c.attr_list("output_types", "type")
    if len(shapes) != len(types):
        raise ShapeError(f"`output_shapes` must be the same length as `output_types` ({len(shapes)} vs. {len(types)}")
    return shapes


SHAPE_FNS: dict[str, ShapeFn] = {
    "IteratorGetNext": _iterator_get_next,
    "IteratorGetNextSync": _iterator_get_next,
}
