"""The binary reader: nodes share attr dicts, and it accepts exactly what protobuf's GraphDef parse accepts."""

from __future__ import annotations

from array import array

import pytest
from conftest import CORPUS, lint_bytes, require
from google.protobuf.message import DecodeError

from tflint import protos
from tflint.read import binary
from tflint.read.load import load_bytes
from tflint.tf.node import Node, parse_all_inputs


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
        nodes = binary.read_nodes(data)
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
    a, b, c = binary.read_nodes(data)
    assert a.attr is b.attr and a.attr is not c.attr
    assert a.attr["T"] is c.attr["T"]  # one decoded AttrValue per distinct entry
    assert list(c.attr) == ["SrcT", "T"]


def test_nodes_of_one_op_or_device_share_its_string():
    nodes = binary.read_nodes(require(CORPUS / "b_keras_cnn_frozen.pb").read_bytes())
    for field in ("op", "device"):
        values = [getattr(node, field) for node in nodes]
        assert len({id(value) for value in values}) == len(set(values)), field


def test_a_repeated_key_keeps_the_last_entry_as_protobuf_maps_do():
    data = _graph(_node(b"a", b"Identity", _entry(b"T", DT_INT32), _entry(b"T", DT_FLOAT)))
    (node,) = binary.read_nodes(data)
    assert node.attr["T"].type == protos.GraphDef.FromString(data).node[0].attr["T"].type == 1


def test_a_malformed_attr_value_is_rejected_like_the_full_parse():
    bad_value = b"\x0a\x05ab"  # AttrValue.s claims 5 bytes, holds 2
    data = _graph(_node(b"a", b"Const", _entry(b"value", bad_value)))
    with pytest.raises(DecodeError):
        protos.GraphDef.FromString(data)
    with pytest.raises(DecodeError):
        binary.read_nodes(data)
    artifact = load_bytes(data, "g.pb")
    assert artifact.failure is not None and "not a valid binary GraphDef" in artifact.failure.message
    (finding,) = lint_bytes(data)
    assert finding.rule == "invalid-graph"


def test_invalid_utf8_in_an_attr_key_is_rejected_like_the_full_parse():
    data = _graph(_node(b"a", b"Identity", _entry(b"\xff", DT_FLOAT)))
    with pytest.raises(DecodeError):
        protos.GraphDef.FromString(data)
    assert load_bytes(data, "g.pb").failure is not None


# -- reading a big graph's nodes in two processes (binary.nodes_of_split) ------------------------


def _fields(nodes) -> list[tuple]:
    return [(n.name, n.op, n.device, n.raw_inputs, n.inputs, n.ordinal, n.function, n.attr) for n in nodes]


def _sharing(nodes) -> list[int]:
    """Each node's attr dict numbered in order of first use: which nodes share one."""
    numbers: dict[int, int] = {}
    return [numbers.setdefault(id(n.attr), len(numbers)) for n in nodes]


def _split_everything(monkeypatch):
    monkeypatch.setattr(binary, "SPLIT_MIN_NODES", 0)


def _many_nodes(count: int) -> bytes:
    ops = [b"Identity", b"Cast", b"Relu"]
    nodes = []
    for number in range(count):
        name = b"n%d" % number
        entries = [_entry(b"T", DT_FLOAT if number % 3 else DT_INT32)]
        if number % 5 == 0:
            entries.append(_entry(b"s", b"\x12\x02" + b"x%d" % (number % 7)))  # AttrValue.s, 7 distinct values
        node = _node(name, ops[number % 3], *entries)
        if number:
            node += b"\x1a" + bytes([len(b"n%d" % (number - 1))]) + b"n%d" % (number - 1)  # input: the node before
        nodes.append(node)
    return _graph(*nodes)


def test_split_read_matches_one_reader_and_shares_attrs_across_parts(monkeypatch):
    data = _many_nodes(500)
    whole = binary.read_nodes(data)
    _split_everything(monkeypatch)
    split = binary.read_nodes(data, workers=2)
    assert _fields(split) == _fields(whole)
    assert [n.ordinal for n in split] == list(range(500))
    # An attr set of both parts is one dict, as with one reader (analyses memoize on it).
    assert _sharing(split) == _sharing(whole)
    assert len({id(n.attr["T"]) for n in split}) == 2  # one decoded AttrValue per distinct entry
    assert len({id(n.op) for n in split}) == 3  # ops interned in both parts


def test_split_read_matches_one_reader_on_real_graphs(monkeypatch):
    _split_everything(monkeypatch)
    for path in sorted(require(CORPUS).glob("*.pb"))[:6]:
        data = path.read_bytes()
        whole = binary.read_nodes(data)
        split = binary.read_nodes(data, workers=2)
        assert _fields(split) == _fields(whole), path.name
        assert _sharing(split) == _sharing(whole), path.name


def test_split_read_below_the_threshold_forks_nothing(monkeypatch):
    import os

    def no_fork():
        raise AssertionError("forked")

    monkeypatch.setattr(os, "fork", no_fork)
    assert len(binary.read_nodes(_many_nodes(50), workers=2)) == 50


def test_split_read_rejects_a_malformed_attr_of_the_childs_part(monkeypatch):
    bad_value = b"\x0a\x05ab"  # AttrValue.s claims 5 bytes, holds 2
    data = _graph(*[_node(b"n%d" % n, b"Identity", _entry(b"T", DT_FLOAT)) for n in range(9)]) + _graph(
        _node(b"last", b"Const", _entry(b"value", bad_value))
    )
    _split_everything(monkeypatch)
    with pytest.raises(DecodeError):
        binary.read_nodes(data, workers=2)
    artifact = load_bytes(data, "g.pb", workers=2)
    assert artifact.failure is not None and "not a valid binary GraphDef" in artifact.failure.message


def test_split_read_survives_a_failing_child(monkeypatch):
    data = _many_nodes(60)
    whole = binary.read_nodes(data)

    def fail(*args):
        raise RuntimeError("the child breaks")

    _split_everything(monkeypatch)
    monkeypatch.setattr(binary, "_field_pieces", fail)
    split = binary.read_nodes(data, workers=2)
    assert _fields(split) == _fields(whole)
    assert _sharing(split) == _sharing(whole)


def test_split_read_survives_a_child_failing_after_some_pieces(monkeypatch):
    data = _many_nodes(300)
    whole = binary.read_nodes(data)
    pieces = binary._field_pieces

    def some_pieces(graph, bounds):
        for number, piece in enumerate(pieces(graph, bounds)):
            if number == 3:
                raise RuntimeError("the child breaks")
            yield piece

    _split_everything(monkeypatch)
    monkeypatch.setattr(binary, "_field_pieces", some_pieces)
    split = binary.read_nodes(data, workers=2)
    assert _fields(split) == _fields(whole)
    assert _sharing(split) == _sharing(whole)
    assert [n.ordinal for n in split] == list(range(300))


def test_split_read_pieces_cover_the_childs_part_and_number_attr_sets_on():
    graph = binary.LiteGraphDef.FromString(_many_nodes(100))
    bounds = [40, 41, 41, 70, 100]  # an empty piece too
    pieces = list(binary._field_pieces(graph, bounds))
    assert [len(piece[0]) for piece in pieces] == [1, 0, 29, 30]
    assert [name for piece in pieces for name in piece[0]] == ["n%d" % number for number in range(40, 100)]
    numbered = [raw for piece in pieces for raw in piece[5]]
    assert len(numbered) == len(set(numbered))  # each attr set sent once, in the piece that first uses it
    numbers = [number for piece in pieces for number in array("q", piece[4])]
    messages = graph.node
    assert [numbered[number] for number in numbers] == [tuple(messages[n].attr[:]) for n in range(40, 100)]


def test_split_read_when_no_process_can_be_forked(monkeypatch):
    import os

    data = _many_nodes(60)
    whole = binary.read_nodes(data)

    def no_fork():
        raise BlockingIOError(11, "Resource temporarily unavailable")

    _split_everything(monkeypatch)
    monkeypatch.setattr(os, "fork", no_fork)
    split = binary.read_nodes(data, workers=2)
    assert _fields(split) == _fields(whole)
    assert [n.ordinal for n in split] == list(range(60))


def test_a_big_binary_graph_loads_the_same_with_two_workers(monkeypatch):
    data = _many_nodes(300)
    whole = load_bytes(data, "g.pb")
    _split_everything(monkeypatch)
    split = load_bytes(data, "g.pb", workers=2)
    assert _fields(split.graphs[0].node_list()) == _fields(whole.graphs[0].node_list())


# -- inputs parsed by the reader (GraphIndex does not parse them again) --------------------------


def _wired_nodes(count: int) -> bytes:
    """Nodes with every kind of input string: a name, `name:i`, `^name`, a repeated one, a dangling one."""
    nodes = []
    for number in range(count):
        inputs = [b"n%d" % (number - 1), b"n%d:1" % (number // 2), b"^n%d" % (number // 3), b"n0", b"missing:0x"]
        node = _node(b"n%d" % number, b"Identity", _entry(b"T", DT_FLOAT))
        for item in inputs[: number % 6]:
            node += b"\x1a" + bytes([len(item)]) + item
        nodes.append(node)
    return _graph(*nodes)


def _parsed_afresh(nodes):
    """What GraphIndex computes for copies of `nodes` whose inputs no reader parsed."""
    copies = [Node(n.name, n.op, n.device, n.attr, n.raw_inputs, None, n.ordinal) for n in nodes]
    return copies, parse_all_inputs(copies, False)


@pytest.mark.parametrize("split", [False, True])
def test_the_reader_parses_inputs_as_parse_all_inputs_does(monkeypatch, split):
    data = _wired_nodes(90)
    if split:
        _split_everything(monkeypatch)
    nodes, table = binary.nodes_and_inputs(binary.LiteGraphDef.FromString(data), workers=2 if split else 1)
    copies, expected = _parsed_afresh(nodes)
    assert list(table.items()) == list(expected.items())  # the same entries, in the same order
    assert [n.inputs for n in nodes] == [n.inputs for n in copies]
    assert any(item.is_control for n in nodes for item in n.inputs)
    assert any(item.index == 1 for n in nodes for item in n.inputs)
    # One Input per distinct string, shared by the nodes that read it.
    assert all(item is table[item.raw] for n in nodes for item in n.inputs)


def test_parse_all_inputs_extends_a_table_part_by_part():
    nodes, _ = _parsed_afresh(binary.read_nodes(_wired_nodes(40)))
    _, whole = _parsed_afresh(nodes)
    table = parse_all_inputs(nodes[:17], False)
    first = dict(table)
    assert parse_all_inputs(nodes[17:], False, table) is table
    assert list(table.items()) == list(whole.items())
    assert all(table[raw] is item for raw, item in first.items())  # parsed once: the first part's entries kept


def test_the_index_of_a_binary_graph_takes_the_readers_inputs(monkeypatch):
    from tflint.engine.run import build_index
    from tflint.tf.registry import user_registry

    _split_everything(monkeypatch)
    artifact = load_bytes(_wired_nodes(60), "g.pb", workers=2)
    source = artifact.graphs[0]
    assert source.inputs_by_raw is not None
    index = build_index(source, user_registry())
    assert index.main.inputs_by_raw is source.inputs_by_raw
    copies, expected = _parsed_afresh(index.nodes)
    assert index.main.inputs_by_raw == expected
    assert [n.inputs for n in index.nodes] == [n.inputs for n in copies]
