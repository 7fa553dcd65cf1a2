"""training-op-in-serving: optimizer updates and gradient ops among what a model server runs, one finding per kind and scope."""

from __future__ import annotations

import pytest
from conftest import DATA, lint_text, pinned, require
from serving_graphs import SERVING, line_of, meta, node, placeholder, signature, tensor

from tflint.api import lint_file
from tflint.rules.training_op_in_serving import GRADIENT, OPTIMIZER, kind_of

RULE = "training-op-in-serving"
ON = {"rules": {RULE: "warning"}}
X = placeholder("x")
T = 'attr { key: "T" value { type: DT_FLOAT } } '


@pytest.mark.parametrize(
    "op, kind",
    [
        ("ApplyAdam", OPTIMIZER),
        ("ResourceApplyGradientDescent", OPTIMIZER),
        ("SparseApplyFtrl", OPTIMIZER),
        ("ResourceSparseApplyKerasMomentum", OPTIMIZER),
        ("AccumulatorApplyGradient", OPTIMIZER),
        ("ReluGrad", GRADIENT),
        ("MaxPoolGradGradV2", GRADIENT),
        ("FusedBatchNormGradV3", GRADIENT),
        ("_FusedBatchNormGradEx", GRADIENT),
        ("Conv2DBackpropFilter", GRADIENT),
        ("BroadcastGradientArgs", GRADIENT),
        ("SymbolicGradient", GRADIENT),
        ("CropAndResizeGradImage", GRADIENT),
        ("FakeQuantWithMinMaxVarsGradient", GRADIENT),
        ("Conv2DBackpropInput", None),
        ("Conv3DBackpropInputV2", None),
        ("StopGradient", None),
        ("PreventGradient", None),
        ("Relu", None),
        ("Apply", None),
        ("MatMul", None),
    ],
)
def test_kind_of(op, kind):
    assert kind_of(op) == kind


def _cases():
    grads = (
        X
        + "\n"
        + node("y", "Relu", "x", attrs=T)
        + "\n"
        + node("dy", "ReluGrad", "x", "y", attrs=T)
        + "\n"
        + node("db", "BiasAddGrad", "dy", attrs=T)
        + "\n"
    )
    yield pytest.param(grads, [(RULE, "dy", 3)], id="graphdef-one-per-kind")
    deconv = (
        X
        + "\n"
        + node("up", "Conv2DBackpropInput", "x", "x", "x", attrs=T)
        + "\n"
        + node("s", "StopGradient", "x", attrs=T)
        + "\n"
    )
    yield pytest.param(deconv, [], id="transposed-conv-and-stop-gradient")
    var = node(
        "w",
        "VariableV2",
        attrs='attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { } } } ',
    )
    both = (
        X
        + "\n"
        + var
        + "\n"
        + node("apply", "ApplyGradientDescent", "w", "x", "x", attrs=T)
        + "\n"
        + node("dy", "ReluGrad", "x", "x", attrs=T)
        + "\n"
    )
    yield pytest.param(both, [(RULE, "apply", 3), (RULE, "dy", 4)], id="both-kinds")
    lib = (
        'library {\n  function { signature { name: "step" input_arg { name: "g" type: DT_FLOAT } } node_def { name: "dg" op: "TanhGrad" input: "g" input: "g" '
        + T
        + "} }\n}\n"
    )
    text = X + "\n" + lib
    yield pytest.param(text, [(RULE, "dg", line_of(text, "TanhGrad"))], id="function-body")
    served = meta(
        X,
        node("y", "Relu", "x", attrs=T),
        node("dy", "ReluGrad", "x", "y", attrs=T),
        signatures=[signature("s", tensor("outputs", "y", "y:0"))],
    )
    yield pytest.param(served, [], id="unreached-by-signature")
    served = meta(
        X, node("dy", "ReluGrad", "x", "x", attrs=T), signatures=[signature("s", tensor("outputs", "dy", "dy:0"))]
    )
    yield pytest.param(served, [(RULE, "dy", line_of(served, '"ReluGrad"'))], id="reached-by-signature")


@pytest.mark.parametrize("pbtxt, expected", list(_cases()))
def test_rule(pbtxt, expected):
    assert pinned(lint_text(pbtxt, ON), rule=RULE) == expected


def test_message_counts_the_ops():
    text = (
        X
        + "\n"
        + node("dy", "ReluGrad", "x", "x", attrs=T)
        + "\n"
        + node("db", "BiasAddGrad", "dy", attrs=T)
        + "\n"
        + node("dz", "ReluGrad", "x", "x", attrs=T)
        + "\n"
    )
    assert [f.message for f in lint_text(text, ON) if f.rule == RULE] == [
        "Node 'dy' runs ReluGrad, a gradient op: inference never needs it (3 gradient ops here, also BiasAddGrad)",
    ]


def test_real_training_meta_graph():
    findings = [
        f for f in lint_file(require(DATA / "real" / "tf1_resource_vars_grads.meta"), ON).findings if f.rule == RULE
    ]
    # A binary file: findings are ordered by node name.
    assert [f.message.split(":")[0] for f in findings] == [
        "Node 'gradients/Relu_grad/ReluGrad' runs ReluGrad, a gradient op",
        "Node 'sgd/update_w/ResourceApplyGradientDescent' runs ResourceApplyGradientDescent, an optimizer update",
    ]


@pytest.mark.parametrize("name", ["tf1_legacy_init_op", "tf2_module_signatures", "tf2_keras_export"])
def test_inference_exports_are_clean(name):
    assert [f for f in lint_file(require(SERVING / name), ON).findings if f.rule == RULE] == []
