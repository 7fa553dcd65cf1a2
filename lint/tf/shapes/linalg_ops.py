"""Shape functions of linear-algebra ops (TensorFlow's core/ops/linalg_ops.cc)."""

from __future__ import annotations

from tflint.tf.shapes.algebra import (
    Shape,
    ShapeError,
    Unknown,
    broadcast,
    merge,
    merge_dim,
    subshape,
    with_rank,
    with_rank_at_least,
)
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


def _einsum_terms(equation: str) -> tuple[list[str], str]:
    """(input terms, output term) of a well-formed einsum equation; Unknown on anything else."""
    if equation.count("->") != 1:
        raise Unknown
    inputs, output = equation.split("->")
    terms = inputs.split(",")
    for term in [*terms, output]:
        if term.count("...") > 1 or not term.replace("...", "").isalpha() and term.replace("...", ""):
            raise Unknown
        if not term.replace("...", "").isascii() or "." in term.replace("...", ""):
            raise Unknown
    return terms, output


def _einsum(c: Context) -> list[Shape]:
    """Einsum (`EinsumShape`): labels name dimensions that must agree; `...` dimensions broadcast."""
    equation = c.attr("equation", "s").decode("utf-8", "replace")
    terms, output = _einsum_terms(equation)
    if not 1 <= len(c.shapes) <= 2 or len(terms) != len(c.shapes):
        raise Unknown
    labels: dict[str, int] = {}
    broadcast_shapes: list[Shape] = []
    for index, term in enumerate(terms):
        shape = c.shapes[index]
        has_ellipsis = "..." in term
        named = term.replace("...", "")
        if shape is not None:
            try:
                if has_ellipsis:
                    with_rank_at_least(shape, len(named))
                else:
                    with_rank(shape, len(named))
            except ShapeError as error:
                raise ShapeError(f"{error.message} for {index}th input and equation: {equation}", index) from None
        before, _, after = term.partition("...")
        bcast: Shape = ()
        if has_ellipsis:
            bcast = None if shape is None else subshape(shape, len(before), len(shape) - len(after))
        for position, label in enumerate(before):
            dim = -1 if shape is None else shape[position]
            labels[label] = merge_dim(labels[label], dim) if label in labels else dim
        for position, label in enumerate(after):
            dim = -1 if shape is None else shape[len(shape) - len(after) + position]
            labels[label] = merge_dim(labels[label], dim) if label in labels else dim
        broadcast_shapes.append(bcast)
    if len(broadcast_shapes) > 2:
        raise Unknown
    out_bcast = (
        broadcast_shapes[0] if len(broadcast_shapes) == 1 else broadcast(broadcast_shapes[0], broadcast_shapes[1])
    )
    if "..." in output:
        if out_bcast is None:
            return [None]
    elif out_bcast is not None and len(out_bcast) > 0:
        raise ShapeError(
            f"Shape must be at most rank 0 but is rank {len(out_bcast)} for einsum equation '{equation}' "
            "without ellipsis"
        )
    dims: list[int] = []
    before, _, after = output.partition("...")
    for part, extra in ((before, out_bcast if "..." in output else ()), (after, ())):
        for label in part:
            if label not in labels:
                raise ShapeError(
                    f"Einsum output subscripts for equation '{equation}' has label '{label}' "
                    "which is not present in the input subscripts"
                )
            dims.append(labels[label])
        dims.extend(extra or ())
    return [tuple(dims)]


SHAPE_FNS: dict[str, ShapeFn] = {
    "MatrixSolve": _matrix_solve,
    "Einsum": _einsum,
}
