"""signature-unresolved: SignatureDef tensor names resolve to a node output, through TF2 call nodes too.

Verified with TensorFlow 2.21 on copies of real SavedModels: a signature
output renamed to `nope:0` or `y:7` makes `tf.saved_model.load` of a TF1
SavedModel fail (`The name 'nope:0' refers to a Tensor which does not exist`,
`The operation, 'y', exists but only has 1 outputs`) and the first
`Session.run` after `tf.compat.v1.saved_model.load` fail the same way, for
TF1 and TF2 SavedModels alike.
"""

from __future__ import annotations

import json

import pytest
from conftest import DATA, WILD, lint_text, pinned, require, shared
from serving_graphs import (
    REAL_DIRS,
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
    saved_model,
    signature,
    tensor,
    two_output_function,
)

from tflint.api import lint_file

RULE = "signature-unresolved"
X = placeholder("x")
Y = identity("y", "x")


def _case(text: str, *needles: str):
    """(text, expected pins) with each needle's line expected as a finding."""
    return text, [(RULE, node_name, line_of(text, needle)) for needle, node_name in needles]


def _cases():
    ok = meta(
        X, Y, signatures=[signature("serving_default", tensor("inputs", "x", "x:0"), tensor("outputs", "y", "y:0"))]
    )
    yield pytest.param(ok, [], id="resolves")
    plain = meta(X, Y, signatures=[signature("s", tensor("outputs", "y", "y"))])
    yield pytest.param(plain, [], id="name-without-index-is-output-0")
    text, pins = _case(meta(X, Y, signatures=[signature("s", tensor("inputs", "x", "input:0"))]), ('"input:0"', None))
    yield pytest.param(text, pins, id="missing-node")
    text, pins = _case(meta(X, Y, signatures=[signature("s", tensor("outputs", "y", "y:1"))]), ('"y:1"', "y"))
    yield pytest.param(text, pins, id="index-past-outputs")
    text, pins = _case(
        meta(X, node("noop", "NoOp"), signatures=[signature("s", tensor("outputs", "y", "noop:0"))]),
        ('"noop:0"', "noop"),
    )
    yield pytest.param(text, pins, id="op-without-outputs")
    text, pins = _case(meta(X, Y, signatures=[signature("s", tensor("outputs", "y", "^y"))]), ('"^y"', "y"))
    yield pytest.param(text, pins, id="control-input-name")
    text, pins = _case(meta(X, Y, signatures=[signature("s", tensor("outputs", "y", ""))]), ('name: ""', None))
    yield pytest.param(text, pins, id="empty-name")
    odd = [placeholder("a>b-c.d"), identity("a>b-c.d/out", "a>b-c.d")]
    yield pytest.param(
        meta(*odd, signatures=[signature("s", tensor("outputs", "o", "a>b-c.d/out:0"))]),
        [],
        id="names-with-gt-dash-dot",
    )
    # TF2: outputs of a call node count as the called function's outputs.
    lib = function_library(two_output_function("f"))
    calls = [X, call("StatefulPartitionedCall", "f", "x")]
    good = meta(
        *calls,
        library=lib,
        signatures=[
            signature(
                "s",
                tensor("outputs", "a", "StatefulPartitionedCall:0"),
                tensor("outputs", "b", "StatefulPartitionedCall:1", "DT_INT32"),
            )
        ],
    )
    yield pytest.param(good, [], id="tf2-call-outputs")
    text, pins = _case(
        meta(*calls, library=lib, signatures=[signature("s", tensor("outputs", "c", "StatefulPartitionedCall:2"))]),
        ('"StatefulPartitionedCall:2"', "StatefulPartitionedCall"),
    )
    yield pytest.param(text, pins, id="tf2-call-index-past-function-outputs")
    # The function's signature decides, not the caller's Tout claim.
    lying = [X, call("StatefulPartitionedCall", "f", "x", tout=("DT_FLOAT", "DT_INT32", "DT_FLOAT"))]
    text, pins = _case(
        meta(*lying, library=lib, signatures=[signature("s", tensor("outputs", "c", "StatefulPartitionedCall:2"))]),
        ('"StatefulPartitionedCall:2"', "StatefulPartitionedCall"),
    )
    yield pytest.param(text, pins, id="tf2-function-outputs-win-over-tout")
    # A callee missing from the library: fall back to Tout (the missing function is unknown-function's finding).
    orphan = [X, call("StatefulPartitionedCall", "gone", "x", tout=("DT_FLOAT",))]
    yield pytest.param(
        meta(*orphan, signatures=[signature("s", tensor("outputs", "a", "StatefulPartitionedCall:0"))]),
        [],
        id="tf2-missing-callee-uses-tout",
    )
    # Init op signatures name an op to run.
    init = signature(
        "__saved_model_init_op", 'outputs { key: "__saved_model_init_op" value { name: "init" } }', method=""
    )
    yield pytest.param(meta(X, node("init", "NoOp"), signatures=[init]), [], id="init-op-names-op")
    text, pins = _case(meta(X, signatures=[init]), ('name: "init"', None))
    yield pytest.param(text, pins, id="init-op-missing")
    sparse = 'outputs { key: "sp" value { coo_sparse { values_tensor_name: "y:0" indices_tensor_name: "idx:0" dense_shape_tensor_name: "x:0" } dtype: DT_FLOAT } }'
    text = meta(X, Y, signatures=[signature("s", sparse)])
    yield pytest.param(text, [(RULE, None, line_of(text, "coo_sparse"))], id="sparse-part-missing")
    composite = 'outputs { key: "rt" value { composite_tensor { components { name: "y:0" dtype: DT_FLOAT } components { name: "y:3" dtype: DT_INT64 } } } }'
    text = meta(X, Y, signatures=[signature("s", composite)])
    yield pytest.param(text, [(RULE, "y", line_of(text, "composite_tensor"))], id="composite-component-out-of-range")
    yield pytest.param(X + "\n" + Y + "\n", [], id="graphdef-not-checked")


@pytest.mark.parametrize("pbtxt, expected", list(_cases()))
def test_rule(pbtxt, expected):
    assert pinned(lint_text(pbtxt), rule=RULE) == expected


def test_messages_name_signature_node_and_outputs():
    text = meta(
        X, Y, signatures=[signature("serving_default", tensor("inputs", "x", "input:0"), tensor("outputs", "y", "y:1"))]
    )
    messages = [f.message for f in lint_text(text) if f.rule == RULE]
    assert messages == [
        "Signature 'serving_default' input 'x' names 'input:0', but the graph has no node 'input'",
        "Signature 'serving_default' output 'y' names 'y:1', but node 'y' (op Identity) has only output 0",
    ]


def test_saved_model_findings_name_the_meta_graph():
    good = meta(X, Y, tags=["serve"], signatures=[signature("s", tensor("outputs", "y", "y:0"))])
    bad = meta(X, Y, tags=["train"], signatures=[signature("s", tensor("outputs", "y", "z:0"))])
    text = saved_model(good, bad)
    findings = [f for f in lint_text(text) if f.rule == RULE]
    assert [(f.graph, f.line) for f in findings] == [("meta graph [train]", line_of(text, '"z:0"'))]


def test_broken_binary_tf2_saved_model(tmp_path):
    model = copy_model(require(SERVING / "tf2_module_signatures"), tmp_path)

    def retarget(saved):
        outputs = saved.meta_graphs[0].signature_def["serving_default"].outputs
        name = outputs["y"].name.split(":")[0]
        outputs["y"].name = f"{name}:7"

    edit_saved_model(model, retarget)
    findings = [f for f in lint_file(model).findings if f.rule == RULE]
    assert [(f.node, f.line, f.graph) for f in findings] == [("StatefulPartitionedCall_1", None, "meta graph [serve]")]
    assert "has only output 0" in findings[0].message


def _real_saved_models():
    for path in sorted((DATA / "real").glob("*saved_model.pb*")):
        yield pytest.param(path, id=path.name)
    for path in sorted(REAL_DIRS.glob("*")) + sorted(SERVING.glob("*/")):
        if path.is_dir():
            yield pytest.param(path, id=path.name)
    labels = WILD / "labels.jsonl"
    if labels.exists():
        for line in labels.read_text().splitlines():
            label = json.loads(line)
            if label["message_type"] in ("SavedModel", "MetaGraphDef") and label["tf_verdict"] == "imports":
                yield pytest.param(WILD / label["file"], id=label["file"][:60], marks=shared)


@pytest.mark.parametrize("path", list(_real_saved_models()))
def test_real_saved_models_resolve(path):
    assert [f.message for f in lint_file(path).findings if f.rule == RULE] == []


def test_position_in_canonical_text_saved_model(tmp_path):
    # TensorFlow's own text layout: the Locator skips graph_def blocks whole and must still land on the line.
    source = require(DATA / "real" / "tf2_module_signatures.saved_model.pbtxt").read_text()
    broken = source.replace('name: "serving_default_x:0"', 'name: "serving_default_q:0"', 1)
    assert broken != source
    path = tmp_path / "saved_model.pbtxt"
    path.write_text(broken)
    findings = [f for f in lint_file(path).findings if f.rule == RULE]
    assert [(f.line, f.graph) for f in findings] == [(line_of(broken, '"serving_default_q:0"'), "meta graph [serve]")]
