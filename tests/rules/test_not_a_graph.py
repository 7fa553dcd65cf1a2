"""not-a-graph: files that hold some other message are skipped, at the rule's level; broken graphs are not."""

from __future__ import annotations

import pytest
from conftest import DATA, lint_bytes, lint_text, pinned

RULE = "not-a-graph"
LABEL_MAP = 'item {\n  name: "/m/01g317"\n  id: 1\n  display_name: "person"\n}\n'
MEDIAPIPE = 'input_stream: "in"\nnode {\n  calculator: "PassThroughCalculator"\n  input_stream: "in"\n}\n'
TRITON = 'name: "resnet"\nplatform: "tensorflow_savedmodel"\nmax_batch_size: 8\ninput [ { name: "x" data_type: TYPE_FP32 } ]\n'


@pytest.mark.parametrize(
    "text, name, expected",
    [
        pytest.param('node { name: "a" op: "NoOp" }\n', "g.pbtxt", [], id="graph"),
        pytest.param(LABEL_MAP, "label_map.pbtxt", [(RULE, None, 1)], id="label-map"),
        pytest.param(LABEL_MAP, "graph.pbtxt", [(RULE, None, 1)], id="label-map-named-like-a-graph"),
        pytest.param(MEDIAPIPE, "hand_tracking.pbtxt", [(RULE, None, 1)], id="mediapipe"),
        pytest.param(TRITON, "config.pbtxt", [(RULE, None, 1)], id="triton"),
        pytest.param('{"format": "graph-model"}\n', "model.pbtxt", [(RULE, None, 1)], id="json"),
        # Broken graphs stay broken graphs.
        pytest.param('node { name: "a" op: "NoOp"\n', "g.pbtxt", [("invalid-graph", None, 1)], id="unclosed"),
        pytest.param('node { name: "a" inptu: "b" }\n', "g.pbtxt", [("invalid-graph", None, 1)], id="misspelt-field"),
        pytest.param("this is not a graph\n", "g.pbtxt", [("invalid-graph", None, 1)], id="not-text-format"),
    ],
)
def test_rule(text, name, expected):
    assert pinned(lint_text(text, name=name)) == expected


def test_the_message_says_what_the_file_is():
    (finding,) = lint_text(LABEL_MAP, name="label_map.pbtxt")
    assert finding.message == "not a TensorFlow graph: Object Detection label map (StringIntLabelMap); not linted"
    assert (str(finding.severity), finding.line, finding.column) == ("info", 1, 1)


@pytest.mark.parametrize(
    "name, message",
    [
        ("fingerprint.pb", "SavedModel fingerprint (FingerprintDef)"),
        ("keras_metadata.pb", "Keras metadata (SavedMetadata)"),
        ("FeatureStats.pb", "TFDV statistics (DatasetFeatureStatisticsList)"),
        ("detect.pb", "TFLite flatbuffer"),
        ("unknown_message.pb", "unrecognised protobuf message"),
    ],
)
def test_binary_files_of_other_messages(name, message):
    (finding,) = lint_bytes((DATA / "nongraphs" / name).read_bytes(), name=name)
    assert (finding.rule, finding.line, finding.message) == (
        RULE,
        None,
        f"not a TensorFlow graph: {message}; not linted",
    )


def test_binary_that_parses_only_as_unknown_fields_is_not_an_empty_graph():
    # A TFDV statistics file read leniently is a GraphDef of unknown fields: nothing to lint, and not a pass.
    assert pinned(lint_bytes((DATA / "nongraphs" / "FeatureStats.pb").read_bytes(), name="g.pb")) == [
        (RULE, None, None)
    ]


@pytest.mark.parametrize("level, expected", [("off", []), ("error", [(RULE, None, 1)]), ("warning", [(RULE, None, 1)])])
def test_the_level_is_the_users(level, expected):
    findings = lint_text(LABEL_MAP, {"rules": {RULE: level}}, name="label_map.pbtxt")
    assert pinned(findings) == expected
    assert all(str(finding.severity) == level for finding in findings)


def test_input_type_forces_a_graph():
    findings = lint_text(LABEL_MAP, name="label_map.pbtxt", input_type="graphdef")
    assert pinned(findings) == [("invalid-graph", None, 1)]
