"""Partial shape inference over a graph, the way TensorFlow's importer runs it (`ShapeRefiner`).

When TensorFlow imports a GraphDef it runs each node's C++ shape function in
topological order (`GraphConstructor::ValidateShape`): an error aborts the
import (`Shape must be rank 1 but is rank 0 for '{{node X}} = ...'`), and a
node's `_output_shapes` entries are then merged into the inferred shapes
(`Node 'X' has an _output_shapes attribute inconsistent with the GraphDef
for output #0: ...`); consumers see the merged shapes.

This module replays that for the top-level graph with shape functions for a
set of common ops (`SHAPE_FNS`), each checked against TensorFlow 2.21 on
randomly generated graphs. A shape is a tuple of ints (-1 for an unknown
dimension) or None (unknown rank). The rule of the game is never to know
more than TensorFlow does:

- an op without a shape function here gets unknown outputs, refined by its
  `_output_shapes` as in TensorFlow; so do function calls (TensorFlow 2.21
  infers through the called function's body, so it may know more) and
  nodes whose attrs or inputs are malformed (other rules report those);
- a loop `Merge` reads its back edge (from a `NextIteration`) as unknown, as
  TensorFlow does because that edge does not exist yet when it gets there,
  so its output is unknown and loops need no other special case;
- constant inputs (a reshape's shape, a reduction's axes) are read only from
  a direct `Const` producer, a variable's shape only from a `VarHandleOp`
  reached through `Identity` nodes; TensorFlow also folds small constant
  subgraphs and forwards handle data further, so it may know more, never less;
- a shape function raises `ShapeError` only on known facts that contradict
  it, exactly where TensorFlow's returns an error.

So every error found here is one TensorFlow reports too, and a shape
inferred here is at most as precise as TensorFlow's. Evaluation is
iterative (an explicit stack, no recursion) and linear in nodes + edges;
`infer_shapes(graph)` computes it once per GraphIndex.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import Any, cast

from tflint.tf.attrs import type_name
from tflint.tf.index import MERGE_OPS, NEXT_ITERATION_OPS, GraphIndex, Input, Node
from tflint.tf.op_signatures import MAX_ARG_LENGTH, signatures
from tflint.tf.registry import OpSchema
from tflint.tf.tensors import partial_shape_problem

Shape = tuple[int, ...] | None

OUTPUT_SHAPES = "_output_shapes"
# Constant tensors larger than this are never read as shape arguments (axes, shapes, perms).
MAX_CONST_ELEMENTS = 4096
# TensorFlow's kMaxDims (TensorShape::MaxDimensions).
MAX_RANK = 254


# -- errors --------------------------------------------------------------------------------------


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


# -- shape algebra (TensorFlow's InferenceContext, on plain tuples) -----------------------------


def shape_text(shape: Shape) -> str:
    """A shape as TensorFlow prints it: `[2,?]`, `[]`, or `?` for an unknown rank."""
    if shape is None:
        return "?"
    return "[" + ",".join("?" if size < 0 else str(size) for size in shape) + "]"


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
            f"Dimension {position} in both shapes must be equal, but are {x} and {y}. Shapes are {shape_text(a)} and {shape_text(b)}."
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


def with_rank_at_least(shape: Shape, rank: int, index: int | None = None) -> Shape:
    """`WithRankAtLeast`: an unknown rank stays unknown."""
    if shape is not None and len(shape) < rank:
        raise ShapeError(f"Shape must be at least rank {rank} but is rank {len(shape)}", index)
    return shape


def with_rank_at_most(shape: Shape, rank: int, index: int | None = None) -> Shape:
    """`WithRankAtMost`: an unknown rank stays unknown."""
    if shape is not None and len(shape) > rank:
        raise ShapeError(f"Shape must be at most rank {rank} but is rank {len(shape)}", index)
    return shape


def _add(x: int, y: int) -> int:
    return -1 if x < 0 or y < 0 else x + y


def _subtract(x: int, y: int) -> int:
    """`InferenceContext::Subtract`: a known negative result is an error."""
    if y == 0:
        return x
    if x < 0 or y < 0:
        return -1
    if x < y:
        raise ShapeError(f"Negative dimension size caused by subtracting {y} from {x}")
    return x - y


def _multiply(x: int, y: int) -> int:
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


def _elements(shape: Shape) -> int:
    """The element count of a shape, -1 unless fully known."""
    if shape is None:
        return -1
    count = 1
    for size in shape:
        if size < 0:
            return -1
        count *= size
    return count


# -- reading attrs and constants -----------------------------------------------------------------


def _decode_ints(tensor: Any) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
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
    content = tensor.tensor_content
    if content:
        width = 4 if dtype == 3 else 8
        if len(content) != count * width:
            return None
        return dims, struct.unpack(f"<{count}{'i' if dtype == 3 else 'q'}", content)
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
    """An int32/int64 constant a shape function reads: its dims and flattened values."""

    __slots__ = ("dims", "values")

    def __init__(self, dims: tuple[int, ...], values: tuple[int, ...]) -> None:
        self.dims = dims
        self.values = values


# -- per-node context ----------------------------------------------------------------------------


class Context:
    """What a shape function sees of one node: input shapes, constant inputs, attrs.

    One Context serves every node in turn (its fields are reset per node), so
    the hot loop allocates nothing for it.
    """

    __slots__ = ("inference", "node", "shapes", "inputs", "_schema", "consts_read", "read_handles")

    def __init__(self, inference: ShapeInference) -> None:
        self.inference = inference
        self.node: Any = None
        self.shapes: list[Shape] = []
        self.inputs: Any = ()
        self._schema: OpSchema | None = None
        # What the shape function looked at beyond the node's op, attrs and input shapes:
        # the inputs whose Const values it read (in order), and whether it followed a
        # variable's handle (a result that is then never memoized).
        self.consts_read: list[int] = []
        self.read_handles = False

    @property
    def schema(self) -> OpSchema:
        """The node's OpDef schema (for attr defaults)."""
        if self._schema is None:
            schema = self.inference.graph.schema_for(self.node.op)
            if schema is None:
                raise Unknown
            self._schema = schema
        return self._schema

    @property
    def producer(self) -> int:
        """The graph's producer version, as TensorFlow's refiner sees it."""
        return self.inference.producer

    def expect_inputs(self, count: int) -> None:
        """Give up unless the node has exactly `count` data inputs (input-count's finding otherwise)."""
        if len(self.shapes) != count:
            raise Unknown

    def const(self, index: int) -> ConstValue | None:
        """The value of data input `index` when a Const produces it directly, else None."""
        self.consts_read.append(index)
        return self.inference.const_value(self.inputs[index])

    def var_handle(self, index: int) -> tuple[int, Shape] | None:
        """(dtype, shape) of the variable whose handle data input `index` carries, else None."""
        self.read_handles = True
        return self.inference.var_handle(self.inputs[index])

    def _value(self, name: str) -> Any:
        """The node's AttrValue for `name`, else the OpDef default (TensorFlow fills it at import); else give up."""
        value = self.node.attr.get(name)
        if value is None:
            value = self.inference.graph.attr_default(self.schema, name)
            if value is None:
                raise Unknown
        return value

    def attr(self, name: str, kind: str) -> Any:
        """Attr `name` (or its default) when its AttrValue holds a `kind`; else give up."""
        value = self._value(name)
        if value.WhichOneof("value") != kind:
            raise Unknown
        return getattr(value, kind)

    def attr_ints(self, name: str) -> tuple[int, ...]:
        """A list(int) attr (or its default); an empty AttrValue is an empty list, as in TensorFlow."""
        return tuple(self.attr_list(name, "i"))

    def attr_list(self, name: str, field: str) -> list[Any]:
        """A list attr's `field` elements (types, shapes, strings, ints), or give up."""
        value = self._value(name)
        kind = value.WhichOneof("value")
        if kind is None:
            return []
        if kind != "list" or any(item.name != field for item, _ in value.list.ListFields()):
            raise Unknown
        return list(getattr(value.list, field))

    def attr_shape(self, name: str) -> Shape:
        """A shape attr as a partial shape; give up on an invalid one (invalid-shape reports it)."""
        return partial_shape(self.attr(name, "shape"))


def partial_shape(proto: Any) -> Shape:
    """A TensorShapeProto as a partial shape; Unknown when TensorFlow would reject it."""
    dims = [dim.size for dim in proto.dim]
    if partial_shape_problem(dims, proto.unknown_rank) is not None:
        raise Unknown
    if proto.unknown_rank:
        return None
    return tuple(dims)


# -- shape functions -------------------------------------------------------------------------------
#
# Each takes a Context and returns the shapes of all outputs (a list), or raises ShapeError
# (TensorFlow rejects the node) or Unknown (outputs unknown). They follow TensorFlow's C++
# shape functions (core/ops/*.cc, core/framework/common_shape_fns.cc) step by step, so that
# errors come in TensorFlow's order.

ShapeFn = Callable[[Context], list[Shape]]


def _unchanged(c: Context) -> list[Shape]:
    shapes = c.shapes
    if len(shapes) != 1:
        raise Unknown
    return shapes


def _unchanged_rank_at_least_1(c: Context) -> list[Shape]:
    c.expect_inputs(1)
    return [with_rank_at_least(c.shapes[0], 1, 0)]


def _broadcast_binary(c: Context) -> list[Shape]:
    shapes = c.shapes
    if len(shapes) != 2:
        raise Unknown
    x, y = shapes
    return [x if x == y else broadcast(x, y)]


def _broadcast_comparison(c: Context) -> list[Shape]:
    """Equal / NotEqual: `incompatible_shape_error=false` turns a mismatch into an unknown or scalar result."""
    c.expect_inputs(2)
    return [broadcast(c.shapes[0], c.shapes[1], c.attr("incompatible_shape_error", "b"))]


def _merge_all(c: Context) -> list[Shape]:
    """AddN: every input has the same shape."""
    return [_merged_inputs(c)]


def _merged_inputs(c: Context) -> Shape:
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


def _merge_both(c: Context) -> list[Shape]:
    c.expect_inputs(2)
    return [merge(c.shapes[0], c.shapes[1])]


def _scalar(c: Context) -> list[Shape]:
    return [()]


def _shape_of(c: Context) -> list[Shape]:
    """Shape / ShapeN: a vector as long as each input's rank."""
    return [(-1,) if shape is None else (len(shape),) for shape in c.shapes]


def _const(c: Context) -> list[Shape]:
    value = c.node.attr.get("value")
    if value is None or value.WhichOneof("value") != "tensor":
        raise Unknown
    shape = value.tensor.tensor_shape
    if shape.unknown_rank:
        raise Unknown
    dims = tuple([dim.size for dim in shape.dim])
    if dims and (min(dims) < 0 or len(dims) > MAX_RANK):
        raise Unknown  # tensor-content / invalid-shape report these
    return [dims]


def _placeholder(c: Context) -> list[Shape]:
    shape = c.attr_shape("shape")
    # Legacy: graphs up to version 21 cannot tell a scalar shape attr from an unknown one.
    if c.producer <= 21 and not shape:
        return [None]
    return [shape]


def _explicit_shape(c: Context) -> list[Shape]:
    return [c.attr_shape("shape")]


def _variable_v1(c: Context) -> list[Shape]:
    """Variable (v1): a scalar shape attr means an unknown shape."""
    shape = c.attr_shape("shape")
    return [shape if shape else None]


def _placeholder_with_default(c: Context) -> list[Shape]:
    c.expect_inputs(1)
    declared = c.attr_shape("shape")
    merge(c.shapes[0], declared)  # checked, but the declared shape is the output
    return [declared]


def _ensure_shape(c: Context) -> list[Shape]:
    c.expect_inputs(1)
    desired = c.attr_shape("shape")
    if desired is None:
        # TensorFlow asks for rank PartialTensorShape::dims() = -1: only an unknown rank passes.
        if c.shapes[0] is not None:
            raise ShapeError(f"Shape must be rank -1 but is rank {len(c.shapes[0])}", 0)
        return [None]
    return [merge(desired, with_rank(c.shapes[0], len(desired), 0))]


def _assign(c: Context) -> list[Shape]:
    c.expect_inputs(2)
    if c.attr("validate_shape", "b"):
        return [merge(c.shapes[0], c.shapes[1])]
    return [c.shapes[1]]


def _matmul(c: Context) -> list[Shape]:
    c.expect_inputs(2)
    a = with_rank(c.shapes[0], 2, 0)
    b = with_rank(c.shapes[1], 2, 1)
    transpose_a = c.attr("transpose_a", "b")
    transpose_b = c.attr("transpose_b", "b")
    rows = a[1] if transpose_a else a[0]
    cols = b[0] if transpose_b else b[1]
    merge_dim(a[0] if transpose_a else a[1], b[1] if transpose_b else b[0])
    return [(rows, cols)]


def _batch_matmul(c: Context, broadcast_batch: bool) -> list[Shape]:
    c.expect_inputs(2)
    a = with_rank_at_least(c.shapes[0], 2, 0)
    b = with_rank_at_least(c.shapes[1], 2, 1)
    adj_x = c.attr("adj_x", "b")
    adj_y = c.attr("adj_y", "b")
    rows = -1 if a is None else a[-1 if adj_x else -2]
    cols = -1 if b is None else b[-2 if adj_y else -1]
    if broadcast_batch:
        merge_dim(-1 if a is None else a[-2 if adj_x else -1], -1 if b is None else b[-1 if adj_y else -2])
        batch = broadcast(None if a is None else a[:-2], None if b is None else b[:-2])
    else:
        batch = merge(None if a is None else a[:-2], None if b is None else b[:-2])
        merge_dim(-1 if a is None else a[-2 if adj_x else -1], -1 if b is None else b[-1 if adj_y else -2])
    if batch is None:
        return [None]
    return [batch + (rows, cols)]


def _batch_matmul_v1(c: Context) -> list[Shape]:
    return _batch_matmul(c, broadcast_batch=False)


def _batch_matmul_v2(c: Context) -> list[Shape]:
    return _batch_matmul(c, broadcast_batch=True)


def _data_format(c: Context, name: str = "data_format") -> str:
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


def _bias_add(c: Context) -> list[Shape]:
    c.expect_inputs(2)
    nchw = _data_format(c) == "NCHW"
    value = with_rank_at_least(c.shapes[0], 3 if nchw else 2, 0)
    bias = with_rank(c.shapes[1], 1, 1)
    if value is None:
        return [None]
    if nchw:
        return [value[:1] + (merge_dim(value[1], bias[0]),) + value[2:]]
    return [value[:-1] + (merge_dim(value[-1], bias[0]),)]


def _windowed_output(
    size: int, window: int, dilation: int, stride: int, padding: str, before: int = 0, after: int = 0
) -> int:
    """`GetWindowedOutputSizeFromDimsV2`: one spatial output dimension of a convolution."""
    if stride <= 0:
        raise ShapeError(f"Stride must be > 0, but got {stride}")
    if dilation < 1:
        raise ShapeError(f"Dilation rate must be >= 1, but got {dilation}")
    if padding == "SAME":
        out = _add(size, stride - 1)
        return -1 if out < 0 else out // stride
    if padding == "VALID":
        before = after = 0
    size = _add(size, before + after)
    if dilation > 1:
        window = _subtract(window, 1)
        window = -1 if window < 0 else window * dilation + 1
    out = _subtract(size, window)
    out = _add(out, stride)
    return -1 if out < 0 else out // stride


def _explicit_paddings(c: Context, padding: bytes, data_format: str) -> tuple[int, ...]:
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


def _conv2d(c: Context) -> list[Shape]:
    c.expect_inputs(2)
    data_format = _data_format(c)
    if data_format not in ("NHWC", "NCHW"):
        raise Unknown
    value = c.node.attr.get("filter_format")
    if value is not None and (value.WhichOneof("value") != "s" or value.s != b"HWIO"):
        raise Unknown
    image = with_rank(c.shapes[0], 4, 0)
    kernel = with_rank(c.shapes[1], 4, 1)
    dilations = c.attr_ints("dilations")
    if len(dilations) != 4:
        raise ShapeError(f"Conv2D requires the dilation attribute to contain 4 values, but got: {len(dilations)}")
    strides = c.attr_ints("strides")
    if len(strides) != 4:
        raise ShapeError(
            f"Conv2D on data format {data_format} requires the stride attribute to contain 4 values, but got: {len(strides)}"
        )
    if data_format == "NHWC":
        batch, rows, cols, depth = image
        stride_rows, stride_cols = strides[1], strides[2]
        dilation_rows, dilation_cols = dilations[1], dilations[2]
    else:
        batch, depth, rows, cols = image
        stride_rows, stride_cols = strides[2], strides[3]
        dilation_rows, dilation_cols = dilations[2], dilations[3]
    if not all(-(1 << 31) <= value < (1 << 31) for value in strides + dilations):
        raise Unknown  # TensorFlow reads them as int32
    filter_rows, filter_cols, filter_depth, out_depth = kernel
    if depth >= 0 and filter_depth >= 0:
        if filter_depth == 0:
            raise ShapeError("Depth of filter must not be 0")
        if depth % filter_depth != 0:
            raise ShapeError(f"Depth of input ({depth}) is not a multiple of input depth of filter ({filter_depth})")
        groups = depth // filter_depth
        if depth != filter_depth and out_depth >= 0:
            if groups == 0:
                raise ShapeError("Number of groups must not be 0")
            if out_depth % groups != 0:
                raise ShapeError(f"Depth of output ({out_depth}) is not a multiple of the number of groups ({groups})")
    padding = c.attr("padding", "s")
    if padding not in (b"SAME", b"VALID", b"EXPLICIT"):
        raise Unknown
    paddings = _explicit_paddings(c, padding, data_format)
    mode = padding.decode()
    row_index = 1 if data_format == "NHWC" else 2
    pad_rows = paddings[2 * row_index : 2 * row_index + 2] if paddings else (0, 0)
    pad_cols = paddings[2 * row_index + 2 : 2 * row_index + 4] if paddings else (0, 0)
    if any(value >= (1 << 31) for value in pad_rows + pad_cols):
        raise Unknown
    out_rows = _windowed_output(rows, filter_rows, dilation_rows, stride_rows, mode, *pad_rows)
    out_cols = _windowed_output(cols, filter_cols, dilation_cols, stride_cols, mode, *pad_cols)
    if data_format == "NHWC":
        return [(batch, out_rows, out_cols, out_depth)]
    return [(batch, out_depth, out_rows, out_cols)]


def _shape_from_const(c: Context, index: int) -> Shape:
    """`MakeShapeFromShapeTensor`: input `index` must be a vector; its value (if a Const) is the shape."""
    shape_of_shape = with_rank(c.shapes[index], 1, index)
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


def _known_elements(shape: tuple[int, ...]) -> tuple[int, int, bool]:
    """TensorFlow's reshape bookkeeping: (known element count, index of the one unknown dim or -1, too many unknown).

    A known 0 dim makes the count known (0) whatever the other dims are (`NumElements`).
    """
    if 0 in shape:
        return 0, -1, False
    count = 1
    unknown = -1
    for position, size in enumerate(shape):
        if size < 0:
            if unknown >= 0:
                return count, unknown, True
            unknown = position
        else:
            count *= size
    return count, unknown, False


def _reshape(c: Context) -> list[Shape]:
    c.expect_inputs(2)
    out = _shape_from_const(c, 1)
    if out is None:
        return [None]
    given = c.shapes[0]
    if given is None:
        return [out]
    known_out, out_unknown, too_many_out = _known_elements(out)
    known_in, in_unknown, too_many_in = _known_elements(given)
    if too_many_out or too_many_in:
        return [out]
    if in_unknown < 0 and out_unknown < 0:
        if known_in != known_out:
            raise ShapeError(
                f"Cannot reshape a tensor with {known_in} elements to shape {shape_text(out)} ({known_out} elements)"
            )
    elif in_unknown < 0 and out_unknown >= 0 and known_out > 0:
        if known_in % known_out != 0:
            raise ShapeError(f"Dimension size must be evenly divisible by {known_out} but is {known_in}")
        out = out[:out_unknown] + (known_in // known_out,) + out[out_unknown + 1 :]
    elif in_unknown >= 0 and out_unknown < 0 and known_in != 0:
        if known_out % known_in != 0:
            raise ShapeError(f"Dimension size must be evenly divisible by {known_in} but is {known_out}")
    return [out]


def _concat_common(c: Context, values: list[Shape], axis_index: int) -> list[Shape]:
    with_rank(c.shapes[axis_index], 0, axis_index)
    axis_value = c.const(axis_index)
    if axis_value is None:
        rank = next((len(shape) for shape in values if shape is not None), None)
        if rank is None:
            return [None]
        if rank == 0:
            raise ShapeError("Can't concatenate scalars (use tf.stack instead)")
        for offset, shape in enumerate(values):
            with_rank(shape, rank, _value_index(axis_index, offset))
        return [(-1,) * rank]
    if len(axis_value.values) != 1:
        raise Unknown
    axis = axis_value.values[0]
    min_rank = -axis if axis < 0 else axis + 1
    if min_rank > MAX_RANK + 1 or not values:
        raise Unknown
    last = len(values) - 1
    shape = with_rank_at_least(values[last], min_rank, _value_index(axis_index, last))
    before, middle, after = _split_at(shape, axis)
    for offset in range(last - 1, -1, -1):
        shape = with_rank_at_least(values[offset], min_rank, _value_index(axis_index, offset))
        other_before, other_middle, other_after = _split_at(shape, axis)
        before = merge(other_before, before)
        middle = _add(middle, other_middle)
        after = merge(other_after, after)
    if before is None or after is None:
        return [None]
    return [before + (middle,) + after]


def _value_index(axis_index: int, offset: int) -> int:
    """The data input index of the `offset`-th value of a concat (its axis comes first or last)."""
    return offset + 1 if axis_index == 0 else offset


def _split_at(shape: Shape, axis: int) -> tuple[Shape, int, Shape]:
    """(dims before `axis`, the dim at `axis`, dims after) like TF's Subshape calls; None parts when the rank is unknown."""
    if shape is None:
        return None, -1, None
    rank = len(shape)
    position = axis + rank if axis < 0 else axis
    return shape[:position], shape[position], shape[position + 1 :]


def _concat_v2(c: Context) -> list[Shape]:
    if len(c.shapes) < 2:
        raise Unknown
    return _concat_common(c, c.shapes[:-1], len(c.shapes) - 1)


def _concat_v1(c: Context) -> list[Shape]:
    if len(c.shapes) < 2:
        raise Unknown
    return _concat_common(c, c.shapes[1:], 0)


def _pack(c: Context) -> list[Shape]:
    current = _merged_inputs(c)
    shapes = c.shapes
    if current is None:
        return [None]
    rank = len(current) + 1
    axis = c.attr("axis", "i")
    if axis < -rank or axis >= rank:
        raise ShapeError(f"Invalid axis: {axis}; must be in [{-rank},{rank})")
    if axis < 0:
        axis += rank
    return [current[:axis] + (len(shapes),) + current[axis:]]


def _unpack(c: Context) -> list[Shape]:
    c.expect_inputs(1)
    count = c.attr("num", "i")
    if count < 0 or count > MAX_ARG_LENGTH:
        raise Unknown  # beyond the bound, no list of `count` shapes is built (input-count says so)
    shape = c.shapes[0]
    if shape is None:
        return [None] * count
    rank = len(shape)
    axis = c.attr("axis", "i")
    if axis < -rank or axis >= rank:
        raise ShapeError(f"Invalid axis: {axis}; must be in [{-rank},{rank})")
    if axis < 0:
        axis += rank
    if shape[axis] >= 0 and shape[axis] != count:
        raise ShapeError(f"Dimension must be {count} but is {shape[axis]}", 0)
    out = shape[:axis] + shape[axis + 1 :]
    return [out] * count


def _expand_dims(c: Context) -> list[Shape]:
    c.expect_inputs(2)
    value = c.const(1)
    if value is not None and len(value.values) != 1:
        raise ShapeError("'dim' input must be a tensor with a single value")
    shape = c.shapes[0]
    if value is None or shape is None:
        return [None]
    dim = value.values[0]
    rank = len(shape)
    if dim < -rank - 1 or dim > rank:
        raise ShapeError(f"dim {dim} not in the interval [{-rank - 1}, {rank}].")
    if dim < 0:
        dim += rank + 1
    return [shape[:dim] + (1,) + shape[dim:]]


def _squeeze(c: Context) -> list[Shape]:
    c.expect_inputs(1)
    shape = c.shapes[0]
    if shape is None:
        return [None]
    rank = len(shape)
    wanted = []
    for position, dim in enumerate(c.attr_ints("squeeze_dims")):
        if dim < -(1 << 31) or dim >= (1 << 31):
            raise Unknown  # read as int32
        if dim < -rank or dim >= rank:
            raise ShapeError(f"squeeze_dims[{position}] not in [{-rank},{rank}).")
        wanted.append(dim + rank if dim < 0 else dim)
    out = []
    for position, size in enumerate(shape):
        explicit = position in wanted
        if size < 0:
            if explicit:
                continue
            if not wanted:
                return [None]
        elif size == 1:
            if explicit or not wanted:
                continue
        elif explicit:
            raise ShapeError(f"Can not squeeze dim[{position}], expected a dimension of 1, got {size}")
        out.append(size)
    return [tuple(out)]


def _reduction(c: Context) -> list[Shape]:
    c.expect_inputs(2)
    shape = c.shapes[0]
    if c.producer >= 21:
        with_rank_at_most(c.shapes[1], 1, 1)
    keep_dims = c.attr("keep_dims", "b")
    axes = c.const(1)
    if axes is None or shape is None:
        if keep_dims and shape is not None:
            return [(-1,) * len(shape)]
        return [None]
    rank = len(shape)
    reduced = set()
    for axis in axes.values:
        if axis < -rank or axis >= rank:
            raise ShapeError(f"Invalid reduction dimension {axis} for input with {rank} dimensions.", 1)
        reduced.add(axis + rank if axis < 0 else axis)
    out = []
    for position, size in enumerate(shape):
        if position in reduced:
            if keep_dims:
                out.append(1)
        else:
            out.append(size)
    return [tuple(out)]


def _arg_reduction(c: Context) -> list[Shape]:
    """ArgMax / ArgMin."""
    c.expect_inputs(2)
    with_rank(c.shapes[1], 0, 1)
    shape = c.shapes[0]
    if shape is None:
        return [None]
    rank = len(shape)
    if rank <= 1:
        return [()]
    value = c.const(1)
    if value is None:
        return [(-1,) * (rank - 1)]
    if len(value.values) != 1:
        raise Unknown
    dimension = value.values[0]
    axis = dimension + rank if dimension < 0 else dimension
    if axis < 0 or axis >= rank:
        raise ShapeError(
            f"Dimension ({dimension}) must be in the range [{-rank}, {rank}), where {rank} is the number of dimensions in the input.",
            1,
        )
    return [shape[:axis] + shape[axis + 1 :]]


def _fill(c: Context) -> list[Shape]:
    c.expect_inputs(2)
    with_rank(c.shapes[0], 1, 0)
    with_rank(c.shapes[1], 0, 1)
    value = c.const(0)
    if value is not None and any(size < 0 for size in value.values):
        raise ShapeError("Fill dimensions must be >= 0", 0)
    return [_shape_from_const(c, 0)]


def _select(c: Context) -> list[Shape]:
    """Select (v1): `t` and `e` match; `cond` is a scalar, a vector over dim 0, or matches too."""
    c.expect_inputs(3)
    data = merge(c.shapes[1], c.shapes[2])
    cond = c.shapes[0]
    if cond is None or data is None:
        return [data]
    if len(cond) == 0:
        return [data]
    if len(cond) != 1 or len(data) == 0:
        return [merge(data, cond)]
    merge(cond, (data[0],))
    return [data]


def _select_v2(c: Context) -> list[Shape]:
    c.expect_inputs(3)
    other = broadcast(c.shapes[1], c.shapes[2])
    return [broadcast(c.shapes[0], other)]


def _transpose(c: Context) -> list[Shape]:
    c.expect_inputs(2)
    shape = c.shapes[0]
    perm_shape = c.shapes[1]
    perm = c.const(1)
    perm_elements = _elements(perm_shape)
    if shape is None and perm_elements < 0 and perm is None:
        return [None]
    if shape is not None:
        rank = len(shape)
    elif perm_elements >= 0:
        rank = perm_elements
    else:
        rank = len(cast(ConstValue, perm).values)
    if shape is None and rank < 2:
        return [shape]
    if rank > MAX_RANK:
        raise Unknown
    shape = with_rank(shape, rank, 0)
    perm_shape = with_rank(perm_shape, 1, 1)
    if perm_shape[0] >= 0 and perm_shape[0] != rank:
        raise ShapeError(f"Dimension must be {rank} but is {perm_shape[0]}", 1)
    if perm is None:
        return [(-1,) * rank]
    if len(perm.values) < rank:
        raise Unknown
    dims = []
    for position in range(rank):
        source = perm.values[position]
        if source >= rank:
            raise ShapeError(f"perm dim {source} is out of range of input rank {rank}")
        if source < -rank:
            raise Unknown  # TensorFlow reads out of bounds
        dims.append(shape[source])  # a negative entry counts from the back, as in TensorFlow
    return [tuple(dims)]


def _switch(c: Context) -> list[Shape]:
    c.expect_inputs(2)
    with_rank(c.shapes[1], 0, 1)
    return [c.shapes[0], c.shapes[0]]


def _merge(c: Context) -> list[Shape]:
    """Merge: the inputs' shapes relaxed to what they share (`MergeShape`).

    A loop's back edge (from a NextIteration) does not exist yet when
    TensorFlow's importer reaches the Merge, so it counts as unknown and so
    does the loop Merge's output.
    """
    shapes = c.shapes
    if not shapes:
        raise Unknown
    first = shapes[0]
    out: list[int] | None = None if first is None else list(first)
    if out is not None:
        for shape in shapes[1:]:
            if shape is None or len(shape) != len(out):
                out = None
                break
            for position, size in enumerate(shape):
                if size != out[position]:
                    out[position] = -1
    return [None if out is None else tuple(out), ()]


def _enter(c: Context) -> list[Shape]:
    c.expect_inputs(1)
    return [c.shapes[0] if c.attr("is_constant", "b") else None]


def _loop_cond(c: Context) -> list[Shape]:
    c.expect_inputs(1)
    return [with_rank(c.shapes[0], 0, 0)]


def _var_handle(c: Context) -> list[Shape]:
    return [()]


def _handle_data(c: Context) -> Shape:
    """`ValidateVariableResourceHandle`: the variable's shape when input 0 comes from a VarHandleOp.

    The handle's dtype must match the node's `dtype` attr. The handle is
    followed through Identity nodes only; when TensorFlow forwards it through
    other ops (Switch, Enter, function calls) the shape is unknown here and
    nothing is checked.
    """
    variable = c.var_handle(0)
    if variable is None:
        return None
    dtype, shape = variable
    wanted = c.attr("dtype", "type")
    if dtype != wanted:
        raise ShapeError(
            f"Trying to read variable with wrong dtype. Expected {type_name(dtype)} got {type_name(wanted)}", 0
        )
    return shape


def _read_variable(c: Context) -> list[Shape]:
    c.expect_inputs(1)
    annotation = c.node.attr.get("_shape")
    if annotation is not None:
        if annotation.WhichOneof("value") != "shape":
            raise Unknown
        return [partial_shape(annotation.shape)]
    return [_handle_data(c)]


def _assign_variable(c: Context) -> list[Shape]:
    c.expect_inputs(2)
    merge(_handle_data(c), c.shapes[1])
    return []


def _random_shape(c: Context) -> list[Shape]:
    """RandomUniform, RandomStandardNormal, TruncatedNormal: the shape is input 0's value."""
    c.expect_inputs(1)
    return [_shape_from_const(c, 0)]


def _broadcast_gradient_args(c: Context) -> list[Shape]:
    c.expect_inputs(2)
    with_rank(c.shapes[0], 1, 0)
    with_rank(c.shapes[1], 1, 1)
    return [(-1,), (-1,)]


def _unique(c: Context) -> list[Shape]:
    c.expect_inputs(1)
    with_rank(c.shapes[0], 1, 0)
    return [(-1,), c.shapes[0]]


def _range(c: Context) -> list[Shape]:
    c.expect_inputs(3)
    for index in range(3):
        with_rank(c.shapes[index], 0, index)
    values = [c.const(index) for index in range(3)]
    if any(value is None for value in values):
        return [(-1,)]
    start, limit, delta = (value.values[0] for value in cast("list[ConstValue]", values))
    if delta == 0:
        raise ShapeError(f"Requires delta != 0: {delta}")
    if delta > 0 and start > limit:
        raise ShapeError(f"Requires start <= limit when delta > 0: {start}/{limit}")
    if delta < 0 and start < limit:
        raise ShapeError(f"Requires start >= limit when delta < 0: {start}/{limit}")
    return [((abs(limit - start) + abs(delta) - 1) // abs(delta),)]


def _tile(c: Context) -> list[Shape]:
    c.expect_inputs(2)
    shape = c.shapes[0]
    multiples = _shape_from_const(c, 1)
    if shape is not None:
        multiples = with_rank(multiples, len(shape), 1)
        merge(c.shapes[1], (len(shape),))
    if multiples is None:
        return [None]
    shape = with_rank(shape, len(multiples), 0)
    return [tuple(_multiply(size, times) for size, times in zip(shape, multiples))]


def _scalar_input_dim(c: Context, index: int, rank: int) -> int:
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


def _split(c: Context) -> list[Shape]:
    c.expect_inputs(2)
    count = c.attr("num_split", "i")
    if count < 1 or count > MAX_ARG_LENGTH:
        raise Unknown  # beyond the bound, no list of `count` shapes is built (input-count says so)
    shape = c.shapes[1]
    axis = _scalar_input_dim(c, 0, -1 if shape is None else len(shape))
    if axis < 0:
        return [None if shape is None else (-1,) * len(shape)] * count
    shape = with_rank_at_least(shape, axis + 1, 1)
    if shape is None:
        return [None] * count
    size = shape[axis]
    if size >= 0:
        if size % count != 0:
            raise ShapeError(
                f"Dimension size must be evenly divisible by {count} but is {size}; Number of ways to split should evenly divide the split dimension",
                1,
            )
        size //= count
    return [shape[:axis] + (size,) + shape[axis + 1 :]] * count


def _gather(c: Context) -> list[Shape]:
    c.expect_inputs(2)
    params = with_rank_at_least(c.shapes[0], 1, 0)
    indices = c.shapes[1]
    if params is None or indices is None:
        return [None]
    return [indices + params[1:]]


def _gather_v2(c: Context) -> list[Shape]:
    c.expect_inputs(3)
    params = with_rank_at_least(c.shapes[0], 1, 0)
    indices = c.shapes[1]
    with_rank(c.shapes[2], 0, 2)
    value = c.const(2)
    if value is None:
        # TensorFlow 2.21 also takes batch_dims into account here; keep to the plain case.
        if params is not None and indices is not None and c.attr("batch_dims", "i") == 0:
            return [(-1,) * (len(params) + len(indices) - 1)]
        return [None]
    axis = value.values[0]
    with_rank_at_least(params, -axis if axis < 0 else axis + 1, 0)
    batch_dims = c.attr("batch_dims", "i")
    with_rank_at_least(indices, abs(batch_dims), 1)
    if batch_dims < 0:
        if indices is None:
            return [None]
        batch_dims += len(indices)
    with_rank_at_least(params, batch_dims + 1, 0)
    if params is None or indices is None:
        return [None]
    rank = len(params)
    outer = params[: axis + rank if axis < 0 else axis]
    inner = () if axis == -1 else params[axis + 1 :]
    return [outer + indices[batch_dims:] + inner]


def _slice(c: Context) -> list[Shape]:
    c.expect_inputs(3)
    shape = c.shapes[0]
    begin_shape = with_rank(c.shapes[1], 1, 1)
    sizes_shape = with_rank(c.shapes[2], 1, 2)
    count = cast("tuple[int, ...]", merge(begin_shape, sizes_shape))[0]
    if count >= 0:
        shape = with_rank(shape, count, 0)
    begin = _shape_from_const(c, 1)
    sizes = c.const(2)
    if sizes is not None:
        begin = with_rank(begin, len(sizes.values))
        dims = []
        for position, size in enumerate(sizes.values):
            if size != -1:
                if size < 0:
                    raise ShapeError(
                        f"Out of bounds slicing on dimension {position}: sizes vector cannot be < -1, but was {size}"
                    )
                dims.append(size)
            else:
                dims.append(_subtract(-1 if shape is None else shape[position], begin[position]))
        return [tuple(dims)]
    sizes_value = _shape_from_const(c, 2)
    if sizes_value is not None:
        with_rank(begin, len(sizes_value))
        return [sizes_value]
    return [None if shape is None else (-1,) * len(shape)]


def _pool(c: Context, name: str, with_depth: bool, explicit: bool) -> list[Shape]:
    """MaxPool / AvgPool (`MaxPoolShapeImpl`, `AvgPoolShape`) for NHWC and NCHW."""
    c.expect_inputs(1)
    data_format = _data_format(c)
    if data_format not in ("NHWC", "NCHW"):
        raise Unknown
    shape = with_rank(c.shapes[0], 4, 0)
    strides = c.attr_ints("strides")
    if len(strides) != 4:
        raise ShapeError(f"{name} requires the stride attribute to contain 4 values, but got: {len(strides)}")
    kernel = c.attr_ints("ksize")
    if len(kernel) != 4:
        raise ShapeError(f"{name} requires the ksize attribute to contain 4 values, but got: {len(kernel)}")
    if not all(-(1 << 31) <= value < (1 << 31) for value in strides + kernel):
        raise Unknown
    if data_format == "NHWC":
        batch, rows, cols, depth = shape
        order = (1, 2, 3)
    else:
        batch, depth, rows, cols = shape
        order = (2, 3, 1)
    padding = c.attr("padding", "s")
    if padding not in (b"SAME", b"VALID") and not (explicit and padding == b"EXPLICIT"):
        raise Unknown
    paddings = _explicit_paddings(c, padding, data_format) if explicit else ()
    row_index = order[0]
    pad_rows = paddings[2 * row_index : 2 * row_index + 2] if paddings else (0, 0)
    pad_cols = paddings[2 * row_index + 2 : 2 * row_index + 4] if paddings else (0, 0)
    mode = padding.decode()
    out_rows = _windowed_output(rows, kernel[order[0]], 1, strides[order[0]], mode, *pad_rows)
    out_cols = _windowed_output(cols, kernel[order[1]], 1, strides[order[1]], mode, *pad_cols)
    if with_depth:
        depth = _windowed_output(depth, kernel[order[2]], 1, strides[order[2]], mode)
    if data_format == "NHWC":
        return [(batch, out_rows, out_cols, depth)]
    return [(batch, depth, out_rows, out_cols)]


def _max_pool(c: Context) -> list[Shape]:
    return _pool(c, "MaxPool", with_depth=True, explicit=True)


def _avg_pool(c: Context) -> list[Shape]:
    return _pool(c, "AvgPool", with_depth=False, explicit=False)


def _fused_batch_norm(c: Context) -> list[Shape]:
    """FusedBatchNorm (V2, V3): per-channel vectors agree with the input's channel dimension."""
    data_format = c.attr("data_format", "s")
    rank = 5 if data_format in (b"NDHWC", b"NCDHW") else 4
    if data_format not in (b"NHWC", b"NCHW", b"NDHWC", b"NCDHW"):
        raise Unknown
    shape = with_rank(c.shapes[0] if c.shapes else None, rank, 0)
    training = c.attr("is_training", "b")
    value = c.node.attr.get("exponential_avg_factor")
    if value is None:
        value = c.inference.graph.attr_default(c.schema, "exponential_avg_factor")
    factor = 1.0 if value is None or value.WhichOneof("value") != "f" else value.f
    count = 3 if training and factor == 1.0 else 5
    if len(c.shapes) < count:
        raise Unknown
    channel_index = rank - 1 if data_format in (b"NHWC", b"NDHWC") else 1
    channel = shape[channel_index]
    for index in range(1, count):
        vector = with_rank(c.shapes[index], 1, index)
        channel = merge_dim(channel, vector[0])
    out = shape[:channel_index] + (channel,) + shape[channel_index + 1 :]
    outputs: list[Shape] = [out, (channel,), (channel,), (channel,), (channel,)]
    if c.node.op == "FusedBatchNormV3":
        outputs.append(None)
    return outputs


def _parse_example(c: Context) -> list[Shape]:
    """ParseExample (v1): `serialized` and `names` are vectors."""
    num_sparse = c.attr("Nsparse", "i")
    num_dense = c.attr("Ndense", "i")
    sparse_types = c.attr_list("sparse_types", "type")
    dense_types = c.attr_list("Tdense", "type")
    dense_shapes = [partial_shape(shape) for shape in c.attr_list("dense_shapes", "shape")]
    _parse_example_attrs(num_sparse, sparse_types, num_dense, dense_types, dense_shapes)
    if len(c.shapes) != 2 + num_sparse + num_dense + len(dense_types):
        raise Unknown
    serialized = with_rank(c.shapes[0], 1, 0)
    with_rank(c.shapes[1], 1, 1)
    return _parse_outputs(num_sparse, serialized, dense_shapes)


def _parse_example_v2(c: Context) -> list[Shape]:
    """ParseExampleV2: `serialized` and `names` are scalars or vectors."""
    num_sparse = c.attr("num_sparse", "i")
    sparse_types = c.attr_list("sparse_types", "type")
    dense_types = c.attr_list("Tdense", "type")
    dense_shapes = [partial_shape(shape) for shape in c.attr_list("dense_shapes", "shape")]
    ragged_values = c.attr_list("ragged_value_types", "type")
    ragged_splits = c.attr_list("ragged_split_types", "type")
    _parse_example_attrs(num_sparse, sparse_types, len(dense_types), dense_types, dense_shapes)
    if len(ragged_values) != len(ragged_splits):
        raise ShapeError("len(ragged_keys) != len(ragged_split_types)")
    if len(c.shapes) != 5 + len(dense_types):
        raise Unknown
    serialized = with_rank_at_most(c.shapes[0], 1, 0)
    with_rank_at_most(c.shapes[1], 1, 1)
    outputs = _parse_outputs(num_sparse, serialized, dense_shapes)
    examples = serialized[0] if serialized is not None and len(serialized) == 1 else -1
    splits = _add(examples, 1)
    outputs.extend([(-1,)] * len(ragged_values))
    outputs.extend([(splits,)] * len(ragged_values))
    return outputs


def _parse_single_example(c: Context) -> list[Shape]:
    """ParseSingleExample: `serialized` is a scalar."""
    num_sparse = c.attr("num_sparse", "i")
    sparse_keys = c.attr_list("sparse_keys", "s")
    dense_keys = c.attr_list("dense_keys", "s")
    sparse_types = c.attr_list("sparse_types", "type")
    dense_types = c.attr_list("Tdense", "type")
    dense_shapes = [partial_shape(shape) for shape in c.attr_list("dense_shapes", "shape")]
    if len(sparse_keys) != num_sparse:
        raise ShapeError(f"len(sparse_keys) != num_sparse ({len(sparse_keys)} vs {num_sparse})")
    _parse_example_attrs(num_sparse, sparse_types, len(dense_keys), dense_types, dense_shapes)
    if len(c.shapes) != 1 + len(dense_types):
        raise Unknown
    serialized = with_rank(c.shapes[0], 0, 0)
    return _parse_outputs(num_sparse, serialized, dense_shapes)


def _parse_example_attrs(
    num_sparse: int, sparse_types: list[int], num_dense: int, dense_types: list[int], dense_shapes: list[Shape]
) -> None:
    """The attr checks of `ParseExampleAttrs::FinishInit` that do not depend on dtypes."""
    if num_sparse < 0 or num_dense < 0:
        raise Unknown
    if num_sparse != len(sparse_types):
        raise ShapeError("len(sparse_keys) != len(sparse_types)")
    if num_dense != len(dense_types):
        raise ShapeError("len(dense_keys) != len(dense_types)")
    if num_dense != len(dense_shapes):
        raise ShapeError("len(dense_keys) != len(dense_shapes)")
    for position, shape in enumerate(dense_shapes):
        if shape is None or any(size < 0 for size in shape[1:]):
            raise ShapeError(
                f"dense_shapes[{position}] has unknown rank or unknown inner dimensions: {shape_text(shape)}"
            )


def _parse_outputs(num_sparse: int, serialized: Shape, dense_shapes: list[Shape]) -> list[Shape]:
    rank = -1 if serialized is None else len(serialized) + 1
    outputs: list[Shape] = []
    outputs.extend([(-1, rank)] * num_sparse)
    outputs.extend([(-1,)] * num_sparse)
    outputs.extend([(rank,)] * num_sparse)
    for dense in dense_shapes:
        outputs.append(None if serialized is None or dense is None else serialized + dense)
    return outputs


# Ops whose output 0 has the shape of input 0 (`shape_inference::UnchangedShape`).
_UNCHANGED_OPS = (
    "Identity",
    "Snapshot",
    "StopGradient",
    "PreventGradient",
    "CheckNumerics",
    "CheckNumericsV2",
    "ZerosLike",
    "OnesLike",
    "RefIdentity",
    "Cast",
    "Abs",
    "Neg",
    "Sign",
    "Reciprocal",
    "Inv",
    "Square",
    "Sqrt",
    "Rsqrt",
    "Exp",
    "Expm1",
    "Log",
    "Log1p",
    "Sin",
    "Cos",
    "Tan",
    "Asin",
    "Acos",
    "Atan",
    "Sinh",
    "Cosh",
    "Asinh",
    "Acosh",
    "Atanh",
    "Tanh",
    "Sigmoid",
    "Floor",
    "Ceil",
    "Round",
    "Rint",
    "Erf",
    "Erfc",
    "Lgamma",
    "Digamma",
    "IsNan",
    "IsInf",
    "IsFinite",
    "LogicalNot",
    "Relu",
    "Relu6",
    "Elu",
    "Selu",
    "Softplus",
    "Softsign",
    "LeakyRelu",
    "Invert",
)
_UNCHANGED_RANK_1_OPS = ("Softmax", "LogSoftmax")
# Binary ops with NumPy-style broadcasting (`BroadcastBinaryOpShapeFn`).
_BROADCAST_OPS = (
    "Add",
    "AddV2",
    "Sub",
    "Mul",
    "Div",
    "RealDiv",
    "DivNoNan",
    "FloorDiv",
    "FloorMod",
    "TruncateDiv",
    "TruncateMod",
    "Mod",
    "Maximum",
    "Minimum",
    "Pow",
    "SquaredDifference",
    "Atan2",
    "Xdivy",
    "Xlogy",
    "MulNoNan",
    "Less",
    "LessEqual",
    "Greater",
    "GreaterEqual",
    "LogicalAnd",
    "LogicalOr",
    "BitwiseAnd",
    "BitwiseOr",
    "BitwiseXor",
    "LeftShift",
    "RightShift",
)
_SCALAR_OPS = (
    "L2Loss",
    "ScalarSummary",
    "HistogramSummary",
    "ImageSummary",
    "AudioSummaryV2",
    "TensorSummaryV2",
    "MergeSummary",
    "ReadFile",
    "StringFormat",
)
_REDUCTION_OPS = ("Sum", "Mean", "Max", "Min", "Prod", "All", "Any", "EuclideanNorm")

SHAPE_FNS: dict[str, ShapeFn] = {
    **{op: _unchanged for op in _UNCHANGED_OPS},
    **{op: _unchanged_rank_at_least_1 for op in _UNCHANGED_RANK_1_OPS},
    **{op: _broadcast_binary for op in _BROADCAST_OPS},
    **{op: _reduction for op in _REDUCTION_OPS},
    "Equal": _broadcast_comparison,
    "NotEqual": _broadcast_comparison,
    "AddN": _merge_all,
    "Const": _const,
    "Placeholder": _placeholder,
    "PlaceholderV2": _explicit_shape,
    "PlaceholderWithDefault": _placeholder_with_default,
    "VariableV2": _explicit_shape,
    "Variable": _variable_v1,
    "Assign": _assign,
    "EnsureShape": _ensure_shape,
    "MatMul": _matmul,
    "BatchMatMul": _batch_matmul_v1,
    "BatchMatMulV2": _batch_matmul_v2,
    "BatchMatMulV3": _batch_matmul_v2,
    "BiasAdd": _bias_add,
    "BiasAddV1": _bias_add,
    "Conv2D": _conv2d,
    "Reshape": _reshape,
    "ConcatV2": _concat_v2,
    "Concat": _concat_v1,
    "Pack": _pack,
    "Unpack": _unpack,
    "Shape": _shape_of,
    "ShapeN": _shape_of,
    "Size": _scalar,
    "Rank": _scalar,
    # Always one scalar, whatever the inputs (checked with TensorFlow 2.21 on inputs of unknown shape).
    **{op: _scalar for op in _SCALAR_OPS},
    "ExpandDims": _expand_dims,
    "Squeeze": _squeeze,
    "ArgMax": _arg_reduction,
    "ArgMin": _arg_reduction,
    "Fill": _fill,
    "Select": _select,
    "SelectV2": _select_v2,
    "Transpose": _transpose,
    "Switch": _switch,
    "RefSwitch": _switch,
    "Merge": _merge,
    "RefMerge": _merge,
    "Enter": _enter,
    "RefEnter": _unchanged,
    "Exit": _unchanged,
    "RefExit": _unchanged,
    "NextIteration": _unchanged,
    "RefNextIteration": _unchanged,
    "LoopCond": _loop_cond,
    "VarHandleOp": _var_handle,
    "ReadVariableOp": _read_variable,
    "AssignVariableOp": _assign_variable,
    "AssignAddVariableOp": _assign_variable,
    "AssignSubVariableOp": _assign_variable,
    "VarIsInitializedOp": _scalar,
    "IsVariableInitialized": _scalar,
    "AssignAdd": _merge_both,
    "AssignSub": _merge_both,
    "RandomUniform": _random_shape,
    "RandomStandardNormal": _random_shape,
    "TruncatedNormal": _random_shape,
    "BroadcastGradientArgs": _broadcast_gradient_args,
    "Unique": _unique,
    "Range": _range,
    "Tile": _tile,
    "Split": _split,
    "Gather": _gather,
    "GatherV2": _gather_v2,
    "Slice": _slice,
    "MaxPool": _max_pool,
    "AvgPool": _avg_pool,
    "FusedBatchNorm": _fused_batch_norm,
    "FusedBatchNormV2": _fused_batch_norm,
    "FusedBatchNormV3": _fused_batch_norm,
    "ParseExample": _parse_example,
    "ParseExampleV2": _parse_example_v2,
    "ParseSingleExample": _parse_single_example,
}


# -- the inference -------------------------------------------------------------------------------


class ShapeIssue:
    """A problem TensorFlow's shape validation reports for one node.

    `kind` is "inference" (the node's shape function fails, S1) or
    "output-shapes" (an `_output_shapes` entry contradicts the inferred
    shape, S3).
    """

    __slots__ = ("node", "kind", "message", "input_index", "output_index", "declared", "inferred")

    def __init__(
        self,
        node: Node,
        kind: str,
        message: str,
        input_index: int | None = None,
        output_index: int | None = None,
        declared: Shape = None,
        inferred: Shape = None,
    ) -> None:
        self.node = node
        self.kind = kind
        self.message = message
        self.input_index = input_index
        self.output_index = output_index
        self.declared = declared
        self.inferred = inferred


# Python errors a shape function may hit on a malformed node nobody anticipated (tests set this to ()).
GUARDED_ERRORS: tuple[type[Exception], ...] = (ArithmeticError, IndexError, ValueError, TypeError)

# Per-node evaluation states, kept in the same list as the results (a result is a tuple or None).
_PENDING = "pending"


class _ConstsRead(tuple[Any, ...]):
    """Memo entry: the first node of its kind read these data inputs' Const values (positions in order)."""

    __slots__ = ()


_VISITING = "visiting"

_UNREADABLE = object()  # an `_output_shapes` value TensorFlow ignores or rejects (invalid-shape's findings)


class ShapeInference:
    """Shapes of the top-level graph's outputs and the shape problems TensorFlow reports at import.

    Nodes are evaluated in file order, which TensorFlow's own graphs almost
    always follow; a node whose producer comes later is evaluated after it
    with an explicit depth-first stack. Results are kept per node as a tuple
    of output shapes (None: all unknown): tuples of ints are not tracked by
    the garbage collector for long, lists would make it rescan the heap.
    """

    def __init__(self, graph: GraphIndex) -> None:
        self.graph = graph
        # TensorFlow's refiner uses min(its own GraphDef version, the graph's producer).
        self.producer = graph.producer
        self.issues: list[ShapeIssue] = []
        scope = graph.main
        self._nodes = scope.nodes
        self._by_name = scope.by_name
        library = graph.function_by_name
        # A function of the library named like an op shadows it (function-name-conflict's finding).
        self._functions = {op: fn for op, fn in SHAPE_FNS.items() if op not in library}
        self._results: list[Any] = [_PENDING] * len(self._nodes)
        self._context = Context(self)
        self._consts: dict[int, ConstValue | None] = {}
        self._declared_memo: dict[Any, Any] = {}
        self._interned: dict[tuple[Shape, ...], tuple[Shape, ...]] = {}
        # Results by (op, id(attrs), input shapes), and by the Consts read (see _const_identities);
        # the nodes keep their attr dicts (and ids) alive.
        self._memo: dict[Any, Any] = {}
        # Tensors the caller's input_map replaces: their consumers see the replacement's shape.
        self._mapped: dict[tuple[str, int], Shape] | None = None
        if graph.imports is not None:
            mapped = {key: spec.shape for key, spec in graph.imports.mapped_keys().items() if key.index >= 0}
            self._mapped = mapped or None
        self._run()

    # -- public --------------------------------------------------------------

    def output_shape(self, node: Node, index: int) -> Shape:
        """The (merged) shape of output `index` of a top-level node, None when unknown."""
        if node.function is not None or index < 0:
            return None
        outputs = self._outputs_of(node)
        return outputs[index] if outputs is not None and index < len(outputs) else None

    def input_shape(self, item: Input) -> Shape:
        """The shape of the tensor a data input of a top-level node reads (None when unknown)."""
        if self._mapped is not None and (item.node, item.index) in self._mapped:
            return self._mapped[item.node, item.index]
        producer = self._by_name.get(item.node)
        if producer is None:
            return None
        return self.output_shape(producer, item.index)

    # -- evaluation ----------------------------------------------------------

    def _run(self) -> None:
        functions = self._functions
        results = self._results
        for node in self._nodes:
            fn = functions.get(node.op)
            if fn is not None and results[node.ordinal] is _PENDING and not self._evaluate(node, fn):
                self._evaluate_from(node)

    def _evaluate_from(self, start: Node) -> None:
        """Evaluate `start` after its not-yet-evaluated producers (an explicit depth-first stack)."""
        functions = self._functions
        results = self._results
        by_name = self._by_name
        stack = [start]
        while stack:
            node = stack[-1]
            ordinal = node.ordinal
            current = results[ordinal]
            if current is not _PENDING and current is not _VISITING:
                stack.pop()
                continue
            if current is _PENDING:
                results[ordinal] = _VISITING
                pushed = False
                loop_head = node.op in MERGE_OPS
                for item in node.inputs:
                    producer = by_name.get(item.node)
                    if (
                        producer is not None
                        and not item.is_control
                        and results[producer.ordinal] is _PENDING
                        and producer.op in functions
                    ):
                        if loop_head and producer.op in NEXT_ITERATION_OPS:
                            continue  # a back edge
                        stack.append(producer)
                        pushed = True
                if pushed:
                    continue
            # Every producer is done, or on the stack below us (a cycle: its shape is unknown).
            stack.pop()
            self._evaluate(node, functions[node.op])

    def _evaluate(self, node: Node, fn: ShapeFn) -> bool:
        """Run `node`'s shape function; False (and nothing done) when a producer still has to be evaluated."""
        results = self._results
        by_name = self._by_name
        inputs = node.inputs
        if inputs and inputs[-1].is_control:
            inputs = tuple(item for item in inputs if not item.is_control)
        shapes: list[Shape] = []
        append = shapes.append
        loop_head = node.op in MERGE_OPS
        for _, name, index, _, _ in inputs:  # Input tuples, unpacked: the hottest loop of the inference
            producer = by_name.get(name)
            if producer is None:
                append(None)
                continue
            if loop_head and producer.op in NEXT_ITERATION_OPS:
                append(None)  # a back edge: TensorFlow has not built its source yet
                continue
            outputs = results[producer.ordinal]
            if outputs is _PENDING:
                if producer.op in self._functions:
                    if results[node.ordinal] is _PENDING:
                        return False
                    outputs = None  # cannot happen: _evaluate_from evaluated it first
                else:
                    outputs = self._outputs_of(producer)
            elif outputs is _VISITING:
                outputs = None  # a cycle
            append(outputs[index] if outputs is not None and 0 <= index < len(outputs) else None)
        if self._mapped is not None:  # the caller's input_map: once per node, not in the loop above
            for position, item in enumerate(inputs):
                if (item.node, item.index) in self._mapped:
                    shapes[position] = self._mapped[item.node, item.index]
        # Nodes with the same op, the same (shared) attr dict and the same input shapes get the
        # same result; when the shape function read Const inputs, the same Consts too.
        kind_key = (node.op, id(node.attr), tuple(shapes))
        memo = self._memo
        memo_key: Any = kind_key
        result = first_read = memo.get(kind_key, _PENDING)
        if type(first_read) is _ConstsRead:
            memo_key = (kind_key, self._const_identities(inputs, first_read))
            result = memo.get(memo_key, _PENDING)
        if result is not _PENDING:
            results[node.ordinal] = result
            return True
        context = self._context
        context.node = node
        context.inputs = inputs
        context.shapes = shapes
        context._schema = None
        consts_read: list[Any] = []
        context.consts_read = consts_read
        context.read_handles = False
        issues = len(self.issues)
        try:
            result = fn(context)
        except ShapeError as error:
            self.issues.append(ShapeIssue(node, "inference", error.message, input_index=error.input_index))
            result = None
        except Unknown:
            result = self._refine(node, None)
        except GUARDED_ERRORS:
            # A case of a malformed node this module did not anticipate: the node stays
            # unknown rather than crash the whole run.
            result = self._refine(node, None)
        else:
            result = tuple(result)
            if OUTPUT_SHAPES in node.attr:
                result = self._refine(node, result)
        if result is not None:
            # Graphs repeat a few shapes many times: keep one copy (less memory, less GC work).
            result = self._interned.setdefault(result, result)
        results[node.ordinal] = result
        if not context.read_handles and len(self.issues) == issues:
            if not consts_read:
                memo[kind_key] = result
            elif first_read is _PENDING:  # the first of its kind: later ones look up the same inputs
                read = memo[kind_key] = _ConstsRead(consts_read)
                memo[(kind_key, self._const_identities(inputs, read))] = result
            elif first_read == tuple(consts_read):
                memo[memo_key] = result
            # else: it read other inputs than the first of its kind (its values chose another
            # path), and nothing would look it up by those.
        return True

    def _const_identities(self, inputs: Any, read: _ConstsRead) -> tuple[Any, ...]:
        """What the Const inputs at `read` are, as far as const_value can tell them apart.

        A shape function is a function of the node's attrs, its input shapes and
        the values it reads, so nodes that agree on all of them (their first
        read the same input, with the same value, so their second read is the
        same input too, and so on) get the same result. A Const's value is its
        producer's op, attr dict (shared by identical nodes) and output index.
        """
        by_name = self._by_name
        identities: list[tuple[str, int, int] | None] = []
        for position in read:
            item = inputs[position] if position < len(inputs) else None
            producer = by_name.get(item.node) if item is not None else None
            if item is None or producer is None:
                identities.append(None)
            else:
                identities.append((producer.op, id(producer.attr), item.index))
        return tuple(identities)

    def _outputs_of(self, node: Node) -> tuple[Shape, ...] | None:
        """A node's output shapes; for a node without a shape function, from its own `_output_shapes`."""
        ordinal = node.ordinal
        outputs = self._results[ordinal]
        if outputs is _PENDING:
            if node.op in self._functions:
                return None  # not evaluated (cannot happen once the inference ran)
            outputs = self._refine(node, None)
            self._results[ordinal] = outputs
        elif outputs is _VISITING:
            return None
        return cast("tuple[Shape, ...] | None", outputs)

    def _refine(self, node: Node, outputs: tuple[Shape, ...] | None) -> tuple[Shape, ...] | None:
        """Merge the node's `_output_shapes` into its inferred outputs, as TensorFlow does after inference."""
        value = node.attr.get(OUTPUT_SHAPES)
        if value is None:
            return outputs
        declared = self._declared(value)
        if declared is _UNREADABLE:
            return outputs
        if outputs is None:
            count = _output_count(self.graph, node)
            if count is None or len(declared) < count:
                return None
            return cast("tuple[Shape, ...]", declared[:count])
        if len(declared) < len(outputs):
            return outputs  # invalid-shape reports the missing entries
        if declared[: len(outputs)] == outputs:
            return outputs
        merged = []
        for index, inferred in enumerate(outputs):
            entry = declared[index]
            if entry == inferred or entry is None:
                merged.append(inferred)
            elif compatible(inferred, entry):
                merged.append(merge(inferred, entry))
            else:
                self.issues.append(
                    ShapeIssue(
                        node,
                        "output-shapes",
                        _mismatch(inferred, entry),
                        output_index=index,
                        declared=entry,
                        inferred=inferred,
                    )
                )
                merged.append(None)
        return tuple(merged)

    def _declared(self, value: Any) -> Any:
        """An `_output_shapes` value as a tuple of shapes, or _UNREADABLE (memoized per distinct value)."""
        # Readers share one AttrValue object per distinct value; the nodes keep it (and its id) alive.
        key = id(value)
        found = self._declared_memo.get(key)
        if found is None:
            found = _read_declared(value)
            self._declared_memo[key] = found
        return found

    def var_handle(self, item: Input) -> tuple[int, Shape] | None:
        """(dtype, shape) of the variable a directly connected VarHandleOp declares, or None."""
        producer = self._by_name.get(item.node)
        seen = 0
        # Identity forwards the handle data (`UnchangedShape`); a chain of them is followed.
        while (
            producer is not None
            and producer.op == "Identity"
            and item.index == 0
            and "Identity" in self._functions
            and seen < 64
        ):
            inputs = producer.inputs
            if not inputs or inputs[0].is_control:
                return None
            item = inputs[0]
            producer = self._by_name.get(item.node)
            seen += 1
        if producer is None or item.index != 0 or producer.op != "VarHandleOp" or "VarHandleOp" not in self._functions:
            return None
        key = -1 - producer.ordinal
        if key in self._consts:
            return self._consts[key]  # type: ignore[return-value]
        found = None
        dtype = producer.attr.get("dtype")
        shape = producer.attr.get("shape")
        if (
            dtype is not None
            and dtype.WhichOneof("value") == "type"
            and shape is not None
            and shape.WhichOneof("value") == "shape"
        ):
            try:
                found = (dtype.type, partial_shape(shape.shape))
            except Unknown:
                found = None
        self._consts[key] = found  # type: ignore[assignment]
        return found

    def const_value(self, item: Input) -> ConstValue | None:
        """The int32/int64 value of a directly connected Const, or None."""
        producer = self._by_name.get(item.node)
        if producer is None or item.index != 0 or producer.op != "Const" or "Const" not in self._functions:
            return None
        ordinal = producer.ordinal
        if ordinal in self._consts:
            return self._consts[ordinal]
        found = None
        value = producer.attr.get("value")
        dtype = producer.attr.get("dtype")
        if (
            value is not None
            and value.WhichOneof("value") == "tensor"
            and dtype is not None
            and dtype.WhichOneof("value") == "type"
        ):
            tensor = value.tensor
            if tensor.dtype == dtype.type:
                decoded = _decode_ints(tensor)
                if decoded is not None:
                    found = ConstValue(*decoded)
        self._consts[ordinal] = found
        return found


def _read_declared(value: Any) -> Any:
    kind = value.WhichOneof("value")
    if kind != "list":
        return _UNREADABLE  # a placeholder, a non-list, or empty (too few entries: invalid-shape's)
    listed = value.list
    if any(field.name != "shape" for field, _ in listed.ListFields()):
        return _UNREADABLE
    shapes = []
    for proto in listed.shape:
        try:
            shapes.append(partial_shape(proto))
        except Unknown:
            return _UNREADABLE  # an invalid entry: TensorFlow rejects it (invalid-shape's finding)
    return tuple(shapes)


def _mismatch(inferred: Shape, declared: Shape) -> str:
    """TensorFlow's Merge message for two incompatible shapes."""
    try:
        merge(inferred, declared)
    except ShapeError as error:
        return error.message
    return f"{shape_text(inferred)} and {shape_text(declared)} are incompatible"


def _output_count(graph: GraphIndex, node: Node) -> int | None:
    """How many outputs `node` has, when its signature can be computed."""
    signature = signatures(graph).resolved(node)
    if signature is None or signature.output_types is None:
        return None
    return len(signature.output_types)


def input_arg_name(graph: GraphIndex, node: Node, index: int) -> str | None:
    """The OpDef name of data input `index` of `node` (`values`, `axis`...), when it can be computed."""
    signature = signatures(graph).resolved(node)
    if signature is None:
        return None
    found = signature.input_arg_at(index)
    return found[0].name if found is not None else None


# -- per-graph cache ---------------------------------------------------------------------------


def infer_shapes(graph: GraphIndex) -> ShapeInference:
    """The shape inference of `graph`'s top-level nodes (computed on first use, then shared)."""
    return graph.derived(ShapeInference)
