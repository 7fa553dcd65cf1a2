"""target-node-name: node names TF 1.15's grammar refuses (`>`, legal from TF 2.0 on)."""

from __future__ import annotations

import pytest
from conftest import lint_text, pinned

RULE = "target-node-name"


@pytest.mark.parametrize(
    "pbtxt, targets, expected",
    [
        # Characters every release accepts (measured on 1.15 and 2.0 to 2.21).
        pytest.param('node { name: "a-b.c/d_e" op: "NoOp" }', "1.15", [], id="plain"),
        pytest.param('node { name: ".a" op: "NoOp" }\nnode { name: "a//b/" op: "NoOp" }', "1.15", [], id="odd-legal"),
        # TF 1.15: `Node 'a-b.c>d': Node name contains invalid characters`; 2.0+ import it.
        pytest.param('node { name: "a-b.c>d" op: "NoOp" }', "1.15", [(RULE, "a-b.c>d", 1)], id="segment"),
        pytest.param('node { name: "x" op: "NoOp" }\nnode { name: "a>b>c" op: "NoOp" }', "1.15", [(RULE, "a>b>c", 2)]),
        pytest.param('node { name: "a-b.c>d" op: "NoOp" }', "2.0", [], id="new-enough"),
        pytest.param('node { name: "a-b.c>d" op: "NoOp" }', "1.15,2.4", [(RULE, "a-b.c>d", 1)], id="two-targets"),
        pytest.param('node { name: "a-b.c>d" op: "NoOp" }', None, [], id="no-target"),
        # Refused by every release: node-name-syntax's finding only.
        pytest.param('node { name: "a>-b" op: "NoOp" }', "1.15", [], id="bad-everywhere"),
        # Only top-level nodes: the importer checks those.
        pytest.param(
            'library {\n  function {\n    signature { name: "f" }\n    node_def { name: "a>b" op: "NoOp" }\n  }\n}',
            "1.15",
            [],
            id="function-body",
        ),
    ],
)
def test_rule(pbtxt, targets, expected):
    config = {"target-tf": targets} if targets else None
    assert pinned(lint_text(pbtxt, config), rule=RULE) == expected


def test_message_names_the_release_and_where_it_changed():
    found = [f for f in lint_text('node { name: "a>b" op: "NoOp" }', {"target-tf": "1.15,2.4"}) if f.rule == RULE]
    assert [f.message for f in found] == [
        "TF 1.15: Node name 'a>b' contains '>', which that release's node-name grammar lacks (TF 2.0 added it)"
    ]
