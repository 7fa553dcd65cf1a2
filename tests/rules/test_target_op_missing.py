"""target-op-missing: an op the target release does not register, and when it appeared."""

from __future__ import annotations

import pytest
from conftest import lint_text, pinned

from tflint.tf.releases import first_release_with_op

RULE = "target-op-missing"


@pytest.mark.parametrize(
    "pbtxt, targets, expected",
    [
        pytest.param('node { name: "a" op: "NoOp" }', "1.15", [], id="old-op"),
        pytest.param('node { name: "a" op: "StatelessRandomGetAlg" }', "1.15", [(RULE, "a", 1)], id="new-op"),
        pytest.param('node { name: "a" op: "StatelessRandomGetAlg" }', "2.15", [], id="new-enough"),
        pytest.param('node { name: "a" op: "StatelessRandomGetAlg" }', None, [], id="no-target"),
        # Unknown to every release: unknown-op's finding, not this rule's.
        pytest.param('node { name: "a" op: "NoSuchOp" }', "1.15", [], id="unknown-everywhere"),
        # A call to a function of the library is not an op.
        pytest.param(
            'node { name: "a" op: "f" }\nlibrary { function { signature { name: "f" } } }',
            "1.15",
            [],
            id="function-call",
        ),
        # Inside a function body.
        pytest.param(
            'library {\n  function {\n    signature { name: "f" }\n'
            '    node_def { name: "a" op: "StatelessRandomGetAlg" }\n  }\n}',
            "1.15",
            [(RULE, "a", 4)],
            id="in-function",
        ),
    ],
)
def test_rule(pbtxt, targets, expected):
    config = {"target-tf": targets} if targets else None
    assert pinned(lint_text(pbtxt, config), rule=RULE) == expected


def test_message_names_targets_and_first_release():
    findings = [
        f for f in lint_text('node { name: "a" op: "Conv" }', {"target-tf": ["2.4", "1.15", "2.18"]}) if f.rule == RULE
    ]
    assert len(findings) == 1
    added = first_release_with_op("Conv")
    assert findings[0].message == f"TF 1.15, 2.4: Node 'a': op Conv is not registered; it was added in TF {added}"
