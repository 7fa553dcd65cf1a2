"""The binary reader: nodes share attr dicts, and it accepts exactly what protobuf's GraphDef parse accepts."""

from __future__ import annotations

import pytest
from conftest import CORPUS, lint_bytes, require
from google.protobuf.message import DecodeError

from tflint import protos
from tflint.read import binary as binfast
from tflint.read.load import load_bytes


def _graph(*nodes: bytes) -> bytes:
    return b"".join(b"\x0a" + bytes([len(node)]) + node for node in nodes)


def _node(name: bytes, op: bytes, *attr_entries: bytes) -> bytes:
    body = b"\x0a" + bytes([len(name)]) + name + b"\x12" + bytes([len(op)]) + op
    return body + b"".join(b"\x2a" + bytes([len(entry)]) + entry for entry in attr_entries)


def _entry(key: bytes, value: bytes) -> bytes:
    return b"\x0a" + bytes([len(key)]) + key + b"\x12" + bytes([len(value)]) + value


DT_FLOAT = b"\x30\x01"  # AttrValue.type = DT_FLOAT
DT_INT32 = b"\x30\x03"


def test_nodes_match_the_full_parse_on_real_graphs():
    for path in sorted(require(CORPUS).glob("*.pb")):
        data = path.read_bytes()
        full = protos.GraphDef.FromString(data)
        nodes = binfast.read_nodes(data)
        assert [(n.name, n.op, n.device, n.raw_inputs) for n in nodes] == [
            (n.name, n.op, n.device, tuple(n.input)) for n in full.node
        ]
        assert [{key: value for key, value in n.attr.items()} for n in nodes] == [dict(n.attr) for n in full.node]


def test_identical_attrs_share_one_dict_and_one_value():
    data = _graph(
        _node(b"a", b"Identity", _entry(b"T", DT_FLOAT)),
        _node(b"b", b"Identity", _entry(b"T", DT_FLOAT)),
        _node(b"c", b"Cast", _entry(b"SrcT", DT_INT32), _entry(b"T", DT_FLOAT)),
    )
    a, b, c = binfast.read_nodes(data)
    assert a.attr is b.attr and a.attr is not c.attr
    assert a.attr["T"] is c.attr["T"]  # one decoded AttrValue per distinct entry
    assert list(c.attr) == ["SrcT", "T"]


def test_nodes_of_one_op_or_device_share_its_string():
    nodes = binfast.read_nodes(require(CORPUS / "b_keras_cnn_frozen.pb").read_bytes())
    for field in ("op", "device"):
        values = [getattr(node, field) for node in nodes]
        assert len({id(value) for value in values}) == len(set(values)), field


def test_a_repeated_key_keeps_the_last_entry_as_protobuf_maps_do():
    data = _graph(_node(b"a", b"Identity", _entry(b"T", DT_INT32), _entry(b"T", DT_FLOAT)))
    (node,) = binfast.read_nodes(data)
    assert node.attr["T"].type == protos.GraphDef.FromString(data).node[0].attr["T"].type == 1


def test_a_malformed_attr_value_is_rejected_like_the_full_parse():
    bad_value = b"\x0a\x05ab"  # AttrValue.s claims 5 bytes, holds 2
    data = _graph(_node(b"a", b"Const", _entry(b"value", bad_value)))
    with pytest.raises(DecodeError):
        protos.GraphDef.FromString(data)
    with pytest.raises(DecodeError):
        binfast.read_nodes(data)
    artifact = load_bytes(data, "g.pb")
    assert artifact.failure is not None and "not a valid binary GraphDef" in artifact.failure.message
    (finding,) = lint_bytes(data)
    assert finding.rule == "invalid-graph"


def test_invalid_utf8_in_an_attr_key_is_rejected_like_the_full_parse():
    data = _graph(_node(b"a", b"Identity", _entry(b"\xff", DT_FLOAT)))
    with pytest.raises(DecodeError):
        protos.GraphDef.FromString(data)
    assert load_bytes(data, "g.pb").failure is not None
