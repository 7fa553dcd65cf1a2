"""Shape functions of array ops (TensorFlow's core/ops/array_ops.cc)."""

from __future__ import annotations

from tflint.tf.op_signatures import MAX_ARG_LENGTH
from tflint.tf.shapes.algebra import (
    MAX_RANK,
    ConstValue,
    Shape,
    ShapeError,
    Unknown,
    add,
    divide,
    elements,
    merge,
    merge_dim,
    multiply,
    replace_dim,
    shape_text,
    subshape,
    subtract,
    with_rank,
    with_rank_at_least,
    with_rank_at_most,
    with_value,
)
from tflint.tf.shapes.common import (
    explicit_shape,
    int_attr,
    merged_inputs,
    read_data_format,
    scalar,
    scalar_input_dim,
    scalar_input_size,
    shape_from_const,
    unchanged,
)
from tflint.tf.shapes.context import Context, ShapeFn
from tflint.tf.shapes.strided_slice import validate_strided_slice


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
    elif perm_elements >= 0 or perm is None:
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
    if count < 1 or count > MAX_ARG_LENGTH:
        raise Unknown  # beyond the bound, no list of `count` shapes is built (input-count says so)
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


def _strided_slice(c: Context) -> list[Shape]:
    """StridedSlice: `ValidateStridedSliceOp` once the input's rank, the spec's length and strides are known."""
    c.expect_inputs(4)
    shape = c.shapes[0]
    spec = with_rank(c.shapes[1], 1, 1)
    spec = merge(spec, with_rank(c.shapes[2], 1, 2))
    spec = merge(spec, with_rank(c.shapes[3], 1, 3))
    strides = c.const(3)
    if shape is None or spec[0] < 0 or strides is None:
        return [None]
    begin = c.const(1)
    end = c.const(2)
    masks = [int_attr(c, name) for name in _SLICE_MASKS]
    return [validate_strided_slice(begin, end, strides, shape, *masks)]


_SLICE_MASKS = ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask")


def _strided_slice_grad(c: Context) -> list[Shape]:
    c.expect_inputs(5)
    return [shape_from_const(c, 0)]


def _pad(c: Context) -> list[Shape]:
    """Pad, PadV2, MirrorPad (`PadShapeFn`): `paddings` is a [rank, 2] matrix of non-negative amounts."""
    if len(c.shapes) not in (2, 3):
        raise Unknown
    paddings_shape = with_rank(c.shapes[1], 2, 1)
    with_value(paddings_shape[1], 2, 1)
    shape = c.shapes[0]
    count = paddings_shape[0]
    if count >= 0:
        shape = with_rank(shape, count, 0)
    elif shape is not None:
        count = with_value(count, len(shape), 1)
    paddings = c.const(1)
    if paddings is None:
        return [None if count < 0 or count > MAX_RANK else (-1,) * count]
    count = paddings.dims[0] if paddings.dims else 0
    shape = with_rank(shape, count, 0)
    if len(paddings.values) != 2 * count:
        raise Unknown
    dims = []
    for position in range(count):
        before, after = paddings.values[2 * position], paddings.values[2 * position + 1]
        if before < 0 or after < 0:
            raise ShapeError("Paddings must be non-negative")
        dims.append(add(shape[position], before + after))
    return [tuple(dims)]


def _one_hot(c: Context) -> list[Shape]:
    c.expect_inputs(4)
    axis = int_attr(c, "axis")
    if axis < -1:
        raise ShapeError("axis must be >= -1")
    depth = scalar_input_size(c, 1)
    indices = c.shapes[0]
    if indices is None:
        return [None]
    rank = len(indices) + 1
    position = (axis + rank) % rank
    return [indices[:position] + (depth,) + indices[position:]]


def _split_v(c: Context) -> list[Shape]:
    """SplitV: `size_splits` (at most one -1) adds up to the split dimension.

    As in TensorFlow, known sizes with an unknown axis are checked against the last dimension
    (the unknown axis reads as -1).
    """
    c.expect_inputs(3)
    count = c.attr("num_split", "i")
    if count < 1 or count > MAX_ARG_LENGTH:
        raise Unknown  # beyond the bound, no list of `count` shapes is built (input-count says so)
    shape = c.shapes[0]
    axis = scalar_input_dim(c, 2, -1 if shape is None else len(shape))
    if shape is None:
        return [None] * count
    if not shape:
        raise ShapeError("Can't split scalars", 0)
    sizes = c.const(1)
    if sizes is None:
        return [replace_dim(shape, axis, -1) if axis >= 0 else (-1,) * len(shape)] * count
    if len(sizes.dims) != 1:
        raise Unknown
    shape = with_rank_at_least(shape, axis + 1, 0)
    values = sizes.values
    if len(values) != count:
        raise ShapeError("Length of size_splits should be equal to num_outputs", 1)
    total = 0
    has_minus_one = False
    for size in values:
        if size == -1:
            if has_minus_one:
                raise ShapeError("size_splits can only have one -1", 1)
            has_minus_one = True
        else:
            total += size
    dim = shape[axis]
    outputs: list[Shape] = []
    for size in values:
        if size == -1 and dim >= 0:
            size = dim - total
        outputs.append(replace_dim(shape, axis, size if size >= 0 else -1))
    if dim >= 0 and (total > dim if has_minus_one else total != dim):
        raise ShapeError(f"can't split axis of size {dim} into pieces of size [{','.join(map(str, values))}]")
    return outputs


def _reverse_v2(c: Context) -> list[Shape]:
    c.expect_inputs(2)
    with_rank(c.shapes[1], 1, 1)
    shape = c.shapes[0]
    if shape is not None and len(shape) > 8:
        raise ShapeError("reverse does not work on tensors with more than 8 dimensions", 0)
    axes = c.const(1)
    if axes is None or shape is None:
        return [shape]
    rank = len(shape)
    seen = set()
    for position, axis in enumerate(axes.values):
        canonical = axis + rank if axis < 0 else axis
        if canonical < 0 or canonical >= rank:
            raise ShapeError(f"'axis'[{position}] = {axis} is out of valid range [0, {rank - 1}", 1)
        if canonical in seen:
            raise ShapeError(f"axis {canonical} specified more than once.", 1)
        seen.add(canonical)
    return [shape]


def _roll(c: Context) -> list[Shape]:
    c.expect_inputs(3)
    with_rank_at_least(c.shapes[0], 1, 0)
    with_rank_at_most(c.shapes[1], 1, 1)
    with_rank_at_most(c.shapes[2], 1, 2)
    merge(c.shapes[1], c.shapes[2])
    return [c.shapes[0]]


def _reverse_sequence(c: Context) -> list[Shape]:
    c.expect_inputs(2)
    lengths = with_rank(c.shapes[1], 1, 1)
    shape = c.shapes[0]
    seq_dim = c.attr("seq_dim", "i")
    batch_dim = c.attr("batch_dim", "i")
    if shape is None:
        return [None]
    if seq_dim < 0 or batch_dim < 0:
        raise Unknown
    rank = len(shape)
    if batch_dim >= rank:
        raise ShapeError(f"batch_dim must be < input rank: {batch_dim} vs. {rank}")
    if seq_dim >= rank:
        raise ShapeError(f"seq_dim must be < input rank: {seq_dim} vs. {rank}")
    return [replace_dim(shape, batch_dim, merge_dim(shape[batch_dim], lengths[0]))]


def _image_format(c: Context) -> tuple[int, int, int, int]:
    """(batch, height, width, channels) positions of a 4-D NHWC or NCHW tensor; give up on other formats."""
    data_format = read_data_format(c)
    if data_format == "NHWC":
        return 0, 1, 2, 3
    if data_format == "NCHW":
        return 0, 2, 3, 1
    raise Unknown


def _space_to_depth(c: Context) -> list[Shape]:
    c.expect_inputs(1)
    order = _image_format(c)
    shape = with_rank(c.shapes[0], 4, 0)
    block = int_attr(c, "block_size")
    if block < 2:
        raise Unknown  # the OpDef's minimum (attr-value's finding)
    out = list(shape)
    out[order[1]] = divide(shape[order[1]], block)
    out[order[2]] = divide(shape[order[2]], block)
    out[order[3]] = multiply(shape[order[3]], block * block)
    return [tuple(out)]


def _depth_to_space(c: Context) -> list[Shape]:
    c.expect_inputs(1)
    order = _image_format(c)
    shape = with_rank(c.shapes[0], 4, 0)
    block = int_attr(c, "block_size")
    if block < 2:
        raise Unknown
    out = list(shape)
    out[order[1]] = multiply(shape[order[1]], block)
    out[order[2]] = multiply(shape[order[2]], block)
    out[order[3]] = divide(shape[order[3]], block * block)
    return [tuple(out)]


def _block_spec(c: Context, input_shape: Shape) -> tuple[tuple[int, ...], int, ConstValue | None]:
    """The shared start of SpaceToBatchND / BatchToSpaceND: (input, number of block dims, block values)."""
    block_shape = with_rank(c.shapes[1], 1, 1)
    paddings_shape = with_rank(c.shapes[2], 2, 2)
    count = block_shape[0]
    if count < 0:
        raise ShapeError("block_shape must have known size.", 1)
    if count > MAX_RANK:
        raise Unknown
    shape = with_rank_at_least(input_shape, count + 1, 0)
    merge(paddings_shape, (count, 2))
    if shape is None:
        shape = (-1,) * (count + 1)  # the rest is unknown: see _unless_unknown_rank
    block = c.const(1)
    if block is not None and len(block.values) != count:
        raise Unknown
    return shape, count, block


def _space_to_batch_nd(c: Context) -> list[Shape]:
    c.expect_inputs(3)
    try:
        shape, count, block = _block_spec(c, c.shapes[0])
    except Unknown:
        return [None]
    batch = shape[0]
    if block is not None and block.values:
        for size in block.values:
            if size < 1:
                raise ShapeError("block_shape must be positive", 1)
            batch = multiply(batch, size) if batch >= 0 else -1
    elif count > 0:
        batch = -1
    dims = [batch] + [-1] * count
    paddings = c.const(2)
    if paddings is not None and paddings.values:
        for position in range(count):
            before, after = paddings.values[2 * position], paddings.values[2 * position + 1]
            if before < 0 or after < 0:
                raise ShapeError("paddings cannot be negative", 2)
            if block is not None:
                padded = add(add(shape[position + 1], before), after)
                dims[position + 1] = divide(padded, block.values[position])
    return [_unless_unknown_rank(c, tuple(dims) + shape[count + 1 :])]


def _unless_unknown_rank(c: Context, shape: Shape) -> Shape:
    """The output of SpaceToBatchND / BatchToSpaceND: unknown when the input's rank is."""
    return None if c.shapes[0] is None else shape


def _batch_to_space_nd(c: Context) -> list[Shape]:
    c.expect_inputs(3)
    try:
        shape, count, block = _block_spec(c, c.shapes[0])
    except Unknown:
        return [None]
    batch = shape[0]
    if block is not None and block.values:
        product = 1
        for size in block.values:
            if size < 1:
                raise ShapeError("block_shape must be positive", 1)
            product *= size
        batch = divide(batch, product) if batch >= 0 else -1
    elif count > 0:
        batch = -1
    dims = [batch] + [-1] * count
    crops = c.const(2)
    if crops is not None and crops.values:
        for position in range(count):
            before, after = crops.values[2 * position], crops.values[2 * position + 1]
            if before < 0 or after < 0:
                raise ShapeError("crops cannot be negative", 2)
            if block is not None:
                size = multiply(shape[position + 1], block.values[position])
                dims[position + 1] = subtract(subtract(size, before), after)
    return [_unless_unknown_rank(c, tuple(dims) + shape[count + 1 :])]


def _scatter_nd_check(indices: Shape, updates: Shape, output: Shape) -> None:
    """`ScatterNdShapeHelper`: indices' outer dims match updates', the rest of updates matches the output."""
    if elements(output) == 0 and (elements(indices) > 0 or elements(updates) > 0):
        raise ShapeError("Indices and updates specified for empty input")
    if indices is None or updates is None or not indices or not updates:
        return
    outer = len(indices) - 1
    inner = indices[-1]
    if inner < 0:
        return
    prefix_indices = subshape(indices, 0, outer)
    prefix_updates = subshape(updates, 0, outer)
    try:
        merge(prefix_indices, prefix_updates)
    except ShapeError as error:
        raise ShapeError(
            f"Dimensions [0,{outer}) of indices[shape={shape_text(indices)}] = {shape_text(prefix_indices)} "
            f"must match dimensions [0,{outer}) of updates[shape={shape_text(updates)}] = "
            f"{shape_text(prefix_updates)}: {error.message}"
        ) from None
    suffix_output = subshape(output, inner)
    suffix_updates = subshape(updates, outer)
    try:
        merge(suffix_output, suffix_updates)
    except ShapeError as error:
        rank = "?" if output is None else len(output)
        raise ShapeError(
            f"Dimensions [{inner},{rank}) of input[shape={shape_text(output)}] = {shape_text(suffix_output)} "
            f"must match dimensions [{outer},{len(updates)}) of updates[shape={shape_text(updates)}] = "
            f"{shape_text(suffix_updates)}: {error.message}"
        ) from None


def _scatter_nd(c: Context) -> list[Shape]:
    c.expect_inputs(3)
    indices = with_rank_at_least(c.shapes[0], 1, 0)
    updates = with_rank_at_least(c.shapes[1], 1, 1)
    output = shape_from_const(c, 2)
    _scatter_nd_check(indices, updates, output)
    return [output]


def _tensor_scatter(c: Context) -> list[Shape]:
    """TensorScatterUpdate / Add / Sub / Max / Min (`ScatterNdTensorShape`)."""
    c.expect_inputs(3)
    output = with_rank_at_least(c.shapes[0], 1, 0)
    indices = c.shapes[1]
    updates = c.shapes[2]
    _scatter_nd_check(indices, updates, output)
    return [output]


def _gather_nd(c: Context) -> list[Shape]:
    c.expect_inputs(2)
    params = c.shapes[0]
    indices = with_rank_at_least(c.shapes[1], 1, 1)
    inner = -1 if indices is None else indices[-1]
    if params is None or indices is None or inner < 0:
        return [None]
    if inner > len(params):
        raise ShapeError(
            f"indices.shape[-1] must be <= params.rank, but saw indices shape: {shape_text(indices)} "
            f"and params shape: {shape_text(params)}"
        )
    return [indices[:-1] + params[inner:]]


def _where(c: Context) -> list[Shape]:
    c.expect_inputs(1)
    shape = c.shapes[0]
    return [(-1, -1 if shape is None else len(shape))]


def _invert_permutation(c: Context) -> list[Shape]:
    c.expect_inputs(1)
    return [with_rank(c.shapes[0], 1, 0)]


def _list_diff(c: Context) -> list[Shape]:
    c.expect_inputs(2)
    with_rank(c.shapes[0], 1, 0)
    with_rank(c.shapes[1], 1, 1)
    return [(-1,), (-1,)]


def _quantize_and_dequantize_v2(c: Context) -> list[Shape]:
    c.expect_inputs(3)
    axis = int_attr(c, "axis")
    minmax = with_rank(c.shapes[1], 0 if axis == -1 else 1, 1)
    minmax = merge(c.shapes[2], minmax)
    if axis < -1:
        raise ShapeError(f"axis should be at least -1, got {axis}")
    if axis != -1:
        shape = with_rank_at_least(c.shapes[0], axis + 1, 0)
        merge_dim(minmax[0], -1 if shape is None else shape[axis])
    return [c.shapes[0]]


def _concat_offset(c: Context) -> list[Shape]:
    """ConcatOffset: one offset vector per shape vector, of its shape."""
    if len(c.shapes) < 2:
        raise Unknown
    return list(c.shapes[1:])


def _quantize(c: Context) -> list[Shape]:
    """QuantizeV2 / Dequantize: min and max are scalars, or vectors over dimension `axis`."""
    c.expect_inputs(3)
    axis = int_attr(c, "axis")
    if axis < -1:
        raise ShapeError(f"axis should be at least -1, got {axis}")
    shape = c.shapes[0]
    # TensorFlow compares with the rank even when it is unknown (-1): any axis but -1 fails then.
    rank = -1 if shape is None else len(shape)
    if c.node.op == "Dequantize" and axis > rank:
        raise ShapeError(f"Axis must be less than input dimension({rank}), got {axis}")
    rank = 0 if axis == -1 else 1
    with_rank(c.shapes[1], rank, 1)
    minmax = with_rank(c.shapes[2], rank, 2)
    if axis != -1:
        shape = with_rank_at_least(shape, axis + 1, 0)
        merge_dim(minmax[0], -1 if shape is None else shape[axis])
    if c.node.op == "Dequantize":
        return [c.shapes[0]]
    return [c.shapes[0], minmax, minmax]


def _fake_quant_vars(c: Context) -> list[Shape]:
    """FakeQuantWithMinMaxVars: scalar min and max."""
    c.expect_inputs(3)
    with_rank(c.shapes[1], 0, 1)
    with_rank(c.shapes[2], 0, 2)
    return [c.shapes[0]]


def _fake_quant_per_channel(c: Context) -> list[Shape]:
    """FakeQuantWithMinMaxVarsPerChannel: min and max are vectors over the last dimension."""
    c.expect_inputs(3)
    shape = with_rank_at_least(c.shapes[0], 1, 0)
    low = with_rank(c.shapes[1], 1, 1)
    high = with_rank(c.shapes[2], 1, 2)
    last = -1 if shape is None else shape[-1]
    merge_dim(last, low[0])
    merge_dim(last, high[0])
    merge_dim(low[0], high[0])
    return [shape]


# -- diagonals (MatrixDiag*, MatrixSetDiag*, Diag, DiagPart) ----------------------------------------


def _min_dim(x: int, y: int) -> int:
    """`InferenceContext::Min`: a known 0 wins, else unknown unless both are known."""
    if x == 0 or y == 0:
        return 0
    if x < 0 or y < 0:
        return -1
    return min(x, y)


def _diag(c: Context) -> list[Shape]:
    c.expect_inputs(1)
    shape = with_rank_at_least(c.shapes[0], 1, 0)
    return [None if shape is None else shape + shape]


def _diag_part(c: Context) -> list[Shape]:
    c.expect_inputs(1)
    shape = c.shapes[0]
    if shape is None:
        return [None]
    rank = len(shape)
    if rank % 2 or rank <= 0:
        raise ShapeError(f"Input must have even and non-zero rank, input rank is {rank}", 0)
    middle = rank // 2
    return [tuple(merge_dim(shape[i], shape[i + middle]) for i in range(middle))]


def _matrix_diag(c: Context) -> list[Shape]:
    c.expect_inputs(1)
    shape = with_rank_at_least(c.shapes[0], 1, 0)
    return [None if shape is None else shape + shape[-1:]]


def _matrix_diag_part(c: Context) -> list[Shape]:
    c.expect_inputs(1)
    shape = with_rank_at_least(c.shapes[0], 2, 0)
    if shape is None:
        return [None]
    return [shape[:-2] + (_min_dim(shape[-2], shape[-1]),)]


def _matrix_set_diag(c: Context) -> list[Shape]:
    c.expect_inputs(2)
    given = with_rank_at_least(c.shapes[0], 2, 0)
    diag = with_rank_at_least(c.shapes[1], 1, 1)
    if given is not None:
        diag = with_rank(c.shapes[1], len(given) - 1, 1)
    smallest = -1 if given is None else _min_dim(given[-2], given[-1])
    merge_dim(smallest, -1 if diag is None else diag[-1])
    if diag is not None and (given is None or min(given) < 0):
        return [merge(given, diag[:-1] + (-1, -1))]
    return [given]


def _diag_index(c: Context, index: int) -> tuple[int, int] | None:
    """`ReadDiagIndex`: (lower, upper) of the constant `k` input, or None when it is not a constant.

    Every caller then checks that lower <= upper, as TensorFlow's shape functions do right after it.
    """
    value = c.const(index)
    if value is None:
        return None
    if len(value.dims) > 1:
        raise Unknown
    if len(value.values) not in (1, 2) and value.dims:
        raise ShapeError(
            f"diag_index must be a vector with one or two elements. It has {len(value.values)} elements.", index
        )
    lower, upper = value.values[0], value.values[-1]
    if lower > upper:
        raise ShapeError("lower_diag_index is greater than upper_diag_index", index)
    return lower, upper


def _check_diag_bounds(shape: tuple[int, ...], lower: int, upper: int) -> int:
    """Both diagonals lie inside a known [rows, cols] matrix; the longest diagonal's length (-1 when unknown)."""
    rows, cols = shape[-2], shape[-1]
    if rows < 0 or cols < 0:
        return -1
    if lower != 0 and (-rows >= lower or lower >= cols):
        raise ShapeError("lower_diag_index is out of bound.")
    if upper != 0 and (-rows >= upper or upper >= cols):
        raise ShapeError("upper_diag_index is out of bound.")
    return min(rows + min(upper, 0), cols - max(lower, 0))


def _matrix_diag_part_v2(c: Context) -> list[Shape]:
    """`MatrixDiagPartV2Shape` (MatrixDiagPartV2, V3)."""
    c.expect_inputs(3)
    shape = with_rank_at_least(c.shapes[0], 2, 0)
    with_rank_at_most(c.shapes[1], 1, 1)
    with_rank(c.shapes[2], 0, 2)
    if shape is None:
        return [None]
    diagonals = _diag_index(c, 1)
    if diagonals is None:
        return [None]
    lower, upper = diagonals
    longest = _check_diag_bounds(shape, lower, upper)
    out = shape[:-2]
    if lower < upper:
        out += (upper - lower + 1,)
    return [out + (longest if longest >= 0 else -1,)]


def _scalar_const(c: Context, index: int) -> int:
    """`GetScalarFromTensor` of a constant input (-1 when not a constant)."""
    value = c.const(index)
    if value is None:
        return -1
    if value.dims:
        raise ShapeError(f"Input must be a scalar but has rank {len(value.dims)}", index)
    return value.values[0]


def _matrix_diag_v2(c: Context) -> list[Shape]:
    """`MatrixDiagV2Shape` (MatrixDiagV2, V3)."""
    c.expect_inputs(5)
    shape = with_rank_at_least(c.shapes[0], 1, 0)
    with_rank_at_most(c.shapes[1], 1, 1)
    for index in (2, 3, 4):
        with_rank(c.shapes[index], 0, index)
    if shape is None:
        return [None]
    diagonals = _diag_index(c, 1)
    if diagonals is None:
        return [None]
    lower, upper = diagonals
    rank = len(shape)
    if lower < upper:
        count = shape[-2] if rank >= 2 else shape[-1]
        if count != upper - lower + 1:
            raise ShapeError(
                "The number of rows of `diagonal` doesn't match the number of diagonals implied from `d_lower` "
                f"and `d_upper`. num_diags = {count}, d_lower = {lower}, d_upper = {upper}",
                0,
            )
    rows = _scalar_const(c, 2)
    cols = _scalar_const(c, 3)
    longest = shape[-1]
    min_rows = longest - min(upper, 0)
    min_cols = longest + max(lower, 0)
    if rows == -1 and cols == -1:
        rows = cols = max(min_rows, min_cols)
    elif rows == -1:
        rows = min_rows
    elif cols == -1:
        cols = min_cols
    if rows < min_rows or cols < min_cols:
        raise ShapeError(
            "The number of rows or columns is not consistent with the specified d_lower, d_upper, and diagonal."
        )
    if rows < -1 or cols < -1 or rank < 2 and lower != upper:
        raise Unknown
    if lower == upper:
        return [shape[:-1] + (rows, cols)]
    return [shape[:-2] + (rows, cols)]


def _matrix_set_diag_v2(c: Context) -> list[Shape]:
    """`MatrixSetDiagV2Shape` (MatrixSetDiagV2, V3)."""
    c.expect_inputs(3)
    given = with_rank_at_least(c.shapes[0], 2, 0)
    diag = with_rank_at_least(c.shapes[1], 1, 1)
    index_shape = with_rank_at_most(c.shapes[2], 1, 2)
    lower = upper = 0
    known = False
    if index_shape is not None and min(index_shape, default=0) >= 0:
        diagonals = _diag_index(c, 2)
        if diagonals is not None:
            known = True
            lower, upper = diagonals
    if given is not None:
        rank = len(given)
        if known:
            diag = with_rank(c.shapes[1], rank - 1 if lower == upper else rank, 1)
        else:
            diag = with_rank_at_most(with_rank_at_least(c.shapes[1], rank - 1, 1), rank, 1)
        _check_diag_bounds(given, lower, upper)
    if diag is not None and (given is None or min(given) < 0):
        prefix = diag[:-1] if lower == upper else subshape(diag, 0, -2)
        if prefix is None:
            raise Unknown
        return [merge(given, prefix + (-1, -1))]
    return [given]


def _matrix_band_part(c: Context) -> list[Shape]:
    c.expect_inputs(3)
    return [c.shapes[0]]


def _identity_n(c: Context) -> list[Shape]:
    return list(c.shapes)


def _broadcast_to(c: Context) -> list[Shape]:
    c.expect_inputs(2)
    with_rank(c.shapes[1], 1, 1)
    out = shape_from_const(c, 1)
    given = c.shapes[0]
    if out is None or given is None:
        return [out]
    with_rank_at_most(given, len(out), 0)
    dims = list(out)
    offset = len(out) - len(given)
    for position, size in enumerate(given):
        if size > 1:
            dims[offset + position] = merge_dim(size, dims[offset + position])
    return [tuple(dims)]


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
    "StridedSlice": _strided_slice,
    "StridedSliceGrad": _strided_slice_grad,
    "Pad": _pad,
    "PadV2": _pad,
    "MirrorPad": _pad,
    "OneHot": _one_hot,
    "SplitV": _split_v,
    "ReverseV2": _reverse_v2,
    "Roll": _roll,
    "ReverseSequence": _reverse_sequence,
    "SpaceToDepth": _space_to_depth,
    "DepthToSpace": _depth_to_space,
    "SpaceToBatchND": _space_to_batch_nd,
    "BatchToSpaceND": _batch_to_space_nd,
    "ScatterNd": _scatter_nd,
    "TensorScatterUpdate": _tensor_scatter,
    "TensorScatterAdd": _tensor_scatter,
    "TensorScatterSub": _tensor_scatter,
    "TensorScatterMax": _tensor_scatter,
    "TensorScatterMin": _tensor_scatter,
    "GatherNd": _gather_nd,
    "Where": _where,
    "InvertPermutation": _invert_permutation,
    "ListDiff": _list_diff,
    "QuantizeAndDequantizeV2": _quantize_and_dequantize_v2,
    "ConcatOffset": _concat_offset,
    "QuantizeV2": _quantize,
    "Dequantize": _quantize,
    "FakeQuantWithMinMaxArgs": unchanged,
    "FakeQuantWithMinMaxVars": _fake_quant_vars,
    "FakeQuantWithMinMaxVarsPerChannel": _fake_quant_per_channel,
    "Diag": _diag,
    "DiagPart": _diag_part,
    "MatrixDiag": _matrix_diag,
    "MatrixDiagV2": _matrix_diag_v2,
    "MatrixDiagV3": _matrix_diag_v2,
    "MatrixDiagPart": _matrix_diag_part,
    "MatrixDiagPartV2": _matrix_diag_part_v2,
    "MatrixDiagPartV3": _matrix_diag_part_v2,
    "MatrixSetDiag": _matrix_set_diag,
    "MatrixSetDiagV2": _matrix_set_diag_v2,
    "MatrixSetDiagV3": _matrix_set_diag_v2,
    "MatrixBandPart": _matrix_band_part,
    "IdentityN": _identity_n,
    "BroadcastTo": _broadcast_to,
}
