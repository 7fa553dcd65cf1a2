"""The sniffer and protobuf agree (issue 29, "verdict bypass"): a field protobuf keeps as unknown never makes a
graph "not a TensorFlow graph".

Protobuf reads every node of a GraphDef whatever unknown fields surround them (any field number, any
wire type it accepts, groups included), and TensorFlow with it; so a graph with thousands of errors and
one foreign field appended must still be linted, not skipped with exit 0.
"""

from __future__ import annotations

import nongraph_samples as samples
import pytest

from tflint.cli import main
from tflint.read.sniff import classify


def _tag(number: int, wire_type: int) -> bytes:
    return samples.tag(number, wire_type)


def _node(name: str, op: str, extra: bytes = b"") -> bytes:
    return samples.b(1, samples.cat(samples.b(1, name), samples.b(2, op), extra))


# A field number 100 with seven bytes: ten bytes in all, as in the issue.
UNKNOWN_LEN = samples.b(100, "1234567")
UNKNOWN_FIELDS = {
    "len-100": UNKNOWN_LEN,
    "varint-100": samples.v(100, 2**62),
    "i64-200": _tag(200, 1) + bytes(8),
    "i32-9999": _tag(9999, 5) + bytes(4),
    "group-100": _tag(100, 3) + samples.v(1, 5) + _tag(2, 3) + _tag(2, 4) + _tag(100, 4),
    "largest-number": samples.v((1 << 29) - 1, 1),
    # a known number with another wire type: protobuf keeps it as an unknown field too
    "node-as-varint": samples.v(1, 7),
    "versions-as-i32": _tag(4, 5) + bytes(4),
}
BROKEN = samples.cat(*(_node(f"n{i}", "NoSuchOp") for i in range(5)))


def _graph(unknown: bytes, where: str) -> bytes:
    if where == "top-end":
        return BROKEN + unknown
    if where == "top-start":
        return unknown + BROKEN
    return _node("first", "NoSuchOp", unknown) + BROKEN  # inside the first node


@pytest.mark.parametrize("where", ["top-end", "top-start", "first-node"])
@pytest.mark.parametrize("field", sorted(UNKNOWN_FIELDS))
def test_unknown_fields_leave_a_graph_a_graph(field, where):
    data = _graph(UNKNOWN_FIELDS[field], where)
    verdict = classify(data, "g.pb")
    assert (verdict.kind, verdict.message) == ("graph", "GraphDef"), verdict


@pytest.mark.parametrize("where", ["top-end", "top-start", "graph_def"])
@pytest.mark.parametrize("field", ["len-100", "group-100", "i64-200"])
def test_unknown_fields_leave_a_meta_graph_a_meta_graph(field, where):
    unknown = UNKNOWN_FIELDS[field]
    graph = _graph(unknown, "top-end") if where == "graph_def" else BROKEN
    meta = samples.metagraph(graph)
    data = {"top-end": meta + unknown, "top-start": unknown + meta, "graph_def": meta}[where]
    verdict = classify(data, "model.meta")
    assert (verdict.kind, verdict.message) == ("graph", "MetaGraphDef"), verdict
    saved = samples.v(1, 1) + samples.b(2, data) + unknown
    assert classify(saved, "saved_model.pb").kind == "graph"


def test_many_unknown_fields_before_the_nodes_are_not_a_reason_to_skip():
    # Beyond the sniffer's budget of fields it cannot see the nodes: it must not call the file something else.
    data = samples.cat(*(samples.v(100 + i, i) for i in range(200))) + BROKEN
    assert classify(data, "g.pb").kind in ("graph", "unsure")


@pytest.mark.parametrize(
    "data",
    [
        pytest.param(_tag(100, 4) + BROKEN, id="end-group-without-start"),
        pytest.param(_tag(100, 3) + BROKEN + _tag(101, 4), id="end-group-of-another-number"),
        pytest.param(samples.varint(((1 << 29) << 3) | 0) + b"\x01" + BROKEN, id="field-number-too-large"),
    ],
)
def test_what_protobuf_refuses_is_not_read_as_a_clean_graph(data):
    # Protobuf fails on these: the file is a damaged graph at best, linted (and reported), never a clean pass.
    assert classify(data, "g.pb").kind in ("graph", "unsure")


def test_unknown_messages_without_graph_fields_are_still_skipped():
    # Protobuf reads no node from fields it does not know: nothing to lint there.
    data = samples.cat(samples.v(9, 300), samples.b(10, "hello"), samples.f32(11, 1.5))
    assert classify(data, "g.pb").kind == "other-protobuf"


@pytest.mark.parametrize("suffix", ["pb", "meta"])
def test_a_graph_of_5000_errors_with_a_foreign_field_fails_the_run(capsys, tmp_path, monkeypatch, suffix):
    monkeypatch.chdir(tmp_path)
    graph = samples.cat(*(_node(f"n{i}", "NoSuchOp") for i in range(5000))) + UNKNOWN_LEN
    data = graph if suffix == "pb" else samples.metagraph(graph) + UNKNOWN_LEN
    (tmp_path / f"g.{suffix}").write_bytes(data)
    code = main(["--color", "never", f"g.{suffix}"])
    out, err = capsys.readouterr()
    assert code == 1, out + err
    assert "No TensorFlow graphs" not in out
    assert f"g.{suffix}:" in out and "unknown-op" in out


@pytest.mark.parametrize("where", ["top-end", "first-node"])
@pytest.mark.parametrize("field", sorted(UNKNOWN_FIELDS))
def test_every_node_is_read_as_tensorflow_reads_it(capsys, tmp_path, monkeypatch, field, where):
    # TensorFlow 2.21 reads each of these (tf.compat.v1.GraphDef.ParseFromString, then import_graph_def
    # refuses only the unknown op); tflint lints every node, it does not call the file unreadable.
    monkeypatch.chdir(tmp_path)
    (tmp_path / "g.pb").write_bytes(_graph(UNKNOWN_FIELDS[field], where))
    code = main(["--color", "never", "g.pb"])
    out, _ = capsys.readouterr()
    assert code == 1 and "[invalid-graph]" not in out, out
    expected = 6 if where == "first-node" else 5
    assert out.count("[unknown-op]") == expected, out
