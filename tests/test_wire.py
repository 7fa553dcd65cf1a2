"""tflint.wire: varints and fields as protobuf writes and reads them, and the one error for bytes that are not."""

from __future__ import annotations

import pytest

from tflint import protos
from tflint.wire import Truncated, WireError, fields, read_varint, varint


@pytest.mark.parametrize("number", [0, 1, 127, 128, 300, 2**31 - 1, 2**32, 2**63, 2**64 - 1])
def test_varints_round_trip_as_protobuf_writes_them(number):
    encoded = varint(number)
    if number:  # protobuf's own encoding of the number, as a uint64 field (ResourceHandleProto.hash_code, 4)
        assert protos.ResourceHandleProto(hash_code=number).SerializeToString() == b"\x20" + encoded
    assert read_varint(encoded + b"tail", 0, len(encoded) + 4) == (number, len(encoded))


def test_a_varint_cut_short_is_truncated():
    with pytest.raises(Truncated):
        read_varint(b"\x80\x80", 0, 2)
    with pytest.raises(Truncated):
        read_varint(b"\x80\x80\x01", 0, 2)  # `end` is where the bytes end, whatever follows


def test_a_varint_longer_than_ten_bytes_is_no_varint():
    with pytest.raises(WireError) as caught:
        read_varint(b"\xff" * 11 + b"\x01", 0, 12)
    assert not isinstance(caught.value, Truncated)
    assert read_varint(b"\xff" * 9 + b"\x01", 0, 10) == (2**64 - 1, 10)


def test_fields_give_offsets_of_each_field():
    message = protos.NodeDef(name="n", op="Const", input=["a"])
    message.attr["k"].i = 300
    data = message.SerializeToString()
    found = list(fields(data))
    assert [(number, wire) for number, wire, *_ in found] == [(1, 2), (2, 2), (3, 2), (5, 2)]
    number, wire, key_start, value_start, end = found[1]
    assert data[value_start:end] == b"Const" and data[key_start] == 2 << 3 | 2
    assert found[-1][-1] == len(data)


@pytest.mark.parametrize(
    "data, truncated",
    [
        (b"\x0a\x05abc", True),  # a length past the end
        (b"\x08", True),  # a varint field without its value
        (b"\x0b\x0c", False),  # a group (wire type 3)
        (b"\x0e", False),  # wire type 6
        (b"\x02\x00", False),  # field number 0
    ],
)
def test_fields_raise_one_error_for_bytes_that_are_not_wire_format(data, truncated):
    with pytest.raises(WireError) as caught:
        list(fields(data))
    assert isinstance(caught.value, Truncated) is truncated
    assert isinstance(caught.value, ValueError)  # callers that catch ValueError keep working


def test_fields_of_a_slice_stay_inside_it():
    data = b"\x08\x01" + b"\x12\x02hi" + b"\x18\x05"
    assert [number for number, *_ in fields(data, 2, 6)] == [2]
    with pytest.raises(Truncated):
        list(fields(data, 2, 5))
