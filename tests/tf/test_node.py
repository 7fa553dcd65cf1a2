"""Nodes as rules see them (tflint.tf.node): name grammar, input splitting, data inputs, attr positions.

Node names follow TensorFlow 2.x's `IsValidNodeName` (core/graph/graph_constructor.cc): ASCII
segments `[A-Za-z0-9.][A-Za-z0-9_./-]*` joined by `>`; inside a function body internal ops may also
start with `_`.
"""

from __future__ import annotations

import pytest

from tflint.tf.inputs import parse_tensor_name
from tflint.tf.node import (
    FUNCTION_NODE_NAME,
    GRAPH_NODE_NAME,
    AttrLines,
    Input,
    Node,
    parse_all_inputs,
    parse_function_input,
    parse_input,
)

# name, valid at the top level, valid in a function body
NAMES = [
    ("conv1/weights", True, True),
    ("a.b-c_d/0", True, True),
    ("0", True, True),
    (".hidden", True, True),
    ("outer>inner", True, True),  # TF 2.x joins segments with '>'
    ("a>_b", False, False),  # each segment starts like a name
    ("a>", False, False),
    ("_internal", False, True),  # allowed only with allow_internal_ops
    ("-a", False, False),
    ("/a", False, False),
    ("a b", False, False),
    ("a:0", False, False),
    ("ä", False, False),  # ASCII only
    ("", False, False),
]


@pytest.mark.parametrize(("name", "in_graph", "in_function"), NAMES)
def test_node_name_grammar(name, in_graph, in_function):
    assert bool(GRAPH_NODE_NAME.fullmatch(name)) == in_graph
    assert bool(FUNCTION_NODE_NAME.fullmatch(name)) == in_function


@pytest.mark.parametrize(
    "raw", ["a", "^a", "a:0", "a:7", "^a:1", "^a:b", "a:b:2", "a:", "a:01", "a:4294967296", "a:18446744073709551616"]
)
def test_parse_input_agrees_with_parse_tensor_name(raw):
    # The fast path for names without ':' must give what the full parser gives.
    parsed = parse_tensor_name(raw)
    assert parse_input(raw) == Input(raw, parsed.node, parsed.index, parsed.is_control)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("x", Input("x", "x", 0, False)),
        ("x:2", Input("x:2", "x", 2, False)),
        ("n:out", Input("n:out", "n", 0, False, "out")),
        ("n:out:3", Input("n:out:3", "n", 3, False, "out")),
        ("n:out:z", Input("n:out:z", "n", -2, False, "out")),  # -2: not an element index
        ("^n", Input("^n", "n", -1, True)),
        ("^n:output", Input("^n:output", "n", -1, True)),  # a control input names only the node
    ],
)
def test_parse_function_input(raw, expected):
    assert parse_function_input(raw) == expected


def _node(name: str, *raw_inputs: str, **extra) -> Node:
    return Node(name, extra.pop("op", "Identity"), extra.pop("device", ""), {}, raw_inputs, **extra)


def test_parse_all_inputs_sets_inputs_and_shares_one_record_per_string():
    first, second = _node("b", "a", "a:1", "^c"), _node("d", "a", "^c")
    table = parse_all_inputs([first, second], in_function=False)
    assert first.inputs == (Input("a", "a", 0, False), Input("a:1", "a", 1, False), Input("^c", "c", -1, True))
    assert second.inputs[0] is first.inputs[0] and second.inputs[1] is first.inputs[2]
    assert set(table) == {"a", "a:1", "^c"}
    # A later call on the same scope reuses the table and adds only new strings.
    third = _node("e", "a", "e2:0")
    assert parse_all_inputs([third], in_function=False, table=table) is table
    assert third.inputs[0] is first.inputs[0] and "e2:0" in table


def test_parse_all_inputs_in_a_function_reads_output_args():
    node = _node("m", "n:out:1", "x")
    parse_all_inputs([node], in_function=True)
    assert node.inputs == (Input("n:out:1", "n", 1, False, "out"), Input("x", "x", 0, False))


def test_data_inputs_drop_control_inputs():
    node = _node("b", "a", "^c", "d:1")
    parse_all_inputs([node], in_function=False)
    assert [item.raw for item in node.data_inputs] == ["a", "d:1"]
    plain = _node("p", "a")
    parse_all_inputs([plain], in_function=False)
    assert plain.data_inputs is plain.inputs


def test_attr_position_from_shared_attr_lines():
    # A text node: header line 10 (`name:`), then op, two inputs and device lines, then the attrs.
    lines = AttrLines({"T": 0, "dtype": 3}, column=5)
    node = _node("n", "a", "b", device="/cpu:0", position=(10, 3), attr_positions=lines)
    assert node.attr_position("T") == (15, 5)
    assert node.attr_position("dtype") == (18, 5)
    assert node.attr_position("missing") is None
    no_device = _node("m", "a", position=(10, 3), attr_positions=lines)
    assert no_device.attr_position("T") == (13, 5)
    assert _node("q", position=None, attr_positions=lines).attr_position("T") is None


def test_attr_position_from_a_mapping_and_without_positions():
    node = _node("n", position=(2, 1), attr_positions={"T": (4, 9)})
    assert node.attr_position("T") == (4, 9)
    assert node.attr_position("U") is None
    assert _node("m").attr_position("T") is None
