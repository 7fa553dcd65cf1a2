"""protobuf's wire format, by hand: the varints and fields of serialized messages, for every room that reads them.

The readers walk big files without parsing them (read.sniff, read.mapped, read.interface), build
encoded messages (read.text, read.textvalues), and some analyses look inside bytes no schema
describes (tf.serving's collection strings). They share these primitives, and their one notion of
bytes that are not wire format: WireError (Truncated when the bytes end inside a value).
"""

from __future__ import annotations

from collections.abc import Iterator

VARINT, FIXED64, LENGTH_DELIMITED, FIXED32 = 0, 1, 2, 5
# The longest varint protobuf reads: 10 bytes carry 64 bits.
MAX_VARINT_BYTES = 10

_SMALL_VARINTS = [bytes((number,)) for number in range(0x80)]


class WireError(ValueError):
    """Bytes that are not protobuf's wire format."""


class Truncated(WireError):
    """The bytes end inside a varint or field."""


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


def read_varint(data: bytes | bytearray | memoryview, position: int, end: int) -> tuple[int, int]:
    """The varint at `data[position:end]` and the position after it.

    Raises Truncated when the bytes end inside it, WireError when it runs past MAX_VARINT_BYTES.
    """
    value = shift = 0
    last = min(end, position + MAX_VARINT_BYTES)
    while position < last:
        byte = data[position]
        position += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, position
        shift += 7
    if position < end:
        raise WireError(f"a varint longer than {MAX_VARINT_BYTES} bytes ends at byte {position}")
    raise Truncated(f"the bytes end inside a varint at byte {position}")


def fields(
    data: bytes | bytearray | memoryview, start: int = 0, end: int | None = None
) -> Iterator[tuple[int, int, int, int, int]]:
    """(number, wire type, key start, value start, value end) of each field of the message at `data[start:end]`.

    Raises WireError at the first field that is not wire format: a group (wire types 3 and 4,
    which TensorFlow's messages never use), an unknown wire type, field number 0, or a field
    that runs past `end` (Truncated).
    """
    position = start
    stop = len(data) if end is None else end
    while position < stop:
        key_start = position
        key, position = read_varint(data, position, stop)
        number, wire = key >> 3, key & 7
        if wire == LENGTH_DELIMITED:
            length, position = read_varint(data, position, stop)
            value_start = position
            position += length
        elif wire == VARINT:
            value_start = position
            _, position = read_varint(data, position, stop)
        elif wire == FIXED64:
            value_start = position
            position += 8
        elif wire == FIXED32:
            value_start = position
            position += 4
        else:
            raise WireError(f"wire type {wire} at byte {key_start}")
        if number == 0:
            raise WireError(f"field number 0 at byte {key_start}")
        if position > stop:
            raise Truncated(f"the field at byte {key_start} runs past the end of its message")
        yield number, wire, key_start, value_start, position


__all__ = [
    "FIXED32",
    "FIXED64",
    "LENGTH_DELIMITED",
    "MAX_VARINT_BYTES",
    "VARINT",
    "Truncated",
    "WireError",
    "fields",
    "read_varint",
    "varint",
]
