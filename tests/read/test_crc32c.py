"""CRC-32C: the known check value, extension, masking, and both loops agreeing."""

from __future__ import annotations

import random

import pytest

from tflint.read import crc32c


def _bitwise(data: bytes) -> int:
    """The CRC computed one bit at a time, from the polynomial alone (an independent reference)."""
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0x82F63B78 if crc & 1 else crc >> 1
    return crc ^ 0xFFFFFFFF


def test_the_check_value_of_the_standard():
    assert crc32c.value(b"123456789") == 0xE3069283
    assert crc32c.value(b"") == 0


@pytest.mark.parametrize("size", [0, 1, 7, 8, 9, 15, 16, 17, 1000])
def test_the_word_loop_agrees_with_the_bitwise_reference(size):
    data = random.Random(size).randbytes(size)
    assert crc32c.value(data) == _bitwise(data)


def test_extend_continues_a_crc():
    data = random.Random(1).randbytes(300)
    for cut in (0, 1, 8, 13, 299, 300):
        assert crc32c.extend(crc32c.value(data[:cut]), data[cut:]) == crc32c.value(data)


def test_mask_is_tensorflows_and_unmask_undoes_it():
    # TensorFlow's crc32c_test: Mask(crc) != crc, Mask(Mask(crc)) != crc, Unmask(Mask(crc)) == crc.
    crc = crc32c.value(b"foo")
    assert crc32c.mask(crc) != crc
    assert crc32c.mask(crc32c.mask(crc)) != crc
    assert crc32c.unmask(crc32c.mask(crc)) == crc
    assert crc32c.unmask(crc32c.unmask(crc32c.mask(crc32c.mask(crc)))) == crc
