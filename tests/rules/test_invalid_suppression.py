"""invalid-suppression: a `# tflint:` comment tflint cannot act on is reported and suppresses nothing.

The directive syntax and where a directive reaches are tested in tests/engine/test_suppress.py;
this module pins what the rule reports, and where.
"""

from __future__ import annotations

import pytest
from conftest import lint_text, pinned

from tflint.engine.suppress import Problem, Suppressions
from tflint.rules import invalid_suppression

ID = "invalid-suppression"
NOOP = 'node { name: "a" op: "NoOp" }\n'
NOOP_B = 'node { name: "b" op: "NoOp" }\n'
VENDOR = 'node { name: "v" op: "VendorOp" }\n'


@pytest.mark.parametrize(
    "text, expected",
    [
        pytest.param("# tflint: ignore[unknown-op] -- vendor op\n" + VENDOR, [], id="valid"),
        pytest.param("# tflint: ignore[unknwn-op]\n" + VENDOR, [(ID, None, 1), ("unknown-op", "v", 2)], id="typo"),
        pytest.param("# tflint: ignroe[unknown-op]\n" + NOOP, [(ID, None, 1)], id="unknown-kind"),
        pytest.param("# tflint: ignore unknown-op\n" + NOOP, [(ID, None, 1)], id="malformed"),
        pytest.param("# tflint: ignore[]\n" + NOOP, [(ID, None, 1)], id="no-rule"),
        pytest.param("# tflint: ignore[all]\n" + NOOP, [(ID, None, 1)], id="blanket"),
        pytest.param("# tflint: ignore[invalid-suppression]\n" + NOOP, [(ID, None, 1)], id="meta-rule"),
        pytest.param(NOOP + "# tflint: file-ignore[unknown-op]\n" + NOOP_B, [(ID, None, 2)], id="late-file-ignore"),
    ],
)
def test_invalid_suppression(text, expected):
    assert pinned(lint_text(text)) == expected


@pytest.mark.parametrize(
    "config, text",
    [
        pytest.param({"inline-suppressions": False}, "# tflint: ignore[unknown-op]\n" + VENDOR, id="forbidden"),
        pytest.param(
            {"inline-suppressions": {"require-reason": True}}, "# tflint: ignore[unknown-op]\n" + VENDOR, id="no-reason"
        ),
    ],
)
def test_governance_makes_a_directive_invalid(config, text):
    assert pinned(lint_text(text, config)) == [(ID, None, 1), ("unknown-op", "v", 2)]


def test_message_and_column():
    [finding] = lint_text(NOOP + NOOP_B.replace("\n", "  # tflint: ignore[unknwn-op]\n"))
    assert (finding.rule, finding.line, finding.column) == (ID, 2, 32)
    assert finding.message == "Suppression names unknown rule 'unknwn-op' (did you mean 'unknown-op'?)"


def test_off_reports_nothing():
    assert pinned(lint_text("# tflint: ignore[unknwn-op]\n" + NOOP, {"rules": {ID: "off"}})) == []


def test_the_rule_checks_suppressions():
    problems = (Problem(3, 5, "Malformed suppression"), Problem(7, 1, "Blanket suppressions are not supported"))
    issues = list(invalid_suppression.check(Suppressions(problems=problems), {}))
    assert [(i.node, i.position, i.message) for i in issues] == [
        (None, (3, 5), "Malformed suppression"),
        (None, (7, 1), "Blanket suppressions are not supported"),
    ]
