"""function-ret: ret / control_ret bindings and arg names of FunctionDefs (verdicts checked with TF 2.21)."""

from __future__ import annotations

import pytest
from conftest import lint_text, pinned

from tflint.engine.run import NEVER_CALLED

RULE = "function-ret"

BODY = 'node_def { name: "n" op: "Identity" input: "x" attr { key: "T" value { type: DT_FLOAT } } } node_def { name: "m" op: "NoOp" }'


def _library(
    rets='ret { key: "y" value: "n:output:0" }',
    body=BODY,
    inputs='input_arg { name: "x" type: DT_FLOAT }',
    outputs='output_arg { name: "y" type: DT_FLOAT }',
    extra="",
):
    return (
        f'library {{ function {{\n  signature {{ name: "f" {inputs} {outputs} {extra} }}\n  {body}\n  {rets}\n}} }}\n'
    )


CONST_INT = 'node_def { name: "k" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 1 } } } }'
SPLIT = (
    'node_def { name: "s" op: "Split" input: "d:output:0" input: "x" attr { key: "T" value { type: DT_FLOAT } } attr { key: "num_split" value { i: 2 } } }'
    ' node_def { name: "d" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 0 } } } }'
)
PLACEHOLDER_TYPE = 'node_def { name: "p" op: "Identity" input: "x" attr { key: "T" value { placeholder: "T" } } }'


@pytest.mark.parametrize(
    "pbtxt, bad",
    [
        # Each line: what PartitionedCall / tf.saved_model.load did with it in TensorFlow 2.21.
        pytest.param(_library(), False, id="ok"),
        pytest.param(_library(rets='ret { key: "y" value: "x" }'), False, id="ret-input-arg"),
        pytest.param(_library(rets='ret { key: "y" value: "x:0" }'), False, id="ret-input-arg-element"),
        pytest.param(_library(rets='ret { key: "y" value: "n:output" }'), False, id="ret-whole-output-arg"),
        pytest.param(_library(rets='ret { key: "y" value: "n:0" }'), True, id="ret-numeric-output"),
        pytest.param(_library(rets='ret { key: "y" value: "n" }'), True, id="ret-bare-node"),
        pytest.param(_library(rets='ret { key: "y" value: "n:output:1" }'), True, id="ret-index-out-of-range"),
        pytest.param(_library(rets='ret { key: "y" value: "n:output:01" }'), True, id="ret-index-leading-zero"),
        pytest.param(_library(rets='ret { key: "y" value: "n:bad:0" }'), True, id="ret-unknown-output-arg"),
        pytest.param(_library(rets='ret { key: "y" value: "nothing:output:0" }'), True, id="ret-unknown-node"),
        pytest.param(_library(rets='ret { key: "y" value: "x:1" }'), True, id="ret-arg-element-out-of-range"),
        pytest.param(_library(rets=""), True, id="ret-missing"),
        pytest.param(
            _library(rets='ret { key: "y" value: "n:output:0" } ret { key: "zzz" value: "nothing:foo:0" }'),
            False,
            id="extra-ret-key-ignored",
        ),
        pytest.param(
            _library(body=BODY + " " + CONST_INT, rets='ret { key: "y" value: "k:output:0" }'),
            True,
            id="ret-wrong-type",
        ),
        pytest.param(
            _library(body=BODY + " " + SPLIT, rets='ret { key: "y" value: "s:output:1" }'),
            False,
            id="ret-list-output-element",
        ),
        pytest.param(
            _library(body=BODY + " " + SPLIT, rets='ret { key: "y" value: "s:output:2" }'),
            True,
            id="ret-list-output-out-of-range",
        ),
        pytest.param(
            _library(body=BODY + " " + SPLIT, rets='ret { key: "y" value: "s:output" }'),
            True,
            id="ret-whole-list-for-one-tensor",
        ),
        # Types bound only at the call are not judged.
        pytest.param(
            _library(
                body=BODY + " " + PLACEHOLDER_TYPE,
                rets='ret { key: "y" value: "p:output:0" }',
                extra='attr { name: "T" type: "type" }',
            ),
            False,
            id="placeholder-type",
        ),
        pytest.param(
            _library(
                extra='control_output: "co"',
                rets='ret { key: "y" value: "n:output:0" } control_ret { key: "co" value: "m" }',
            ),
            False,
            id="control-ret-ok",
        ),
        pytest.param(_library(extra='control_output: "co"'), True, id="control-output-unbound"),
        pytest.param(
            _library(
                extra='control_output: "co"',
                rets='ret { key: "y" value: "n:output:0" } control_ret { key: "co" value: "nothing" }',
            ),
            True,
            id="control-ret-missing-node",
        ),
        pytest.param(
            _library(rets='ret { key: "y" value: "n:output:0" } control_ret { key: "co" value: "nothing" }'),
            False,
            id="control-ret-not-in-signature-ignored",
        ),
        pytest.param(
            _library(
                extra='control_output: "co"',
                rets='ret { key: "y" value: "n:output:0" } control_ret { key: "co" value: "x" }',
            ),
            False,
            id="control-ret-input-arg",
        ),
        pytest.param(
            _library(inputs='input_arg { name: "x" type: DT_FLOAT } input_arg { name: "x" type: DT_FLOAT }'),
            True,
            id="duplicated-input-arg",
        ),
        pytest.param(
            _library(outputs='output_arg { name: "y" type: DT_FLOAT } output_arg { name: "y" type: DT_FLOAT }'),
            True,
            id="duplicated-output-arg",
        ),
        pytest.param(
            _library(body=BODY + ' node_def { name: "x" op: "NoOp" }'), True, id="no-output-node-named-like-arg"
        ),
        pytest.param(
            _library(
                body='node_def { name: "x" op: "Identity" input: "x" attr { key: "T" value { type: DT_FLOAT } } }',
                rets='ret { key: "y" value: "x:output:0" }',
            ),
            True,
            id="node-named-like-arg",
        ),
        pytest.param(
            _library(body=BODY + ' node_def { name: "y_RetVal" op: "NoOp" }'), True, id="node-named-like-ret-node"
        ),
        pytest.param(
            _library(
                inputs='input_arg { name: "x" type_attr: "T" }',
                extra='attr { name: "T" type: "type" }',
                rets='ret { key: "y" value: "x" }',
            ),
            True,
            id="polymorphic-input",
        ),
        pytest.param(
            _library(
                body='node_def { name: "_n" op: "Identity" input: "x" attr { key: "T" value { type: DT_FLOAT } } }',
                rets='ret { key: "y" value: "_n:output:0" }',
            ),
            False,
            id="underscore-node-name",
        ),
        pytest.param(
            _library(
                body='node_def { name: "a.b-c>d" op: "Identity" input: "x" attr { key: "T" value { type: DT_FLOAT } } }',
                rets='ret { key: "y" value: "a.b-c>d:output:0" }',
            ),
            False,
            id="punctuated-node-name",
        ),
    ],
)
def test_rule(pbtxt, bad):
    assert pinned(lint_text(pbtxt), rule=RULE) == ([(RULE, None, 2)] if bad else [])


def test_function_call_outputs_use_the_signature():
    text = """
library {
  function { signature { name: "g" output_arg { name: "out" type: DT_FLOAT } } node_def { name: "c" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 1 } } } } ret { key: "out" value: "c:output:0" } }
  function { signature { name: "f" output_arg { name: "y" type: DT_FLOAT } output_arg { name: "z" type: DT_FLOAT } } node_def { name: "call" op: "g" } ret { key: "y" value: "call:out:0" } ret { key: "z" value: "call:output:0" } }
}
"""
    findings = [f for f in lint_text(text) if f.rule == RULE]
    assert [(f.function, f.line) for f in findings] == [("f", 4)]
    assert findings[0].message == (
        "Function 'f': 'ret' maps output arg 'z' to \"call:output:0\", which is not an output of node 'call'; output arg names of g: out"
        f" ({NEVER_CALLED})"
    )


def test_messages():
    findings = [
        f.message
        for f in lint_text(_library(rets='ret { key: "y" value: "n:0" }', extra='control_output: "co"'))
        if f.rule == RULE
    ]
    assert findings == [
        "Function 'f': 'ret' maps output arg 'y' to \"n:0\", which is not an output of node 'n'; output arg names of Identity: output"
        f" ({NEVER_CALLED})",
        f"Function 'f': control output 'co' has no 'control_ret' entry ({NEVER_CALLED})",
    ]
    (missing,) = [f.message for f in lint_text(_library(rets="")) if f.rule == RULE]
    assert missing == f"Function 'f': output arg 'y' has no 'ret' entry (TensorFlow: Return y missing) ({NEVER_CALLED})"
    (typed,) = [
        f.message
        for f in lint_text(_library(body=BODY + " " + CONST_INT, rets='ret { key: "y" value: "k:output:0" }'))
        if f.rule == RULE
    ]
    assert (
        typed == f"Function 'f': output arg 'y' is float but its 'ret' value \"k:output:0\" is int32 ({NEVER_CALLED})"
    )
