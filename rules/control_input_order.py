"""Control inputs (`^name`) come after all data inputs.

A NodeDef lists its data inputs first, in the order of the op's input args,
then its control dependencies. TensorFlow's importer refuses a node with a
data input after a control input (`Node 'b': Control dependencies must come
after regular dependencies`; `ValidateNodeDef` says `Non-control input 'x'
after control input`). Inside a function body the instantiation fails the same
way (`Expected input[1] == 'x' to be a control input`, or the `^name` is
looked up as a data input and not found). An empty input string counts as a
data input, as in TensorFlow. One finding per node, naming the first
misplaced input.

How to fix: move the `^name` inputs to the end of the input list.

Okay:
  node { name: "a" op: "NoOp" }
  node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
  node { name: "b" op: "Identity" input: "x" input: "^a" attr { key: "T" value { type: DT_FLOAT } } }
Fail:
  node { name: "a" op: "NoOp" }
  node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
  node { name: "b" op: "Identity" input: "^a" input: "x"   # control-input-order
    attr { key: "T" value { type: DT_FLOAT } } }
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from tflint.finding import Issue, Severity
from tflint.tf.index import GraphIndex

ID = "control-input-order"
CATEGORY = "structure"
DEFAULT_SEVERITY = Severity.ERROR
OPTIONS: dict[str, Any] = {}
# Time on a large graph relative to other rules, for the parallel planner (rules/__init__.py).
COST = 2


def check(graph: GraphIndex, options: Mapping[str, Any]) -> Iterator[Issue]:
    """Yield an issue for each node with a data input listed after a control input."""
    for scope in graph.scopes():
        for node in scope.nodes:
            if len(node.raw_inputs) < 2 or "^" not in "".join(node.raw_inputs):
                continue  # most nodes: no control input at all (one test in C)
            first_control = None
            for position, raw in enumerate(node.raw_inputs):
                if raw.startswith("^"):
                    if first_control is None:
                        first_control = position
                elif first_control is not None:
                    control = node.raw_inputs[first_control]
                    yield Issue(
                        node,
                        f"Node '{node.name}': data input #{position} '{raw}' comes after control input "
                        f"#{first_control} '{control}'; control inputs must follow all data inputs",
                    )
                    break
