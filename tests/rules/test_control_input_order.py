"""control-input-order: no data input after a `^control` input.

Verified with TensorFlow 2.21: the importer refuses `input: "^a" input: "x"`
("Control dependencies must come after regular dependencies"); an empty
input after a control input counts as a data input there; in a function body
the instantiation fails ("Expected input[1] == 'x' to be a control input" or
"input ^a is not found").
"""

from __future__ import annotations

import pytest
from conftest import lint_text, pinned

ID = "control-input-order"

HEAD = """\
node { name: "a" op: "NoOp" }
node { name: "x" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } }
"""


def _node(*inputs: str, op: str = "Identity") -> str:
    listed = " ".join(f'input: "{raw}"' for raw in inputs)
    return HEAD + f'node {{ name: "b" op: "{op}" {listed} attr {{ key: "T" value {{ type: DT_FLOAT }} }} }}\n'


@pytest.mark.parametrize(
    "pbtxt, expected",
    [
        pytest.param(_node("x", "^a"), [], id="data-then-control"),
        pytest.param(_node("x:0", "^a", "^x"), [], id="several-controls-last"),
        pytest.param(_node("^a"), [], id="only-control"),
        pytest.param(_node("x"), [], id="only-data"),
        pytest.param(_node("^a", "x"), [(ID, "b", 3)], id="data-after-control"),
        pytest.param(_node("x", "^a", "x", "^x", "x"), [(ID, "b", 3)], id="one-finding-per-node"),
        pytest.param(_node("x", "^a", ""), [(ID, "b", 3)], id="empty-input-counts-as-data"),
        pytest.param(_node("^a", "^a:0"), [], id="caret-with-index-still-starts-with-caret"),
    ],
)
def test_order(pbtxt, expected):
    assert pinned(lint_text(pbtxt), rule=ID) == expected


FUNCTION = """\
library { function {
  signature { name: "f" input_arg { name: "arg" type: DT_FLOAT } output_arg { name: "y" type: DT_FLOAT } }
  node_def { name: "n" op: "NoOp" }
  node_def { name: "good" op: "Identity" input: "arg" input: "^n" attr { key: "T" value { type: DT_FLOAT } } }
  node_def { name: "bad" op: "Identity" input: "^n" input: "arg" attr { key: "T" value { type: DT_FLOAT } } }
  ret { key: "y" value: "good:output:0" }
} }
"""


def test_function_body():
    findings = [f for f in lint_text(FUNCTION) if f.rule == ID]
    assert [(f.node, f.line, f.function) for f in findings] == [("bad", 5, "f")]


def test_message_text():
    [finding] = [f for f in lint_text(_node("x", "^a", "x:0")) if f.rule == ID]
    assert (
        finding.message
        == "Node 'b': data input #2 'x:0' comes after control input #1 '^a'; control inputs must follow all data inputs"
    )
