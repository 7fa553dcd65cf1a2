"""Loading: format and message sniffing, positions, and failures as data, not exceptions."""

from __future__ import annotations

import re

import pytest
from conftest import CORPUS, require

from tflint import protos
from tflint.errors import UsageError
from tflint.read.load import (
    load_bytes,
    load_path,
)
from tflint.read.sniff import looks_like_text
from tflint.read.sniff import text_message as sniff_text_message
from tflint.read.walk import iter_graph_files

CORPUS_FILES = sorted(p.name for p in CORPUS.glob("*") if p.name != "README.md")
EXPECTED_KIND = {".pbtxt": "text", ".pb": "binary", ".meta": "binary"}


@pytest.mark.parametrize("name", CORPUS_FILES)
def test_every_corpus_file_loads(name):
    artifact = load_path(str(CORPUS / name))
    assert artifact.failure is None
    assert artifact.form == EXPECTED_KIND[("." + name.rsplit(".", 1)[1])]
    expected_type = "MetaGraphDef" if ".meta" in name else "GraphDef"
    assert artifact.message_type == expected_type
    assert len(artifact.graphs) == 1
    assert len(artifact.graphs[0].node_list()) > 0
    if expected_type == "MetaGraphDef":
        assert artifact.graphs[0].op_list is not None


def node_fields(source):
    """What rules see of each node, comparable across readers."""
    return [
        (
            n.name,
            n.op,
            list(n.raw_inputs if hasattr(n, "raw_inputs") else n.input),
            n.device,
            {k: _attr(v) for k, v in n.attr.items()},
        )
        for n in source.node_list()
    ]


def _attr(value):
    return getattr(value, "message", value).SerializeToString(deterministic=True)


@pytest.mark.parametrize("stem", ["b_keras_cnn_frozen", "a_tf1_saver_ref.graph", "d_tf1_control_flow_v1"])
def test_text_and_binary_of_the_same_graph_agree(stem):
    text = load_path(str(require(CORPUS / f"{stem}.pbtxt")))
    binary = load_path(str(CORPUS / f"{stem}.pb"))
    assert node_fields(text.graphs[0]) == node_fields(binary.graphs[0])
    assert text.graphs[0].graph.versions == binary.graphs[0].graph.versions


def test_one_line_file_has_exact_columns():
    path = require(CORPUS / "tf12_saver_oneline.meta.pbtxt")
    text = path.read_text()
    artifact = load_path(str(path))
    positions = artifact.graphs[0].positions
    assert "\n" not in text.strip()
    for ordinal, node in enumerate(artifact.graphs[0].node_list()):
        line, column = positions.nodes[(0, None, ordinal)]
        assert line == 1
        assert text[column - 1 :].startswith("name:"), (node.name, column)
        assert text[column - 1 :].split('"')[1] == node.name


def test_positions_point_at_name_and_attr_key():
    text = 'node {\n  name: "a"\n  op: "Const"\n  attr {\n    key: "dtype"\n    value { type: DT_FLOAT }\n  }\n}\n'
    artifact = load_bytes(text.encode(), "g.pbtxt")
    positions = artifact.graphs[0].positions
    assert positions.nodes[(0, None, 0)] == (2, 3)
    assert positions.attrs[(0, None, 0, "dtype")] == (5, 5)


def test_positions_in_function_library_and_list_syntax():
    text = (
        'node [{ name: "a" op: "NoOp" }, { name: "b" op: "NoOp" }]\n'
        "library {\n"
        "  function {\n"
        '    signature { name: "f" }\n'
        '    node_def { name: "n" op: "NoOp" }\n'
        "  }\n"
        "}\n"
    )
    artifact = load_bytes(text.encode(), "g.pbtxt")
    assert artifact.failure is None
    positions = artifact.graphs[0].positions
    assert positions.nodes[(0, None, 0)] == (1, 9)
    assert positions.nodes[(0, None, 1)] == (1, 35)
    assert positions.nodes[(0, 0, 0)] == (5, 16)
    assert positions.functions[(0, 0)] == (4, 17)


@pytest.mark.parametrize(
    "data, form, kind",
    [
        pytest.param(b'node { name: "a" op: "NoOp" }', "text", "GraphDef", id="graphdef"),
        pytest.param(b"# comment\n\nmeta_info_def { tags: 'serve' }", "text", "MetaGraphDef", id="meta-after-comment"),
        pytest.param(b"saved_model_schema_version: 1", "text", "SavedModel", id="saved-model"),
        pytest.param(b"", "text", "GraphDef", id="empty"),
    ],
)
def test_text_sniffing(data, form, kind):
    artifact = load_bytes(data, "x")
    assert artifact.form == form
    assert artifact.message_type == kind


@pytest.mark.parametrize(
    "message_type",
    ["GraphDef", "MetaGraphDef", "SavedModel"],
)
def test_binary_sniffing_ignores_the_file_name(message_type):
    graph = protos.GraphDef()
    node = graph.node.add(name="a", op="NoOp")
    node.attr["x"].i = 1
    graph.versions.producer = 27
    if message_type == "GraphDef":
        message = graph
    else:
        meta = protos.MetaGraphDef()
        meta.graph_def.CopyFrom(graph)
        meta.meta_info_def.tags.append("serve")
        message = meta
        if message_type == "SavedModel":
            message = protos.SavedModel(saved_model_schema_version=1)
            message.meta_graphs.add().CopyFrom(meta)
    data = message.SerializeToString()
    assert not looks_like_text(data)
    artifact = load_bytes(data, "misleading.pbtxt")
    assert artifact.failure is None
    assert artifact.message_type == message_type
    assert artifact.graphs[0].node_list()[0].name == "a"


def test_input_type_overrides_sniffing():
    artifact = load_bytes(b'node { name: "a" op: "NoOp" }', "x", "metagraphdef-text")
    assert artifact.failure is not None
    assert "node" in artifact.failure.message
    assert (artifact.failure.line, artifact.failure.column) == (1, 1)


def test_unknown_input_type_is_a_usage_error():
    with pytest.raises(UsageError, match="unknown input type"):
        load_bytes(b"", "x", "onnx")


@pytest.mark.parametrize(
    "data, line, column, fragment",
    [
        pytest.param(b'node {\n  name: "a"\n  op: NoOp"\n}\n', 3, 7, "Expected string", id="syntax"),
        pytest.param(b'node {\n  name: "a"\n', 2, 9, "Expected", id="unclosed"),
        pytest.param(b'node { name: "a" op: "NoOp" }\nthis: 1\n', 2, 1, "no field named", id="unknown-field"),
        pytest.param(b'node {\n  name: "\xff"\n}', 2, 10, "UTF-8", id="invalid-utf8"),
        pytest.param(b'versions { producer: "x" }', 1, 22, 'Couldn\'t parse integer: "x"', id="wrong-scalar"),
        pytest.param(b"{" * 500, 1, 101, "nesting deeper than 100", id="braces"),
        pytest.param(b"node:\n  - name: a\n", 2, 3, "Expected", id="yaml"),
        pytest.param(
            b'node { attr { key: "a" value { func { attr { key: "b" value { ' * 30,
            1,
            None,
            "nesting",
            id="deep-nesting",
        ),
    ],
)
def test_text_failures_have_positions(data, line, column, fragment):
    artifact = load_bytes(data, "g.pbtxt")
    failure = artifact.failure
    assert failure is not None
    assert failure.line == line
    if column is not None:
        assert failure.column == column
    assert fragment in failure.message


@pytest.mark.parametrize(
    "data",
    [
        pytest.param(lambda: (CORPUS / "b_keras_cnn_frozen.pb").read_bytes()[:301], id="truncated"),
        pytest.param(lambda: b"\x0a\xff\xff\xff\xff\x0f\x00", id="bad-length"),
    ],
)
def test_binary_failures_are_data(data):
    require(CORPUS)
    artifact = load_bytes(data(), "g.pb")
    assert artifact.failure is not None
    assert artifact.failure.line is None
    assert "binary" in artifact.failure.message


def test_directories_are_searched_and_saved_models_kept_whole(tmp_path):
    (tmp_path / "a.pbtxt").write_text('node { name: "a" op: "NoOp" }')
    (tmp_path / "notes.txt").write_text("ignored")
    model = tmp_path / "export" / "1"
    (model / "variables").mkdir(parents=True)
    (model / "saved_model.pb").write_bytes(b"")
    (model / "variables" / "inner.pb").write_bytes(b"")
    (tmp_path / ".hidden").mkdir()
    (tmp_path / ".hidden" / "b.pb").write_bytes(b"")
    found = list(iter_graph_files([str(tmp_path)]))
    assert found == [str(tmp_path / "a.pbtxt"), str(model)]


def test_symlink_loops_terminate(tmp_path):
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "loop").symlink_to(tmp_path)
    (tmp_path / "g.pb").write_bytes(b"")
    assert list(iter_graph_files([str(tmp_path)])) == [str(tmp_path / "g.pb")]


def test_missing_path_is_a_usage_error(tmp_path):
    with pytest.raises(UsageError, match="no such file"):
        list(iter_graph_files([str(tmp_path / "absent.pb")]))


def test_saved_model_directory_loads_every_meta_graph(tmp_path):
    saved = protos.SavedModel(saved_model_schema_version=1)
    for tags in (["serve"], ["serve", "gpu"]):
        meta = saved.meta_graphs.add()
        meta.meta_info_def.tags.extend(tags)
        meta.graph_def.node.add(name="a", op="NoOp")
    (tmp_path / "saved_model.pb").write_bytes(saved.SerializeToString())
    artifact = load_path(str(tmp_path))
    assert artifact.message_type == "SavedModel"
    assert [g.label for g in artifact.graphs] == ["meta graph [serve]", "meta graph [serve, gpu]"]
    assert artifact.path.endswith("saved_model.pb")
    assert artifact.saved_model_dir == str(tmp_path)


def test_text_sniffing_reads_past_comments():
    assert sniff_text_message("# a\n  # b\nmeta_graphs {}") == "SavedModel"
    assert sniff_text_message("garbage") == "GraphDef"


def test_a_text_files_bytes_are_let_go_once_decoded():
    # The bytes of a 120 MB text would otherwise stay in memory beside its text while it is read.
    from tflint.read import load

    handed = [b'node {\n  name: "a"\n  op: "NoOp"\n}\n']
    artifact = load._load_text(handed, "g.pbtxt", None)
    assert handed == []
    assert artifact.failure is None and [node.name for node in artifact.graphs[0].node_list()] == ["a"]
    # Not UTF-8: the bytes stay, for the binary reader to try.
    handed = [b"\x0a\x05\xff\xfe\xfd\xfc\xfb"]
    artifact = load._load_text(handed, "g.pb", None)
    assert artifact.failure is not None and artifact.text is None
    assert handed == [b"\x0a\x05\xff\xfe\xfd\xfc\xfb"]


def test_a_file_that_looks_like_text_but_is_not_utf8_is_read_as_binary(tmp_path):
    graph = protos.GraphDef()
    graph.node.add(name="caf\xe9" * 300, op="NoOp")  # no control byte in its first KiB
    path = tmp_path / "g.pb"
    path.write_bytes(graph.SerializeToString().replace("\xe9".encode(), b"\xe9"))
    artifact = load_path(str(path))
    assert artifact.form == "binary"


def test_graph_blocks_are_the_lines_a_multiline_regex_finds():
    """_line_blocks and _lines_at search for the lines themselves; they find what these regexes find."""
    import random

    from tflint.read import load

    old_blocks = {
        "MetaGraphDef": re.compile(r"^graph_def \{\n.*?^\}\n", re.MULTILINE | re.DOTALL),
        "SavedModel": re.compile(r"^  graph_def \{\n.*?^  \}\n", re.MULTILINE | re.DOTALL),
    }
    old_meta_graphs = re.compile(r"^meta_graphs \{\n", re.MULTILINE)
    pieces = ["graph_def {\n", "}\n", "  graph_def {\n", "  }\n", "meta_graphs {\n", "x", "\n", " ", "{", " }\n"]
    texts = ["", "graph_def {\n}\n", "  graph_def {\n  node {\n  }\n  }\n}\n"]
    generator = random.Random(18)
    texts += ["".join(generator.choice(pieces) for _ in range(generator.randint(1, 12))) for _ in range(3000)]
    for text in texts:
        for kind, regex in old_blocks.items():
            expected = [(match.start(), match.end()) for match in regex.finditer(text)]
            assert load._line_blocks(text, *load._GRAPH_BLOCK[kind]) == expected, (kind, text)
        assert load._lines_at(text, load._META_GRAPH) == [match.start() for match in old_meta_graphs.finditer(text)]
