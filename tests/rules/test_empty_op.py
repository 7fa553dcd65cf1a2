"""empty-op: a node without an op (TensorFlow 2.21: "Node 'a' does not specify an operation").

Verified with TensorFlow: at top level the importer refuses the graph; in a
function body the call fails (`Op type not registered ''`) when the function
is instantiated, also at import when a node calls it.
"""

from __future__ import annotations

import pytest
from conftest import lint_text, pinned

from tflint.engine.run import NEVER_CALLED

ID = "empty-op"

FUNCTION = """\
library { function {
  signature { name: "f" }
  node_def { name: "ok" op: "NoOp" }
  node_def { name: "value" }
} }
"""


@pytest.mark.parametrize(
    "pbtxt, expected",
    [
        pytest.param('node { name: "a" op: "NoOp" }', [], id="has-op"),
        pytest.param('node { name: "a" op: "" }', [(ID, "a", 1)], id="empty-string"),
        pytest.param('node { name: "a" }', [(ID, "a", 1)], id="absent"),
        pytest.param('node { name: "a" op: " " }', [], id="blank-is-an-unknown-op-not-empty"),
        pytest.param(
            'node { name: "a" op: "NoOp" }\nnode { name: "b" }\nnode { name: "c" }',
            [(ID, "b", 2), (ID, "c", 3)],
            id="every-one",
        ),
        pytest.param(FUNCTION, [(ID, "value", 4)], id="function-body"),
    ],
)
def test_empty_op(pbtxt, expected):
    assert pinned(lint_text(pbtxt), rule=ID) == expected


def test_unknown_op_leaves_empty_ops_alone():
    rules = {f.rule for f in lint_text('node { name: "a" }')}
    assert ID in rules and "unknown-op" not in rules


def test_message_and_function():
    [finding] = [f for f in lint_text(FUNCTION) if f.rule == ID]
    assert finding.message == f"Node 'value' does not specify an operation (its 'op' is empty) ({NEVER_CALLED})"
    assert finding.function == "f"
