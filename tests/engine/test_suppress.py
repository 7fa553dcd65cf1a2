"""Inline suppressions in text graphs: what each directive covers, misuse, governance, hygiene."""

from __future__ import annotations

import pytest
from conftest import lint_text, pinned

from tflint.cli import main

# Two findings inside one node block: unresolved-input on the name line, unknown-attr on the attr's key line.
NODE = """\
node {
  name: "a"
  op: "NoOp"
  attr {
    key: "bogus"
    value { i: 1 }
  }
  input: "^gone"
}
"""
BOTH = [("unresolved-input", "a", 2), ("unknown-attr", "a", 5)]


def shifted(expected, by):
    return [(rule, node, line + by) for rule, node, line in expected]


@pytest.mark.parametrize(
    "text, expected",
    [
        pytest.param(NODE, BOTH, id="no-directive"),
        pytest.param(
            "# tflint: ignore[unresolved-input, unknown-attr] -- legacy export\n" + NODE,
            [],
            id="own-line-covers-the-whole-block",
        ),
        pytest.param("# tflint: ignore[unknown-attr]\n" + NODE, shifted(BOTH[:1], 1), id="only-the-named-rule"),
        pytest.param(
            "# tflint: ignore[unknown-attr]\n\n# why: the exporter adds it\n" + NODE,
            shifted(BOTH[:1], 3),
            id="blank-and-comment-lines-between",
        ),
        pytest.param(
            "# tflint: ignore[unresolved-input]\n" + NODE + NODE.replace('"a"', '"b"'),
            [("unknown-attr", "a", 6), ("unresolved-input", "b", 12), ("unknown-attr", "b", 15)],
            id="next-block-only",
        ),
        pytest.param(
            NODE.replace("  attr {\n", "  # tflint: ignore[unknown-attr]\n  attr {\n"),
            [("unresolved-input", "a", 2)],
            id="own-line-above-a-nested-block",
        ),
        pytest.param(
            NODE.replace('key: "bogus"', 'key: "bogus"  # tflint: ignore[unknown-attr]'),
            BOTH[:1],
            id="trailing-covers-its-line",
        ),
        pytest.param(
            NODE.replace('op: "NoOp"', 'op: "NoOp"  # tflint: ignore[unknown-attr]'),
            [BOTH[0], ("unused-suppression", None, 3), BOTH[1]],
            id="trailing-covers-only-its-line",
        ),
        pytest.param(
            "# Exported by legacy tooling.\n# tflint: file-ignore[unresolved-input]\n\n"
            + NODE
            + NODE.replace('"a"', '"b"'),
            [("unknown-attr", "a", 8), ("unknown-attr", "b", 17)],
            id="file-ignore",
        ),
        pytest.param(
            NODE + "# tflint: file-ignore[unresolved-input]\n",
            BOTH + [("invalid-suppression", None, 10)],
            id="file-ignore-after-code",
        ),
        pytest.param(
            NODE.replace('name: "a"', 'name: "a"  # tflint: file-ignore[unresolved-input]'),
            [BOTH[0], ("invalid-suppression", None, 2), BOTH[1]],
            id="file-ignore-trailing",
        ),
        pytest.param(
            "# tflint: ignore[unresolved-input]\n" + NODE.replace('"bogus"', '"# tflint: ignore[unknown-attr]"'),
            [("unknown-attr", "a", 6)],
            id="marker-in-a-string-is-no-directive",
        ),
        pytest.param(
            "# tflint: ignore[unknwn-attr]\n" + NODE,
            [("invalid-suppression", None, 1)] + shifted(BOTH, 1),
            id="unknown-rule",
        ),
        pytest.param(
            "# tflint: ignore[invalid-graph, unresolved-input]\n" + NODE,
            [("invalid-suppression", None, 1), ("unknown-attr", "a", 6)],
            id="unsuppressible-rule",
        ),
        pytest.param(
            "# tflint: ignore[unused-suppression]\n" + NODE,
            [("invalid-suppression", None, 1)] + shifted(BOTH, 1),
            id="meta-rule",
        ),
        pytest.param(
            "# tflint: ignore unknown-attr\n" + NODE,
            [("invalid-suppression", None, 1)] + shifted(BOTH, 1),
            id="malformed",
        ),
        pytest.param(
            "# tflint: disable[unknown-attr]\n" + NODE,
            [("invalid-suppression", None, 1)] + shifted(BOTH, 1),
            id="unknown-kind",
        ),
        pytest.param("# tflint: ignore[]\n" + NODE, [("invalid-suppression", None, 1)] + shifted(BOTH, 1), id="empty"),
        pytest.param(
            "# tflint: ignore[unknown-attr, unresolved-input, duplicate-node-name]\n" + NODE,
            [("unused-suppression", None, 1)],
            id="partly-unused",
        ),
        pytest.param(
            NODE + "# tflint: ignore[unknown-attr]\n", BOTH + [("unused-suppression", None, 10)], id="nothing-follows"
        ),
        pytest.param(
            'library {\n  function {\n    signature { name: "fn" }\n    # tflint: ignore[unknown-op]\n    node_def '
            '{\n      name: "inner"\n      op: "AlsoNope"\n    }\n  }\n}\n',
            [],
            id="function-body-node",
        ),
    ],
)
def test_what_a_directive_covers(text, expected):
    assert pinned(lint_text(text)) == expected


def messages(text, config=None):
    return [
        (f.rule, f.line, f.column, str(f.severity), f.message)
        for f in lint_text(text, config)
        if f.rule.endswith("-suppression")
    ]


def test_messages():
    text = (
        "# tflint: file-ignore[duplicate-node-name]\n"
        + NODE.replace(
            "node {\n", "# tflint: ignore[unknwn-attr, all, invalid-graph, unknown-attr, unknown-op]\nnode {\n"
        )
        + '# tflint: ignroe[x]\nnode { name: "b" op: "NoOp" }  # tflint: ignore[unresolved-input]\n'
    )
    assert messages(text) == [
        (
            "unused-suppression",
            1,
            1,
            "warning",
            "Suppression of 'duplicate-node-name' is unused: no duplicate-node-name finding in this file",
        ),
        ("invalid-suppression", 2, 1, "error", "Blanket suppressions are not supported: name the rules to suppress"),
        ("invalid-suppression", 2, 1, "error", "Rule 'invalid-graph' cannot be suppressed"),
        (
            "invalid-suppression",
            2,
            1,
            "error",
            "Suppression names unknown rule 'unknwn-attr' (did you mean 'unknown-attr'?)",
        ),
        (
            "unused-suppression",
            2,
            1,
            "warning",
            "Suppression of 'unknown-op' is unused: no unknown-op finding on lines 3-11",
        ),
        (
            "invalid-suppression",
            12,
            1,
            "error",
            "Unknown suppression kind 'ignroe' (did you mean 'ignore'?): expected '# tflint: ignore[rule, ...]' or "
            "'# tflint: file-ignore[rule, ...]'",
        ),
        (
            "unused-suppression",
            13,
            32,
            "warning",
            "Suppression of 'unresolved-input' is unused: no unresolved-input finding on line 13",
        ),
    ]


def test_a_rule_that_is_off_makes_its_suppression_unused():
    text = "# tflint: ignore[unknown-attr]\n" + NODE
    assert messages(text, {"rules": {"unknown-attr": "off"}}) == [
        ("unused-suppression", 1, 1, "warning", "Suppression of 'unknown-attr' is unused: the rule is off"),
    ]


def test_invalid_graph_cannot_be_suppressed():
    broken = '# tflint: file-ignore[invalid-graph]\n# tflint: ignore[invalid-graph]\nnode {\n  name: "a"\n'
    assert pinned(lint_text(broken)) == [("invalid-graph", None, 4)]  # the parser stops at the end of line 4


def test_meta_rules_follow_their_configured_level():
    text = "# tflint: ignore[unknwn-attr]\n" + NODE + "# tflint: ignore[unknown-attr]\n"
    assert pinned(lint_text(text, {"rules": {"invalid-suppression": "off", "unused-suppression": "off"}})) == shifted(
        BOTH, 1
    )
    levels = [
        (f.rule, str(f.severity))
        for f in lint_text(text, {"rules": {"invalid-suppression": "warning", "unused-suppression": "error"}})
        if f.node is None
    ]
    assert levels == [("invalid-suppression", "warning"), ("unused-suppression", "error")]


@pytest.mark.parametrize(
    "governance, text, expected, message",
    [
        pytest.param(
            False,
            "# tflint: ignore[unknown-attr] -- legacy\n" + NODE,
            [("invalid-suppression", None, 1)] + shifted(BOTH, 1),
            "Inline suppressions are disabled by configuration (inline-suppressions: false)",
            id="forbidden",
        ),
        pytest.param(
            {"allowed": False},
            NODE.replace('key: "bogus"', 'key: "bogus"  # tflint: ignore[unknown-attr] -- legacy'),
            BOTH + [("invalid-suppression", None, 5)],
            "Inline suppressions are disabled by configuration (inline-suppressions: false)",
            id="forbidden-mapping",
        ),
        pytest.param(
            {"require-reason": True},
            "# tflint: ignore[unknown-attr]\n" + NODE,
            [("invalid-suppression", None, 1)] + shifted(BOTH, 1),
            "Suppression gives no reason, and the configuration requires one: add ' -- why' after the rules",
            id="reason-missing",
        ),
        pytest.param(
            {"require-reason": True},
            "# tflint: ignore[unknown-attr] -- the exporter adds it\n" + NODE,
            shifted(BOTH[:1], 1),
            None,
            id="reason-given",
        ),
        pytest.param(
            {"require-reason": True},
            "# tflint: ignore[unknown-attr] --\n" + NODE,
            [("invalid-suppression", None, 1)] + shifted(BOTH, 1),
            None,
            id="reason-empty",
        ),
    ],
)
def test_governance(governance, text, expected, message):
    findings = lint_text(text, {"inline-suppressions": governance})
    assert pinned(findings) == expected
    if message:
        assert [f.message for f in findings if f.rule == "invalid-suppression"] == [message]


def test_cli_end_to_end(capsys, tmp_path):
    path = tmp_path / "g.pbtxt"
    path.write_text(
        "# tflint: ignore[unresolved-input, unknown-attr] -- legacy export\n"
        + NODE
        + "# tflint: ignore[unknown-op]\n"
        + NODE.replace('"a"', '"b"')
    )
    code = main([str(path)])
    out = capsys.readouterr().out
    assert code == 1
    assert out.splitlines() == [
        f"{path}:11:1: warning: Suppression of 'unknown-op' is unused: no unknown-op finding on lines 12-20 "
        "[unused-suppression]",
        f"{path}:13:3: error: Node 'b' has control input '^gone' but no node is named 'gone' [unresolved-input]",
        f"{path}:16:5: warning: Node 'b' (op NoOp) has attr 'bogus', which op NoOp does not define; TensorFlow "
        "ignores it [unknown-attr]",
        "Found 1 error, 2 warnings in 1 of 1 file.",
    ]
    path.write_text(
        "# tflint: ignore[unresolved-input, unknown-attr] -- legacy export\n" + NODE + "# tflint: ignore[unknown-op]\n"
    )
    assert main([str(path)]) == 0  # an unused suppression is a warning: reported, but passing by default
    assert main(["--fail-on", "warning", str(path)]) == 1
