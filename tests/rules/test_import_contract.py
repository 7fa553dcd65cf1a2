"""import-contract: what `tf.graph_util.import_graph_def` refuses of its arguments, for this graph.

Every expectation is TensorFlow 2.21's (tests/data/tf_import_cases.jsonl,
categories input_map, return_elements and name, replayed in full by
tests/test_tf_import_cases.py); these pin where the findings land.
"""

from __future__ import annotations

import pytest
from conftest import lint_text, pinned

import tflint
from tflint.errors import UsageError

ID = "import-contract"
X = 'node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }'
Y = 'node { name: "y" op: "Identity" input: "x" attr { key: "T" value { type: DT_FLOAT } } }'
Z = 'node { name: "z" op: "Identity" input: "y" input: "^x" attr { key: "T" value { type: DT_FLOAT } } }'
GRAPH = "\n".join([X, Y, Z]) + "\n"
F32 = {"dtype": "float32"}


@pytest.mark.parametrize(
    "args, expected",
    [
        pytest.param({}, [], id="nothing-given"),
        pytest.param({"input_map": {"x:0": F32}, "return_elements": ["z:0", "y"]}, [], id="valid"),
        pytest.param({"input_map": {"x": F32}}, [], id="key-without-index"),
        pytest.param({"input_map": {"z:0": F32}}, [], id="existing-key-nobody-reads"),
        pytest.param({"input_map": {"^x": None}}, [], id="control-remap"),
        pytest.param({"input_map": {"^y": None}}, [], id="control-remap-unused-but-present"),
        pytest.param({"input_map": {"nope:0": F32}}, [(ID, None, None)], id="missing-node"),
        pytest.param({"input_map": {"x:5": F32}}, [(ID, None, None)], id="index-out-of-range"),
        pytest.param({"input_map": {"^nope": None}}, [(ID, None, None)], id="control-missing"),
        pytest.param({"input_map": {"x:a": F32}}, [(ID, None, None)], id="key-syntax"),
        pytest.param({"input_map": {"x:0": {"dtype": "int32"}}}, [(ID, "y", 2)], id="replacement-dtype"),
        pytest.param({"input_map": {"x:-1": F32}}, [(ID, None, None)], id="control-output-as-tensor-key"),
        pytest.param({"input_map": {"x:-2": F32}}, [], id="key-below-minus-one-unread"),
        pytest.param({"input_map": {"z:0": {"dtype": "int32"}}}, [], id="replacement-dtype-unconsumed"),
        pytest.param({"return_elements": ["x:-1", "y", "y", "y:0"]}, [], id="returns-accepted"),
        pytest.param({"return_elements": ["nope"]}, [(ID, None, None)], id="return-missing-op"),
        pytest.param({"return_elements": ["^x"]}, [(ID, None, None)], id="return-control-syntax"),
        pytest.param({"return_elements": ["nope:0"]}, [(ID, None, None)], id="return-missing-tensor"),
        pytest.param({"return_elements": ["x:5"]}, [(ID, "x", 1)], id="return-index-out-of-range"),
        pytest.param({"return_elements": ["x:-2"]}, [(ID, "x", 1)], id="return-index-below-minus-one"),
        pytest.param({"return_elements": ["nope:-1"]}, [(ID, None, None)], id="return-missing-control-output"),
        pytest.param({"return_elements": ["y:0:1"]}, [(ID, None, None)], id="return-syntax"),
        pytest.param({"input_map": {"nope:0": F32}, "return_elements": ["nope:0"]}, [(ID, None, None)], id="mapped"),
        pytest.param({"name": ""}, [], id="no-prefix"),
        pytest.param({"name": "a/"}, [], id="absolute-scope"),
        pytest.param({"name": "a>b"}, [], id="angle-bracket"),
        pytest.param({"name": "."}, [], id="dot"),
        pytest.param({"name": "a b"}, [(ID, None, None)], id="space"),
        pytest.param({"name": "_a"}, [(ID, None, None)], id="leading-underscore"),
        pytest.param({"name": "/a"}, [(ID, None, None)], id="leading-slash"),
        pytest.param({"name": "a\\b"}, [(ID, None, None)], id="backslash-prefix"),
        pytest.param({"input_map": {"x:0": [1.0]}}, [], id="python-value-default-name"),
        pytest.param({"input_map": {"x:0": [1.0]}, "name": ""}, [(ID, None, None)], id="python-value-empty-name"),
    ],
)
def test_import_contract(args, expected):
    assert pinned(lint_text(GRAPH, import_args=args), rule=ID) == expected


def test_mapped_inputs_are_not_looked_up():
    # TensorFlow 2.21 imports a dangling input the input_map replaces (exactly that tensor, not another index).
    graph = (
        'node { name: "y" op: "Identity" input: "nope" attr { key: "T" value { type: DT_FLOAT } } }\n'
        'node { name: "w" op: "Identity" input: "nope:1" attr { key: "T" value { type: DT_FLOAT } } }\n'
    )
    assert pinned(lint_text(graph), rule="unresolved-input") == [
        ("unresolved-input", "y", 1),
        ("unresolved-input", "w", 2),
    ]
    findings = lint_text(graph, import_args={"input_map": {"nope:0": F32}})
    assert [(f.rule, f.node) for f in findings] == [("unresolved-input", "w")]


def test_control_remap_covers_a_dangling_control_input():
    graph = GRAPH + 'node { name: "w" op: "NoOp" input: "^nope" }\n'
    assert pinned(lint_text(graph), rule="unresolved-input") == [("unresolved-input", "w", 4)]
    assert lint_text(graph, import_args={"input_map": {"^nope": None}}) == []


def test_replacement_shape_flows_into_shape_inference():
    # TensorFlow 2.21: mapping x:0 to a [3] tensor, y's `_output_shapes` [2] is inconsistent.
    shaped = (
        'node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } '
        'attr { key: "shape" value { shape { dim { size: 2 } } } } }\n'
        'node { name: "y" op: "Identity" input: "x" attr { key: "T" value { type: DT_FLOAT } } '
        'attr { key: "_output_shapes" value { list { shape { dim { size: 2 } } } } } }\n'
    )
    assert pinned(lint_text(shaped), rule="shape-mismatch") == []
    mapped = lint_text(shaped, import_args={"input_map": {"x:0": {"dtype": "float32", "shape": [3]}}})
    assert pinned(mapped, rule="shape-mismatch") == [("shape-mismatch", "y", 2)]


@pytest.mark.parametrize(
    "args, message",
    [
        ({"input_map": {"x:5": F32}}, "input_map: Attempted to map inputs that were not found in graph_def: [x:5]"),
        (
            {"input_map": {"zz:0": F32, "aa:1": F32, "^cc": None}},
            "input_map: Attempted to map inputs that were not found in graph_def: [aa:1, ^cc, zz:0]",
        ),
        ({"return_elements": ["x:5"]}, "return_elements: Invalid return output 5 of node 'x', which has 1 output(s)"),
        (
            {"input_map": {"x:0": {"dtype": "int32"}}},
            "input_map: Input 0 of node import/y was passed int32 from input_map['x:0'] incompatible with expected "
            "float.",
        ),
        (
            {"input_map": {"x:0": {"dtype": "int32"}}, "name": "serve"},
            "input_map: Input 0 of node serve/y was passed int32 from input_map['x:0'] incompatible with expected "
            "float.",
        ),
        ({"name": "a\\b"}, "name: Imported node name prefix 'a\\b/' would lead to invalid node names"),
        (
            {"return_elements": ["y:0:1"]},
            "return_elements: Cannot convert 'y:0:1' to a tensor name. Tensor names should not contain more than 1 "
            "`:`. Obtained 2",
        ),
    ],
)
def test_messages(args, message):
    assert [f.message for f in lint_text(GRAPH, import_args=args) if f.rule == ID] == [message]


def test_control_characters_in_names_are_escaped():
    [finding] = [f for f in lint_text(GRAPH, import_args={"return_elements": ["no\x1bpe"]}) if f.rule == ID]
    assert "\x1b" not in finding.message and "no\\x1bpe" in finding.message


def test_api(tmp_path):
    path = tmp_path / "frozen.pbtxt"
    path.write_text(GRAPH)
    report = tflint.lint_file(path, import_args={"return_elements": ["output:0"]})
    assert [(f.rule, f.message) for f in report.findings] == [
        (ID, "return_elements: Requested return tensor 'output:0' not found in graph def")
    ]
    assert tflint.validate(path, input_map={"x:0": "float32"}, return_elements=["z:0"]).ok
    with pytest.raises(tflint.GraphValidationError) as raised:
        tflint.validate(path, return_elements=["output:0"])
    assert [f.rule for f in raised.value.findings] == [ID]
    # In memory too.
    assert [f.rule for f in tflint.lint_graph(GRAPH.encode(), import_args={"name": "_a"})] == [ID]


class FakeDType:
    as_datatype_enum = 3  # int32


class FakeShape:
    def as_list(self):
        return [None, 2]


class FakeTensor:
    """What tflint reads of a tf.Tensor / tf.TensorSpec, without TensorFlow."""

    dtype = FakeDType()
    shape = FakeShape()


def test_tensorflow_values_are_read_by_their_attributes():
    findings = lint_text(GRAPH, import_args={"input_map": {"x:0": FakeTensor()}})
    assert [f.message for f in findings if f.rule == ID] == [
        "input_map: Input 0 of node import/y was passed int32 from input_map['x:0'] incompatible with expected float."
    ]


@pytest.mark.parametrize(
    "import_args, error",
    [
        ({"input_map": {"x:0": {"dtype": "float33"}}}, UsageError),
        ({"input_map": {"x:0": {"shape": [-2]}}}, UsageError),
        ({"input_map": {"x:0": {"colour": 1}}}, UsageError),
        ({"outputs": ["y"]}, UsageError),
        ({"input_map": ["x:0"]}, TypeError),
        ({"return_elements": "y:0"}, TypeError),
        ("x:0", TypeError),
    ],
)
def test_unusable_arguments_raise(tmp_path, import_args, error):
    path = tmp_path / "frozen.pbtxt"
    path.write_text(GRAPH)
    with pytest.raises(error):
        tflint.lint_file(path, import_args=import_args)
