"""unknown-op: a node's op is neither a function of the library nor a registered op.

TensorFlow looks the op up in the graph's function library, then in its op registry, and
refuses the graph when neither has it (`Op type not registered 'X'`). A MetaGraphDef's
stripped_op_list and the user's --op-defs extend what is known; op names are case-sensitive.
"""

from __future__ import annotations

import pytest
from conftest import lint_text, pinned

from tflint import protos
from tflint.tf import registry

ID = "unknown-op"

FUNCTION_CALL = """\
library { function { signature { name: "my_fn" } } }
node { name: "call" op: "my_fn" }
"""

IN_BODY = """\
library {
  function {
    signature { name: "f" }
    node_def { name: "inner" op: "Nope" }
  }
}
"""

STRIPPED = """\
meta_info_def { stripped_op_list { op { name: "VendorOp" } } }
graph_def { node { name: "v" op: "VendorOp" } node { name: "w" op: "OtherVendorOp" } }
"""


@pytest.mark.parametrize(
    "pbtxt, expected",
    [
        pytest.param('node { name: "a" op: "NoOp" }', [], id="registered"),
        pytest.param('node { name: "a" op: "Nope" }', [(ID, "a", 1)], id="unregistered"),
        pytest.param('node { name: "a" op: "noop" }', [(ID, "a", 1)], id="case-sensitive"),
        pytest.param(FUNCTION_CALL, [], id="library-function"),
        pytest.param(IN_BODY, [(ID, "inner", 4)], id="function-body"),
        pytest.param(STRIPPED, [(ID, "w", 2)], id="stripped-op-list"),
        pytest.param('node { name: "a" op: "" }', [], id="empty-op-is-another-rule"),
        pytest.param(
            'node { name: "a" op: "Nope" }\nnode { name: "b" op: "Nope" }', [(ID, "a", 1), (ID, "b", 2)], id="each-node"
        ),
    ],
)
def test_unknown_op(pbtxt, expected):
    assert pinned(lint_text(pbtxt), rule=ID) == expected


@pytest.mark.parametrize(
    "op, hint",
    [
        pytest.param("matmul", " (did you mean 'MatMul'?)", id="case-folded"),
        pytest.param("MatMull", " (did you mean 'MatMul'?)", id="close-spelling"),
        pytest.param("Zzyzx", "", id="nothing-close"),
    ],
)
def test_message_suggests_the_closest_op(op, hint):
    [finding] = [f for f in lint_text(f'node {{ name: "a" op: "{op}" }}') if f.rule == ID]
    assert finding.message == f"Node 'a' uses op '{op}', which is not registered{hint}"


def test_user_op_defs_register_custom_ops():
    from tflint.api import lint_graph

    graph = protos.GraphDef()
    graph.node.add(name="a", op="VendorOp")
    assert [f.rule for f in lint_graph(graph)] == [ID]
    op_list = protos.OpList()
    op_list.op.add(name="VendorOp")
    assert [f.rule for f in lint_graph(graph, op_defs=[op_list])] == []


def test_test_only_ops_are_registered_and_listed():
    hidden = registry.test_only_ops()
    assert {"Foo1", "Foo3", "Attr", "Binary"} <= hidden
    assert hidden <= set(registry.bundled_ops())
    assert not hidden & {"Const", "MatMul", "Identity", "NoOp", "Placeholder"}


@pytest.mark.parametrize(
    "op, message",
    [
        pytest.param("Foo", "Node 'a' uses op 'Foo', which is not registered (did you mean 'Floor'?)", id="not-foo3"),
        pytest.param("Fooo", "Node 'a' uses op 'Fooo', which is not registered", id="no-hint"),
        pytest.param(
            "matmul", "Node 'a' uses op 'matmul', which is not registered (did you mean 'MatMul'?)", id="case"
        ),
        pytest.param("Identiti", "Node 'a' uses op 'Identiti', which is not registered (did you mean 'Identity'?)"),
    ],
)
def test_suggestion(op, message):
    assert [(f.rule, f.message) for f in lint_text(f'node {{ name: "a" op: "{op}" }}')] == [(ID, message)]


def test_a_test_op_is_still_a_registered_op():
    assert [f for f in lint_text('node { name: "a" op: "Foo3" }') if f.rule == ID] == []


def test_a_user_op_def_is_suggested(tmp_path):
    ops = tmp_path / "ops.pbtxt"
    ops.write_text('op { name: "VendorLookup" }\n')
    findings = lint_text('node { name: "a" op: "VendorLokup" }', {"op-defs": [str(ops)]})
    assert [f.message for f in findings if f.rule == ID] == [
        "Node 'a' uses op 'VendorLokup', which is not registered (did you mean 'VendorLookup'?)"
    ]


# TRTEngineOp: registered by the GPU `tensorflow` wheels 2.1 to 2.11, not by tensorflow-cpu 2.21.
TRT = (
    'node { name: "trt" op: "TRTEngineOp" attr { key: "serialized_segment" value { s: "" } }\n'
    '  attr { key: "InT" value { list { type: DT_FLOAT } } } attr { key: "OutT" value { list { type: DT_FLOAT } } }\n'
    '  attr { key: "workspace_size_bytes" value { i: 1 } } attr { key: "precision_mode" value { s: "FP32" } } }'
)


@pytest.mark.parametrize(
    "targets, expected",
    [
        pytest.param(None, [("unknown-op", "trt", 1)], id="no-target"),
        # A target registering it judges it: the op is fine there.
        pytest.param("2.4", [], id="target-has-it"),
        pytest.param("2.4,2.11", [], id="targets-have-it"),
        # No target registers it: as without a target.
        pytest.param("1.15", [("unknown-op", "trt", 1)], id="target-lacks-it"),
        pytest.param("2.18", [("unknown-op", "trt", 1)], id="newer-target"),
        # Some target registers it: the others get target-op-missing.
        pytest.param("1.15,2.4", [("target-op-missing", "trt", 1)], id="mixed"),
    ],
)
def test_an_op_of_older_releases_only_defers_to_the_targets(targets, expected):
    config = {"target-tf": targets} if targets else None
    found = [item for item in pinned(lint_text(TRT, config)) if item[0] in ("unknown-op", "target-op-missing")]
    assert found == expected


def test_an_op_of_older_releases_only_names_the_releases_registering_it():
    found = [f for f in lint_text(TRT, {"target-tf": "1.15,2.4"}) if f.rule == "target-op-missing"]
    assert [f.message for f in found] == [
        "TF 1.15: Node 'trt': op TRTEngineOp is not registered; only TF 2.1 to 2.11 register it"
    ]
    # Its attrs are judged by the target's OpDef: an attr unknown there is refused (TF 2.4 refuses unknown attrs).
    odd = TRT[:-1] + ' attr { key: "no_such_attr" value { i: 1 } } }'
    assert [(f.rule, f.message) for f in lint_text(odd, {"target-tf": "2.4"}) if f.severity.name == "ERROR"] == [
        ("target-attr", "TF 2.4: Node 'trt' (TRTEngineOp): unknown attr 'no_such_attr' = 1 there")
    ]
