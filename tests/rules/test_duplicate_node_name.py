"""duplicate-node-name: two nodes of one scope share a name (TensorFlow: "Node 'a' is not unique").

The importer refuses such a graph; the function instantiation refuses such a body. Scopes are
separate: a body may reuse a top-level name, and two functions may use the same node names.
"""

from __future__ import annotations

import pytest
from conftest import lint_text, pinned

ID = "duplicate-node-name"

TWO_FUNCTIONS = """\
node { name: "a" op: "NoOp" }
library {
  function { signature { name: "f" } node_def { name: "a" op: "NoOp" } }
  function { signature { name: "g" } node_def { name: "a" op: "NoOp" } }
}
"""

REPEATED_IN_BODY = """\
library {
  function {
    signature { name: "f" }
    node_def { name: "x" op: "NoOp" }
    node_def { name: "x" op: "NoOp" }
  }
}
"""


@pytest.mark.parametrize(
    "pbtxt, expected",
    [
        pytest.param('node { name: "a" op: "NoOp" }\nnode { name: "b" op: "NoOp" }', [], id="distinct"),
        pytest.param('node { name: "a" op: "NoOp" }\nnode { name: "a" op: "NoOp" }', [(ID, "a", 2)], id="repeat"),
        pytest.param(
            'node { name: "a" op: "NoOp" }\nnode { name: "b" op: "NoOp" }\nnode { name: "a" op: "NoOp" }\n'
            'node { name: "a" op: "NoOp" }',
            [(ID, "a", 3), (ID, "a", 4)],
            id="every-repeat-after-the-first",
        ),
        pytest.param('node { name: "a" op: "NoOp" }\nnode { name: "A" op: "NoOp" }', [], id="case-sensitive"),
        pytest.param(TWO_FUNCTIONS, [], id="scopes-are-separate"),
        pytest.param(REPEATED_IN_BODY, [(ID, "x", 5)], id="function-body"),
    ],
)
def test_duplicate_node_name(pbtxt, expected):
    assert pinned(lint_text(pbtxt), rule=ID) == expected


def test_message_points_at_the_first_definition():
    [finding] = [f for f in lint_text('node { name: "a" op: "NoOp" }\nnode { name: "a" op: "NoOp" }') if f.rule == ID]
    assert finding.message == "Node 'a' is not unique: another node has the same name (first defined at line 1)"
    assert (finding.line, finding.column) == (2, 8)  # at its name


def test_in_a_function_the_finding_names_the_function():
    [finding] = [f for f in lint_text(REPEATED_IN_BODY) if f.rule == ID]
    assert (finding.node, finding.function) == ("x", "f")
