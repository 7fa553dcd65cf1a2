"""Shape functions of TensorList ops (TensorFlow's core/ops/list_ops.cc).

A list handle is a scalar variant; what TensorFlow knows of its elements (their dtype and a
partial shape) travels as the handle's data, set by the op that makes the list (its
`element_shape` input or attr) and read by the ops that use it. Here it is recorded per
output (`Context.set_handle_data`) and followed through Identity nodes only: TensorFlow also
forwards it through control flow and function calls, so it may know more, never less.
"""

from __future__ import annotations

from collections.abc import Callable

from tflint.tf.attrs import type_name
from tflint.tf.shapes.algebra import Shape, ShapeError, Unknown, merge, subshape, with_rank, with_rank_at_least
from tflint.tf.shapes.common import shape_or_unknown_from_const
from tflint.tf.shapes.context import Context, ShapeFn

_DTYPE = "element_dtype"


def _list_data(c: Context, verb: str, wanted: str = "but trying to push element with type") -> Shape:
    """The list's element shape from input 0's handle data (unknown without), its dtype checked against the attr."""
    return _checked_element_shape(
        c,
        lambda dtype, element: (
            f"Trying to {verb} list with wrong element dtype. List has type {type_name(dtype)} "
            f"{wanted} {type_name(element)}"
        ),
    )


def _expected_dtype(c: Context) -> Shape:
    """`GetItem`/`Gather`'s check: "Expected list with element dtype ..." (the list's shape, unknown without data)."""
    return _checked_element_shape(
        c,
        lambda dtype, element: (
            f"Expected list with element dtype {type_name(element)} but got list with element dtype {type_name(dtype)}"
        ),
    )


def _checked_element_shape(c: Context, mismatch: Callable[[int, int], str]) -> Shape:
    """Input 0's handle data: its element shape (None without), ShapeError(mismatch(list dtype, attr dtype)) if
    the list's dtype is not the `element_dtype` attr's."""
    data = c.handle_data(0)
    if data is None:
        return None
    dtype, shape = data
    element_dtype = c.attr(_DTYPE, "type")
    if dtype != element_dtype:
        raise ShapeError(mismatch(dtype, element_dtype), 0)
    return shape


def _new_list(c: Context, shape_index: int) -> list[Shape]:
    """EmptyTensorList / TensorListReserve / TensorListScatter(V2): a list of `element_shape` elements."""
    element_shape = shape_or_unknown_from_const(c, shape_index)
    c.set_handle_data(0, c.attr(_DTYPE, "type"), element_shape)
    return [()]


def _empty(c: Context) -> list[Shape]:
    c.expect_inputs(2)
    return _new_list(c, 0)


def _scatter(c: Context) -> list[Shape]:
    if len(c.shapes) not in (3, 4):  # TensorListScatter, TensorListScatterV2 (with num_elements)
        raise Unknown
    return _new_list(c, 2)


def _push_back(c: Context) -> list[Shape]:
    c.expect_inputs(2)
    shape = _list_data(c, "push to")
    c.set_handle_data(0, c.attr(_DTYPE, "type"), shape)
    return [()]


def _push_back_batch(c: Context) -> list[Shape]:
    c.expect_inputs(2)
    handles = with_rank(c.shapes[0], 1, 0)
    tensor = with_rank_at_least(c.shapes[1], 1, 1)
    if tensor is not None:
        handles = merge(handles, tensor[:1])
    shape = _list_data(c, "push to")
    c.set_handle_data(0, c.attr(_DTYPE, "type"), shape)
    return [handles]


def _pop_back(c: Context) -> list[Shape]:
    c.expect_inputs(2)
    data = c.handle_data(0)
    shape = _list_data(c, "read from")
    if data is not None:
        c.set_handle_data(0, data[0], data[1])
    return [(), shape]


def _stack(c: Context) -> list[Shape]:
    c.expect_inputs(2)
    element_shape = _list_data(c, "read from", "but expected type")
    element_shape = merge(element_shape, shape_or_unknown_from_const(c, 1))
    count = c.attr("num_elements", "i")
    if element_shape is None:
        return [None]
    return [(count if count >= 0 else -1,) + element_shape]


def _concat_shapes(c: Context, element_shape: Shape) -> list[Shape]:
    """`TensorListConcatShapeInference`: the elements joined along their first dimension, and their lengths."""
    element_shape = merge(element_shape, _list_data(c, "read from", "but expected type"))
    if element_shape is None:
        return [None, (-1,)]
    return [(-1,) + element_shape[1:], (-1,)]


def _concat(c: Context) -> list[Shape]:
    c.expect_inputs(1)
    return _concat_shapes(c, c.attr_shape("element_shape"))


def _concat_v2(c: Context) -> list[Shape]:
    c.expect_inputs(3)
    return _concat_shapes(c, shape_or_unknown_from_const(c, 1))


def _split(c: Context) -> list[Shape]:
    c.expect_inputs(3)
    tensor = with_rank_at_least(c.shapes[0], 1, 0)
    with_rank(c.shapes[2], 1, 2)
    element_shape = shape_or_unknown_from_const(c, 1)
    from_tensor = None if tensor is None else (-1,) + tensor[1:]
    merge(from_tensor, element_shape)
    c.set_handle_data(0, c.attr(_DTYPE, "type"), element_shape)
    return [()]


def _from_tensor(c: Context) -> list[Shape]:
    c.expect_inputs(2)
    tensor = c.shapes[0]
    element_shape = shape_or_unknown_from_const(c, 1)
    merge(subshape(tensor, 1), element_shape)
    c.set_handle_data(0, c.attr(_DTYPE, "type"), element_shape)
    return [()]


def _element_shape(c: Context) -> list[Shape]:
    c.expect_inputs(1)
    data = c.handle_data(0)
    if data is None or data[1] is None:
        return [None]
    return [(len(data[1]),)]


def _get_item(c: Context) -> list[Shape]:
    c.expect_inputs(3)
    element_shape = _expected_dtype(c)
    return [merge(element_shape, shape_or_unknown_from_const(c, 2))]


def _gather(c: Context) -> list[Shape]:
    c.expect_inputs(3)
    element_shape = merge(_expected_dtype(c), shape_or_unknown_from_const(c, 2))
    indices = c.shapes[1]
    if indices is None or element_shape is None:
        return [None]
    return [indices + element_shape]


def _resize(c: Context) -> list[Shape]:
    c.expect_inputs(2)
    with_rank(c.shapes[1], 0, 1)
    data = c.handle_data(0)
    if data is not None:
        c.set_handle_data(0, data[0], data[1])
    return [()]


def _set_item(c: Context) -> list[Shape]:
    c.expect_inputs(3)
    data = c.handle_data(0)
    if data is None:
        c.set_handle_data(0, c.attr(_DTYPE, "type"), None)
        return [()]
    merge(c.shapes[2], data[1])
    c.set_handle_data(0, data[0], data[1])
    return [()]


def _scatter_into_existing(c: Context) -> list[Shape]:
    c.expect_inputs(3)
    with_rank_at_least(c.shapes[1], 1, 1)
    with_rank(c.shapes[2], 1, 2)
    data = c.handle_data(0)
    element_dtype = c.attr(_DTYPE, "type")
    shape: Shape = None
    if data is not None:
        if data[0] != element_dtype:
            raise ShapeError(
                f"Expected list with element dtype {type_name(element_dtype)} but got list with element dtype "
                f"{type_name(data[0])}",
                0,
            )
        shape = data[1]
    c.set_handle_data(0, element_dtype, shape)
    return [()]


def _scalar_length(c: Context) -> list[Shape]:
    c.expect_inputs(1)
    return [()]


SHAPE_FNS: dict[str, ShapeFn] = {
    "EmptyTensorList": _empty,
    "TensorListReserve": _empty,
    "TensorListScatter": _scatter,
    "TensorListScatterV2": _scatter,
    "TensorListPushBack": _push_back,
    "TensorListPushBackBatch": _push_back_batch,
    "TensorListPopBack": _pop_back,
    "TensorListLength": _scalar_length,
    "TensorListStack": _stack,
    "TensorListConcat": _concat,
    "TensorListConcatV2": _concat_v2,
    "TensorListSplit": _split,
    "TensorListFromTensor": _from_tensor,
    "TensorListElementShape": _element_shape,
    "TensorListGetItem": _get_item,
    "TensorListGather": _gather,
    "TensorListResize": _resize,
    "TensorListSetItem": _set_item,
    "TensorListScatterIntoExistingList": _scatter_into_existing,
}
