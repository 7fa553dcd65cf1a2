"""Shape functions of neural-network ops (TensorFlow's core/ops/nn_ops.cc)."""

from __future__ import annotations

from tflint.tf.shapes.algebra import (
    Shape,
    ShapeError,
    Unknown,
    merge_dim,
    with_rank,
    with_rank_at_least,
)
from tflint.tf.shapes.common import (
    explicit_paddings,
    read_data_format,
    unchanged,
    unchanged_rank_at_least_1,
    windowed_output,
)
from tflint.tf.shapes.context import Context, ShapeFn


def _bias_add(c: Context) -> list[Shape]:
    c.expect_inputs(2)
    nchw = read_data_format(c) == "NCHW"
    value = with_rank_at_least(c.shapes[0], 3 if nchw else 2, 0)
    bias = with_rank(c.shapes[1], 1, 1)
    if value is None:
        return [None]
    if nchw:
        return [value[:1] + (merge_dim(value[1], bias[0]),) + value[2:]]
    return [value[:-1] + (merge_dim(value[-1], bias[0]),)]


def _conv2d(c: Context) -> list[Shape]:
    c.expect_inputs(2)
    data_format = read_data_format(c)
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
            f"Conv2D on data format {data_format} requires the stride attribute to contain 4 values, "
            f"but got: {len(strides)}"
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
    paddings = explicit_paddings(c, padding, data_format)
    mode = padding.decode()
    row_index = 1 if data_format == "NHWC" else 2
    pad_rows = paddings[2 * row_index : 2 * row_index + 2] if paddings else (0, 0)
    pad_cols = paddings[2 * row_index + 2 : 2 * row_index + 4] if paddings else (0, 0)
    if any(value >= (1 << 31) for value in pad_rows + pad_cols):
        raise Unknown
    out_rows = windowed_output(rows, filter_rows, dilation_rows, stride_rows, mode, *pad_rows)
    out_cols = windowed_output(cols, filter_cols, dilation_cols, stride_cols, mode, *pad_cols)
    if data_format == "NHWC":
        return [(batch, out_rows, out_cols, out_depth)]
    return [(batch, out_depth, out_rows, out_cols)]


def _pool(c: Context, name: str, with_depth: bool, explicit: bool) -> list[Shape]:
    """MaxPool / AvgPool (`MaxPoolShapeImpl`, `AvgPoolShape`) for NHWC and NCHW."""
    c.expect_inputs(1)
    data_format = read_data_format(c)
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
    paddings = explicit_paddings(c, padding, data_format) if explicit else ()
    row_index = order[0]
    pad_rows = paddings[2 * row_index : 2 * row_index + 2] if paddings else (0, 0)
    pad_cols = paddings[2 * row_index + 2 : 2 * row_index + 4] if paddings else (0, 0)
    mode = padding.decode()
    out_rows = windowed_output(rows, kernel[order[0]], 1, strides[order[0]], mode, *pad_rows)
    out_cols = windowed_output(cols, kernel[order[1]], 1, strides[order[1]], mode, *pad_cols)
    if with_depth:
        depth = windowed_output(depth, kernel[order[2]], 1, strides[order[2]], mode)
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
    outputs = [out, (channel,), (channel,), (channel,), (channel,)]
    if c.node.op == "FusedBatchNormV3":
        outputs.append(None)
    return outputs


# Activations (`shape_inference::UnchangedShape`).
_UNARY_OPS = (
    "Relu",
    "Relu6",
    "Elu",
    "Selu",
    "Softplus",
    "Softsign",
    "LeakyRelu",
)
_UNCHANGED_RANK_1_OPS = ("Softmax", "LogSoftmax")

SHAPE_FNS: dict[str, ShapeFn] = {
    **{op: unchanged for op in _UNARY_OPS},
    **{op: unchanged_rank_at_least_1 for op in _UNCHANGED_RANK_1_OPS},
    "BiasAdd": _bias_add,
    "BiasAddV1": _bias_add,
    "Conv2D": _conv2d,
    "MaxPool": _max_pool,
    "AvgPool": _avg_pool,
    "FusedBatchNorm": _fused_batch_norm,
    "FusedBatchNormV2": _fused_batch_norm,
    "FusedBatchNormV3": _fused_batch_norm,
}
