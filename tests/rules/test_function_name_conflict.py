"""function-name-conflict: TensorFlow's FunctionDefsEqual, op shadowing and gradient conflicts (TF 2.21 verified)."""

from __future__ import annotations

import pytest
from conftest import lint_text, pinned

RULE = "function-name-conflict"

IDENTITY = 'node_def {{ name: "n" op: "Identity" input: "{x}" input: "^m" input: "^k" device: "{device}" attr {{ key: "T" value {{ type: DT_FLOAT }} }} {attrs} }}'
NOOPS = 'node_def { name: "m" op: "NoOp" } node_def { name: "k" op: "NoOp" }'


def _function(
    name="f",
    attrs='attr { name: "T" type: "type" } attr { name: "U" type: "type" }',
    nodes=None,
    extra="",
    control_outputs='control_output: "a" control_output: "b"',
    description="",
    x="x",
    device="",
    node_attrs="",
):
    if nodes is None:
        nodes = IDENTITY.format(x=x, device=device, attrs=node_attrs) + " " + NOOPS
    return (
        f'function {{ signature {{ name: "{name}" {description} input_arg {{ name: "x" type: DT_FLOAT }} output_arg {{ name: "y" type: DT_FLOAT }} '
        f'{attrs} {control_outputs} }} {nodes} ret {{ key: "y" value: "n:output:0" }} control_ret {{ key: "a" value: "m" }} '
        f'control_ret {{ key: "b" value: "k" }} {extra} }}'
    )


def _library(*functions: str) -> str:
    return "library {\n" + "\n".join(functions) + "\n}\n"


BASE = _function()


@pytest.mark.parametrize(
    "second, conflict",
    [
        # Each verdict checked with tf.import_graph_def (ValueError "Cannot add function 'f' ..." or not).
        pytest.param(BASE, False, id="identical"),
        pytest.param(
            _function(attrs='attr { name: "U" type: "type" } attr { name: "T" type: "type" }'), False, id="attr-order"
        ),
        pytest.param(
            _function(control_outputs='control_output: "b" control_output: "a"'), False, id="control-output-order"
        ),
        pytest.param(
            _function(nodes=NOOPS + " " + IDENTITY.format(x="x", device="", attrs="")), False, id="node-order"
        ),
        pytest.param(
            _function(
                nodes=IDENTITY.format(x="x", device="", attrs="").replace(
                    'input: "^m" input: "^k"', 'input: "^k" input: "^m"'
                )
                + " "
                + NOOPS
            ),
            False,
            id="control-input-order",
        ),
        pytest.param(_function(x="x:0"), False, id="x-vs-x0"),
        pytest.param(_function(node_attrs='attr { key: "_internal" value { i: 2 } }'), False, id="internal-node-attr"),
        pytest.param(
            _function(extra='arg_attr { key: 0 value { attr { key: "_x" value { i: 1 } } } }'), False, id="arg-attr"
        ),
        pytest.param(_function(extra="resource_arg_unique_id { key: 0 value: 3 }"), False, id="resource-arg-unique-id"),
        pytest.param(_function(extra='attr { key: "_noinline" value { } }'), False, id="unset-function-attr"),
        pytest.param(_function(node_attrs='attr { key: "z" value { i: 2 } }'), True, id="public-node-attr"),
        pytest.param(_function(extra='attr { key: "_noinline" value { b: true } }'), True, id="function-attr"),
        pytest.param(_function(description='description: "hello"'), True, id="description"),
        pytest.param(_function(device="/cpu:0"), True, id="device"),
        pytest.param(_function(attrs='attr { name: "T" type: "type" }'), True, id="fewer-attrs"),
        pytest.param(_function(control_outputs='control_output: "a"'), True, id="fewer-control-outputs"),
    ],
)
def test_duplicate_definitions(second, conflict):
    findings = pinned(lint_text(_library(BASE, second)), rule=RULE)
    assert findings == ([(RULE, None, 3)] if conflict else [])


def _tensor_function(tensor: str) -> str:
    return _function(node_attrs=f'attr {{ key: "v" value {{ tensor {{ {tensor} }} }} }}')


@pytest.mark.parametrize(
    "first, second, conflict",
    [
        # Tensors compare by content: TensorFlow decodes both (every verdict checked with TensorFlow).
        (
            "dtype: DT_FLOAT tensor_shape { dim { size: 2 } } float_val: 1 float_val: 1",
            "dtype: DT_FLOAT tensor_shape { dim { size: 2 } } float_val: 1",
            False,
        ),
        (
            "dtype: DT_INT32 tensor_shape { dim { size: 2 } } int_val: 1 int_val: 2",
            'dtype: DT_INT32 tensor_shape { dim { size: 2 } } tensor_content: "\\001\\000\\000\\000\\002\\000\\000\\000"',
            False,
        ),
        (
            "dtype: DT_FLOAT tensor_shape { dim { size: 3 } }",
            "dtype: DT_FLOAT tensor_shape { dim { size: 3 } } float_val: 0",
            False,
        ),
        (
            "dtype: DT_FLOAT tensor_shape { dim { size: 2 } } float_val: 1",
            "dtype: DT_FLOAT tensor_shape { dim { size: 2 } } float_val: 2",
            True,
        ),
        (
            "dtype: DT_FLOAT tensor_shape { dim { size: 2 } } float_val: 1",
            "dtype: DT_DOUBLE tensor_shape { dim { size: 2 } } double_val: 1",
            True,
        ),
        (
            "dtype: DT_FLOAT tensor_shape { dim { size: 2 } } float_val: 1",
            "dtype: DT_FLOAT tensor_shape { dim { size: 1 } dim { size: 2 } } float_val: 1",
            True,
        ),
        (
            'dtype: DT_STRING tensor_shape { } string_val: "a"',
            'dtype: DT_STRING tensor_shape { } string_val: "a"',
            False,
        ),
        # Extra values beyond the shape are ignored; int_val is cast to the element type.
        (
            "dtype: DT_FLOAT tensor_shape { dim { size: 2 } } float_val: 1 float_val: 1 float_val: 7",
            "dtype: DT_FLOAT tensor_shape { dim { size: 2 } } float_val: 1",
            False,
        ),
        (
            "dtype: DT_UINT8 tensor_shape { dim { size: 1 } } int_val: 255",
            "dtype: DT_UINT8 tensor_shape { dim { size: 1 } } int_val: -1",
            False,
        ),
        (
            "dtype: DT_FLOAT tensor_shape { dim { size: 1 } } float_val: 0",
            "dtype: DT_FLOAT tensor_shape { dim { size: 1 } } float_val: -0.0",
            True,
        ),
        # TensorFlow cannot decode a short tensor_content, and then even identical copies differ.
        (
            'dtype: DT_FLOAT tensor_shape { dim { size: 2 } } tensor_content: "\\000\\000"',
            'dtype: DT_FLOAT tensor_shape { dim { size: 2 } } tensor_content: "\\000\\000"',
            True,
        ),
    ],
)
def test_tensor_attrs_compare_by_content(first, second, conflict):
    findings = pinned(lint_text(_library(_tensor_function(first), _tensor_function(second))), rule=RULE)
    assert findings == ([(RULE, None, 3)] if conflict else [])


@pytest.mark.parametrize(
    "pbtxt, expected",
    [
        pytest.param(_library('function { signature { name: "Neg" } }'), [(RULE, None, 2)], id="shadows-op"),
        pytest.param(_library('function { signature { name: "_Arg" } }'), [(RULE, None, 2)], id="shadows-internal-op"),
        pytest.param(_library('function { signature { name: "neg" } }'), [], id="case-differs"),
        # An identical duplicate of a function named like an op: reported once, at the first.
        pytest.param(
            _library('function { signature { name: "Neg" } }', 'function { signature { name: "Neg" } }'),
            [(RULE, None, 2)],
            id="shadow-reported-once",
        ),
        pytest.param(
            _library(
                'function { signature { name: "f" } }',
                'function { signature { name: "f" description: "x" } }',
                'function { signature { name: "f" description: "y" } }',
            ),
            [(RULE, None, 3), (RULE, None, 4)],
            id="each-later-conflict",
        ),
    ],
)
def test_rule(pbtxt, expected):
    assert pinned(lint_text(pbtxt), rule=RULE) == expected


def test_op_in_stripped_op_list_only_is_not_a_conflict():
    # TensorFlow checks its own registry, not the MetaGraphDef's op list.
    text = """
meta_info_def { stripped_op_list { op { name: "MyCustomOp" } } }
graph_def { library { function { signature { name: "MyCustomOp" } } } }
"""
    assert pinned(lint_text(text, input_type="MetaGraphDef"), rule=RULE) == []


GRADIENTS = 'library { function { signature { name: "f" } } function { signature { name: "g" } } function { signature { name: "h" } } %s }'


@pytest.mark.parametrize(
    "gradients, count",
    [
        ('gradient { function_name: "f" gradient_func: "g" }', 0),
        ('gradient { function_name: "f" gradient_func: "g" } gradient { function_name: "f" gradient_func: "g" }', 0),
        ('gradient { function_name: "f" gradient_func: "g" } gradient { function_name: "f" gradient_func: "h" }', 1),
    ],
)
def test_gradient_conflicts(gradients, count):
    assert len([f for f in lint_text(GRADIENTS % gradients) if f.rule == RULE]) == count


def test_messages():
    findings = [
        f
        for f in lint_text(_library(BASE, _function(device="/cpu:0"), 'function { signature { name: "Neg" } }'))
        if f.rule == RULE
    ]
    assert [f.message for f in findings] == [
        "Function 'f' (library entry 2) is defined differently by library entry 1: TensorFlow refuses a second, different function with the same name",
        "Function 'Neg' has the name of a registered op: TensorFlow refuses a function that would shadow an op",
    ]
    assert [f.function for f in findings] == ["f", "Neg"]
    gradient = [
        f
        for f in lint_text(
            GRADIENTS
            % 'gradient { function_name: "f" gradient_func: "g" } gradient { function_name: "f" gradient_func: "h" }'
        )
        if f.rule == RULE
    ]
    assert gradient[0].message == "Function 'f' is given gradient function 'h' but already has gradient function 'g'"
