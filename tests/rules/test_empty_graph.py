"""empty-graph: a graph with no nodes and no functions is a warning, never an error.

Verified with TensorFlow 2.21 (tests/data/tf_import_cases.jsonl, category
`empty`): `import_graph_def` imports 0 bytes, an empty or comment-only text,
a graph with only `versions`, and a library without nodes; `import_meta_graph`
imports an empty MetaGraphDef.
"""

from __future__ import annotations

import pytest
from conftest import lint_bytes, lint_text, pinned

from tflint.finding import Severity

ID = "empty-graph"
NODE = 'node { name: "a" op: "NoOp" }\n'
FUNCTION_ONLY = 'library { function { signature { name: "f" } } }\n'


@pytest.mark.parametrize(
    "text, input_type, expected",
    [
        pytest.param("", None, [(ID, None, 1)], id="empty-text"),
        pytest.param("\n  \n", None, [(ID, None, 1)], id="blank-lines"),
        pytest.param("# an export that wrote nothing\n", None, [(ID, None, 1)], id="comment-only"),
        pytest.param("versions { producer: 10 }\n", None, [(ID, None, 1)], id="versions-only"),
        pytest.param("graph_def { }\n", "metagraphdef-text", [(ID, None, 1)], id="empty-meta-graph"),
        pytest.param(NODE, None, [], id="one-node"),
        pytest.param(FUNCTION_ONLY, None, [], id="library-only"),
    ],
)
def test_empty_graph(text, input_type, expected):
    assert pinned(lint_text(text, input_type=input_type), rule=ID) == expected


def test_never_an_error_whatever_the_file():
    for findings in (lint_text(""), lint_text("# nothing\n"), lint_bytes(b"", input_type="graphdef-binary")):
        assert [(f.rule, f.severity) for f in findings] == [(ID, Severity.WARNING)]


def test_binary_file_has_no_line():
    [finding] = lint_bytes(b"", input_type="graphdef-binary")
    assert (finding.rule, finding.line) == (ID, None)


def test_suppressible_inline_and_in_config():
    assert lint_text("# tflint: file-ignore[empty-graph] -- placeholder until the export lands\n") == []
    assert lint_text("", {"rules": {ID: "off"}}) == []
    assert [f.severity for f in lint_text("", {"rules": {ID: "error"}})] == [Severity.ERROR]


def test_message():
    [finding] = lint_text("")
    assert finding.message == (
        "The graph is empty (no nodes, no functions): TensorFlow imports it, but it computes nothing"
    )
