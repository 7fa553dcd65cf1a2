"""TensorFlow's `ValidateStridedSliceOp` (core/util/strided_slice_op.cc) on partial shapes.

StridedSlice and its relatives (StridedSliceGrad, ResourceStridedSliceAssign) turn a sparse
slice spec (`x[1:3, ..., tf.newaxis, 2]`: begin, end, strides and five bit masks) into one
range per input dimension and the shape of the result. Begin and end may be unknown (not
constants); strides must be known for anything to be inferred.
"""

from __future__ import annotations

from tflint.tf.shapes.algebra import ConstValue, Shape, ShapeError, Unknown

_SHRINK_AXIS = -1
_NEW_AXIS = -2
# Masks are int32 in TensorFlow: a spec longer than this would shift past their bits.
_MAX_SPEC = 31


def _debug_shape(dims: tuple[int, ...]) -> str:
    """`TensorShape::DebugString`: `[2,3]`."""
    return "[" + ",".join(str(size) for size in dims) + "]"


def validate_strided_slice(
    begin: ConstValue | None,
    end: ConstValue | None,
    strides: ConstValue,
    shape: tuple[int, ...],
    begin_mask: int,
    end_mask: int,
    ellipsis_mask: int,
    new_axis_mask: int,
    shrink_axis_mask: int,
) -> Shape:
    """The final (partial) shape of a strided slice of `shape`, or ShapeError where TensorFlow rejects it."""
    count = 1
    for size in strides.dims:
        count *= size
    begin_wrong = begin is not None and not (len(begin.dims) == 1 and len(begin.values) == count and count < 32)
    end_wrong = end is not None and not (len(end.dims) == 1 and len(end.values) == count)
    if begin_wrong or end_wrong or len(strides.dims) != 1:
        if begin is not None and end is not None:
            raise ShapeError(
                "Expected begin, end, and strides to be 1D equal size tensors, but got shapes "
                f"{_debug_shape(begin.dims)}, {_debug_shape(end.dims)}, and {_debug_shape(strides.dims)} instead."
            )
        raise ShapeError(
            "Expected begin, end, and strides to be 1D equal size tensors, but got shape "
            f"{_debug_shape(strides.dims)} for strides."
        )
    if count > _MAX_SPEC:
        raise Unknown
    if ellipsis_mask and ellipsis_mask & (ellipsis_mask - 1):
        raise ShapeError("Multiple ellipses in slice spec not allowed")
    # Step 1: the ellipsis, and the new axes after it.
    sparse_dims = count
    added_after_ellipsis = 0
    ellipsis_seen = False
    for i in range(sparse_dims):
        if ellipsis_seen and (1 << i) & new_axis_mask:
            added_after_ellipsis += 1
        if (1 << i) & ellipsis_mask:
            ellipsis_seen = True
    if not ellipsis_seen:
        ellipsis_mask |= 1 << sparse_dims
        sparse_dims += 1
    # Step 2: the dense spec, one entry per input dimension.
    rank = len(shape)
    dense_begin = [0] * rank
    dense_end = [0] * rank
    dense_strides = [0] * rank
    dense_begin_mask = dense_end_mask = dense_shrink = 0
    gather: list[int] = []
    full = 0
    for i in range(sparse_dims):
        bit = 1 << i
        if bit & ellipsis_mask:
            next_index = min(rank - (sparse_dims - i) + 1 + added_after_ellipsis, rank)
            while full < next_index:
                dense_strides[full] = 1
                dense_begin_mask |= 1 << full
                dense_end_mask |= 1 << full
                gather.append(full)
                full += 1
        elif bit & new_axis_mask:
            gather.append(_NEW_AXIS)
        else:
            if full == rank:
                raise ShapeError(f"Index out of range using input dim {full}; input has only {rank} dims")
            if begin is not None:
                dense_begin[full] = begin.values[i]
            if end is not None:
                dense_end[full] = end.values[i]
            dense_strides[full] = strides.values[i]
            if begin_mask & bit:
                dense_begin_mask |= 1 << full
            if end_mask & bit:
                dense_end_mask |= 1 << full
            if shrink_axis_mask & bit:
                gather.append(_SHRINK_AXIS)
                dense_shrink |= 1 << full
            else:
                gather.append(full)
            full += 1
    # Step 3: each dimension's range, bounds-checked.
    known = begin is not None and end is not None
    processing = []
    for i in range(rank):
        stride = dense_strides[i]
        dim = shape[i]
        if stride == 0:
            raise ShapeError(f"strides[{i}] must be non-zero")
        shrink = bool(dense_shrink & (1 << i))
        if dim < 0:
            processing.append(1 if shrink else -1)
            continue
        masked_begin = bool(dense_begin_mask & (1 << i))
        masked_end = bool(dense_end_mask & (1 << i))
        if shrink and stride <= 0:
            raise ShapeError("only stride 1 allowed on non-range indexing.")
        low, high = (0, dim) if stride > 0 else (-1, dim - 1)
        interval = None
        if known:
            if shrink:
                start = dense_begin[i] + dim if dense_begin[i] < 0 else dense_begin[i]
                if start < 0 or start >= dim:
                    raise ShapeError(f"slice index {start} of dimension {i} out of bounds.")
                interval = 1
            else:
                start = _canonical(dense_begin[i], masked_begin, 0, stride, dim, low, high)
                stop = _canonical(dense_end[i], masked_end, 1, stride, dim, low, high)
                interval = stop - start
        elif shrink:
            interval = 1
        elif masked_begin and masked_end and dim > 0:
            interval = -dim if stride < 0 else dim
        if interval is None:
            processing.append(-1)
        elif interval == 0 or (interval < 0) != (stride < 0):
            processing.append(0)
        else:
            quotient = abs(interval) // abs(stride)  # C++ division truncates toward zero
            processing.append(quotient + (1 if abs(interval) % abs(stride) else 0))
    # Step 4: the final shape (new axes add a 1, shrunk dimensions go).
    out = []
    for index in gather:
        if index >= 0:
            out.append(processing[index])
        elif index == _NEW_AXIS:
            out.append(1)
    return tuple(out)


def _canonical(value: int, masked: bool, which: int, stride: int, dim: int, low: int, high: int) -> int:
    """A begin (`which` 0) or end (1) index clamped into the dimension, as `canonical` in TensorFlow."""
    if masked:
        if stride > 0:
            return low if which == 0 else high
        return high if which == 0 else low
    forward = dim + value if value < 0 else value
    return low if forward < low else high if forward > high else forward
