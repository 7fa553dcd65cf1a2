"""The shape algebra of TensorFlow's `InferenceContext` on plain tuples: merge, broadcast, ranks, constants.

A shape is a tuple of ints (-1 for an unknown dimension) or None (unknown rank).
"""

from __future__ import annotations

import struct
from typing import Any, overload

from tflint.tf.tensors import partial_shape_problem, tensor_content

Shape = tuple[int, ...] | None

# Constant tensors larger than this are never read as shape arguments (axes, shapes, perms).
MAX_CONST_ELEMENTS = 4096

# TensorFlow's kMaxDims (TensorShape::MaxDimensions).
MAX_RANK = 254


class ShapeError(Exception):
    """A shape function's error: TensorFlow rejects the node at import.

    `message` uses TensorFlow's wording for the fact; `input_index` names the
    data input the fact is about, when it is about one input.
    """

    def __init__(self, message: str, input_index: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.input_index = input_index


class Unknown(Exception):
    """Give up on a node: its outputs are unknown (a malformed attr or input, or an unhandled case)."""


def shape_text(shape: Shape) -> str:
    """A shape as TensorFlow prints it: `[2,?]`, `[]`, or `?` for an unknown rank."""
    if shape is None:
        return "?"
    return "[" + ",".join("?" if size < 0 else str(size) for size in shape) + "]"


# -- shape algebra (TensorFlow's InferenceContext, on plain tuples) -----------------------------


def compatible(a: Shape, b: Shape) -> bool:
    """TensorFlow's compatibility: ranks unknown or equal, and each pair of dims unknown or equal."""
    if a is None or b is None:
        return True
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if x != y and x >= 0 and y >= 0:
            return False
    return True


@overload
def merge(a: tuple[int, ...], b: Shape) -> tuple[int, ...]: ...
@overload
def merge(a: Shape, b: tuple[int, ...]) -> tuple[int, ...]: ...
@overload
def merge(a: Shape, b: Shape) -> Shape: ...
def merge(a: Shape, b: Shape) -> Shape:
    """The most precise shape compatible with both (`InferenceContext::Merge`); ShapeError if none."""
    if a is None:
        return b
    if b is None or a == b:
        return a
    if len(a) != len(b):
        raise ShapeError(f"Shapes must be equal rank, but are {len(a)} and {len(b)}")
    out = list(a)
    for position, (x, y) in enumerate(zip(a, b)):
        if x == y or y < 0:
            continue
        if x < 0:
            out[position] = y
            continue
        raise ShapeError(
            f"Dimension {position} in both shapes must be equal, but are {x} and {y}. "
            f"Shapes are {shape_text(a)} and {shape_text(b)}."
        )
    return tuple(out)


def merge_dim(x: int, y: int) -> int:
    """Two dimensions that must be equal (`Merge` of DimensionHandles)."""
    if x == y or y < 0:
        return x
    if x < 0:
        return y
    raise ShapeError(f"Dimensions must be equal, but are {x} and {y}")


def with_rank(shape: Shape, rank: int, index: int | None = None) -> tuple[int, ...]:
    """`WithRank`: the shape, known to have `rank` dims (unknown dims when its rank was unknown)."""
    if shape is None:
        if rank > MAX_RANK:
            raise Unknown  # TensorFlow would build an absurd shape; give up instead
        return (-1,) * rank
    if len(shape) != rank:
        raise ShapeError(f"Shape must be rank {rank} but is rank {len(shape)}", index)
    return shape


@overload
def with_rank_at_least(shape: tuple[int, ...], rank: int, index: int | None = None) -> tuple[int, ...]: ...
@overload
def with_rank_at_least(shape: Shape, rank: int, index: int | None = None) -> Shape: ...
def with_rank_at_least(shape: Shape, rank: int, index: int | None = None) -> Shape:
    """`WithRankAtLeast`: an unknown rank stays unknown."""
    if shape is not None and len(shape) < rank:
        raise ShapeError(f"Shape must be at least rank {rank} but is rank {len(shape)}", index)
    return shape


@overload
def with_rank_at_most(shape: tuple[int, ...], rank: int, index: int | None = None) -> tuple[int, ...]: ...
@overload
def with_rank_at_most(shape: Shape, rank: int, index: int | None = None) -> Shape: ...
def with_rank_at_most(shape: Shape, rank: int, index: int | None = None) -> Shape:
    """`WithRankAtMost`: an unknown rank stays unknown."""
    if shape is not None and len(shape) > rank:
        raise ShapeError(f"Shape must be at most rank {rank} but is rank {len(shape)}", index)
    return shape


def add(x: int, y: int) -> int:
    return -1 if x < 0 or y < 0 else x + y


def subtract(x: int, y: int) -> int:
    """`InferenceContext::Subtract`: a known negative result is an error."""
    if y == 0:
        return x
    if x < 0 or y < 0:
        return -1
    if x < y:
        raise ShapeError(f"Negative dimension size caused by subtracting {y} from {x}")
    return x - y


def multiply(x: int, y: int) -> int:
    if x == 0 or y == 0:
        return 0
    if x == 1:
        return y
    if y == 1:
        return x
    return -1 if x < 0 or y < 0 else x * y


def broadcast(x: Shape, y: Shape, incompatible_shape_error: bool = True) -> Shape:
    """TensorFlow's `BroadcastBinaryOpOutputShapeFnHelper`, dimension by dimension."""
    if x is None or y is None:
        return None
    rank_x = len(x)
    rank_y = len(y)
    if rank_x == rank_y and x == y:
        return x
    rank = max(rank_x, rank_y)
    x = (1,) * (rank - rank_x) + x
    padded_y = rank - rank_y
    y = (1,) * padded_y + y
    dims = []
    for position in range(rank):
        dim_x = x[position]
        dim_y = y[position]
        if dim_x < 0 or dim_y < 0:
            if dim_x > 1 or dim_y > 1:
                if not incompatible_shape_error:
                    return None
                dims.append(dim_x if dim_x > 1 else dim_y)
            elif dim_x == 1:
                dims.append(dim_y)
            elif dim_y == 1:
                dims.append(dim_x)
            elif dim_x < 0 and dim_y < 0:
                dims.append(-1)
            else:  # one unknown, the other 0
                if not incompatible_shape_error:
                    return None
                dims.append(-1)
        elif dim_x == 1 or dim_y == 1:
            dims.append(dim_y if dim_x == 1 and position >= padded_y else dim_x)
        elif dim_x == dim_y:
            dims.append(dim_x)
        else:
            if not incompatible_shape_error:
                return ()
            raise ShapeError(f"Dimensions must be equal, but are {dim_x} and {dim_y}")
    return tuple(dims)


def elements(shape: Shape) -> int:
    """The element count of a shape (`NumElements`): 0 with a known 0 dim, else -1 unless fully known."""
    if shape is None:
        return -1
    if 0 in shape:
        return 0
    count = 1
    for size in shape:
        if size < 0:
            return -1
        count *= size
    return count


# -- reading constants ---------------------------------------------------------------------------


def decode_ints(tensor: Any) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """(dims, flattened values) of an int32/int64 TensorProto, or None when TF might read it differently."""
    dtype = tensor.dtype
    if dtype not in (3, 9):
        return None
    shape = tensor.tensor_shape
    if shape.unknown_rank:
        return None
    dims = tuple(dim.size for dim in shape.dim)
    count = 1
    for size in dims:
        if size < 0:
            return None
        count *= size
    if count > MAX_CONST_ELEMENTS:
        return None
    content = tensor_content(tensor)
    if content:
        width = 4 if dtype == 3 else 8
        if len(content) != count * width:
            return None
        return dims, struct.unpack(f"<{count}{'i' if dtype == 3 else 'q'}", bytes(content))
    values = tensor.int_val if dtype == 3 else tensor.int64_val
    given = len(values)
    if given > count:
        return None
    if given == 0:
        return dims, (0,) * count
    values = tuple(values)
    if given < count:
        values += (values[-1],) * (count - given)  # TensorFlow repeats the last value
    return dims, values


class ConstValue:
    """An int32/int64 constant a shape function reads: its dims, flattened values and dtype (3 or 9)."""

    __slots__ = ("dims", "values", "dtype")

    def __init__(self, dims: tuple[int, ...], values: tuple[int, ...], dtype: int = 3) -> None:
        self.dims = dims
        self.values = values
        self.dtype = dtype


def partial_shape(proto: Any) -> Shape:
    """A TensorShapeProto as a partial shape; Unknown when TensorFlow would reject it."""
    dims = [dim.size for dim in proto.dim]
    if partial_shape_problem(dims, proto.unknown_rank) is not None:
        raise Unknown
    if proto.unknown_rank:
        return None
    return tuple(dims)


def with_value(dim: int, value: int, index: int | None = None) -> int:
    """`WithValue`: a dimension that must be `value` (an unknown one becomes it)."""
    if dim >= 0 and dim != value:
        raise ShapeError(f"Dimension must be {value} but is {dim}", index)
    return value


def divide(dim: int, divisor: int, evenly_divisible: bool = True) -> int:
    """`InferenceContext::Divide` by a known divisor."""
    if divisor == 1:
        return dim
    if divisor <= 0:
        raise ShapeError(f"Divisor must be positive but is {divisor}")
    if dim < 0:
        return -1
    if evenly_divisible and dim % divisor != 0:
        raise ShapeError(f"Dimension size must be evenly divisible by {divisor} but is {dim}")
    return dim // divisor


@overload
def subshape(shape: tuple[int, ...], start: int, end: int | None = None) -> tuple[int, ...]: ...
@overload
def subshape(shape: Shape, start: int, end: int | None = None) -> Shape: ...
def subshape(shape: Shape, start: int, end: int | None = None) -> Shape:
    """`InferenceContext::Subshape` (stride 1): dims [start, end), negative indices from the back."""
    if shape is None:
        return None
    rank = len(shape)
    first, last = start, rank if end is None else end
    first = min(first, rank)
    last = min(last, rank)
    if first < 0:
        first += rank
        if first < 0:
            raise ShapeError(f"Subshape start out of bounds: {start}, for shape with rank {rank}")
    if last < 0:
        last += rank
        if last < 0:
            raise ShapeError(f"Subshape end out of bounds: {end}, for shape with rank {rank}")
    if first > last:
        raise ShapeError(
            f"Subshape must have computed start <= end, but is {first} and {last} "
            f"(computed from start {start} and end {end} over shape with rank {rank})"
        )
    return shape[first:last]


def merge_prefix(shape: Shape, prefix: Shape) -> tuple[Shape, Shape]:
    """`MergePrefix`: `shape` starts with `prefix` (merged both ways)."""
    if shape is None or prefix is None:
        return shape, prefix
    known = with_rank_at_least(shape, len(prefix))
    merged = with_rank(merge(known[: len(prefix)], prefix), len(prefix))
    return merged + known[len(prefix) :], merged


@overload
def replace_dim(shape: tuple[int, ...], position: int, dim: int) -> tuple[int, ...]: ...
@overload
def replace_dim(shape: Shape, position: int, dim: int) -> Shape: ...
def replace_dim(shape: Shape, position: int, dim: int) -> Shape:
    """`ReplaceDim`: `shape` with the dim at `position` (negative from the back) replaced."""
    if shape is None:
        return None
    if position < 0:
        position += len(shape)
    return shape[:position] + (dim,) + shape[position + 1 :]
