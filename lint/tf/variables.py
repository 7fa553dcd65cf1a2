"""Which variable each checkpoint key of a SavedModel holds, from its object graph (no I/O).

A TF2 SavedModel's `variables/` checkpoint keys its tensors by the path of
local names from the root object to the variable (`variables/0/.ATTRIBUTES/VARIABLE_VALUE`):
TensorFlow walks the object graph breadth first, children in order, and the
first path that reaches an object is its key; in a local name `.` is written
`..` and `/` is written `.S`. Those paths count list positions, and Keras fills
some lists from sets, so the same model saved by another process can hold
`kernel` at `_all_variables/0` once and at `_all_variables/3` the next time.
The variable's own name (`SavedVariable.name`, Keras's path of it) does not
move: a review matches weights by name, not by checkpoint key.
"""

from __future__ import annotations

from collections import deque
from typing import Any

VALUE_SUFFIX = "/.ATTRIBUTES/VARIABLE_VALUE"


def _escaped(local_name: str) -> str:
    return local_name.replace(".", "..").replace("/", ".S")


def checkpoint_variables(object_graph: Any) -> dict[str, tuple[str, int]]:
    """Checkpoint key -> (variable name, object id) of every variable of a SavedObjectGraph."""
    nodes = object_graph.nodes
    if not len(nodes):
        return {}
    paths: dict[int, str] = {0: ""}
    queue = deque([0])
    while queue:
        current = queue.popleft()
        for child in nodes[current].children:
            target = child.node_id
            if target in paths or not 0 <= target < len(nodes):
                continue
            prefix = paths[current]
            paths[target] = f"{prefix}/{_escaped(child.local_name)}" if prefix else _escaped(child.local_name)
            queue.append(target)
    found = {}
    for node_id, path in paths.items():
        node = nodes[node_id]
        if node.WhichOneof("kind") == "variable":
            found[path + VALUE_SUFFIX] = (node.variable.name or path, node_id)
    return found
