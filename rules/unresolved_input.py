"""Every data and control input names a node that exists.

TensorFlow's importer splits each input string into a node name and an
output index and refuses the graph when no node has that name (`Node 'X':
Unknown input node 'y'`); control inputs (`^y`) are checked the same way.
Inside a function body an input may also name one of the function's input
args. Note that TensorFlow reads `^y:0` as a *data* input from a node called
`^y`, so it is reported here too (and by `input-syntax`). An input the
caller's `input_map` replaces (the exact tensor, or `^y` for a control input;
see `import-contract`) is never looked up, and not reported.

How to fix: correct the input's spelling, add the missing producer node, or
drop the dependency.

Okay:
  node { name: "a" op: "NoOp" }
  node { name: "b" op: "NoOp" input: "^a" }
Fail:
  node { name: "b" op: "Identity" input: "missing:0" attr { key: "T" value { type: DT_FLOAT } } }   # unresolved-input
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from tflint.finding import Issue, Severity
from tflint.tf.index import GraphIndex

ID = "unresolved-input"
CATEGORY = "structure"
DEFAULT_SEVERITY = Severity.ERROR
OPTIONS: dict[str, Any] = {}
# Time on a large graph relative to other rules, for the parallel planner (rules/__init__.py).
COST = 3


def check(graph: GraphIndex, options: Mapping[str, Any]) -> Iterator[Issue]:
    """Yield an issue for each input whose node part names nothing in scope."""
    # The caller's input_map replaces these tensors: TensorFlow never looks their nodes up.
    mapped = graph.imports.mapped_keys() if graph.imports is not None else {}
    for scope in graph.scopes():
        known = scope.by_name
        args = scope.arg_names
        unresolved = {
            item.raw
            for item in scope.inputs_to_resolve()
            if item.node not in known
            and item.node not in args
            and not (mapped and scope.function is None and (item.node, item.index) in mapped)
        }
        for node in scope.nodes_reading(unresolved):
            for item in node.inputs:
                if item.raw not in unresolved:
                    continue
                kind = "control input" if item.is_control else "input"
                what = "no node or function argument" if scope.function is not None else "no node"
                yield Issue(node, f"Node '{node.name}' has {kind} '{item.raw}' but {what} is named '{item.node}'")
