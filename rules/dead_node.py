"""A serving graph holds no dead computation: nodes that no signature, init or saver op, or collection needs.

A model server only runs what its signatures fetch, its init op and its
restore op need; TensorFlow keeps the rest of the graph in memory and
never runs it. Dead nodes are usually leftovers of the training graph
(loss, metrics, gradients, a second saver) or of an abandoned output, and
make the exported model larger and harder to review. TensorFlow does not
care; this is a hint (info).

A node is alive when a SignatureDef input or output names it, when the
SaverDef's save or restore op or filename tensor does, when an asset is fed
to it, when any collection mentions it (node lists, and names inside the
serialized protos of other collections: variables, control-flow contexts,
queue runners), or when a live node reads from it (data or control input).
Only the last node of each dead chain is reported (a dead node nothing
consumes); the nodes that only feed it are dead too. The variable
bookkeeping every TensorFlow export carries is not reported: `NoOp`s (the
unused `init` op), and reads, `IsInitialized` checks, `read` identities and
initializers (`Assign`) of a variable. Function bodies are not checked.

Only meta graphs with at least one signature other than the init op are
checked (a GraphDef, or a training checkpoint's meta graph, does not say
what is needed). Off by default; the `serving` preset reports it as info.

How to fix: export from a graph built for inference, or remove the nodes
(`tf.compat.v1.graph_util.extract_sub_graph` keeps what given nodes need).

Okay:
  graph_def {
    node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "y" op: "Neg" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
    node { name: "init" op: "NoOp" }
  }
  signature_def {
    key: "serving_default"
    value { outputs { key: "y" value { name: "y:0" dtype: DT_FLOAT } } }
  }
Fail:
  graph_def {
    node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "y" op: "Neg" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
    node { name: "loss" op: "Square" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
    node { name: "loss_summary" op: "Neg" input: "loss" attr { key: "T" value { type: DT_FLOAT } } }   # dead-node
  }
  signature_def {
    key: "serving_default"
    value { outputs { key: "y" value { name: "y:0" dtype: DT_FLOAT } } }
  }
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from tflint.finding import Issue, Severity
from tflint.tf.index import GraphIndex
from tflint.tf.node import Node
from tflint.tf.serving import INIT_OP_SIGNATURE_KEYS, VARIABLE_OPS, alive_nodes

ID = "dead-node"
CATEGORY = "serving"
DEFAULT_SEVERITY = Severity.OFF
OPTIONS: dict[str, Any] = {}

# Ops TensorFlow's variable machinery leaves in every export, when they act on a variable.
_VARIABLE_BOOKKEEPING = frozenset(
    {"ReadVariableOp", "VarIsInitializedOp", "IsVariableInitialized", "Assign", "AssignVariableOp", "Identity"}
)


def check(graph: GraphIndex, options: Mapping[str, Any]) -> Iterator[Issue]:
    """Yield an issue for each dead top-level node that nothing consumes."""
    meta = graph.meta_graph
    if meta is None or not any(key not in INIT_OP_SIGNATURE_KEYS for key in meta.signature_def):
        return
    alive = alive_nodes(graph)
    if len(alive) == len(graph.main.by_name):
        return
    consumed: set[str] = set()
    for node in graph.nodes:
        if node.name not in alive:
            consumed.update(item.node for item in node.inputs)
    by_name = graph.main.by_name
    for node in graph.nodes:
        if node.name in alive or node.name in consumed or _bookkeeping(node, by_name):
            continue
        yield Issue(
            node,
            f"Node '{node.name}' (op {node.op}) is dead: no signature, init or saver op, asset or collection needs "
            "it, and nothing consumes it",
        )


def _bookkeeping(node: Node, by_name: Mapping[str, Node]) -> bool:
    if node.op == "NoOp":
        return True
    if node.op not in _VARIABLE_BOOKKEEPING:
        return False
    data = node.data_inputs
    if not data:
        return False
    source = by_name.get(data[0].node)
    return source is not None and source.op in VARIABLE_OPS
