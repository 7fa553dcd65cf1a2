"""unknown-op: a node's op is neither a function of the library nor a registered op.

TensorFlow looks the op up in the graph's function library, then in its op registry, and
refuses the graph when neither has it (`Op type not registered 'X'`). A MetaGraphDef's
stripped_op_list and the user's --op-defs extend what is known; op names are case-sensitive.
"""

from __future__ import annotations

import pytest
from conftest import lint_text, pinned

from tflint import protos

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
