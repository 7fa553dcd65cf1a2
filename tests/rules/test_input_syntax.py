"""input-syntax: input strings TensorFlow rejects, crashes on or misreads; and the hygiene helper.

Verified with TensorFlow 2.21 (`import_graph_def`, then a session run):
- `""`, `^`, `a:`, `a:x`, `a:-1`, `a:1:2`, `a:0>b`, `:0`, `^a:0`, `^^a`,
  `a:99999999999999999999`, `a:18446744073709551616` -> "Unknown input node";
- `a:2147483648`, `a:4294967295`, `a:10000000000000000000` -> the process
  segfaults; `a:4294967294` -> a nonsense type error (out-of-bounds read);
- `a:4294967296`, `a:42949672960` -> imported and run as `a:0`;
- `a:01`, `a:00`, 34 zeros -> read as `a:1` / `a:0`; `^a` twice -> fine.
Function bodies (a call node, so the import instantiates the function):
`a:00`, `n:output:00`, `n:0`, `n:output:0:0`, `""` -> "input ... is not
found"; `^a`, `^n`, `a:0`, `^n:output` -> fine.
"""

from __future__ import annotations

import pytest
from conftest import lint_text, pinned
from hypothesis import given, settings
from hypothesis import strategies as st

from tflint.tf.inputs import (
    function_input_problem,
    graph_input_problem,
    hygiene_problems,
    nodes_with_suspect_inputs,
    parse_tensor_name,
)
from tflint.tf.node import Node

ID = "input-syntax"

HEAD = """\
node { name: "a" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } }
"""


def _graph(*inputs: str) -> str:
    listed = " ".join(f'input: "{raw}"' for raw in inputs)
    return HEAD + f'node {{ name: "b" op: "Identity" {listed} attr {{ key: "T" value {{ type: DT_FLOAT }} }} }}\n'


@pytest.mark.parametrize(
    "inputs",
    [
        pytest.param(("a",), id="bare"),
        pytest.param(("a:0",), id="index-0"),
        pytest.param(("a:7",), id="index"),
        pytest.param(("a", "^a"), id="control"),
        pytest.param(("a:2147483647",), id="largest-int32-is-range-not-syntax"),
        pytest.param(("x>y:1",), id="angle-names"),
    ],
)
def test_clean_top_level(inputs):
    assert pinned(lint_text(_graph(*inputs)), rule=ID) == []


@pytest.mark.parametrize(
    "inputs, count",
    [
        pytest.param(("a:01",), 1, id="leading-zero"),
        pytest.param(("a:00",), 1, id="zeros"),
        pytest.param(("a:" + "0" * 34,), 1, id="many-zeros-still-0"),
        pytest.param(("a", "^a"), 0, id="control-beside-data-is-opt-in"),
    ],
)
def test_hygiene_is_a_warning(inputs, count):
    findings = [f for f in lint_text(_graph(*inputs)) if f.rule == ID]
    assert [(f.node, f.line, str(f.severity)) for f in findings] == [("b", 2, "warning")] * count


def test_duplicate_control_input_is_info():
    findings = [f for f in lint_text(_graph("a", "^a", "^a")) if f.rule == ID]
    assert [(f.node, f.line, str(f.severity)) for f in findings] == [("b", 2, "info")]


def test_redundant_control_when_asked():
    findings = lint_text(_graph("a", "^a"), {"rules": {ID: {"redundant-control": True}}})
    assert [(f.rule, f.node, str(f.severity)) for f in findings if f.rule == ID] == [(ID, "b", "warning")]


@pytest.mark.parametrize(
    "inputs, count",
    [
        pytest.param(("",), 1, id="empty"),
        pytest.param(("a", "^"), 1, id="lone-caret"),
        pytest.param(("a:",), 1, id="empty-index"),
        pytest.param(("a:x",), 1, id="word-index"),
        pytest.param(("a:-1",), 1, id="negative-index"),
        pytest.param(("a:1:2",), 1, id="two-colons"),
        pytest.param(("a:0>b",), 1, id="angle-after-index"),
        pytest.param((":0",), 1, id="no-node-name"),
        pytest.param(("a", "^a:0"), 1, id="control-with-index"),
        pytest.param(("a", "^a:"), 1, id="control-with-colon"),
        pytest.param(("a:2147483648",), 1, id="int32-overflow-crashes"),
        pytest.param(("a:4294967295",), 1, id="minus-one-crashes"),
        pytest.param(("a:4294967296",), 1, id="wraps-to-0-silently"),
        pytest.param(("a:99999999999999999999",), 1, id="beyond-uint64"),
        pytest.param(("", "a:", "^a:0"), 3, id="each-input-reported"),
    ],
)
def test_errors_top_level(inputs, count):
    assert pinned(lint_text(_graph(*inputs)), rule=ID) == [(ID, "b", 2)] * count


FUNCTION = """\
library {{ function {{
  signature {{ name: "f" input_arg {{ name: "x" type: DT_FLOAT }} output_arg {{ name: "y" type: DT_FLOAT }} }}
  node_def {{ name: "n" op: "Identity" input: "x" attr {{ key: "T" value {{ type: DT_FLOAT }} }} }}
  node_def {{ name: "m" op: "Identity" {inputs} attr {{ key: "T" value {{ type: DT_FLOAT }} }} }}
  ret {{ key: "y" value: "m:output:0" }}
}} }}
"""


def _function(*inputs: str) -> str:
    return FUNCTION.format(inputs=" ".join(f'input: "{raw}"' for raw in inputs))


@pytest.mark.parametrize(
    "inputs",
    [
        pytest.param(("x",), id="arg"),
        pytest.param(("x:0",), id="arg-element"),
        pytest.param(("n:output:0",), id="node-output-element"),
        pytest.param(("n:output",), id="node-output-arg"),
        pytest.param(("x", "^n"), id="control-on-node"),
        pytest.param(("n:output:0", "^x"), id="control-on-arg"),
        pytest.param(("x", "^n:output"), id="control-with-out-arg-is-found-by-prefix"),
        pytest.param(("missing:0",), id="unknown-name-left-to-unresolved-input"),
    ],
)
def test_clean_function_body(inputs):
    assert pinned(lint_text(_function(*inputs)), rule=ID) == []


@pytest.mark.parametrize(
    "inputs",
    [
        pytest.param(("",), id="empty"),
        pytest.param(("x", "^"), id="lone-caret"),
        pytest.param(("n:0",), id="node-output-by-number"),
        pytest.param(("n:0:0",), id="numeric-out-arg"),
        pytest.param(("x:00",), id="arg-leading-zero"),
        pytest.param(("n:output:01",), id="element-leading-zero"),
        pytest.param(("n:output:z",), id="element-not-a-number"),
        pytest.param(("n:output:0:0",), id="too-many-colons"),
        pytest.param(("n::0",), id="empty-part"),
        pytest.param(("x:output",), id="arg-with-out-arg"),
        pytest.param(("x:output:0",), id="arg-with-two-colons"),
    ],
)
def test_errors_function_body(inputs):
    findings = [f for f in lint_text(_function(*inputs)) if f.rule == ID]
    assert [(f.node, f.line, f.function) for f in findings] == [("m", 4, "f")]


def test_argument_wins_over_a_node_of_the_same_name():
    # TensorFlow's lookup table holds `x` and `x:0` for the argument, `x:output:0` for the node.
    text = """\
library { function {
  signature { name: "f" input_arg { name: "x" type: DT_FLOAT } output_arg { name: "y" type: DT_FLOAT } }
  node_def { name: "x" op: "Identity" input: "x:0" attr { key: "T" value { type: DT_FLOAT } } }
  node_def { name: "m" op: "Identity" input: "x:output:0" attr { key: "T" value { type: DT_FLOAT } } }
  ret { key: "y" value: "m:output:0" }
} }
"""
    assert pinned(lint_text(text), rule=ID) == []


@pytest.mark.parametrize(
    "raw, message",
    [
        ("", "is empty; TensorFlow reads it as an input from a node named ''"),
        (
            "^a:0",
            "is a control input with an output index; TensorFlow reads it as a data input from a node named '^a' (write '^a')",
        ),
        ("a:", "has an empty output index; TensorFlow reads it as a node named 'a:' (write 'a' or 'a:0')"),
        (
            "a:x",
            "has a malformed output index 'x'; TensorFlow reads it as a node named 'a:x' (an index is ':' and decimal digits)",
        ),
        ("a:1:2", "has more than one ':'; TensorFlow reads it as output 2 of a node named 'a:1'"),
        (
            "a:4294967295",
            "has output index 4294967295, which overflows TensorFlow's 32-bit index; TensorFlow's importer crashes on it (the index becomes -1, its control-edge marker)",
        ),
        (
            "a:2147483648",
            "has output index 2147483648, which overflows TensorFlow's 32-bit index; the index becomes -2147483648 and TensorFlow's importer crashes or reads out of bounds",
        ),
        (
            "a:4294967297",
            "has output index 4294967297, which TensorFlow truncates to 32 bits and silently reads as 'a:1'",
        ),
        (
            "a:18446744073709551616",
            "has an output index too large for TensorFlow to parse (20 digits); it reads the whole string as a node name",
        ),
    ],
)
def test_graph_messages(raw, message):
    assert graph_input_problem(raw) == message


def test_message_names_node_and_position():
    [finding] = [f for f in lint_text(_graph("a", "^a:0")) if f.rule == ID]
    assert finding.message.startswith("Node 'b': input #1 '^a:0' is a control input with an output index")


@pytest.mark.parametrize(
    "raw, node, index, control",
    [
        ("a", "a", 0, False),
        ("a:3", "a", 3, False),
        ("^a", "a", -1, True),
        ("^a:0", "^a", 0, False),  # TensorFlow's own reading: a data input from node `^a`
        ("a:1:2", "a:1", 2, False),
        (":0", "", 0, False),
        ("a:", "a:", 0, False),
        ("a:4294967296", "a", 0, False),
        ("a:4294967295", "a", -1, False),
        ("a:18446744073709551615", "a", -1, False),
        ("a:18446744073709551616", "a:18446744073709551616", 0, False),
        ("a:١", "a:١", 0, False),  # only ASCII digits make an index
    ],
)
def test_parse_tensor_name_is_tensorflows(raw, node, index, control):
    parsed = parse_tensor_name(raw)
    assert (parsed.node, parsed.index, parsed.is_control) == (node, index, control)


def test_function_problem_judges_form_only():
    assert function_input_problem("n:output:0", {"x"}, {"n"}) is None
    assert function_input_problem("n:0", {"x"}, {"n"}).startswith("refers to an output of body node 'n' by number")
    assert function_input_problem("q:0", {"x"}, {"n"}) is None  # unknown name: unresolved-input's job


@pytest.mark.parametrize(
    "inputs, in_function, redundant, expected",
    [
        pytest.param(("a:01",), False, False, [(0, "leading-zero")], id="leading-zero"),
        pytest.param(("a:01",), True, False, [], id="leading-zero-in-function-is-an-error-elsewhere"),
        pytest.param(("a:4294967296",), False, False, [], id="overflow-is-an-error-not-hygiene"),
        pytest.param(("a", "^b", "^b"), False, False, [(2, "duplicate-control")], id="duplicate-control"),
        pytest.param(("a:1", "^a"), False, False, [], id="redundant-control-off-by-default"),
        pytest.param(("a:1", "^a"), False, True, [(1, "redundant-control")], id="redundant-control"),
        pytest.param(("n:output:0", "^n"), True, True, [(1, "redundant-control")], id="redundant-control-in-function"),
        pytest.param(("a", "^b"), False, True, [], id="clean"),
    ],
)
def test_hygiene(inputs, in_function, redundant, expected):
    found = [
        (problem.position, problem.kind)
        for problem in hygiene_problems(inputs, in_function=in_function, redundant_control=redundant)
    ]
    assert found == expected


# -- the one-scan pre-filter of top-level inputs ----------------------------------------------

_INPUT_TEXT = st.text(alphabet=st.sampled_from(list("ab^:0129\n_/") + ["ß"]), max_size=8)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(_INPUT_TEXT, max_size=4), max_size=6))
def test_prefilter_keeps_every_node_the_exact_checks_flag(inputs_per_node):
    nodes = [Node(f"n{i}", "Op", "", {}, tuple(inputs)) for i, inputs in enumerate(inputs_per_node)]
    kept = {id(node) for node in nodes_with_suspect_inputs(nodes)}
    for node in nodes:
        flagged = any(graph_input_problem(raw) for raw in node.raw_inputs) or any(
            hygiene_problems(node.raw_inputs, in_function=False, redundant_control=True)
        )
        if flagged:
            assert id(node) in kept, node.raw_inputs


def test_prefilter_skips_plain_inputs():
    plain = Node("p", "Op", "", {}, ("a", "b", "c/d_1"))
    control = Node("c", "Op", "", {}, ("a", "^b"))
    bad = Node("x", "Op", "", {}, ("a:",))
    assert nodes_with_suspect_inputs([plain, control, plain, bad]) == [control, bad]
