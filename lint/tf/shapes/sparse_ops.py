"""Shape functions of sparse ops (TensorFlow's core/ops/sparse_ops.cc).

A SparseTensor travels as three tensors: `indices` (a [nnz, rank] matrix), `values` (an
[nnz] vector) and `dense_shape` (a [rank] vector).
"""

from __future__ import annotations

from tflint.tf.shapes.algebra import (
    Shape,
    ShapeError,
    Unknown,
    add,
    elements,
    merge,
    merge_dim,
    with_rank,
    with_rank_at_least,
)
from tflint.tf.shapes.common import shape_from_const
from tflint.tf.shapes.context import Context, ShapeFn


def _sparse_tensor_dense_mat_mul(c: Context) -> list[Shape]:
    c.expect_inputs(4)
    with_rank(c.shapes[0], 2, 0)
    with_rank(c.shapes[1], 1, 1)
    a_shape = with_rank(shape_from_const(c, 2), 2, 2)
    b = with_rank(c.shapes[3], 2, 3)
    adjoint_a = c.attr("adjoint_a", "b")
    adjoint_b = c.attr("adjoint_b", "b")
    inner_left = a_shape[0 if adjoint_a else 1]
    inner_right = b[1 if adjoint_b else 0]
    merge_dim(inner_left, inner_right)
    return [(a_shape[1 if adjoint_a else 0], b[0 if adjoint_b else 1])]


def _sparse_to_dense(c: Context) -> list[Shape]:
    c.expect_inputs(4)
    return [shape_from_const(c, 1)]


def _sparse_add(c: Context) -> list[Shape]:
    c.expect_inputs(7)
    a_shape = with_rank(c.shapes[2], 1, 2)
    return [(-1, a_shape[0]), (-1,), a_shape]


def _sparse_add_grad(c: Context) -> list[Shape]:
    c.expect_inputs(4)
    a_indices = with_rank(c.shapes[1], 2, 1)
    b_indices = with_rank(c.shapes[2], 2, 2)
    return [(a_indices[0],), (b_indices[0],)]


def _sparse_concat(c: Context) -> list[Shape]:
    count = len(c.shapes) // 3
    if count < 2 or len(c.shapes) != 3 * count:
        raise Unknown
    rows = 0
    columns = -1
    out: Shape = None
    for position in range(count):
        indices = with_rank(c.shapes[position], 2, position)
        values = with_rank(c.shapes[position + count], 1, position + count)
        shape = with_rank(c.shapes[position + 2 * count], 1, position + 2 * count)
        rows = add(rows, merge_dim(indices[0], values[0]))
        columns = merge_dim(columns, indices[1])
        out = merge(out, shape)
    return [(rows, columns), (rows,), out]


def _sparse_reorder(c: Context) -> list[Shape]:
    c.expect_inputs(3)
    indices = with_rank(c.shapes[0], 2, 0)
    values = with_rank(c.shapes[1], 1, 1)
    with_rank(c.shapes[2], 1, 2)
    return [indices, values]


def _sparse_reshape(c: Context) -> list[Shape]:
    c.expect_inputs(3)
    indices = with_rank(c.shapes[0], 2, 0)
    with_rank(c.shapes[1], 1, 1)
    new_shape = with_rank(c.shapes[2], 1, 2)
    return [(indices[0], new_shape[0]), new_shape]


def _sparse_fill_empty_rows(c: Context) -> list[Shape]:
    c.expect_inputs(4)
    indices = with_rank(c.shapes[0], 2, 0)
    values = with_rank(c.shapes[1], 1, 1)
    dense_shape = with_rank(c.shapes[2], 1, 2)
    with_rank(c.shapes[3], 0, 3)
    count = merge_dim(indices[0], values[0])
    merge_dim(indices[1], dense_shape[0])
    if dense_shape[0] == 0:
        raise ShapeError("dense_shape must not be empty", 2)
    dense = shape_from_const(c, 2)
    rows = -1 if dense is None else dense[0]
    return [(-1, dense_shape[0]), (-1,), (rows,), (count,)]


def _sparse_reduce(c: Context) -> list[Shape]:
    """`SparseReduceShapeFn` (SparseReduceSum, SparseReduceMax): known when the dense shape and axes are constants."""
    c.expect_inputs(4)
    dense = c.const(2)
    axes = c.const(3)
    if dense is None or axes is None:
        raise Unknown
    rank = len(dense.values)
    if len(dense.dims) != 1:
        raise Unknown
    if rank == 0:
        raise ShapeError("Number of dims in shape tensor must not be 0", 2)
    if min(dense.values) < -1:
        raise Unknown
    reduced = set()
    for axis in axes.values:
        # C++'s `(axis + rank) % rank`: the remainder takes the sign of the dividend.
        total = axis + rank
        reduced.add(total % rank if total >= 0 else -(-total % rank))
    keep = c.attr("keep_dims", "b")
    out: list[int] = []
    for position, size in enumerate(dense.values):
        if position not in reduced:
            out.append(size)
        elif keep:
            out.append(1)
    return [tuple(out)]


def _sparse_dense_cwise(c: Context) -> list[Shape]:
    c.expect_inputs(4)
    indices = with_rank(c.shapes[0], 2, 0)
    return [(indices[0],)]


def _sparse_softmax(c: Context) -> list[Shape]:
    c.expect_inputs(3)
    with_rank(c.shapes[0], 2, 0)
    values = with_rank(c.shapes[1], 1, 1)
    with_rank(c.shapes[2], 1, 2)
    return [values]


def _sparse_slice(c: Context) -> list[Shape]:
    c.expect_inputs(5)
    shape = c.shapes[2]
    return [(-1, elements(shape)), (-1,), shape]


def _sparse_tensor_dense_add(c: Context) -> list[Shape]:
    c.expect_inputs(4)
    return [c.shapes[3]]


def _serialize_sparse(c: Context) -> list[Shape]:
    c.expect_inputs(3)
    with_rank(c.shapes[0], 2, 0)
    with_rank(c.shapes[1], 1, 1)
    with_rank(c.shapes[2], 1, 2)
    return [(3,) if c.node.op == "SerializeSparse" else (-1, 3)]


def _sparse_segment_with_num_segments(c: Context) -> list[Shape]:
    """`SparseSegmentReductionWithNumSegmentsShapeFn`."""
    c.expect_inputs(4)
    data = with_rank_at_least(c.shapes[0], 1, 0)
    indices = with_rank(c.shapes[1], 1, 1)
    segments = with_rank(c.shapes[2], 1, 2)
    with_rank(c.shapes[3], 0, 3)
    merge(indices, segments)
    rest = None if data is None else data[1:]
    value = c.const(3)
    first = -1
    if value is not None:
        if len(value.values) != 1:
            raise Unknown
        first = value.values[0]
        if first < 0:
            raise ShapeError("Cannot specify a negative value for num_segments", 3)
    return [None if rest is None else (first,) + rest]


SHAPE_FNS: dict[str, ShapeFn] = {
    "SparseTensorDenseMatMul": _sparse_tensor_dense_mat_mul,
    "SparseToDense": _sparse_to_dense,
    "SparseAdd": _sparse_add,
    "SparseAddGrad": _sparse_add_grad,
    "SparseConcat": _sparse_concat,
    "SparseReorder": _sparse_reorder,
    "SparseReshape": _sparse_reshape,
    "SparseFillEmptyRows": _sparse_fill_empty_rows,
    "SparseReduceSum": _sparse_reduce,
    "SparseReduceMax": _sparse_reduce,
    "SparseDenseCwiseMul": _sparse_dense_cwise,
    "SparseDenseCwiseDiv": _sparse_dense_cwise,
    "SparseDenseCwiseAdd": _sparse_dense_cwise,
    "SparseSoftmax": _sparse_softmax,
    "SparseSlice": _sparse_slice,
    "SparseTensorDenseAdd": _sparse_tensor_dense_add,
    "SerializeSparse": _serialize_sparse,
    "SerializeManySparse": _serialize_sparse,
    "SparseSegmentSumWithNumSegments": _sparse_segment_with_num_segments,
    "SparseSegmentMeanWithNumSegments": _sparse_segment_with_num_segments,
    "SparseSegmentSqrtNWithNumSegments": _sparse_segment_with_num_segments,
}
