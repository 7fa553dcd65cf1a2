"""invalid-graph: a file that does not parse as a graph is one finding at the parser's position.

TensorFlow refuses such a file before it reads a node, so nothing else is reported on it; no
configuration and no suppression silences the finding (a file tflint could not read never passes).
"""

from __future__ import annotations

import pytest
from conftest import lint_bytes, lint_text, pinned

from tflint.read.load import load_bytes
from tflint.rules import invalid_graph

ID = "invalid-graph"


@pytest.mark.parametrize(
    "pbtxt, expected",
    [
        pytest.param('node { name: "a" op: "NoOp" }', [], id="parses"),
        pytest.param('node { name: "a" op: "NoOp"\n', [(ID, None, 1)], id="unclosed-block"),
        pytest.param('node { name: "a" op: "NoOp" }\nnode { nme: "b" }\n', [(ID, None, 2)], id="unknown-field"),
        pytest.param('node { name: "a" op: "NoOp" }\n}\n', [(ID, None, 2)], id="stray-brace"),
        pytest.param('node { name: "a" op: NoOp }\n', [(ID, None, 1)], id="unquoted-string"),
        pytest.param(
            'node { name: "a" op: "NoOp" }\nnode { name: "b" op: "Nope"', [(ID, None, 2)], id="nothing-else-reported"
        ),
    ],
)
def test_invalid_graph(pbtxt, expected):
    assert pinned(lint_text(pbtxt)) == expected


def test_message_and_position():
    [finding] = lint_text('node { name: "a" op: "NoOp"\n')
    assert (finding.rule, str(finding.severity), finding.line, finding.column) == (ID, "error", 1, 22)
    assert finding.message == 'cannot read text GraphDef: Expected "}".'


def test_binary_input_has_no_position():
    [finding] = lint_bytes(b"\x0a\xff\xff\xff\xff\x0f")  # a node field claiming more bytes than there are
    assert (finding.rule, finding.line, finding.column) == (ID, None, None)
    assert finding.message.startswith("cannot read binary ")


@pytest.mark.parametrize("level", ["off", "warning"])
def test_no_config_changes_it(level):
    findings = lint_text('node { name: "a" op: "NoOp"\n', {"rules": {ID: level}})
    assert [(f.rule, str(f.severity)) for f in findings] == [(ID, "error")]


def test_the_rule_checks_an_artifact():
    broken = load_bytes(b'node { name: "a"\n', "graph.pbtxt")
    [issue] = invalid_graph.check(broken, {})
    assert (issue.node, issue.position) == (None, (broken.failure.line, broken.failure.column))
    assert list(invalid_graph.check(load_bytes(b'node { name: "a" op: "NoOp" }\n', "graph.pbtxt"), {})) == []


@pytest.mark.parametrize(
    "pbtxt",
    [
        pytest.param(
            'node { name: "c" op: "Const" attr { key: "dtype" value { type: ' + "X" * 1500 + " } } }", id="enum"
        ),
        pytest.param('node { name: "c" op: "Const" attr { key: "n" value { i: ' + "9" * 1500 + " } } }", id="integer"),
        pytest.param('node { name: "c" op: "Const" attr { key: "v" value { s: "' + "\\001" * 400 + "\n", id="string"),
    ],
)
def test_the_message_is_bounded_whatever_the_parser_echoes(pbtxt):
    (finding,) = [f for f in lint_text(pbtxt) if f.rule == "invalid-graph"]
    assert len(finding.message) <= invalid_graph.MAX_DETAIL + 60, len(finding.message)
    assert finding.message.endswith(" characters)")
