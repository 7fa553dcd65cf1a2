"""Shape functions of data-flow ops (TensorFlow's core/ops/data_flow_ops.cc)."""

from __future__ import annotations

from tflint.tf.shapes.algebra import Shape, Unknown, merge, merge_prefix, subshape
from tflint.tf.shapes.context import Context, ShapeFn


def _dynamic_stitch(c: Context) -> list[Shape]:
    """DynamicStitch: data[i] starts with indices[i]'s shape; the rest is shared and follows the index count."""
    count = c.attr("N", "i")
    if count < 1 or len(c.shapes) != 2 * count:
        raise Unknown
    all_constant = True
    largest = -1
    extra: Shape = None
    for index in range(count):
        value = c.const(index)
        if value is None:
            all_constant = False
        indices = c.shapes[index]
        if indices is None:
            continue
        data = c.shapes[index + count]
        merge_prefix(data, indices)
        extra = merge(extra, subshape(data, len(indices)))
        if value is not None and value.values:
            largest = max(largest, max(value.values))
    if extra is None:
        return [None]
    return [((largest + 1) if all_constant else -1,) + extra]


SHAPE_FNS: dict[str, ShapeFn] = {
    "DynamicStitch": _dynamic_stitch,
    "ParallelDynamicStitch": _dynamic_stitch,
}
