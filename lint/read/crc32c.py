"""CRC-32C (Castagnoli), the checksum of TensorFlow's tables, checkpoint entries and TFRecords, in pure Python.

TensorFlow checksums table blocks, every tensor of a checkpoint and every TFRecord with CRC-32C,
and stores most of them *masked* (rotated and offset, so that a CRC of bytes that hold CRCs is
not trivially related to them). No compiled dependency computes it here: the tables are built on
first use and the bytes are consumed eight at a time (slicing-by-8), the fastest pure-Python
shape measured (bench/crc32c.py gives the throughput of this machine).
"""

from __future__ import annotations

# The reflected Castagnoli polynomial.
_POLYNOMIAL = 0x82F63B78
# What TensorFlow adds after rotating a CRC to mask it (crc32c.h's kMaskDelta).
_MASK_DELTA = 0xA282EAD8
_TABLES: list[list[int]] = []


def _tables() -> list[list[int]]:
    """Eight 256-entry tables: table k maps a byte to its CRC contribution k bytes before the end of a word."""
    if not _TABLES:
        first = []
        for byte in range(256):
            crc = byte
            for _ in range(8):
                crc = (crc >> 1) ^ _POLYNOMIAL if crc & 1 else crc >> 1
            first.append(crc)
        tables = [first]
        for _ in range(7):
            previous = tables[-1]
            tables.append([(previous[byte] >> 8) ^ first[previous[byte] & 0xFF] for byte in range(256)])
        _TABLES.extend(tables)
    return _TABLES


def extend(crc: int, data: bytes | bytearray | memoryview) -> int:
    """The CRC-32C of the bytes whose CRC is `crc` followed by `data` (crc32c::Extend; start from 0)."""
    t0, t1, t2, t3, t4, t5, t6, t7 = _tables()
    view = memoryview(data).cast("B")
    whole = len(view) - len(view) % 8 if _LITTLE else 0
    crc ^= 0xFFFFFFFF
    # Little-endian words: the first byte of a word is its lowest, so it meets the CRC's lowest byte.
    for word in view[:whole].cast("Q"):
        word ^= crc
        crc = (
            t7[word & 0xFF]
            ^ t6[(word >> 8) & 0xFF]
            ^ t5[(word >> 16) & 0xFF]
            ^ t4[(word >> 24) & 0xFF]
            ^ t3[(word >> 32) & 0xFF]
            ^ t2[(word >> 40) & 0xFF]
            ^ t1[(word >> 48) & 0xFF]
            ^ t0[word >> 56]
        )
    for byte in view[whole:]:
        crc = t0[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def value(data: bytes | bytearray | memoryview) -> int:
    """The CRC-32C of `data`."""
    return extend(0, data)


def mask(crc: int) -> int:
    """A CRC as TensorFlow stores it (crc32c::Mask)."""
    return (((crc >> 15) | (crc << 17)) + _MASK_DELTA) & 0xFFFFFFFF


def unmask(masked: int) -> int:
    """The CRC a masked one stands for (crc32c::Unmask)."""
    rotated = (masked - _MASK_DELTA) & 0xFFFFFFFF
    return ((rotated >> 17) | (rotated << 15)) & 0xFFFFFFFF


# memoryview.cast("Q") reads native words: the eight-at-a-time loop assumes little-endian (the
# byte-at-a-time loop alone runs on a big-endian machine).
_LITTLE = memoryview(b"\x01\x00\x00\x00\x00\x00\x00\x00").cast("Q")[0] == 1

__all__ = ["extend", "mask", "unmask", "value"]
