"""target-attr-ignored: an attr a targeted release (TF 2.5 on) imports without, at a value that is not the default.

Releases up to TF 2.4 refuse such a node instead (target-attr, tests/rules/test_target_attr.py).
"""

from __future__ import annotations

import pytest
from conftest import lint_text, pinned

RULE = "target-attr-ignored"
TPU = 'node { name: "m" op: "TPUReplicateMetadata" attr { key: "num_replicas" value { i: 1 } }%s }'
SHARDY = ' attr { key: "use_shardy_partitioner" value { b: %s } }'
MULTI_LINE = 'node {\n  name: "m"\n  op: "TPUReplicateMetadata"\n  attr { key: "num_replicas" value { i: 1 } }\n%s\n}'


@pytest.mark.parametrize(
    "pbtxt, targets, expected",
    [
        pytest.param(TPU % (SHARDY % "true"), "2.15", [(RULE, "m", 1)], id="not-default"),
        pytest.param(TPU % (SHARDY % "false"), "2.15", [], id="default-is-harmless"),
        pytest.param(TPU % "", "2.15", [], id="absent"),
        pytest.param(TPU % (SHARDY % "true"), "2.21", [], id="known-to-the-target"),
        pytest.param(TPU % (SHARDY % "true"), None, [], id="no-target"),
        # Up to 2.4 the importer refuses the node: that release is target-attr's, the later one this rule's.
        pytest.param(
            TPU % (SHARDY % "true"), "2.4,2.15", [("target-attr", "m", 1), (RULE, "m", 1)], id="refused-and-ignored"
        ),
        pytest.param(MULTI_LINE % (SHARDY % "true"), "2.15", [(RULE, "m", 5)], id="points-at-the-attr"),
    ],
)
def test_rule(pbtxt, targets, expected):
    config = {"target-tf": targets} if targets else {}
    found = [t for t in pinned(lint_text(pbtxt, config)) if t[0].startswith("target-")]
    assert found == expected


def test_message_names_the_release_and_the_consequence():
    (finding,) = [f for f in lint_text(TPU % (SHARDY % "true"), {"target-tf": "2.15"}) if f.rule == RULE]
    assert str(finding.severity) == "warning"
    assert finding.message.startswith("TF 2.15: Node 'm' (TPUReplicateMetadata): unknown attr 'use_shardy_partitioner'")
    assert finding.message.endswith("it imports the graph without it, so the node computes something else")


def test_it_can_be_switched_off():
    config = {"target-tf": "2.15", "rules": {RULE: "off"}}
    assert [f.rule for f in lint_text(TPU % (SHARDY % "true"), config)] == []
