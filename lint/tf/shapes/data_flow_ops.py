"""Shape functions of data-flow ops (TensorFlow's core/ops/data_flow_ops.cc)."""

from __future__ import annotations

from tflint.tf.shapes.algebra import (
    Shape,
    Unknown,
    merge,
    merge_prefix,
    subshape,
    with_rank,
    with_value,
)
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


def _stack(c: Context) -> list[Shape]:
    """StackV2 (`TwoElementOutput`): its handle's shape is a 2-vector, whatever its dtype."""
    c.expect_inputs(1)
    return [(2,)]


def _stack_push(c: Context) -> list[Shape]:
    c.expect_inputs(2)
    return [c.shapes[1]]


def _stack_pop(c: Context) -> list[Shape]:
    c.expect_inputs(1)
    return [None]


def _tensor_array_handle(c: Context) -> None:
    """The TensorArray handle at input 0 is a 2-vector."""
    handle = with_rank(c.shapes[0], 1, 0)
    with_value(handle[0], 2, 0)


def _tensor_array(c: Context) -> list[Shape]:
    """TensorArrayV3: a fully defined `element_shape` (any with `identical_element_shapes`) is the handle's data."""
    c.expect_inputs(1)
    with_rank(c.shapes[0], 0, 0)
    element_shape = c.attr_shape("element_shape")
    if c.attr("identical_element_shapes", "b") or (element_shape is not None and min(element_shape, default=0) >= 0):
        c.set_handle_data(0, c.attr("dtype", "type"), element_shape)
    return [(2,), ()]


def _tensor_array_grad(c: Context) -> list[Shape]:
    c.expect_inputs(2)
    _tensor_array_handle(c)
    data = c.handle_data(0)
    if data is not None:
        c.set_handle_data(0, data[0], data[1])
    return [(2,), ()]


def _element_shape(c: Context) -> Shape:
    """The element shape a TensorArray handle's data carries (unknown without)."""
    data = c.handle_data(0)
    return None if data is None else data[1]


def _tensor_array_write(c: Context) -> list[Shape]:
    c.expect_inputs(4)
    _tensor_array_handle(c)
    with_rank(c.shapes[1], 0, 1)
    with_rank(c.shapes[3], 0, 3)
    merge(_element_shape(c), c.shapes[2])
    return [()]


def _tensor_array_read(c: Context) -> list[Shape]:
    c.expect_inputs(3)
    _tensor_array_handle(c)
    with_rank(c.shapes[1], 0, 1)
    with_rank(c.shapes[2], 0, 2)
    return [_element_shape(c)]


def _tensor_array_gather(c: Context) -> list[Shape]:
    c.expect_inputs(3)
    indices = with_rank(c.shapes[1], 1, 1)
    _tensor_array_handle(c)
    with_rank(c.shapes[2], 0, 2)
    data = c.handle_data(0)
    element = data[1] if data is not None else c.attr_shape("element_shape")
    return [None if element is None else indices + element]


def _tensor_array_scatter(c: Context) -> list[Shape]:
    c.expect_inputs(4)
    with_rank(c.shapes[1], 1, 1)
    _tensor_array_handle(c)
    with_rank(c.shapes[3], 0, 3)
    element = _element_shape(c)
    if element is not None:
        merge(element, subshape(c.shapes[2], 1))
    return [()]


def _tensor_array_size(c: Context) -> list[Shape]:
    c.expect_inputs(2)
    _tensor_array_handle(c)
    return [()]


def _tensor_array_concat(c: Context) -> list[Shape]:
    c.expect_inputs(2)
    _tensor_array_handle(c)
    with_rank(c.shapes[1], 0, 1)
    return [None, (-1,)]


def _tensor_array_split(c: Context) -> list[Shape]:
    c.expect_inputs(4)
    _tensor_array_handle(c)
    with_rank(c.shapes[2], 1, 2)
    with_rank(c.shapes[3], 0, 3)
    return [()]


def _tensor_array_close(c: Context) -> list[Shape]:
    c.expect_inputs(1)
    _tensor_array_handle(c)
    return []


SHAPE_FNS: dict[str, ShapeFn] = {
    "StackV2": _stack,
    "StackPushV2": _stack_push,
    "StackPopV2": _stack_pop,
    "TensorArrayV3": _tensor_array,
    "TensorArrayGradV3": _tensor_array_grad,
    "TensorArrayWriteV3": _tensor_array_write,
    "TensorArrayReadV3": _tensor_array_read,
    "TensorArrayGatherV3": _tensor_array_gather,
    "TensorArrayScatterV3": _tensor_array_scatter,
    "TensorArraySizeV3": _tensor_array_size,
    "TensorArrayConcatV3": _tensor_array_concat,
    "TensorArraySplitV3": _tensor_array_split,
    "TensorArrayCloseV3": _tensor_array_close,
    "DynamicStitch": _dynamic_stitch,
    "ParallelDynamicStitch": _dynamic_stitch,
}
