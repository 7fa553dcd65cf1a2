"""node-name-pattern: opt-in naming conventions from the config (`regex` patterns, with a timeout)."""

from __future__ import annotations

import pytest
from conftest import lint_text, pinned

from tflint.errors import ConfigError
from tflint.rules import node_name_pattern
from tflint.runtime import user_regex

ID = "node-name-pattern"

GRAPH = """\
node { name: "model/dense/MatMul" op: "MatMul" }
node { name: "inputs/images" op: "Placeholder" }
node { name: "Images" op: "Placeholder" }
node { name: "model//bias" op: "Identity" }
node { name: "model/" op: "NoOp" }
library { function {
  signature { name: "f" }
  node_def { name: "StatefulPartitionedCall" op: "NoOp" }
} }
"""


def _lint(**options):
    return pinned(lint_text(GRAPH, {"rules": {ID: {"level": "warning", **options}}}), rule=ID)


def test_off_by_default():
    assert pinned(lint_text(GRAPH), rule=ID) == []


def test_default_forbids_empty_scope_parts():
    assert _lint() == [(ID, "model//bias", 4), (ID, "model/", 5)]


def test_pattern_is_searched_so_anchor_it():
    # unanchored: every name with a lowercase letter somewhere passes
    assert _lint(pattern="[a-z]", forbid=[]) == []
    assert _lint(pattern="^[a-z]", forbid=[]) == [(ID, "Images", 3), (ID, "StatefulPartitionedCall", 8)]
    assert _lint(pattern="^[a-z0-9_/]+$", forbid=[]) == [
        (ID, "model/dense/MatMul", 1),
        (ID, "Images", 3),
        (ID, "StatefulPartitionedCall", 8),
    ]


def test_op_patterns_apply_to_that_op_only():
    assert _lint(**{"op-patterns": {"Placeholder": "^inputs/"}, "forbid": []}) == [(ID, "Images", 3)]


def test_forbid_list_replaces_the_default():
    assert _lint(forbid=["Mat", "^Images$"]) == [(ID, "model/dense/MatMul", 1), (ID, "Images", 3)]
    assert _lint(forbid=[]) == []


def test_include_functions_false_skips_bodies():
    assert _lint(pattern="^[a-z]", forbid=[], **{"include-functions": False}) == [(ID, "Images", 3)]


def test_every_violated_convention_is_reported():
    findings = [
        f
        for f in lint_text(
            GRAPH,
            {"rules": {ID: {"level": "warning", "pattern": "^[a-z]", "op-patterns": {"Placeholder": "^inputs/"}}}},
        )
        if f.rule == ID and f.node == "Images"
    ]
    assert sorted(f.message for f in findings) == [
        "Node 'Images' (op Placeholder): name does not match the pattern for Placeholder nodes '^inputs/'",
        "Node 'Images' (op Placeholder): name does not match the required pattern '^[a-z]'",
    ]


def test_forbid_message_shows_the_match():
    [finding] = [f for f in lint_text(GRAPH, {"rules": {ID: "warning"}}) if f.rule == ID and f.node == "model//bias"]
    assert finding.message == "Node 'model//bias' (op Identity): name matches the forbidden pattern '//|/$' (at '//')"


@pytest.mark.parametrize(
    "options, fragment",
    [
        pytest.param({"pattern": "("}, "pattern: invalid regular expression '('", id="pattern"),
        pytest.param({"forbid": ["ok", "[z-a]"]}, "forbid: invalid regular expression '[z-a]'", id="forbid"),
        pytest.param(
            {"op-patterns": {"Const": "*x"}}, "op-patterns.Const: invalid regular expression '*x'", id="op-pattern"
        ),
        pytest.param(
            {"op-patterns": {"Const": 3}},
            "op-patterns: expected a mapping of op name to regular expression",
            id="op-pattern-type",
        ),
    ],
)
def test_invalid_options_are_config_errors(options, fragment):
    with pytest.raises(ConfigError) as error:
        lint_text(GRAPH, {"rules": {ID: {"level": "warning", **options}}})
    assert fragment in str(error.value)


def test_a_pattern_that_times_out_is_reported_once_and_dropped(monkeypatch):
    monkeypatch.setattr(node_name_pattern, "TIMEOUT_SECONDS", 0.05)
    # An ample file budget: under load the timed-out search's wall clock could spend the default one
    # and turn the search for "^b$" into a budget finding (the budget has its own test).
    monkeypatch.setattr(user_regex, "BUDGET_SECONDS", 1e9)
    user_regex.reset_budget()
    slow = "a" * 60 + "!"
    text = f'node {{ name: "{slow}" op: "NoOp" }}\nnode {{ name: "{slow}1" op: "NoOp" }}\nnode {{ name: "b" op: "NoOp" }}\n'
    findings = [
        f for f in lint_text(text, {"rules": {ID: {"level": "warning", "forbid": ["(a|aa)+$", "^b$"]}}}) if f.rule == ID
    ]
    assert [(f.node, f.line) for f in findings] == [(slow, 1), ("b", 3)]
    assert findings[0].message == (
        f"Node '{slow}': pattern '(a|aa)+$' took more than 0.05 s on this name "
        "(catastrophic backtracking?); it is not applied to the remaining nodes"
    )


def test_patterns_are_compiled_once_per_configuration():
    node_name_pattern._compile.cache_clear()
    for _ in range(3):
        lint_text(GRAPH, {"rules": {ID: {"level": "warning", "pattern": "^[a-z]"}}})
    info = node_name_pattern._compile.cache_info()
    assert info.misses == 1 and info.hits >= 3
