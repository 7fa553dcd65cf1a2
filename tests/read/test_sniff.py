"""What a file is (tflint.read.sniff): graphs are graphs, other protobufs are skipped, and the look is bounded.

The samples in tests/data/nongraphs are written by tests/nongraph_samples.py:
one of each kind of file that carries a graph's extension in real repositories,
beside graphs and broken graphs. Real graphs (../shared/corpus and ../shared/wild)
must never be called anything but a graph (or unsure, which is linted).
"""

from __future__ import annotations

import dataclasses
import json
import mmap
import random
from pathlib import Path

import nongraph_samples as samples
import pytest
from conftest import CORPUS, DATA, WILD

from tflint.read import sniff
from tflint.read.sniff import KINDS, Verdict, classify

SAMPLES = DATA / "nongraphs"
EXPECTED = json.loads((SAMPLES / "EXPECTED.json").read_text())


def _real_files():
    for directory in (CORPUS, WILD, DATA / "real"):
        if directory.is_dir():
            for path in sorted(directory.iterdir()):
                if path.is_file() and path.suffix not in (".md", ".jsonl"):
                    yield path


def _labels():
    path = WILD / "labels.jsonl"
    if not path.exists():
        return {}
    return {row["file"]: row for row in map(json.loads, path.read_text().splitlines())}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_sample(name):
    kind, message = EXPECTED[name]
    verdict = classify((SAMPLES / name).read_bytes(), name)
    assert verdict.kind == kind, verdict
    if message is not None:
        assert verdict.message == message, verdict
    assert verdict.reason


def test_samples_are_what_the_generator_writes():
    on_disk = {p.name for p in SAMPLES.iterdir()} - {"EXPECTED.json"}
    assert on_disk == set(EXPECTED) == set(samples.EXPECTED)
    for name, text in samples.TEXT.items():
        assert (SAMPLES / name).read_bytes() == text.encode("utf-8"), name
    for name, data in samples.binary_samples().items():
        assert (SAMPLES / name).read_bytes() == data, name
    assert {name: list(value) for name, value in samples.EXPECTED.items()} == EXPECTED


def test_every_kind_is_covered():
    assert {kind for kind, _ in EXPECTED.values()} == set(KINDS)


def test_verdict_is_frozen():
    verdict = classify(b"", "x.pb")
    assert isinstance(verdict, Verdict)
    with pytest.raises(dataclasses.FrozenInstanceError):
        verdict.kind = "unsure"  # type: ignore[misc]


@pytest.mark.parametrize("name", ["graph.pb", "graph.pbtxt", "label_map.pbtxt", "fingerprint.pb", "model.meta"])
def test_buffer_types(name, tmp_path):
    data = (SAMPLES / name).read_bytes()
    expected = classify(data, name)
    assert classify(bytearray(data), name) == expected
    assert classify(memoryview(data), name) == expected
    path = tmp_path / name
    path.write_bytes(data)
    with open(path, "rb") as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
        assert classify(mapped, name) == expected
        assert mapped[:1] == data[:1]  # still usable: classify released its view


def test_the_name_is_only_a_hint():
    graph = (SAMPLES / "graph.pbtxt").read_bytes()
    label_map = (SAMPLES / "label_map.pbtxt").read_bytes()
    assert classify(graph, "label_map.pbtxt").kind == "graph"
    assert classify(graph, "config.pbtxt").kind == "graph"
    assert classify(label_map, "graph.pbtxt").message.startswith("Object Detection label map")
    assert classify(label_map, "saved_model.pbtxt").kind == "other-protobuf"
    binary_graph = (SAMPLES / "graph.pb").read_bytes()
    assert classify(binary_graph, "fingerprint.pb").kind == "graph"
    assert classify(samples.fingerprint(), "saved_model.pb").kind == "other-protobuf"


@pytest.mark.parametrize(
    "name, kind, message",
    [
        ("frozen.pb", "graph", "GraphDef"),
        ("graph.pbtxt", "graph", "GraphDef"),
        ("fingerprint.pb", "other-protobuf", "SavedModel fingerprint (FingerprintDef)"),
        ("label_map.pbtxt", "other-protobuf", "Object Detection label map (StringIntLabelMap)"),
        ("models/resnet/config.pbtxt", "other-protobuf", "Triton model config (ModelConfig)"),
    ],
)
def test_empty_files(name, kind, message):
    for data in (b"", b"  \n\t\n", b"# just a comment\n"):
        verdict = classify(data, name)
        assert (verdict.kind, verdict.message) == (kind, message), (data, verdict)
    assert classify(b"", "frozen.pb").reason == "empty"


def test_tfhub_module_needs_its_name_or_format_v3():
    assert classify(b"\x08\x03", "tfhub_module.pb").message == "TF Hub module (ModuleDef)"
    assert classify(b"\x08\x03", "x.pb").message == "TF Hub module (ModuleDef)"
    assert classify(b"\x08\x01", "x.pb").kind == "unsure"  # a SavedModel with no meta graph?
    assert classify(b"\x08\x01", "tfhub_module.pb").message == "TF Hub module (ModuleDef)"


def test_text_variants():
    graph = (SAMPLES / "graph.pbtxt").read_text()
    for text in ("\ufeff" + graph, graph.replace("\n", "\r\n"), graph.replace("\n", " "), "\n\n" + graph):
        verdict = classify(text.encode("utf-8"), "g.pbtxt")
        assert (verdict.kind, verdict.message) == ("graph", "GraphDef"), verdict
    # MediaPipe graphs have node blocks too: the fields inside the first node decide.
    assert classify(b'node { calculator: "A" input_stream: "x" }', "g.pbtxt").message.startswith("MediaPipe")
    assert classify(b'node { name: "a" op: "Const" }', "g.pbtxt").kind == "graph"
    # A misspelt field inside a node is a broken graph, for the parser to report.
    assert classify(b'node { name: "a" op: "X" inptu: "b" }', "g.pbtxt").kind == "graph"
    assert classify(b"# proto-message: tensorflow.MetaGraphDef\n", "m.pbtxt").message == "MetaGraphDef"


@pytest.mark.parametrize(
    "data, name",
    [
        pytest.param(b'node {\n  name: "\xff"\n}', "g.pbtxt", id="text-not-utf8"),
        pytest.param(b'node { name: "a\x00" op: "NoOp" }\n', "g.pbtxt", id="text-with-nul"),
        pytest.param(bytes(range(256)) * 4, "g.pb", id="noise"),
        pytest.param(b"\x00" * 4096, "saved_model.pb", id="zero-filled"),
        pytest.param(b"\x0a\xff\xff\xff\xff\x0f\x00", "g.pb", id="node-longer-than-the-file"),
        pytest.param(b"\x0a\x05\x0a\x03a\x00b", "g.pb", id="nul-in-a-binary-node-name"),
        pytest.param(b"\x0a\x0b\x0a\x01a\x12\x01X\x2a\x03\x0a\x01\xff", "g.pb", id="attr-key-not-utf8"),
    ],
)
def test_damaged_graphs_are_linted_not_skipped(data, name):
    # What could be a graph gone wrong is read by tflint, which says what is wrong (invalid-graph).
    assert classify(data, name).kind in ("graph", "unsure")


def test_a_window_cut_is_not_a_syntax_error():
    # A first node longer than the text window: the cut must not turn into "unsure".
    attr = '  attr { key: "k" value { s: "%s" } }\n' % ("a" * 100)
    big = 'node {\n  name: "c"\n  op: "Const"\n' + attr * 4000 + "}\n"
    assert classify(big.encode(), "big.pbtxt").kind == "graph"
    big_mediapipe = 'input_stream: "in"\n' + 'node { calculator: "C" input_stream: "in" }\n' * 20000
    assert classify(big_mediapipe.encode(), "mp.pbtxt").message.startswith("MediaPipe")


def _huge_graph_file(tmp_path: Path, size: int) -> Path:
    """A sparse binary GraphDef of `size` bytes: a Placeholder, then one Const whose tensor fills the file."""
    b, cat, tag, varint = samples.b, samples.cat, samples.tag, samples.varint
    head = b(1, samples.SMALL_NODES[0])
    const_head = cat(b(1, "weights"), b(2, "Const"))
    rest = size - len(head)

    def tag_and_len(n: int) -> bytes:
        return tag(1, 2) + varint(n)

    node_len = rest - len(tag_and_len(rest))
    while len(tag_and_len(node_len)) + node_len != rest:
        node_len -= 1
    # An attr entry (field 5): key "value", and an AttrValue whose bytes are never written.
    attr_len = node_len - len(const_head) - 1 - len(varint(node_len))
    key = b(1, "value")
    value_len = attr_len - len(key) - 1 - len(varint(attr_len)) - 1 - 10
    attr_head = tag(5, 2) + varint(attr_len) + key + tag(2, 2) + varint(value_len)
    path = tmp_path / "frozen_huge.pb"
    with open(path, "wb") as handle:
        handle.write(head + tag_and_len(node_len) + const_head + attr_head)
        handle.truncate(size)  # sparse: the tensor bytes are never written
    return path


def test_a_huge_binary_graph_is_read_a_few_kib_only(tmp_path):
    path = _huge_graph_file(tmp_path, 500 << 20)
    with open(path, "rb") as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
        source = sniff._Source(mapped)
        verdict = sniff._classify_source(source, "frozen_huge.pb")
        source.release()
    assert (verdict.kind, verdict.message) == ("graph", "GraphDef"), verdict
    budget = sniff.TOP_WINDOW + 16 + sniff.META_FAR_FIELDS * sniff.FAR_PEEK + 2 * sniff.NESTED_WINDOW
    assert source.bytes_read <= budget


def test_a_huge_text_graph_is_read_a_window_only(tmp_path):
    path = tmp_path / "huge.pbtxt"
    with open(path, "wb") as handle:
        handle.write((SAMPLES / "graph.pbtxt").read_bytes() * 50)  # text, then a sparse hole
        handle.truncate(300 << 20)
    with open(path, "rb") as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
        source = sniff._Source(mapped)
        verdict = sniff._classify_source(source, "huge.pbtxt")
        source.release()
    assert verdict.kind == "graph"
    assert source.bytes_read <= sniff.TEXT_WINDOW + sniff.SNIFF_BYTES


def test_length_prefixes_are_never_trusted():
    # A node claiming 2**62 bytes, a varint of 11 bytes, a tag of 12.
    huge = samples.tag(1, 2) + samples.varint(1 << 62) + samples.SMALL_NODES[0]
    assert classify(huge, "g.pb").kind == "graph"
    assert classify(b"\x0a" + b"\xff" * 11, "g.pb").kind in KINDS
    assert classify(b"\xff" * 12, "g.pb").kind == "unsure"


@pytest.mark.parametrize(
    "data",
    [b"[" * 5000, b"[" * 5000 + b"]" * 5000, b'{"a":' * 3000 + b"1" + b"}" * 3000, b"node " + b"{" * 100_000],
    ids=["open-lists", "deep-lists", "deep-objects", "deep-text"],
)
def test_deep_nesting_never_raises(data):
    assert classify(data, "g.pbtxt").kind in KINDS


@pytest.mark.parametrize("blank", ["\u00a0", "\u2028", "\u3000", "\x85"])
def test_a_run_of_blanks_before_an_odd_character_is_read_once(blank):
    # Blanks were skipped by a nested `(?:\s+)*`: 20 of them before a character no branch took cost
    # a second, 40 would have taken days. Now every character is some token.
    for text in (" " * 40 + blank, 'node { name: "a"' + "\t " * 40 + blank + " }", "# x" + " #" * 40 + blank):
        verdict = classify(text.encode("utf-8"), "g.pbtxt")
        assert verdict.kind in ("graph", "unsure"), verdict


def test_every_truncation_of_a_binary_graph():
    data = samples.graphdef(samples.SMALL_NODES)
    for cut in range(1, len(data) + 1):
        verdict = classify(data[:cut], "g.pb")
        assert verdict.kind in ("graph", "unsure"), (cut, verdict)  # never skipped
        if cut >= 8:  # the first node's name and the start of its op are there
            assert (verdict.kind, verdict.message) == ("graph", "GraphDef"), (cut, verdict)


def test_fuzz_never_raises():
    rng = random.Random(1234)
    seeds = [(SAMPLES / name).read_bytes() for name in sorted(EXPECTED)]
    for _ in range(3000):
        data = bytearray(rng.choice(seeds))
        for _ in range(rng.randint(1, 4)):
            if data and rng.random() < 0.5:
                data[rng.randrange(len(data))] = rng.randrange(256)
            elif data:
                del data[rng.randrange(len(data)) :]
            else:
                data += rng.randbytes(rng.randint(1, 40))
        verdict = classify(bytes(data), rng.choice(["g.pb", "g.pbtxt", "config.pbtxt", "fingerprint.pb"]))
        assert verdict.kind in KINDS and isinstance(verdict.reason, str)


REAL = list(_real_files())
LABELS = _labels()


@pytest.mark.skipif(not REAL, reason="no real graphs here")
@pytest.mark.parametrize("path", REAL, ids=lambda p: f"{p.parent.name}/{p.name[:60]}")
def test_real_graphs_are_never_skipped(path):
    verdict = classify(path.read_bytes(), path.name)
    assert verdict.kind in ("graph", "unsure"), verdict
    label = LABELS.get(path.name)
    if label and label.get("message_type") and verdict.kind == "graph":
        assert verdict.message == label["message_type"], verdict
    if label and label["tf_verdict"] != "unparseable":
        assert verdict.kind == "graph", verdict


def test_the_vocabularies_are_data_and_well_formed():
    vocabulary = json.loads((Path(sniff.__file__).parent / "formats.json").read_text(encoding="utf-8"))
    messages = [kind["message"] for kind in vocabulary["other_text"]]
    assert len(messages) == len(set(messages)) == len(sniff._OTHER_TEXT)
    for kind in vocabulary["other_text"]:
        assert kind["keys"] or kind["child_keys"], kind["message"]  # something must point at it
    assert set(vocabulary["graph_top"]) == set(sniff.GRAPH_MESSAGES)
    assert all(bytes.fromhex(magic) for magic, _ in vocabulary["magic"])
    assert set(vocabulary["file_names"].values()) <= set(messages) | {"OpList", "TF Hub module (ModuleDef)"}
