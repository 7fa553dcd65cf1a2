"""Input-string parsing (tflint.tf.inputs): TensorFlow's `ParseTensorName` and the function-body lookup table.

Top level: the text after the *last* ':' is an index when it is ASCII digits fitting 64 bits (then cut
to a 32-bit int), and that test comes before the '^' test (core/graph/tensor_id.cc). Function bodies:
inputs are looked up literally as `arg`, `arg:i`, `node:out_arg`, `node:out_arg:i`.
"""

from __future__ import annotations

import pytest

from tflint.tf.inputs import (
    function_input_problem,
    graph_input_problem,
    hygiene_problems,
    nodes_with_suspect_inputs,
    parse_tensor_name,
    to_int32,
)

# raw input, (node, index, digits, is_control) as TensorFlow's importer reads it
PARSES = [
    ("a", ("a", 0, None, False)),
    ("a:0", ("a", 0, "0", False)),
    ("dir/a:3", ("dir/a", 3, "3", False)),
    ("^a", ("a", -1, None, True)),
    ("a:b:2", ("a:b", 2, "2", False)),  # the *last* ':' splits
    ("a:01", ("a", 1, "01", False)),  # leading zeros read as decimal
    ("a:", ("a:", 0, None, False)),  # no digits: the whole string is a node name
    ("a:x", ("a:x", 0, None, False)),
    ("^a:1", ("^a", 1, "1", False)),  # the index wins over '^': a data input from '^a'
    ("^a:b", ("a:b", -1, None, True)),
    ("a:2147483648", ("a", -(1 << 31), "2147483648", False)),  # 2**31 wraps negative
    ("a:4294967295", ("a", -1, "4294967295", False)),  # ... to -1, the control slot
    ("a:4294967296", ("a", 0, "4294967296", False)),  # 2**32 truncates to output 0
    ("a:18446744073709551616", ("a:18446744073709551616", 0, None, False)),  # 2**64 does not parse
    ("", ("", 0, None, False)),
]


@pytest.mark.parametrize(("raw", "expected"), PARSES)
def test_parse_tensor_name_follows_tensorflow(raw, expected):
    parsed = parse_tensor_name(raw)
    assert (parsed.node, parsed.index, parsed.digits, parsed.is_control) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [(0, 0), (7, 7), ((1 << 31) - 1, (1 << 31) - 1), (1 << 31, -(1 << 31)), ((1 << 32) + 5, 5), ((1 << 64) - 1, -1)],
)
def test_to_int32_keeps_the_low_32_bits(value, expected):
    assert to_int32(value) == expected


# raw input, the start of the problem (None: TensorFlow reads it as written)
GRAPH_INPUTS = [
    ("a", None),
    ("a:1", None),
    ("^a", None),
    ("dir/a:3", None),
    ("a:01", None),  # accepted and read as a:1: a hygiene matter, not a syntax error
    ("", "is empty"),
    ("^", "is a control input that names no node"),
    (":1", "has an output index but no node name"),
    ("a:", "has an empty output index"),
    ("a:x", "has a malformed output index 'x'"),
    ("a:b:2", "has more than one ':'"),
    ("^a:1", "is a control input with an output index"),
    ("^a:b", "is a control input with a ':' in it"),
    ("a:2147483648", "has output index 2147483648, which overflows"),
    ("a:4294967295", "has output index 4294967295, which overflows"),
    ("a:4294967296", "has output index 4294967296, which TensorFlow truncates to 32 bits and silently reads as 'a:0'"),
    ("a:18446744073709551616", "has an output index too large for TensorFlow to parse (20 digits)"),
]


@pytest.mark.parametrize(("raw", "problem"), GRAPH_INPUTS)
def test_graph_input_problem(raw, problem):
    found = graph_input_problem(raw)
    if problem is None:
        assert found is None
    else:
        assert found is not None and found.startswith(problem), found


ARGS, BODY_NODES = {"x"}, {"n"}
# raw input in a function body with argument `x` and body node `n`, the start of the problem
FUNCTION_INPUTS = [
    ("x", None),
    ("x:0", None),
    ("^n", None),
    ("n:out", None),
    ("n:out:0", None),
    ("q:0", None),  # an unknown name is another rule's business (unresolved-input)
    ("", "is empty"),
    ("^", "is a control input that names no node"),
    ("x:01", "has a leading zero in its index"),  # not in the literal lookup table
    ("n:out:01", "has a leading zero in its index"),
    ("n:0", "refers to an output of body node 'n' by number"),
    ("n:0:1", "uses '0' as the output arg name of 'n'"),
    ("n:out:z", "has a non-numeric element index 'z'"),
    ("x:y", "names an output 'y' of function argument 'x'"),
    ("x:y:0", "has two ':' after function argument 'x'"),
    ("n::0", "has an empty part between ':' separators"),
    ("a:b:c:d", "has more than two ':'"),
]


@pytest.mark.parametrize(("raw", "problem"), FUNCTION_INPUTS)
def test_function_input_problem(raw, problem):
    found = function_input_problem(raw, ARGS, BODY_NODES)
    if problem is None:
        assert found is None
    else:
        assert found is not None and found.startswith(problem), found


@pytest.mark.parametrize(
    ("raw_inputs", "in_function", "redundant", "expected"),
    [
        (("a:01", "^b", "^b", "^a", "c"), False, False, [(0, "leading-zero"), (2, "duplicate-control")]),
        (
            ("a:01", "^b", "^b", "^a", "c"),
            False,
            True,
            [(0, "leading-zero"), (2, "duplicate-control"), (3, "redundant-control")],
        ),
        (("a:1", "^a"), False, True, [(1, "redundant-control")]),  # the data source is parsed: 'a'
        (("n:out:0", "^n", "x:01"), True, True, [(1, "redundant-control")]),  # leading zero: input-syntax's job
        (("a", "^b"), False, True, []),
    ],
)
def test_hygiene_problems(raw_inputs, in_function, redundant, expected):
    found = hygiene_problems(raw_inputs, in_function=in_function, redundant_control=redundant)
    assert [(problem.position, problem.kind) for problem in found] == expected


class _Inputs:
    def __init__(self, *raw_inputs: str) -> None:
        self.raw_inputs = raw_inputs


def test_only_nodes_with_more_than_bare_names_are_suspect():
    plain, indexed, control, empty, none = _Inputs("a", "b"), _Inputs("a:1"), _Inputs("^a"), _Inputs(""), _Inputs()
    assert nodes_with_suspect_inputs([plain, indexed, control, empty, none]) == [indexed, control, empty]
