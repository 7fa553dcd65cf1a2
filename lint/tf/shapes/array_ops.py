"""Shape functions of array ops (TensorFlow's core/ops/array_ops.cc)."""

from __future__ import annotations

from tflint.tf.shapes.algebra import (
    MAX_RANK,
    Shape,
    ShapeError,
    Unknown,
    add,
    elements,
    merge,
    multiply,
    shape_text,
    subtract,
    with_rank,
    with_rank_at_least,
)
from tflint.tf.shapes.common import (
    explicit_shape,
    merged_inputs,
    scalar,
    scalar_input_dim,
    shape_from_const,
    unchanged,
)
from tflint.tf.shapes.context import Context, ShapeFn


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
    out = shape_from_const(c, 1)
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
        middle = add(middle, other_middle)
        after = merge(other_after, after)
    if before is None or after is None:
        return [None]
    return [before + (middle,) + after]


def _value_index(axis_index: int, offset: int) -> int:
    """The data input index of the `offset`-th value of a concat (its axis comes first or last)."""
    return offset + 1 if axis_index == 0 else offset


def _split_at(shape: Shape, axis: int) -> tuple[Shape, int, Shape]:
    """(dims before `axis`, the dim at `axis`, dims after) like TF's Subshape calls; None parts for an unknown rank."""
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
    current = merged_inputs(c)
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
    if count < 0 or count > (1 << 31) - 1:
        raise Unknown
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


def _fill(c: Context) -> list[Shape]:
    c.expect_inputs(2)
    with_rank(c.shapes[0], 1, 0)
    with_rank(c.shapes[1], 0, 1)
    value = c.const(0)
    if value is not None and any(size < 0 for size in value.values):
        raise ShapeError("Fill dimensions must be >= 0", 0)
    return [shape_from_const(c, 0)]


def _transpose(c: Context) -> list[Shape]:
    c.expect_inputs(2)
    shape = c.shapes[0]
    perm_shape = c.shapes[1]
    perm = c.const(1)
    perm_elements = elements(perm_shape)
    if shape is None and perm_elements < 0 and perm is None:
        return [None]
    if shape is not None:
        rank = len(shape)
    elif perm_elements >= 0:
        rank = perm_elements
    else:
        rank = len(perm.values)
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


def _broadcast_gradient_args(c: Context) -> list[Shape]:
    c.expect_inputs(2)
    with_rank(c.shapes[0], 1, 0)
    with_rank(c.shapes[1], 1, 1)
    return [(-1,), (-1,)]


def _unique(c: Context) -> list[Shape]:
    c.expect_inputs(1)
    with_rank(c.shapes[0], 1, 0)
    return [(-1,), c.shapes[0]]


def _tile(c: Context) -> list[Shape]:
    c.expect_inputs(2)
    shape = c.shapes[0]
    multiples = shape_from_const(c, 1)
    if shape is not None:
        multiples = with_rank(multiples, len(shape), 1)
        merge(c.shapes[1], (len(shape),))
    if multiples is None:
        return [None]
    shape = with_rank(shape, len(multiples), 0)
    return [tuple(multiply(size, times) for size, times in zip(shape, multiples))]


def _split(c: Context) -> list[Shape]:
    c.expect_inputs(2)
    count = c.attr("num_split", "i")
    if count < 1 or count > (1 << 31) - 1:
        raise Unknown
    shape = c.shapes[1]
    axis = scalar_input_dim(c, 0, -1 if shape is None else len(shape))
    if axis < 0:
        return [None if shape is None else (-1,) * len(shape)] * count
    shape = with_rank_at_least(shape, axis + 1, 1)
    if shape is None:
        return [None] * count
    size = shape[axis]
    if size >= 0:
        if size % count != 0:
            raise ShapeError(
                f"Dimension size must be evenly divisible by {count} but is {size}; "
                "Number of ways to split should evenly divide the split dimension",
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
    count = merge(begin_shape, sizes_shape)[0]
    if count >= 0:
        shape = with_rank(shape, count, 0)
    begin = shape_from_const(c, 1)
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
                dims.append(subtract(-1 if shape is None else shape[position], begin[position]))
        return [tuple(dims)]
    sizes_value = shape_from_const(c, 2)
    if sizes_value is not None:
        with_rank(begin, len(sizes_value))
        return [sizes_value]
    return [None if shape is None else (-1,) * len(shape)]


# Ops whose output 0 has the shape of input 0 (`shape_inference::UnchangedShape`).
_IDENTITY_OPS = (
    "Identity",
    "Snapshot",
    "StopGradient",
    "PreventGradient",
    "CheckNumerics",
    "CheckNumericsV2",
    "ZerosLike",
    "OnesLike",
    "RefIdentity",
)

SHAPE_FNS: dict[str, ShapeFn] = {
    **{op: unchanged for op in _IDENTITY_OPS},
    "Const": _const,
    "Placeholder": _placeholder,
    "PlaceholderV2": explicit_shape,
    "PlaceholderWithDefault": _placeholder_with_default,
    "EnsureShape": _ensure_shape,
    "Reshape": _reshape,
    "ConcatV2": _concat_v2,
    "Concat": _concat_v1,
    "Pack": _pack,
    "Unpack": _unpack,
    "Shape": _shape_of,
    "ShapeN": _shape_of,
    "Size": scalar,
    "Rank": scalar,
    "ExpandDims": _expand_dims,
    "Squeeze": _squeeze,
    "Fill": _fill,
    "Transpose": _transpose,
    "BroadcastGradientArgs": _broadcast_gradient_args,
    "Unique": _unique,
    "Tile": _tile,
    "Split": _split,
    "Gather": _gather,
    "GatherV2": _gather_v2,
    "Slice": _slice,
}
