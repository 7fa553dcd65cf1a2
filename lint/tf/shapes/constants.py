"""Constant evaluation of small integer subgraphs, as TensorFlow's refiner does for shape arguments.

When a shape function asks for an input's value (`InferenceContext::input_tensor`: a reshape's
shape, a reduction's axes, a split's sizes) TensorFlow's `ShapeRefiner` evaluates the constant
subgraph that produces it, not only a direct `Const`: `Identity` chains, `Shape` / `Size` /
`Rank` of inputs whose shapes it knows, and small integer computations on them (`Pack`,
`StridedSlice`, `ConcatV2`, `Cast`, scalar arithmetic), the pattern
`Shape -> StridedSlice -> Pack -> Reshape` of dynamic reshapes. Inside a called function's
body, an argument's value is the caller's (when the caller's input is such a constant).

This module replays the integer part of that for int32/int64 tensors of at most
`MAX_CONST_ELEMENTS` elements, `MAX_DEPTH` producers deep; each (node, output) is evaluated
once per graph, so the work stays linear. Anything else (other ops, other dtypes, malformed
attrs, a value this module would compute differently from a kernel) is "not a constant":
a shape function then knows less than TensorFlow, never more.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from tflint.tf.shapes.algebra import MAX_CONST_ELEMENTS, ConstValue, Shape, ShapeError, Unknown, decode_ints
from tflint.tf.shapes.refiner import Refiner
from tflint.tf.shapes.strided_slice import validate_strided_slice

if TYPE_CHECKING:
    from tflint.tf.node import Input, Node

# How many producers deep a value is followed.
MAX_DEPTH = 16
_INT32 = 3
_INT64 = 9
_INT32_RANGE = (-(1 << 31), (1 << 31) - 1)
_INT64_RANGE = (-(1 << 63), (1 << 63) - 1)
_FORWARDING_OPS = frozenset({"Identity", "Snapshot", "StopGradient", "PreventGradient"})

Evaluator = Callable[["Refiner", "Node", int, int], "ConstValue | None"]
# partial_shape_value's answer for a producer TensorFlow reads as a whole tensor, not element by element.
NOT_PARTIAL = "not-partial"


def evaluate(inference: Refiner, item: Input, depth: int = 0) -> ConstValue | None:
    """The value of the tensor `item` reads, when it is a small integer constant (memoized per graph)."""
    producer = inference.producer_of(item)
    if producer is None or item.is_control or depth > MAX_DEPTH:
        return None
    key = (producer.ordinal, item.index)
    cache = inference.values
    if key in cache:
        return cache[key]
    evaluator = _EVALUATORS.get(producer.op)
    found = None
    if evaluator is not None and inference.has_shape_fn(producer.op):
        try:
            found = evaluator(inference, producer, item.index, depth + 1)
        except (Unknown, ShapeError, ArithmeticError, IndexError, ValueError, TypeError):
            found = None
    if found is not None and _count(found.dims) > MAX_CONST_ELEMENTS:
        found = None
    cache[key] = found
    return found


def partial_shape_value(inference: Refiner, item: Input, depth: int = 0) -> Shape | str:
    """A shape argument as TensorFlow's refiner reads it element by element (`ConstantPartialShape`).

    For a Shape / ShapeN producer, the shape it takes (dimensions may be unknown); for a Pack,
    each scalar that evaluates to a constant (a negative one is an unknown dimension, not an
    error); for a ConcatV2, its parts; for a Cast, its value or its input's partial shape.
    None when nothing is known; NOT_PARTIAL for any other producer, whose whole value counts
    (`evaluate`).
    """
    producer = inference.producer_of(item)
    if producer is None or item.is_control or depth > MAX_DEPTH or not inference.has_shape_fn(producer.op):
        return NOT_PARTIAL
    op = producer.op
    inputs = _data_inputs(producer)
    if op in ("Shape", "ShapeN"):
        position = item.index if op == "ShapeN" else 0
        if position >= len(inputs) or (op == "Shape" and item.index != 0):
            return None
        return inference.input_shape(inputs[position])
    if op == "Pack":
        if item.index != 0 or _int_attr(producer, "axis", 0) not in (0, -1):
            return None
        dims = []
        for part in inputs:
            value = evaluate(inference, part, depth + 1)
            dims.append(-1 if value is None or value.dims or value.values[0] < 0 else value.values[0])
        return tuple(dims)
    if op in ("Concat", "ConcatV2"):
        if item.index != 0 or len(inputs) < 2:
            return None
        parts = inputs[1:] if op == "Concat" else inputs[:-1]
        out: tuple[int, ...] = ()
        for part in parts:
            sub = partial_shape_value(inference, part, depth + 1)
            if sub is NOT_PARTIAL:
                value = evaluate(inference, part, depth + 1)
                if value is None or len(value.dims) != 1:
                    return None
                sub = tuple(size if size >= 0 else -1 for size in value.values)
            if sub is None:
                return None
            out += sub  # type: ignore[operator]
        return out
    if op == "Cast":
        value = evaluate(inference, item, depth + 1)
        if value is not None:
            return NOT_PARTIAL
        if len(inputs) != 1:
            return None
        before = partial_shape_value(inference, inputs[0], depth + 1)
        if before is NOT_PARTIAL or before is None:
            return None
        if _type_attr(producer, "DstT") not in (_INT32, _INT64):
            return (-1,) * len(before)
        return before
    return NOT_PARTIAL


def _count(dims: tuple[int, ...]) -> int:
    count = 1
    for size in dims:
        count *= size
    return count


def _type_attr(node: Node, name: str) -> int | None:
    value = node.attr.get(name)
    if value is None or value.WhichOneof("value") != "type":
        return None
    dtype: int = value.type
    return dtype


def _int_attr(node: Node, name: str, default: int | None = None) -> int | None:
    value = node.attr.get(name)
    if value is None:
        return default
    if value.WhichOneof("value") != "i":
        return None
    number: int = value.i
    return number


def _data_inputs(node: Node) -> list[Input]:
    return [item for item in node.inputs if not item.is_control]


def _fits(values: tuple[int, ...], dtype: int) -> bool:
    low, high = _INT32_RANGE if dtype == _INT32 else _INT64_RANGE
    return all(low <= value <= high for value in values)


def _const(inference: Refiner, node: Node, index: int, depth: int) -> ConstValue | None:
    if index != 0:
        return None
    value = node.attr.get("value")
    dtype = _type_attr(node, "dtype")
    if dtype is None or value is None or value.WhichOneof("value") != "tensor" or value.tensor.dtype != dtype:
        return None
    decoded = decode_ints(value.tensor)
    return None if decoded is None else ConstValue(*decoded, dtype)


def _argument(inference: Refiner, node: Node, index: int, depth: int) -> ConstValue | None:
    """A function argument: the caller's value, when it is a constant (`InferShapesForFunction`'s outer context)."""
    return inference.argument_value(node) if index == 0 else None


def _forward(inference: Refiner, node: Node, index: int, depth: int) -> ConstValue | None:
    inputs = _data_inputs(node)
    if index != 0 or len(inputs) != 1:
        return None
    return evaluate(inference, inputs[0], depth)


def _shape(inference: Refiner, node: Node, index: int, depth: int) -> ConstValue | None:
    """Shape / ShapeN of fully known shapes; Size and Rank of what is known of them."""
    inputs = _data_inputs(node)
    if node.op == "ShapeN":
        if index >= len(inputs):
            return None
        inputs = inputs[index : index + 1]
    elif index != 0 or len(inputs) != 1:
        return None
    shape = inference.input_shape(inputs[0])
    if shape is None:
        return None
    if node.op == "Rank":
        return ConstValue((), (len(shape),), _INT32)
    dtype = _type_attr(node, "out_type")
    if dtype not in (_INT32, _INT64):
        return None
    if any(size < 0 for size in shape):
        return None
    if node.op == "Size":
        values: tuple[int, ...] = (_count(shape),)
        dims: tuple[int, ...] = ()
    else:
        values = tuple(shape)
        dims = (len(shape),)
    return ConstValue(dims, values, dtype) if _fits(values, dtype) else None


def _pack(inference: Refiner, node: Node, index: int, depth: int) -> ConstValue | None:
    """Pack of scalars (axis 0 or -1): a vector."""
    inputs = _data_inputs(node)
    if index != 0 or not inputs or _int_attr(node, "axis", 0) not in (0, -1):
        return None
    dtype = _type_attr(node, "T")
    if dtype is None:
        return None
    values = []
    for item in inputs:
        value = evaluate(inference, item, depth)
        if value is None or value.dims or value.dtype != dtype:
            return None
        values.append(value.values[0])
    return ConstValue((len(values),), tuple(values), dtype)


def _concat(inference: Refiner, node: Node, index: int, depth: int) -> ConstValue | None:
    """ConcatV2 of vectors along axis 0."""
    inputs = _data_inputs(node)
    if index != 0 or len(inputs) < 2:
        return None
    axis = evaluate(inference, inputs[-1], depth)
    if axis is None or axis.dims or axis.values[0] not in (0, -1):
        return None
    dtype = _type_attr(node, "T")
    if dtype is None:
        return None
    values: list[int] = []
    for item in inputs[:-1]:
        value = evaluate(inference, item, depth)
        if value is None or len(value.dims) != 1 or value.dtype != dtype:
            return None
        values.extend(value.values)
    return ConstValue((len(values),), tuple(values), dtype)


def _strided_slice(inference: Refiner, node: Node, index: int, depth: int) -> ConstValue | None:
    """StridedSlice of a vector with constant begin, end and strides (no ellipsis or new axis)."""
    inputs = _data_inputs(node)
    if index != 0 or len(inputs) != 4:
        return None
    tensor, begin, end, strides = (evaluate(inference, item, depth) for item in inputs)
    if tensor is None or begin is None or end is None or strides is None:
        return None
    read = [_int_attr(node, name, 0) for name in _MASKS]
    masks = [mask for mask in read if mask is not None]
    if len(tensor.dims) != 1 or len(masks) != len(read) or masks[2] or masks[3]:
        return None
    begin_mask, end_mask, _, _, shrink_mask = masks
    out_dims = validate_strided_slice(begin, end, strides, tensor.dims, *masks)
    if out_dims is None or len(strides.values) != 1:
        return None
    start = None if begin_mask & 1 else begin.values[0]
    stop = None if end_mask & 1 else end.values[0]
    step = strides.values[0]
    if shrink_mask & 1:
        # TensorFlow ignores the masks of a shrunk axis; validate_strided_slice checked the bounds.
        position = begin.values[0]
        if position < 0:
            position += len(tensor.values)
        return ConstValue((), (tensor.values[position],), tensor.dtype)
    picked = tensor.values[slice(start, stop, step)]
    if (len(picked),) != out_dims:
        return None  # not what TensorFlow's kernel would give: stay unknown
    return ConstValue((len(picked),), tuple(picked), tensor.dtype)


_MASKS = ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask")


def _cast(inference: Refiner, node: Node, index: int, depth: int) -> ConstValue | None:
    inputs = _data_inputs(node)
    target = _type_attr(node, "DstT")
    if index != 0 or len(inputs) != 1 or target is None or target not in (_INT32, _INT64):
        return None
    value = evaluate(inference, inputs[0], depth)
    if value is None or not _fits(value.values, target):
        return None
    return ConstValue(value.dims, value.values, target)


def _arithmetic(inference: Refiner, node: Node, index: int, depth: int) -> ConstValue | None:
    """Add / Sub / Mul / FloorDiv of two integer scalars (in range of their dtype)."""
    inputs = _data_inputs(node)
    if index != 0 or len(inputs) != 2:
        return None
    x = evaluate(inference, inputs[0], depth)
    y = evaluate(inference, inputs[1], depth)
    if x is None or y is None or x.dims or y.dims or x.dtype != y.dtype:
        return None
    a, b = x.values[0], y.values[0]
    op = node.op
    if op in ("Add", "AddV2"):
        result = a + b
    elif op == "Sub":
        result = a - b
    elif op == "Mul":
        result = a * b
    elif op == "FloorDiv" and b != 0:
        result = a // b
    else:
        return None
    return ConstValue((), (result,), x.dtype) if _fits((result,), x.dtype) else None


def _range(inference: Refiner, node: Node, index: int, depth: int) -> ConstValue | None:
    """Range of integer scalars (the axes of `tf.reduce_*(x)` over all dimensions: Range(0, Rank(x), 1))."""
    inputs = _data_inputs(node)
    if index != 0 or len(inputs) != 3:
        return None
    values = [evaluate(inference, item, depth) for item in inputs]
    if any(value is None or value.dims for value in values):
        return None
    start, limit, delta = (value.values[0] for value in values)  # type: ignore[union-attr]
    dtype = _type_attr(node, "Tidx")
    if delta == 0 or dtype is None or dtype not in (_INT32, _INT64) or (limit - start) * delta < 0:
        return None
    count = (abs(limit - start) + abs(delta) - 1) // abs(delta)
    if count > MAX_CONST_ELEMENTS:
        return None
    return ConstValue((count,), tuple(range(start, limit, delta)), dtype)


_EVALUATORS: dict[str, Evaluator] = {
    "Const": _const,
    "_Arg": _argument,
    **{op: _forward for op in _FORWARDING_OPS},
    "Shape": _shape,
    "ShapeN": _shape,
    "Size": _shape,
    "Rank": _shape,
    "Pack": _pack,
    "ConcatV2": _concat,
    "StridedSlice": _strided_slice,
    "Cast": _cast,
    "Add": _arithmetic,
    "AddV2": _arithmetic,
    "Sub": _arithmetic,
    "Mul": _arithmetic,
    "FloorDiv": _arithmetic,
    "Range": _range,
}
