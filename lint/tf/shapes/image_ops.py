"""Shape functions of image ops (TensorFlow's core/ops/image_ops.cc)."""

from __future__ import annotations

from tflint.tf.shapes.algebra import (
    Shape,
    ShapeError,
    Unknown,
    merge_dim,
    replace_dim,
    with_rank,
    with_rank_at_least,
    with_value,
)
from tflint.tf.shapes.context import Context, ShapeFn

_INT32 = 3


def _sized_image(c: Context, batch: int, index: int, channels: int) -> list[Shape]:
    """`SetOutputToSizedImage`: input `index` is a 2-vector (height, width), read when it is a Const."""
    size = with_rank(c.shapes[index], 1, index)
    with_value(size[0], 2, index)
    value = c.const(index)
    if value is None:
        return [(batch, -1, -1, channels)]
    if value.dtype != _INT32:
        raise Unknown  # TensorFlow: "Bad size input type for SetOutputToSizedImage" (op-signature's finding)
    if len(value.values) != 2 or min(value.values) < 0:
        raise Unknown
    height, width = value.values
    return [(batch, height, width, channels)]


def _resize(c: Context) -> list[Shape]:
    """ResizeBilinear / Bicubic / NearestNeighbor / Area (`ResizeShapeFn`)."""
    c.expect_inputs(2)
    image = with_rank(c.shapes[0], 4, 0)
    return _sized_image(c, image[0], 1, image[3])


def _crop_and_resize(c: Context) -> list[Shape]:
    c.expect_inputs(4)
    image = with_rank(c.shapes[0], 4, 0)
    boxes = with_rank(c.shapes[1], 2, 1)
    box_index = with_rank(c.shapes[2], 1, 2)
    count = merge_dim(boxes[0], box_index[0])
    with_value(boxes[1], 4, 1)
    return _sized_image(c, count, 3, image[3])


def _non_max_suppression(c: Context) -> list[Shape]:
    """NonMaxSuppression V2 / V3: boxes [n, 4], scores [n], scalar arguments; a vector of indices."""
    count = 4 if c.node.op == "NonMaxSuppressionV2" else 5
    c.expect_inputs(count)
    boxes = with_rank(c.shapes[0], 2, 0)
    scores = with_rank(c.shapes[1], 1, 1)
    for index in range(2, count):
        with_rank(c.shapes[index], 0, index)
    merge_dim(boxes[0], scores[0])
    with_value(boxes[1], 4, 0)
    return [(-1,)]


def _decode_image(c: Context) -> list[Shape]:
    """`DecodeImageShapeFn` (DecodeJpeg, DecodePng): a scalar string to [height, width, channels]."""
    c.expect_inputs(1)
    with_rank(c.shapes[0], 0, 0)
    channels = c.attr("channels", "i")
    if channels < 0:
        raise ShapeError(f"channels must be non-negative, got {channels}")
    return [(-1, -1, channels if channels else -1)]


def _encode_png(c: Context) -> list[Shape]:
    """EncodePng: images of rank >= 3; one string per image (the batch dims)."""
    c.expect_inputs(1)
    shape = with_rank_at_least(c.shapes[0], 3, 0)
    return [None if shape is None else shape[:-3]]


def _colorspace(c: Context) -> list[Shape]:
    """`ColorspaceShapeFn` (RGBToHSV, HSVToRGB): the last dimension is 3."""
    c.expect_inputs(1)
    shape = with_rank_at_least(c.shapes[0], 1, 0)
    if shape is None:
        return [None]
    return [replace_dim(shape, -1, with_value(shape[-1], 3, 0))]


def _adjust_contrast(c: Context) -> list[Shape]:
    c.expect_inputs(2)
    with_rank(c.shapes[1], 0, 1)
    return [with_rank_at_least(c.shapes[0], 3, 0)]


SHAPE_FNS: dict[str, ShapeFn] = {
    "ResizeBilinear": _resize,
    "ResizeBicubic": _resize,
    "ResizeNearestNeighbor": _resize,
    "ResizeArea": _resize,
    "CropAndResize": _crop_and_resize,
    "NonMaxSuppressionV2": _non_max_suppression,
    "NonMaxSuppressionV3": _non_max_suppression,
    "DecodeJpeg": _decode_image,
    "DecodePng": _decode_image,
    "EncodePng": _encode_png,
    "RGBToHSV": _colorspace,
    "HSVToRGB": _colorspace,
    "AdjustContrastv2": _adjust_contrast,
}
