"""The engine places every issue: what a rule names (tflint.finding's at_* Places, a node, an attr, a function)
becomes a line and column in text sources, and no position in binary ones."""

from __future__ import annotations

import textwrap

import pytest
from serving_graphs import line_of, meta, placeholder, signature, tensor

from tflint.config.settings import default_config
from tflint.engine.place import file_position, graph_key_position, issue_position
from tflint.engine.run import build_index
from tflint.finding import (
    Issue,
    at_asset,
    at_collection,
    at_field,
    at_file,
    at_function,
    at_meta_graph,
    at_op_def,
    at_saver,
    at_signature,
    at_signature_entry,
    at_tags,
)
from tflint.read.load import load_bytes
from tflint.tf.registry import user_registry

EXTRA = textwrap.dedent(
    """\
    meta_info_def {
      tags: "serve"
      stripped_op_list { op { name: "Placeholder" } }
    }
    asset_file_def { tensor_info { name: "x:0" } filename: "vocab.txt" }
    saver_def {
      filename_tensor_name: "save/Const:0"
      restore_op_name: "save/restore_all"
    }
    collection_def {
      key: "things"
      value { node_list { value: "x" value: "y" } }
    }
    """
)
TEXT = meta(
    placeholder("x"),
    signatures=[signature("s", tensor("inputs", "in", "x:0", shape=[2]), tensor("outputs", "out", "x:0"))],
    extra=EXTRA,
)
GRAPH_TEXT = textwrap.dedent(
    """\
    node { name: "x" op: "NoOp" }
    library {
      function { signature { name: "f" } }
      function { signature { name: "g" } }
    }
    versions { producer: 1 }
    """
)


def _index(text: str, binary: bool = False):
    artifact = load_bytes(text.encode(), "m.pbtxt", "metagraphdef-text" if "graph_def" in text else "graphdef-text")
    if binary:
        artifact = load_bytes(artifact.message.SerializeToString(), "m.pb", artifact.message_type.lower())
    return build_index(artifact.graphs[0], user_registry(), artifact, default_config().import_args)


@pytest.mark.parametrize(
    "place, needle",
    [
        pytest.param(at_signature("s"), 'key: "s"', id="signature"),
        pytest.param(at_signature_entry("s", "inputs", "in"), '"x:0" dtype: DT_FLOAT tensor_shape', id="entry"),
        pytest.param(at_signature_entry("s", "inputs", "in", "shape"), "tensor_shape", id="entry-shape"),
        pytest.param(at_signature_entry("s", "inputs", "in", "dtype"), "dtype: DT_FLOAT tensor_shape", id="dtype"),
        # A MetaGraphDef file is its one meta graph: nothing more precise to point at than the node, if any.
        pytest.param(at_signature_entry("s", "inputs", "gone"), None, id="missing-entry"),
        pytest.param(at_tags(), 'tags: "serve"', id="tags"),
        pytest.param(at_asset(0), 'filename: "vocab.txt"', id="asset"),
        pytest.param(at_saver(), "saver_def {", id="saver"),
        pytest.param(at_saver("restore_op_name"), "restore_op_name", id="saver-field"),
        pytest.param(at_collection("things", 1), 'value: "y"', id="collection-entry"),
        pytest.param(at_collection("things", 9), 'key: "things"', id="collection-entry-missing-is-its-key"),
        pytest.param(at_file(), "graph_def {", id="file"),
    ],
)
def test_meta_graph_places_in_text(place, needle):
    index = _index(TEXT)
    line, column = issue_position(Issue(None, "m", at=place), index)
    assert line == (line_of(TEXT, needle) if needle is not None else None)
    assert (column is None) == (needle is None)


def test_a_place_not_written_points_at_the_meta_graph():
    text = "meta_graphs {\n" + textwrap.indent(TEXT, "  ") + "}\n"
    artifact = load_bytes(text.encode(), "saved_model.pbtxt", "savedmodel-text")
    index = build_index(artifact.graphs[0], user_registry(), artifact)
    assert graph_key_position(index, at_signature("nothing")) == graph_key_position(index, at_meta_graph()) == (1, 1)
    assert graph_key_position(index, at_signature("s"))[0] == line_of(text, 'key: "s"')


@pytest.mark.parametrize(
    "place, needle",
    [
        pytest.param(at_function(1), 'name: "g"', id="function-by-ordinal"),
        pytest.param(at_field("versions"), "versions", id="field"),
    ],
)
def test_graph_places_in_text(place, needle):
    line, _ = issue_position(Issue(None, "m", at=place), _index(GRAPH_TEXT))
    assert line == line_of(GRAPH_TEXT, needle)


def test_op_def_place():
    index = _index(TEXT)
    line, _ = issue_position(Issue(None, "m", at=at_op_def(0)), index)
    assert line == line_of(TEXT, "stripped_op_list")


@pytest.mark.parametrize(
    "place",
    [at_signature_entry("s", "inputs", "in"), at_saver("restore_op_name"), at_collection("things", 0), at_file()],
)
def test_binary_sources_have_no_positions(place):
    assert issue_position(Issue(None, "m", at=place), _index(TEXT, binary=True)) == (None, None)


def test_a_place_not_found_falls_back_to_the_node():
    index = _index(GRAPH_TEXT)
    node = index.nodes[0]
    assert issue_position(Issue(node, "m", at=at_field("versions")), index)[0] == line_of(GRAPH_TEXT, "versions")
    assert issue_position(Issue(node, "m", at=at_field("absent")), index) == (node.line, node.column)


def test_unknown_kind_is_a_bug_not_a_silent_miss():
    with pytest.raises(ValueError, match="unknown kind"):
        issue_position(Issue(None, "m", at=(("nowhere",),)), _index(GRAPH_TEXT))


@pytest.mark.parametrize("form, expected", [("text", (1, 1)), ("binary", None)])
def test_file_place_of_a_file_not_linted(form, expected):
    artifact = load_bytes(b"not a graph", "x.txt")
    artifact.form = form
    assert file_position(artifact, at_file()) == expected


# Rules handed a position with what they check (a parser's error, a directive, a text's schema use) pass it on.
HANDED_POSITIONS = {"invalid_graph", "invalid_suppression", "unused_suppression", "target_text_schema"}


def test_rules_name_what_they_point_at_and_never_compute_where():
    """One way to place a finding: no rule looks positions up itself, or passes `position=` unless handed one."""
    import ast

    from conftest import REPO

    computing = []
    for path in sorted((REPO / "rules").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Attribute)
                and node.attr.endswith("_position")
                or (
                    isinstance(node, ast.Attribute)
                    and node.attr in ("line", "column", "positions")
                    and isinstance(node.value, ast.Name)
                    and node.value.id in ("node", "graph")
                )
            ):
                computing.append(f"{path.name}:{node.lineno} {node.attr}")
            if isinstance(node, ast.keyword) and node.arg == "position" and path.stem not in HANDED_POSITIONS:
                computing.append(f"{path.name}:{node.lineno} position=")
    assert computing == [], "say what the issue is about (node, field, function, at=tflint.finding.at_*)"
