"""node-name-syntax: TensorFlow's IsValidNodeName, with `_` first only inside function bodies.

Every case was imported with TensorFlow 2.21 (`import_graph_def`, and for
function bodies a call node so the importer instantiates the function).
"""

from __future__ import annotations

import pytest
from conftest import lint_text, pinned

from tflint.engine.run import NEVER_CALLED
from tflint.rules.node_name_syntax import explain

ID = "node-name-syntax"


def _graph(name: str) -> str:
    return f'node {{ name: "{name}" op: "NoOp" }}\n'


def _function(name: str) -> str:
    return f'library {{ function {{\n  signature {{ name: "f" }}\n  node_def {{ name: "{name}" op: "NoOp" }}\n}} }}\n'


@pytest.mark.parametrize(
    "name",
    [
        pytest.param("a", id="letter"),
        pytest.param("9", id="digit"),
        pytest.param(".x", id="leading-dot"),
        pytest.param("a-b.c/d_e", id="dash-dot-slash-underscore"),
        pytest.param("a//b/", id="empty-scope-parts-are-legal"),
        pytest.param("outer>inner", id="angle-segments"),
        pytest.param("a>.b", id="dot-after-angle"),
        pytest.param("x" * 1000, id="long"),
    ],
)
def test_valid_top_level_names(name):
    assert pinned(lint_text(_graph(name)), rule=ID) == []


@pytest.mark.parametrize(
    "name",
    [
        pytest.param("", id="empty"),
        pytest.param("_a", id="leading-underscore"),
        pytest.param("__inference_f_12", id="function-name-copied-out"),
        pytest.param("_tf.foo", id="mlir-name"),
        pytest.param("-a", id="leading-dash"),
        pytest.param("/a", id="leading-slash"),
        pytest.param("a b", id="space"),
        pytest.param("a:1", id="colon"),
        pytest.param("^a", id="caret"),
        pytest.param("aé", id="non-ascii"),
        pytest.param("a>", id="trailing-angle"),
        pytest.param("a>>b", id="empty-segment"),
        pytest.param("a>_b", id="underscore-after-angle"),
        pytest.param("a>-b", id="dash-after-angle"),
    ],
)
def test_invalid_top_level_names(name):
    assert pinned(lint_text(_graph(name)), rule=ID) == [(ID, name, 1)]


@pytest.mark.parametrize(
    "name, expected",
    [
        pytest.param("_a", [], id="leading-underscore-ok"),
        pytest.param("__inference_f_12", [], id="double-underscore-ok"),
        pytest.param("_", [], id="lone-underscore"),
        pytest.param("_a>b", [], id="underscore-then-segments"),
        pytest.param("_a>_b", [(ID, "_a>_b", 3)], id="underscore-after-angle-still-bad"),
        pytest.param("a:b", [(ID, "a:b", 3)], id="colon"),
        pytest.param("-a", [(ID, "-a", 3)], id="leading-dash"),
        pytest.param("", [(ID, "", 3)], id="empty"),
    ],
)
def test_function_body_names(name, expected):
    assert pinned(lint_text(_function(name)), rule=ID) == expected


def test_every_bad_node_is_reported_and_located():
    text = _graph("ok") + _graph("_bad") + _graph("also ok".replace(" ", "_")) + _graph("x y")
    assert pinned(lint_text(text), rule=ID) == [(ID, "_bad", 2), (ID, "x y", 4)]


def test_finding_names_the_function():
    [finding] = [f for f in lint_text(_function("a b")) if f.rule == ID]
    assert finding.function == "f"


@pytest.mark.parametrize(
    "name, in_function, reason",
    [
        ("", False, "it is empty"),
        (
            "_a",
            False,
            "a leading '_' is reserved for TensorFlow's internal nodes (allowed only inside function bodies)",
        ),
        ("a b", False, "character ' ' at position 1 is not allowed (only ASCII letters, digits and _ . / - >)"),
        ("aé", True, "character 'é' at position 1 is not allowed (only ASCII letters, digits and _ . / - >)"),
        ("a>", False, "a '>' must separate two non-empty parts"),
        ("a>_b", True, "a part after '>' starts with '_'; it must start with a letter, a digit or '.'"),
        ("-a", False, "the name starts with '-'; it must start with a letter, a digit or '.'"),
    ],
)
def test_explanations(name, in_function, reason):
    assert explain(name, in_function) == reason


def test_message_text():
    [finding] = [f for f in lint_text(_graph("_send_Mean_0")) if f.rule == ID]
    assert finding.message == (
        "Node name '_send_Mean_0' is not a valid TensorFlow node name: "
        "a leading '_' is reserved for TensorFlow's internal nodes (allowed only inside function bodies)"
    )


def _signature(input_name: str, output_name: str) -> str:
    return (
        "library { function {\n"
        f'  signature {{ name: "f" input_arg {{ name: "{input_name}" type: DT_FLOAT }} output_arg {{ name: "{output_name}" type: DT_FLOAT }} }}\n'
        f'  node_def {{ name: "n" op: "Identity" input: "{input_name}" attr {{ key: "T" value {{ type: DT_FLOAT }} }} }}\n'
        f'  ret {{ key: "{output_name}" value: "n:output:0" }}\n'
        "} }\n"
    )


@pytest.mark.parametrize(
    "input_name, output_name, count",
    [
        pytest.param("x", "y", 0, id="plain"),
        pytest.param("_x", ".y", 0, id="underscore-and-dot"),
        pytest.param("a>b", "y", 0, id="angle-in-arg"),
        pytest.param("a b", "y", 1, id="space-in-input-arg"),
        pytest.param("x", "o b", 1, id="space-in-output-arg"),
        pytest.param("x", "o>", 1, id="angle-then-RetVal"),
    ],
)
def test_function_arg_names_become_node_names(input_name, output_name, count):
    # TensorFlow 2.21, function called: "Node 'a b': ..." / "Node 'o b_RetVal': Node name contains invalid characters".
    findings = [f for f in lint_text(_signature(input_name, output_name)) if f.rule == ID]
    assert [(f.node, f.function, f.line) for f in findings] == [(None, "f", 2)] * count


def test_arg_message():
    [finding] = [f for f in lint_text(_signature("x", "o b")) if f.rule == ID]
    assert finding.message == (
        "Function 'f': output arg 'o b' makes an invalid node name 'o b_RetVal' when TensorFlow instantiates the "
        "function: character ' ' at position 1 is not allowed (only ASCII letters, digits and _ . / - >)"
        f" ({NEVER_CALLED})"
    )
