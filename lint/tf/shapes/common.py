"""Shape functions and helpers shared by op families (TensorFlow's core/framework/common_shape_fns.cc)."""

from __future__ import annotations

from tflint.tf.shapes.algebra import (
    MAX_RANK,
    Shape,
    ShapeError,
    Unknown,
    add,
    broadcast,
    merge,
    subtract,
    with_rank,
    with_rank_at_least,
    with_rank_at_most,
)
from tflint.tf.shapes.constants import NOT_PARTIAL
from tflint.tf.shapes.context import Context


def unchanged(c: Context) -> list[Shape]:
    shapes = c.shapes
    if len(shapes) != 1:
        raise Unknown
    return shapes


def unchanged_rank_at_least_1(c: Context) -> list[Shape]:
    c.expect_inputs(1)
    return [with_rank_at_least(c.shapes[0], 1, 0)]


def broadcast_binary(c: Context) -> list[Shape]:
    shapes = c.shapes
    if len(shapes) != 2:
        raise Unknown
    x, y = shapes
    return [x if x == y else broadcast(x, y)]


def merged_inputs(c: Context) -> Shape:
    """The one shape all inputs must share, merged from the last input back as TensorFlow does."""
    shapes = c.shapes
    if not shapes:
        raise Unknown
    current = shapes[-1]
    for index in range(len(shapes) - 2, -1, -1):
        try:
            current = merge(shapes[index], current)
        except ShapeError as error:
            raise ShapeError(f"{error.message.rstrip('.')} (merging input {index} with the others)") from None
    return current


def scalar(c: Context) -> list[Shape]:
    return [()]


def explicit_shape(c: Context) -> list[Shape]:
    return [c.attr_shape("shape")]


def read_data_format(c: Context, name: str = "data_format") -> str:
    """The data_format attr, read leniently like TensorFlow (a missing attr means NHWC)."""
    value = c.node.attr.get(name)
    if value is None:
        default = c.inference.graph.attr_default(c.schema, name)
        if default is None:
            return "NHWC"
        value = default
    if value.WhichOneof("value") != "s":
        raise Unknown
    text: str = value.s.decode("utf-8", "replace")
    return text


def windowed_output(
    size: int, window: int, dilation: int, stride: int, padding: str, before: int = 0, after: int = 0
) -> int:
    """`GetWindowedOutputSizeFromDimsV2`: one spatial output dimension of a convolution."""
    if stride <= 0:
        raise ShapeError(f"Stride must be > 0, but got {stride}")
    if dilation < 1:
        raise ShapeError(f"Dilation rate must be >= 1, but got {dilation}")
    if padding == "SAME":
        out = add(size, stride - 1)
        return -1 if out < 0 else out // stride
    if padding == "VALID":
        before = after = 0
    size = add(size, before + after)
    if dilation > 1:
        window = subtract(window, 1)
        window = -1 if window < 0 else window * dilation + 1
    out = subtract(size, window)
    out = add(out, stride)
    return -1 if out < 0 else out // stride


def explicit_paddings(c: Context, padding: bytes, data_format: str) -> tuple[int, ...]:
    """`CheckValidPadding` for a 4-D convolution; the explicit paddings (empty unless EXPLICIT)."""
    paddings = c.attr_ints("explicit_paddings")
    if padding != b"EXPLICIT":
        if paddings:
            raise ShapeError("explicit_paddings attribute must be empty if the padding attribute is not EXPLICIT")
        return paddings
    if len(paddings) != 8:
        raise ShapeError(f"explicit_paddings attribute must contain 8 values, but got: {len(paddings)}")
    if any(value < 0 for value in paddings):
        raise ShapeError("All explicit_paddings must be nonnegative")
    depth = 3 if data_format == "NHWC" else 1
    if paddings[0] or paddings[1] or paddings[2 * depth] or paddings[2 * depth + 1]:
        raise ShapeError("Nonzero explicit padding in the batch or depth dimensions is not supported")
    return paddings


def shape_from_const(c: Context, index: int) -> Shape:
    """`MakeShapeFromShapeTensor`: input `index` must be a vector; the shape is what is known of its value.

    Shape, Pack, ConcatV2 and Cast producers are read element by element, as TensorFlow's
    refiner does (constants.partial_shape_value); any other producer must evaluate to a
    constant (a Const, or a small integer subgraph), whose elements must be >= -1.
    """
    shape_of_shape = with_rank(c.shapes[index], 1, index)
    partial = c.partial(index)
    if partial is None or (partial != NOT_PARTIAL and len(partial) > MAX_RANK):
        size = shape_of_shape[0]
        return None if size < 0 or size > MAX_RANK else (-1,) * size
    if partial != NOT_PARTIAL:
        return with_rank(partial, shape_of_shape[0], index) if shape_of_shape[0] >= 0 else partial
    value = c.const(index)
    if value is None:
        size = shape_of_shape[0]
        return None if size < 0 or size > MAX_RANK else (-1,) * size
    if len(value.dims) != 1:
        raise Unknown
    for size in value.values:
        if size < -1:
            raise ShapeError(f"Invalid value in tensor used for shape: {size}", index)
    return value.values


def shape_or_unknown_from_const(c: Context, index: int) -> Shape:
    """`MakeShapeFromShapeTensorTreatScalarAsUnknownShape`: a shape vector, or the scalar -1 for an unknown shape."""
    given = with_rank_at_most(c.shapes[index], 1, index)
    if given is None or len(given) == 1:
        return shape_from_const(c, index)
    value = c.const(index)
    if value is not None and value.values[0] != -1:
        raise ShapeError(
            "Input tensor must be rank 1, or if its rank 0 it must have value -1 (representing an unknown shape). "
            f"Saw value: {value.values[0]}",
            index,
        )
    return None


def scalar_input_dim(c: Context, index: int, rank: int) -> int:
    """`MakeDimForScalarInputWithNegativeIndexing`: a constant scalar axis, wrapped; -1 when unknown."""
    value = c.const(index)
    if value is None:
        return -1
    if value.dims:
        raise ShapeError(f"Input must be a scalar but has rank {len(value.dims)}", index)
    axis = value.values[0]
    if axis < 0:
        if rank < 0:
            return -1
        if axis + rank < 0:
            raise ShapeError(f"Dimension size, given by scalar input {axis} must be in range [-{rank}, {rank})", index)
        return axis + rank
    if 0 < rank <= axis:
        raise ShapeError(f"Dimension size, given by scalar input {axis} must be in range [-{rank}, {rank})", index)
    return axis


def scalar_input_size(c: Context, index: int) -> int:
    """`MakeDimForScalarInput`: a constant scalar input read as a size (-1 when not a constant)."""
    value = c.const(index)
    if value is None:
        return -1
    if value.dims:
        raise ShapeError(f"Input must be scalar but has rank {len(value.dims)}", index)
    size = value.values[0]
    if size < 0:
        raise ShapeError(f"Dimension size, given by scalar input {index}, must be non-negative but is {size}", index)
    return size


def merge_both(c: Context) -> list[Shape]:
    """`MergeBothInputsShapeFn`: two inputs of one shape (the gradients of element-wise ops)."""
    c.expect_inputs(2)
    return [merge(c.shapes[0], c.shapes[1])]


def no_outputs(c: Context) -> list[Shape]:
    """`NoOutputs`: nothing to infer, nothing to check."""
    return []


def unknown_outputs(c: Context) -> list[Shape]:
    """`UnknownShape` for every output (one per output of the node's signature)."""
    raise Unknown


def int_attr(c: Context, name: str) -> int:
    """An int attr TensorFlow reads as int32 (give up outside that range)."""
    value: int = c.attr(name, "i")
    if not -(1 << 31) <= value < (1 << 31):
        raise Unknown
    return value
