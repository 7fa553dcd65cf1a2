"""tf/tensors: the NaN / infinity scan of big weights works a chunk of bytes at a time (non-finite-constant's speed)."""

from __future__ import annotations

import math
import struct

import pytest

from tflint import protos
from tflint.tf import tensors
from tflint.tf.tensors import CHUNK_BYTES, NON_FINITE_DTYPES, non_finite


def test_large_weights_are_scanned_a_chunk_not_a_value_at_a_time(monkeypatch):
    """What makes 16 MB fast, pinned without a clock: Python work per chunk of bytes, never per value."""
    scanned = []
    real_scan = tensors._piece_non_finite
    monkeypatch.setattr(
        tensors, "_piece_non_finite", lambda raw, *args: scanned.append(len(raw)) or real_scan(raw, *args)
    )
    big = protos.TensorProto(dtype=1, tensor_content=struct.pack("<f", 0.5) * 4_000_000 + struct.pack("<f", math.nan))
    assert non_finite(big) == (1, 4_000_000, "nan")
    assert sum(scanned) == 4 * 4_000_001 and len(scanned) == -(-4 * 4_000_001 // CHUNK_BYTES)


@pytest.mark.parametrize("dtype", [3, 7, 9, 10])  # int32, string, int64, bool: no NaN to look for
def test_only_floating_point_dtypes_are_scanned(dtype):
    assert dtype not in NON_FINITE_DTYPES


def test_the_rule_holds_no_scanning_code():
    # Speed code lives below the rules (project standard): the rule asks tf.tensors.
    from tflint.rules import non_finite_constant

    assert non_finite_constant.non_finite is tensors.non_finite
    assert not hasattr(non_finite_constant, "_piece_non_finite")
