"""target-graph-version: GraphDef versions outside what a target release's CheckVersions accepts."""

from __future__ import annotations

import pytest
from conftest import lint_text, pinned

RULE = "target-graph-version"
NODE = 'node { name: "a" op: "NoOp" }\n'


@pytest.mark.parametrize(
    "versions, targets, expected",
    [
        # TF 2.21 writes min_consumer 0 or 12: every release accepts those.
        pytest.param("producer: 2474 min_consumer: 12", "1.15", [], id="usual"),
        # A producer newer than the release is fine.
        pytest.param("producer: 9999", "1.15", [], id="newer-producer"),
        # TF 2.4 is GraphDef version 561: it accepts a min_consumer up to 561.
        pytest.param("producer: 2474 min_consumer: 561", "2.4", [], id="at-its-version"),
        pytest.param("producer: 2474 min_consumer: 562", "2.4", [(RULE, None, 2)], id="above-its-version"),
        pytest.param("producer: 2474 min_consumer: 562", "2.8", [], id="newer-target-accepts"),
        # TF 1.15 is version 134.
        pytest.param("producer: 2474 min_consumer: 135", "1.15,2.4", [(RULE, None, 2)], id="only-the-older"),
        pytest.param("producer: 2474 bad_consumers: 561", "2.4", [(RULE, None, 2)], id="bad-consumer"),
        pytest.param("producer: 2474 bad_consumers: 561", "2.8", [], id="bad-consumer-other-release"),
        pytest.param("producer: 2474 min_consumer: 562", None, [], id="no-target"),
    ],
)
def test_rule(versions, targets, expected):
    config = {"target-tf": targets} if targets else None
    assert pinned(lint_text(NODE + f"versions {{ {versions} }}\n", config), rule=RULE) == expected


def test_message_names_the_release_and_its_version():
    text = NODE + "versions { producer: 2474 min_consumer: 562 bad_consumers: 561 }\n"
    messages = sorted(f.message for f in lint_text(text, {"target-tf": "2.4"}) if f.rule == RULE)
    assert messages == [
        "TF 2.4: GraphDef bad_consumers lists its GraphDef version 561",
        "TF 2.4: GraphDef min_consumer 562 is above its GraphDef version 561",
    ]
