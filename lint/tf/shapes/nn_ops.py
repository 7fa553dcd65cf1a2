"""Shape functions of neural-network ops (TensorFlow's core/ops/nn_ops.cc)."""

from __future__ import annotations

from tflint.tf.shapes.algebra import (
    Shape,
    ShapeError,
    Unknown,
    broadcast,
    merge,
    merge_dim,
    multiply,
    replace_dim,
    with_rank,
    with_rank_at_least,
    with_rank_at_most,
)
from tflint.tf.shapes.common import (
    explicit_paddings,
    merge_both,
    read_data_format,
    scalar,
    scalar_input_size,
    shape_from_const,
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
    outputs: list[Shape] = [out, (channel,), (channel,), (channel,), (channel,)]
    if c.node.op == "FusedBatchNormV3":
        outputs.append(None)
    return outputs


def _int_list(c: Context, name: str, count: int, message: str) -> tuple[int, ...]:
    """A list(int) attr of `count` int32 values, else TensorFlow's error `message` (with the count it got)."""
    values = c.attr_ints(name)
    if len(values) != count:
        raise ShapeError(f"{message}{len(values)}")
    if not all(-(1 << 31) <= value < (1 << 31) for value in values):
        raise Unknown
    return values


def _depthwise_conv2d(c: Context) -> list[Shape]:
    c.expect_inputs(2)
    image = with_rank(c.shapes[0], 4, 0)
    kernel = with_rank(c.shapes[1], 4, 1)
    strides = _int_list(c, "strides", 4, "DepthwiseConv2D requires the stride attribute to contain 4 values, but got: ")
    dilations = _int_list(
        c, "dilations", 4, "DepthwiseConv2D requires the dilations attribute to contain 4 values, but got: "
    )
    data_format = read_data_format(c)
    if data_format == "NCHW":
        image = (image[0], image[2], image[3], image[1])
        rows, cols = 2, 3
    else:
        rows, cols = 1, 2
    batch, in_rows, in_cols, depth = image
    filter_rows, filter_cols, filter_depth, multiplier = kernel
    depth = merge_dim(depth, filter_depth)
    out_depth = multiply(depth, multiplier)
    padding = c.attr("padding", "s")
    if padding not in (b"SAME", b"VALID", b"EXPLICIT"):
        raise Unknown
    paddings = explicit_paddings(c, padding, "NCHW" if data_format == "NCHW" else "NHWC")
    pad_rows = paddings[2 * rows : 2 * rows + 2] if paddings else (0, 0)
    pad_cols = paddings[2 * cols : 2 * cols + 2] if paddings else (0, 0)
    mode = padding.decode()
    out_rows = windowed_output(in_rows, filter_rows, dilations[rows], strides[rows], mode, *pad_rows)
    out_cols = windowed_output(in_cols, filter_cols, dilations[cols], strides[cols], mode, *pad_cols)
    if data_format == "NCHW":
        return [(batch, out_depth, out_rows, out_cols)]
    return [(batch, out_rows, out_cols, out_depth)]


def _conv3d(c: Context) -> list[Shape]:
    c.expect_inputs(2)
    image = with_rank(c.shapes[0], 5, 0)
    kernel = with_rank(c.shapes[1], 5, 1)
    data_format = read_data_format(c)
    dilations = _int_list(c, "dilations", 5, "Conv3D requires the dilation attribute to contain 5 values, but got: ")
    strides = _int_list(c, "strides", 5, "Conv3D requires the stride attribute to contain 5 values, but got: ")
    if data_format == "NCDHW":
        image = (image[0], image[2], image[3], image[4], image[1])
        spatial = (2, 3, 4)
    else:
        spatial = (1, 2, 3)
    depth = image[4]
    filter_depth = kernel[3]
    out_depth = kernel[4]
    if depth >= 0 and filter_depth >= 0:
        if filter_depth == 0:
            raise ShapeError("Depth of filter must not be 0")
        if depth % filter_depth != 0:
            raise ShapeError(f"Depth of input ({depth}) is not a multiple of input depth of filter ({filter_depth})")
        if depth != filter_depth and out_depth >= 0:
            groups = depth // filter_depth
            if groups == 0:
                raise ShapeError("Number of groups must not be 0")
            if out_depth % groups != 0:
                raise ShapeError(f"Depth of output ({out_depth}) is not a multiple of the number of groups ({groups})")
    padding = c.attr("padding", "s")
    if padding not in (b"SAME", b"VALID"):
        raise Unknown
    mode = padding.decode()
    # TensorFlow 2.21 reads the dilations at the other format's positions (NDHWC: 2..4, NCDHW: 1..3).
    dilation_at = (1, 2, 3) if data_format == "NCDHW" else (2, 3, 4)
    out = [
        windowed_output(image[1 + k], kernel[k], dilations[dilation_at[k]], strides[spatial[k]], mode) for k in range(3)
    ]
    if data_format == "NCDHW":
        return [(image[0], out_depth, *out)]
    return [(image[0], *out, out_depth)]


def _pool3d(c: Context) -> list[Shape]:
    c.expect_inputs(1)
    shape = with_rank(c.shapes[0], 5, 0)
    data_format = read_data_format(c)
    strides = _int_list(c, "strides", 5, "Pool3D ops require the stride attribute to contain 5 values, but got: ")
    kernel = _int_list(c, "ksize", 5, "Pool3D ops require the ksize attribute to contain 5 values, but got: ")
    if data_format == "NCDHW":
        shape = (shape[0], shape[2], shape[3], shape[4], shape[1])
        spatial = (2, 3, 4)
    else:
        spatial = (1, 2, 3)
    padding = c.attr("padding", "s")
    if padding not in (b"SAME", b"VALID"):
        raise Unknown
    mode = padding.decode()
    out = [windowed_output(shape[1 + k], kernel[spatial[k]], 1, strides[spatial[k]], mode) for k in range(3)]
    if data_format == "NCDHW":
        return [(shape[0], shape[4], *out)]
    return [(shape[0], *out, shape[4])]


def _conv2d_backprop_input(c: Context) -> list[Shape]:
    """Conv2DBackpropInput (`Conv2DBackpropInputShape`), for NHWC and NCHW.

    out_backprop's depth (dim 3, or dim 1 in NCHW) must be the filter's output depth; input_sizes
    holds the 4 dims of the result (its batch must be out_backprop's) or its 2 spatial dims (the
    depth is then the filter's input depth). The result's batch is out_backprop's.
    """
    c.expect_inputs(3)
    data_format = read_data_format(c)
    if data_format not in ("NHWC", "NCHW"):
        raise Unknown
    depth_at, rows, cols = (3, 1, 2) if data_format == "NHWC" else (1, 2, 3)
    out_backprop = with_rank(c.shapes[2], 4, 2)
    filters = with_rank(c.shapes[1], 4, 1)
    merge_dim(out_backprop[depth_at], filters[3])
    sizes = shape_from_const(c, 0)
    if sizes is None:
        sizes = (-1,) * 4
    if len(sizes) == 4:
        merge_dim(sizes[0], out_backprop[0])
        depth, spatial = sizes[depth_at], (sizes[rows], sizes[cols])
    elif len(sizes) == 2:
        depth, spatial = filters[2], (sizes[0], sizes[1])
    else:
        raise ShapeError(
            f"Conv2DBackpropInput requires input_sizes to contain 4 values or 2 values, but got: {len(sizes)}", 0
        )
    out = [out_backprop[0], -1, -1, -1]
    out[depth_at], out[rows], out[cols] = depth, spatial[0], spatial[1]
    return [tuple(out)]


def _conv2d_backprop_filter(c: Context) -> list[Shape]:
    c.expect_inputs(3)
    return [with_rank(shape_from_const(c, 1), 4)]


def _depthwise_backprop_input(c: Context) -> list[Shape]:
    c.expect_inputs(3)
    return [with_rank(shape_from_const(c, 0), 4)]


def _bias_add_grad(c: Context) -> list[Shape]:
    c.expect_inputs(1)
    nchw = read_data_format(c) == "NCHW"
    shape = with_rank_at_least(c.shapes[0], 2, 0)
    if shape is None:
        return [(-1,)]
    if nchw:
        shape = with_rank_at_least(shape, 3, 0)
        return [(shape[1],)]
    return [(shape[-1],)]


def _softmax_cross_entropy(c: Context) -> list[Shape]:
    c.expect_inputs(2)
    try:
        features = merge(with_rank(c.shapes[0], 2, 0), c.shapes[1])
    except ShapeError:
        both = broadcast(c.shapes[0], c.shapes[1])
        if both is None:
            raise ShapeError("Shape must be broadcasted with rank 2, but is rank is unknown.") from None
        if len(both) != 2:
            raise ShapeError(f"Shape must be broadcasted with rank 2, but is rank {len(both)}") from None
        return [(both[0],), both]
    return [(features[0],), features]


def _sparse_softmax_cross_entropy(c: Context) -> list[Shape]:
    c.expect_inputs(2)
    features = with_rank(c.shapes[0], 2, 0)
    labels = with_rank(c.shapes[1], 1, 1)
    batch = merge_dim(features[0], labels[0])
    return [(batch,), (batch, features[1])]


def _max_pool_grad(c: Context) -> list[Shape]:
    c.expect_inputs(3)
    return [with_rank(c.shapes[0], 4, 0)]


def _avg_pool_grad(c: Context) -> list[Shape]:
    c.expect_inputs(2)
    return [with_rank(shape_from_const(c, 0), 4)]


def _fused_batch_norm_grad(c: Context) -> list[Shape]:
    data_format = c.attr("data_format", "s")
    if data_format not in (b"NHWC", b"NCHW", b"NDHWC", b"NCDHW"):
        raise Unknown
    if len(c.shapes) < 5:
        raise Unknown
    rank = 5 if data_format in (b"NDHWC", b"NCDHW") else 4
    backprop = with_rank(c.shapes[0], rank, 0)
    x = with_rank(c.shapes[1], rank, 1)
    channel_index = rank - 1 if data_format in (b"NHWC", b"NDHWC") else 1
    channel = merge_dim(backprop[channel_index], x[channel_index])
    for index in range(2, 5):
        channel = merge_dim(channel, with_rank(c.shapes[index], 1, index)[0])
    out = replace_dim(backprop, channel_index, channel)
    return [out, (channel,), (channel,), None, None]


def _top_k(c: Context) -> list[Shape]:
    shape = with_rank_at_least(c.shapes[0] if c.shapes else None, 1, 0)
    if c.node.op == "TopKV2":
        c.expect_inputs(2)
        k = scalar_input_size(c, 1)
    else:
        c.expect_inputs(1)
        k = c.attr("k", "i")
        if k < 0:
            raise ShapeError(f"Need k >= 0, got {k}")
    if shape is None:
        return [None, None]
    last = shape[-1]
    if last >= 0 and k >= 0 and last < k:
        raise ShapeError(f"input must have last dimension >= k = {k} but is {last}", 0)
    out = shape[:-1] + (k,)
    return [out, out]


def _in_top_k(c: Context) -> list[Shape]:
    c.expect_inputs(3)
    predictions = with_rank(c.shapes[0], 2, 0)
    targets = with_rank(c.shapes[1], 1, 1)
    return [(merge_dim(predictions[0], targets[0]),)]


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
    "DepthwiseConv2dNative": _depthwise_conv2d,
    "Conv3D": _conv3d,
    "MaxPool3D": _pool3d,
    "AvgPool3D": _pool3d,
    "Conv2DBackpropInput": _conv2d_backprop_input,
    "Conv2DBackpropFilter": _conv2d_backprop_filter,
    "BiasAddGrad": _bias_add_grad,
    "SoftmaxCrossEntropyWithLogits": _softmax_cross_entropy,
    "SparseSoftmaxCrossEntropyWithLogits": _sparse_softmax_cross_entropy,
    "MaxPoolGrad": _max_pool_grad,
    "AvgPoolGrad": _avg_pool_grad,
    "FusedBatchNormGrad": _fused_batch_norm_grad,
    "FusedBatchNormGradV2": _fused_batch_norm_grad,
    "FusedBatchNormGradV3": _fused_batch_norm_grad,
    "DepthwiseConv2dNativeBackpropInput": _depthwise_backprop_input,
    "DepthwiseConv2dNativeBackpropFilter": _conv2d_backprop_filter,
    "TopKV2": _top_k,
    "TopK": _top_k,
    "InTopKV2": _in_top_k,
    "ReluGrad": merge_both,
    "Relu6Grad": merge_both,
    "EluGrad": merge_both,
    "SeluGrad": merge_both,
    "SoftplusGrad": merge_both,
    "SoftsignGrad": merge_both,
    "LeakyReluGrad": merge_both,
    "L2Loss": scalar,  # always a scalar, whatever the input (TensorFlow 2.21)
}
