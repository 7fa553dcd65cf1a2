"""signature-dtype: declared TensorInfo dtypes against the graph, and TensorFlow Serving's classify/regress API types.

Verified with TensorFlow 2.21: a signature declaring DT_INT32 for a float
placeholder (input) or output loads and runs with `tf.saved_model.load` and
`tf.compat.v1.saved_model.load` (the loaders never read the dtype), which is
why only predict inputs (the REST API's encoding) are errors.
"""

from __future__ import annotations

import pytest
from conftest import lint_text, require
from serving_graphs import (
    SERVING,
    call,
    copy_model,
    edit_saved_model,
    function_library,
    identity,
    line_of,
    meta,
    node,
    placeholder,
    signature,
    tensor,
    two_output_function,
)

from tflint.api import lint_file

RULE = "signature-dtype"
CLASSIFY = "tensorflow/serving/classify"
REGRESS = "tensorflow/serving/regress"
X = placeholder("x")
Y = identity("y", "x")
EXAMPLES = placeholder("examples", "DT_STRING")


def _pins(text, rows):
    return [(RULE, name, line_of(text, needle), severity) for needle, name, severity in rows]


def _cases():
    ok = meta(X, Y, signatures=[signature("s", tensor("inputs", "x", "x:0"), tensor("outputs", "y", "y:0"))])
    yield pytest.param(ok, [], id="matching")
    text = meta(
        X,
        Y,
        signatures=[
            signature("s", tensor("inputs", "x", "x:0", "DT_INT32"), tensor("outputs", "y", "y:0", "DT_DOUBLE"))
        ],
    )
    yield pytest.param(
        text, _pins(text, [('"x:0"', "x", "error"), ('"y:0"', "y", "warning")]), id="predict-input-error-output-warning"
    )
    text = meta(X, Y, signatures=[signature("s", tensor("inputs", "x", "x:0", "DT_INVALID"))])
    yield pytest.param(text, _pins(text, [('"x:0"', "x", "error")]), id="no-dtype")
    text = meta(X, Y, signatures=[signature("s", tensor("inputs", "x", "x:0", "DT_INT32"), method="")])
    yield pytest.param(text, _pins(text, [('"x:0"', "x", "error")]), id="no-method-is-predict")
    # TF1 ref variables: a float_ref tensor declared float (what build_tensor_info writes) is fine.
    variable = node(
        "v",
        "VariableV2",
        attrs='attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { } } } ',
    )
    yield pytest.param(
        meta(variable, signatures=[signature("s", tensor("outputs", "v", "v:0"))]), [], id="ref-equals-base"
    )
    yield pytest.param(
        meta(variable, signatures=[signature("s", tensor("outputs", "v", "v:0", "DT_FLOAT_REF"))]),
        [],
        id="ref-declared-ref",
    )
    # Classify / regress: the API's own types.
    good = meta(
        EXAMPLES,
        X,
        Y,
        signatures=[
            signature(
                "c",
                tensor("inputs", "inputs", "examples:0", "DT_STRING"),
                tensor("outputs", "scores", "y:0"),
                method=CLASSIFY,
            )
        ],
    )
    yield pytest.param(good, [], id="classify-fits")
    text = meta(
        X,
        Y,
        signatures=[
            signature("r", tensor("inputs", "inputs", "x:0"), tensor("outputs", "outputs", "y:0"), method=REGRESS)
        ],
    )
    yield pytest.param(text, _pins(text, [('"x:0"', "x", "warning")]), id="regress-float-input")
    text = meta(
        EXAMPLES,
        X,
        Y,
        signatures=[
            signature(
                "c",
                tensor("inputs", "inputs", "examples:0", "DT_STRING"),
                tensor("outputs", "classes", "y:0"),
                method=CLASSIFY,
            )
        ],
    )
    yield pytest.param(text, _pins(text, [('"y:0"', "y", "warning")]), id="classify-classes-not-strings")
    # TensorFlow Serving's half_plus_three: the Example input declared DT_FLOAT.
    text = meta(
        EXAMPLES,
        X,
        Y,
        signatures=[
            signature(
                "r",
                tensor("inputs", "inputs", "examples:0", "DT_FLOAT"),
                tensor("outputs", "outputs", "y:0"),
                method=REGRESS,
            )
        ],
    )
    yield pytest.param(
        text, _pins(text, [('"examples:0"', "examples", "warning")]), id="regress-declared-float-for-examples"
    )
    # TF2: call outputs take the called function's types.
    lib = function_library(two_output_function("f"))
    calls = [X, call("StatefulPartitionedCall", "f", "x", tout=("DT_FLOAT", "DT_FLOAT"))]
    text = meta(
        *calls,
        library=lib,
        signatures=[signature("s", tensor("outputs", "b", "StatefulPartitionedCall:1", "DT_FLOAT"))],
    )
    yield pytest.param(
        text,
        _pins(text, [('"StatefulPartitionedCall:1"', "StatefulPartitionedCall", "warning")]),
        id="tf2-function-output-type",
    )
    yield pytest.param(
        meta(
            *calls,
            library=lib,
            signatures=[signature("s", tensor("outputs", "b", "StatefulPartitionedCall:1", "DT_INT32"))],
        ),
        [],
        id="tf2-matching",
    )
    unknown = node("u", "MyCustomOp", "x")
    yield pytest.param(
        meta(X, unknown, signatures=[signature("s", tensor("outputs", "u", "u:0", "DT_INT32"))]),
        [],
        id="unknown-op-skipped",
    )
    yield pytest.param(
        meta(X, signatures=[signature("s", tensor("outputs", "u", "gone:0", "DT_INT32"))]), [], id="unresolved-skipped"
    )
    sparse = 'outputs { key: "sp" value { coo_sparse { values_tensor_name: "y:0" indices_tensor_name: "i:0" dense_shape_tensor_name: "i:0" } dtype: DT_INT32 } }'
    text = meta(X, Y, placeholder("i", "DT_INT64"), signatures=[signature("s", sparse)])
    yield pytest.param(text, _pins(text, [("coo_sparse", "y", "warning")]), id="sparse-values-only")


@pytest.mark.parametrize("pbtxt, expected", list(_cases()))
def test_rule(pbtxt, expected):
    assert [(f.rule, f.node, f.line, str(f.severity)) for f in lint_text(pbtxt) if f.rule == RULE] == expected


def test_configured_level_overrides_per_issue_levels():
    text = meta(
        X,
        Y,
        signatures=[
            signature("s", tensor("inputs", "x", "x:0", "DT_INT32"), tensor("outputs", "y", "y:0", "DT_DOUBLE"))
        ],
    )
    findings = lint_text(text, {"rules": {RULE: "warning"}})
    assert [str(f.severity) for f in findings if f.rule == RULE] == ["warning", "warning"]


def test_messages():
    text = meta(
        X,
        Y,
        EXAMPLES,
        signatures=[
            signature("serving_default", tensor("inputs", "x", "x:0", "DT_INT32")),
            signature("regress", tensor("inputs", "inputs", "x:0"), method=REGRESS),
        ],
    )
    assert [f.message for f in lint_text(text) if f.rule == RULE] == [
        "Signature 'serving_default' input 'x' declares dtype int32, but 'x:0' (Placeholder) is float",
        "Signature 'regress' input 'inputs' is 'x:0' (Placeholder), a float tensor, but the regress API feeds it serialized tf.Example strings",
    ]


def test_broken_real_saved_model(tmp_path):
    model = copy_model(require(SERVING / "tf1_legacy_init_op"), tmp_path)
    edit_saved_model(
        model, lambda saved: setattr(saved.meta_graphs[0].signature_def["serving_default"].inputs["x"], "dtype", 3)
    )
    findings = [f for f in lint_file(model).findings if f.rule == RULE]
    assert [(f.node, str(f.severity), f.message) for f in findings] == [
        ("x", "error", "Signature 'serving_default' input 'x' declares dtype int32, but 'x:0' (Placeholder) is float"),
    ]


@pytest.mark.parametrize("name", ["tf1_legacy_init_op", "tf2_module_signatures", "tf2_keras_export"])
def test_generated_models_are_clean(name):
    assert [f for f in lint_file(require(SERVING / name)).findings if f.rule == RULE] == []
