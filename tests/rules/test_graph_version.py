"""graph-version: TensorFlow's CheckVersions against the target GraphDef version."""

from __future__ import annotations

import pytest
from conftest import lint_bytes, lint_text, pinned

from tflint import protos
from tflint.tf.registry import snapshot_info

RULE = "graph-version"
TARGET = snapshot_info().graph_def_version
NODE = 'node { name: "a" op: "NoOp" }\n'


@pytest.mark.parametrize(
    "versions, expected",
    [
        ("", []),
        ("versions { }", []),
        ("versions { producer: 0 }", []),
        ("versions { producer: 27 min_consumer: 12 }", []),
        # Far newer than the target: TensorFlow imports it (V4 is only a hint on other failures).
        (f"versions {{ producer: {TARGET + 1000} }}", []),
        (f"versions {{ producer: 27 min_consumer: {TARGET} }}", []),
        ("versions { producer: -1 }", [(RULE, None, 2)]),
        (f"versions {{ producer: 27 min_consumer: {TARGET + 1} }}", [(RULE, None, 2)]),
        (f"versions {{ producer: 27 bad_consumers: 3 bad_consumers: {TARGET} }}", [(RULE, None, 2)]),
        (f"versions {{ producer: -5 min_consumer: {TARGET + 1} bad_consumers: {TARGET} }}", [(RULE, None, 2)] * 3),
        ("versions {\n  producer: 27\n  bad_consumers: %d\n}" % TARGET, [(RULE, None, 2)]),
    ],
)
def test_rule(versions, expected):
    assert pinned(lint_text(NODE + versions), rule=RULE) == expected


def test_target_version_option():
    text = NODE + "versions { producer: 27 min_consumer: 500 bad_consumers: 400 }"
    assert pinned(lint_text(text), rule=RULE) == []
    assert pinned(lint_text(text, {"rules": {RULE: {"target-version": 499}}}), rule=RULE) == [(RULE, None, 2)]
    assert pinned(lint_text(text, {"rules": {RULE: {"target-version": 400}}}), rule=RULE) == [
        (RULE, None, 2),
        (RULE, None, 2),
    ]


def test_target_version_must_be_a_version():
    from tflint.config.settings import config_from_mapping
    from tflint.errors import ConfigError

    with pytest.raises(ConfigError, match="target-version"):
        config_from_mapping({"rules": {RULE: {"target-version": -1}}})


def test_meta_graph_position():
    text = """meta_info_def { tags: "serve" }
graph_def {
  node { name: "a" op: "NoOp" }
  versions { producer: -1 }
}
"""
    assert pinned(lint_text(text, input_type="MetaGraphDef"), rule=RULE) == [(RULE, None, 4)]


def test_saved_model_position_per_meta_graph():
    text = """saved_model_schema_version: 1
meta_graphs { graph_def { versions { producer: 27 } } }
meta_graphs {
  graph_def {
    versions { producer: -1 }
  }
}
"""
    assert pinned(lint_text(text, input_type="SavedModel"), rule=RULE) == [(RULE, None, 5)]


def test_binary_graph_has_no_line():
    graph = protos.GraphDef()
    graph.versions.producer = -1
    findings = [f for f in lint_bytes(graph.SerializeToString()) if f.rule == RULE]
    assert [(f.line, f.node) for f in findings] == [(None, None)]


def test_messages():
    text = NODE + f"versions {{ producer: -1 min_consumer: {TARGET + 1} bad_consumers: {TARGET} }}"
    assert [f.message for f in lint_text(text) if f.rule == RULE] == sorted(
        [
            "GraphDef versions: producer version -1 is below the oldest producer TensorFlow supports (0); regenerate the graph",
            f"GraphDef versions: min_consumer {TARGET + 1} is above the target GraphDef version {TARGET}; the graph needs a newer TensorFlow",
            f"GraphDef versions: bad_consumers lists the target GraphDef version {TARGET}; the graph refuses that TensorFlow as buggy",
        ]
    )
