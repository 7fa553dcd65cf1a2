"""Shape functions of math ops (TensorFlow's core/ops/math_ops.cc)."""

from __future__ import annotations

from tflint.tf.shapes.algebra import (
    Shape,
    ShapeError,
    Unknown,
    broadcast,
    merge,
    merge_dim,
    merge_prefix,
    subshape,
    with_rank,
    with_rank_at_least,
    with_rank_at_most,
)
from tflint.tf.shapes.common import (
    broadcast_binary,
    merged_inputs,
    scalar_input_size,
    unchanged,
)
from tflint.tf.shapes.context import Context, ShapeFn


def _broadcast_comparison(c: Context) -> list[Shape]:
    """Equal / NotEqual: `incompatible_shape_error=false` turns a mismatch into an unknown or scalar result."""
    c.expect_inputs(2)
    return [broadcast(c.shapes[0], c.shapes[1], c.attr("incompatible_shape_error", "b"))]


def _merge_all(c: Context) -> list[Shape]:
    """AddN: every input has the same shape."""
    return [merged_inputs(c)]


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
            f"Dimension ({dimension}) must be in the range [{-rank}, {rank}), "
            f"where {rank} is the number of dimensions in the input.",
            1,
        )
    return [shape[:axis] + shape[axis + 1 :]]


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


def _range(c: Context) -> list[Shape]:
    c.expect_inputs(3)
    for index in range(3):
        with_rank(c.shapes[index], 0, index)
    values = [c.const(index) for index in range(3)]
    known = [value.values[0] for value in values if value is not None]
    if len(known) != 3:
        return [(-1,)]
    start, limit, delta = known
    if delta == 0:
        raise ShapeError(f"Requires delta != 0: {delta}")
    if delta > 0 and start > limit:
        raise ShapeError(f"Requires start <= limit when delta > 0: {start}/{limit}")
    if delta < 0 and start < limit:
        raise ShapeError(f"Requires start >= limit when delta < 0: {start}/{limit}")
    return [((abs(limit - start) + abs(delta) - 1) // abs(delta),)]


def _cumulative(c: Context) -> list[Shape]:
    """Cumsum / Cumprod: the output has the input's shape (the axis' shape is checked when it runs)."""
    c.expect_inputs(2)
    return [c.shapes[0]]


def _unsorted_segment(c: Context) -> list[Shape]:
    """UnsortedSegmentSum / Max / Min / Prod: data starts with segment_ids' shape; [num_segments] + the rest."""
    c.expect_inputs(3)
    with_rank(c.shapes[2], 0, 2)
    ids = c.shapes[1]
    if ids is None:
        return [None]
    data, _ = merge_prefix(c.shapes[0], ids)
    segments = scalar_input_size(c, 2)
    rest = subshape(data, len(ids))
    return [None if rest is None else (segments,) + rest]


def _unary_grad(c: Context) -> list[Shape]:
    """TanhGrad, SigmoidGrad, ...: the shape of `y` (`UnchangedShape`; `dy` is not compared)."""
    c.expect_inputs(2)
    return [c.shapes[0]]


def _sparse_segment_reduction(c: Context) -> list[Shape]:
    """SparseSegmentSum / Mean / SqrtN: indices and segment_ids are vectors of one length."""
    c.expect_inputs(3)
    indices = with_rank(c.shapes[1], 1, 1)
    segment_ids = with_rank(c.shapes[2], 1, 2)
    merge(indices, segment_ids)
    data = with_rank_at_least(c.shapes[0], 1, 0)
    return [None if data is None else (-1,) + data[1:]]


# Element-wise unary ops (`shape_inference::UnchangedShape`).
_UNARY_OPS = (
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
    "Invert",
)

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
_REDUCTION_OPS = ("Sum", "Mean", "Max", "Min", "Prod", "All", "Any", "EuclideanNorm")

SHAPE_FNS: dict[str, ShapeFn] = {
    **{op: unchanged for op in _UNARY_OPS},
    **{op: broadcast_binary for op in _BROADCAST_OPS},
    **{op: _reduction for op in _REDUCTION_OPS},
    "Equal": _broadcast_comparison,
    "NotEqual": _broadcast_comparison,
    "AddN": _merge_all,
    "MatMul": _matmul,
    "BatchMatMul": _batch_matmul_v1,
    "BatchMatMulV2": _batch_matmul_v2,
    "BatchMatMulV3": _batch_matmul_v2,
    "ArgMax": _arg_reduction,
    "ArgMin": _arg_reduction,
    "Select": _select,
    "SelectV2": _select_v2,
    "Range": _range,
    "Cumsum": _cumulative,
    "Cumprod": _cumulative,
    "UnsortedSegmentSum": _unsorted_segment,
    "UnsortedSegmentMax": _unsorted_segment,
    "UnsortedSegmentMin": _unsorted_segment,
    "UnsortedSegmentProd": _unsorted_segment,
    "TanhGrad": _unary_grad,
    "SigmoidGrad": _unary_grad,
    "RsqrtGrad": _unary_grad,
    "SqrtGrad": _unary_grad,
    "ReciprocalGrad": _unary_grad,
    "InvGrad": _unary_grad,
    "SparseSegmentSum": _sparse_segment_reduction,
    "SparseSegmentMean": _sparse_segment_reduction,
    "SparseSegmentSqrtN": _sparse_segment_reduction,
    "Bucketize": unchanged,
}
