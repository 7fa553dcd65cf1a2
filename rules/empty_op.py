"""Every node names its op.

A NodeDef with an empty `op` field cannot be built: TensorFlow's importer
refuses the graph (`Node 'x' does not specify an operation`), and a function
body with such a node fails when the function is instantiated (the empty op
is looked up and not found). `unknown-op` leaves these nodes to this rule.

How to fix: set `op` to the operation the node runs (or delete the node).

Okay:
  node { name: "a" op: "NoOp" }
Fail:
  node { name: "a" op: "" }   # empty-op
  node { name: "b" }   # empty-op
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from tflint.finding import Issue, Severity
from tflint.tf.index import GraphIndex

ID = "empty-op"
CATEGORY = "structure"
DEFAULT_SEVERITY = Severity.ERROR
OPTIONS: dict[str, Any] = {}


def check(graph: GraphIndex, options: Mapping[str, Any]) -> Iterator[Issue]:
    """Yield an issue for each node whose op is empty."""
    for scope in graph.scopes():
        for node in scope.nodes:
            if not node.op:
                yield Issue(node, f"Node '{node.name}' does not specify an operation (its 'op' is empty)")
