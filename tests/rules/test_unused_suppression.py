"""unused-suppression: a suppression that hid nothing, inline or in a baseline.

Where an inline directive reaches is tested in tests/engine/test_suppress.py, and baselines in
tests/test_baseline.py; this module pins what the rule reports, and where.
"""

from __future__ import annotations

import pytest
from conftest import lint_text, pinned

from tflint.engine.suppress import StaleEntry, Suppressions
from tflint.rules import unused_suppression

ID = "unused-suppression"
NOOP = 'node { name: "a" op: "NoOp" }\n'
VENDOR = 'node { name: "v" op: "VendorOp" }\n'


@pytest.mark.parametrize(
    "text, expected",
    [
        pytest.param("# tflint: ignore[unknown-op]\n" + VENDOR, [], id="used"),
        pytest.param("# tflint: ignore[unknown-op]\n" + NOOP, [(ID, None, 1)], id="nothing-to-hide"),
        pytest.param("# tflint: ignore[unknown-op, unknown-attr]\n" + VENDOR, [(ID, None, 1)], id="one-rule-of-a-list"),
        pytest.param("# tflint: file-ignore[unknown-op]\n" + NOOP, [(ID, None, 1)], id="file-ignore"),
        pytest.param(NOOP + "# tflint: ignore[unknown-op]\n", [(ID, None, 2)], id="nothing-follows"),
        pytest.param(NOOP.replace("\n", "  # tflint: ignore[empty-op]\n"), [(ID, None, 1)], id="trailing"),
        pytest.param(
            "# tflint: ignore[unknown-op]\n" + VENDOR + "# tflint: ignore[unknown-op]\n" + NOOP.replace('"a"', '"b"'),
            [(ID, None, 3)],
            id="each-directive-on-its-own",
        ),
    ],
)
def test_unused_suppression(text, expected):
    assert pinned(lint_text(text)) == expected


@pytest.mark.parametrize(
    "text, config, why",
    [
        pytest.param("# tflint: ignore[unknown-op]\n" + NOOP, None, "no unknown-op finding on line 2", id="line"),
        pytest.param(
            "# tflint: file-ignore[unknown-op]\n" + NOOP, None, "no unknown-op finding in this file", id="file"
        ),
        pytest.param(NOOP + "# tflint: ignore[unknown-op]\n", None, "nothing follows it to cover", id="at-the-end"),
        pytest.param(
            "# tflint: ignore[unknown-op]\n" + VENDOR, {"rules": {"unknown-op": "off"}}, "the rule is off", id="off"
        ),
    ],
)
def test_message_says_why(text, config, why):
    [finding] = [f for f in lint_text(text, config) if f.rule == ID]
    assert (str(finding.severity), finding.message) == ("warning", f"Suppression of 'unknown-op' is unused: {why}")


def test_level_is_configurable():
    text = "# tflint: ignore[unknown-op]\n" + NOOP
    assert [str(f.severity) for f in lint_text(text, {"rules": {ID: "error"}})] == ["error"]
    assert lint_text(text, {"rules": {ID: "off"}}) == []


def test_the_rule_reports_stale_baseline_entries():
    entries = (
        StaleEntry("m.pbtxt", "unknown-op", "v", count=1, recorded=2, exists=True),
        StaleEntry("gone.pbtxt", "cycle", "", count=3, recorded=3, exists=False),
    )
    issues = list(unused_suppression.check(Suppressions(stale=entries), {}))
    fix = "prune it with: tflint --prune-baseline PATH..."
    assert [(i.node, i.position, i.message) for i in issues] == [
        (None, None, f"Stale baseline entry: unknown-op on 'v' no longer occurs (1 of 2 recorded); {fix}"),
        (None, None, f"Stale baseline entry: gone.pbtxt no longer exists (cycle, 3 recorded); {fix}"),
    ]
