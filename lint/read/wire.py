"""Protobuf wire-format primitives shared by the readers that build or reframe encoded messages."""

from __future__ import annotations

_SMALL_VARINTS = [bytes((number,)) for number in range(0x80)]


def varint(number: int) -> bytes:
    """`number` (non-negative, below 2**64) as a base-128 varint."""
    if number < 0x80:
        return _SMALL_VARINTS[number]
    out = bytearray()
    while number >= 0x80:
        out.append(number & 0x7F | 0x80)
        number >>= 7
    out.append(number)
    return bytes(out)


__all__ = ["varint"]
