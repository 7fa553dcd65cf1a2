"""Every node name is unique within its graph or function body.

TensorFlow addresses nodes by name: inputs, control dependencies,
colocation groups and signatures all refer to them. Its importer refuses a
graph in which two nodes share a name (`Node 'X' is not unique`), and the
function instantiation refuses a body with a repeated name. The finding is
on every repeated occurrence after the first.

How to fix: rename one of the nodes (and the inputs that meant it).

Okay:
  node { name: "a" op: "NoOp" }
  node { name: "b" op: "NoOp" }
Fail:
  node { name: "a" op: "NoOp" }
  node { name: "a" op: "NoOp" }   # duplicate-node-name
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from tflint.finding import Issue, Severity
from tflint.tf.index import GraphIndex

ID = "duplicate-node-name"
CATEGORY = "structure"
DEFAULT_SEVERITY = Severity.ERROR
OPTIONS: dict[str, Any] = {}


def check(graph: GraphIndex, options: Mapping[str, Any]) -> Iterator[Issue]:
    """Yield one issue per node whose name an earlier node of its scope already took."""
    for scope in graph.scopes():
        for node in scope.duplicates:
            first = scope.by_name[node.name]
            where = f" (first defined at line {first.line})" if first.line else ""
            yield Issue(node, f"Node '{node.name}' is not unique: another node has the same name{where}")
