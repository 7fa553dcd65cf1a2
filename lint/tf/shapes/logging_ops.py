"""Shape functions of summaries and assertions (TensorFlow's core/ops/logging_ops.cc, no_op.cc)."""

from __future__ import annotations

from tflint.tf.shapes.common import no_outputs, scalar
from tflint.tf.shapes.context import ShapeFn

SHAPE_FNS: dict[str, ShapeFn] = {
    "NoOp": no_outputs,
    "Assert": no_outputs,
    # Always one scalar, whatever the inputs (checked with TensorFlow 2.21 on inputs of unknown shape).
    "ScalarSummary": scalar,
    "HistogramSummary": scalar,
    "ImageSummary": scalar,
    "AudioSummaryV2": scalar,
    "TensorSummaryV2": scalar,
    "MergeSummary": scalar,
}
