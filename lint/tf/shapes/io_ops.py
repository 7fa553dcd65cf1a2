"""Shape functions of checkpoint ops (TensorFlow's core/ops/io_ops.cc)."""

from __future__ import annotations

from tflint.tf.shapes.algebra import Shape, Unknown, merge, with_rank, with_value
from tflint.tf.shapes.common import scalar
from tflint.tf.shapes.context import Context, ShapeFn


def _save_v2(c: Context) -> list[Shape]:
    """SaveV2: a scalar prefix, then names and slices vectors with one entry per saved tensor."""
    if len(c.shapes) < 3:
        raise Unknown
    with_rank(c.shapes[0], 0, 0)
    names = with_rank(c.shapes[1], 1, 1)
    with_value(names[0], len(c.shapes) - 3, 1)
    slices = with_rank(c.shapes[2], 1, 2)
    with_value(slices[0], len(c.shapes) - 3, 2)
    return []


def _restore_v2(c: Context) -> list[Shape]:
    """RestoreV2: a scalar prefix, names and slices vectors of one length; the restored shapes are not read."""
    c.expect_inputs(3)
    with_rank(c.shapes[0], 0, 0)
    names = with_rank(c.shapes[1], 1, 1)
    slices = with_rank(c.shapes[2], 1, 2)
    merge(names, slices)
    raise Unknown


def _restore_slice(c: Context) -> list[Shape]:
    """RestoreSlice: three scalars (file pattern, tensor name, shape and slice)."""
    c.expect_inputs(3)
    for index in range(3):
        with_rank(c.shapes[index], 0, index)
    raise Unknown


def _sharded_filename(c: Context) -> list[Shape]:
    c.expect_inputs(3)
    for index in range(3):
        with_rank(c.shapes[index], 0, index)
    return [()]


def _sharded_filespec(c: Context) -> list[Shape]:
    c.expect_inputs(2)
    for index in range(2):
        with_rank(c.shapes[index], 0, index)
    return [()]


def _merge_v2_checkpoints(c: Context) -> list[Shape]:
    c.expect_inputs(2)
    with_rank(c.shapes[0], 1, 0)
    with_rank(c.shapes[1], 0, 1)
    return []


SHAPE_FNS: dict[str, ShapeFn] = {
    "SaveV2": _save_v2,
    "RestoreV2": _restore_v2,
    "SaveSlices": _save_v2,
    "RestoreSlice": _restore_slice,
    "ShardedFilename": _sharded_filename,
    "ShardedFilespec": _sharded_filespec,
    "MergeV2Checkpoints": _merge_v2_checkpoints,
    "ReadFile": scalar,  # always a scalar, whatever the input (TensorFlow 2.21)
}
