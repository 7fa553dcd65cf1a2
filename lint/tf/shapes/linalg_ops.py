"""Shape functions of linear-algebra ops (TensorFlow's core/ops/linalg_ops.cc)."""

from __future__ import annotations

from tflint.tf.shapes.algebra import Shape, merge, merge_dim, with_rank_at_least
from tflint.tf.shapes.context import Context, ShapeFn


def _matrix_solve(c: Context) -> list[Shape]:
    """MatrixSolve (`MatrixSolveShapeFn`, square): [..., M, M] and [..., M, K] give [..., M, K]."""
    c.expect_inputs(2)
    lhs = with_rank_at_least(c.shapes[0], 2, 0)
    if lhs is not None:
        size = merge_dim(lhs[-2], lhs[-1])
        lhs = lhs[:-2] + (size, size)
    rhs = with_rank_at_least(c.shapes[1], 2, 1)
    batch = merge(None if lhs is None else lhs[:-2], None if rhs is None else rhs[:-2])
    m = merge_dim(-1 if lhs is None else lhs[-2], -1 if rhs is None else rhs[-2])
    n = merge_dim(m, -1 if lhs is None else lhs[-1])
    if batch is None:
        return [None]
    return [batch + (n, -1 if rhs is None else rhs[-1])]


SHAPE_FNS: dict[str, ShapeFn] = {
    "MatrixSolve": _matrix_solve,
}
