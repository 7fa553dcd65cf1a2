"""dead-node: the last node of each chain no signature, saver, asset or collection needs; variable bookkeeping exempt."""

from __future__ import annotations

import pytest
from conftest import DATA, lint_text, pinned, require
from google.protobuf import text_format
from serving_graphs import (
    SERVING,
    identity,
    line_of,
    meta,
    node,
    placeholder,
    signature,
    tensor,
)

from tflint import protos
from tflint.api import lint_file

RULE = "dead-node"
ON = {"rules": {RULE: "info"}}
X = placeholder("x")
Y = identity("y", "x")
T = 'attr { key: "T" value { type: DT_FLOAT } } '
SERVE_Y = signature("s", tensor("outputs", "y", "y:0"))
VAR = node(
    "w", "VariableV2", attrs='attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { } } } '
)
HANDLE = node(
    "h",
    "VarHandleOp",
    attrs='attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { } } } ',
)


def _cases():
    yield pytest.param(meta(X, Y, signatures=[SERVE_Y]), [], id="all-needed")
    text = meta(
        X, Y, node("loss", "Square", "x", attrs=T), node("summary", "Neg", "loss", attrs=T), signatures=[SERVE_Y]
    )
    yield pytest.param(text, [(RULE, "summary", line_of(text, '"summary"'))], id="only-the-sink")
    text = meta(X, Y, node("a", "Neg", "x", attrs=T), node("b", "Neg", "x", attrs=T), signatures=[SERVE_Y])
    yield pytest.param(text, [(RULE, "a", line_of(text, '"a"')), (RULE, "b", line_of(text, '"b"'))], id="two-sinks")
    text = meta(
        X, node("side", "Neg", "x", attrs=T), node("y", "Identity", "x", "^side", attrs=T), signatures=[SERVE_Y]
    )
    yield pytest.param(text, [], id="control-input-is-needed")
    bookkeeping = [
        VAR,
        identity("w/read", "w"),
        node("w/Assign", "Assign", "w", "x", attrs=T),
        node("w/IsInitialized", "IsVariableInitialized", "w", attrs='attr { key: "dtype" value { type: DT_FLOAT } } '),
        HANDLE,
        node("h/Read/ReadVariableOp", "ReadVariableOp", "h", attrs='attr { key: "dtype" value { type: DT_FLOAT } } '),
        node("h/IsInitialized/VarIsInitializedOp", "VarIsInitializedOp", "h"),
        node("init", "NoOp", "^w/Assign"),
    ]
    yield pytest.param(meta(X, Y, *bookkeeping, signatures=[SERVE_Y]), [], id="variable-bookkeeping")
    text = meta(
        X,
        Y,
        placeholder("r", "DT_RESOURCE"),
        node("read", "ReadVariableOp", "r", attrs='attr { key: "dtype" value { type: DT_FLOAT } } '),
        signatures=[SERVE_Y],
    )
    yield pytest.param(text, [(RULE, "read", line_of(text, '"read"'))], id="read-of-non-variable")
    kept = 'collection_def { key: "train_op" value { node_list { value: "step" } } }\ncollection_def { key: "losses" value { node_list { value: "loss:0" } } }'
    text = meta(
        X, Y, node("step", "Neg", "x", attrs=T), node("loss", "Neg", "x", attrs=T), signatures=[SERVE_Y], extra=kept
    )
    yield pytest.param(text, [], id="collections-keep-alive")
    saver = 'saver_def { filename_tensor_name: "save/Const:0" save_tensor_name: "save/control_dependency:0" restore_op_name: "save/restore_all" }'
    nodes = [
        placeholder("save/Const", "DT_STRING"),
        identity("save/control_dependency", "save/Const", "DT_STRING"),
        node("save/restore_all", "NoOp"),
    ]
    yield pytest.param(meta(X, Y, *nodes, signatures=[SERVE_Y], extra=saver), [], id="saver-alive")
    asset = 'asset_file_def { tensor_info { name: "vocab:0" } filename: "v.txt" }'
    yield pytest.param(
        meta(X, Y, placeholder("vocab", "DT_STRING"), signatures=[SERVE_Y], extra=asset), [], id="asset-alive"
    )
    yield pytest.param(X + "\n" + node("a", "Neg", "x", attrs=T) + "\n", [], id="graphdef-not-checked")
    yield pytest.param(meta(X, node("a", "Neg", "x", attrs=T)), [], id="no-signature-not-checked")
    init = signature(
        "__saved_model_init_op", 'outputs { key: "__saved_model_init_op" value { name: "init" } }', method=""
    )
    yield pytest.param(
        meta(X, node("init", "NoOp"), node("a", "Neg", "x", attrs=T), signatures=[init]), [], id="init-only-not-checked"
    )


@pytest.mark.parametrize("pbtxt, expected", list(_cases()))
def test_rule(pbtxt, expected):
    assert pinned(lint_text(pbtxt, ON), rule=RULE) == expected


def test_serialized_collection_protos_keep_names_alive():
    graph = protos.MetaGraphDef()
    snapshot = node("w/snapshot", "Neg", "x", attrs=T)
    text_format.Parse(meta(X, Y, VAR, snapshot, signatures=[SERVE_Y]), graph, descriptor_pool=protos.POOL)
    assert [f.node for f in lint_text(text_format.MessageToString(graph), ON) if f.rule == RULE] == ["w", "w/snapshot"]
    variable = protos.message_class("tensorflow.VariableDef")(variable_name="w:0", snapshot_name="w/snapshot:0")
    graph.collection_def["variables"].bytes_list.value.append(variable.SerializeToString())
    assert [f.node for f in lint_text(text_format.MessageToString(graph), ON) if f.rule == RULE] == []


def test_message():
    text = meta(X, Y, node("loss", "Square", "x", attrs=T), signatures=[SERVE_Y])
    assert [(str(f.severity), f.message) for f in lint_text(text, ON) if f.rule == RULE] == [
        (
            "info",
            "Node 'loss' (op Square) is dead: no signature, init or saver op, asset or collection needs it, and nothing consumes it",
        ),
    ]


@pytest.mark.parametrize("name", ["tf1_legacy_init_op", "tf2_module_signatures", "tf2_keras_export"])
def test_generated_exports_have_no_dead_nodes(name):
    assert [f.node for f in lint_file(require(SERVING / name), ON).findings if f.rule == RULE] == []


def test_real_keras_saved_model_has_no_dead_nodes():
    # TF2 exports leave `*/Read/ReadVariableOp` and `*/IsInitialized/VarIsInitializedOp` nodes nobody uses.
    assert [
        f.node
        for f in lint_file(require(DATA / "real" / "tf2_keras_sequential.saved_model.pb"), ON).findings
        if f.rule == RULE
    ] == []
