"""Node names follow the node-name grammar of the targeted TensorFlow releases (`target-tf`).

TF 1.15's importer (`IsValidNodeName`) knows no `>`: a name is one segment,
an ASCII letter, digit or `.` followed by letters, digits and `_ . / -`, so
`outer>inner` fails there with `Node 'outer>inner': Node name contains
invalid characters`. TF 2.0 added `>`-joined segments; measured on every
bundled release, 1.15 refuses `a>b`, `a-b.c>d` and `a>b>c`, and 2.0 to 2.21
accept them (the other characters are the same in all of them). A node of
a function body fails when TF 1.15 instantiates the function: at import when
a node calls it (measured), so a finding in a function nothing calls is a
warning, except in a SavedModel, whose loader builds every function. A name
no release accepts is `node-name-syntax`'s finding. The rule runs only when
targets are set (see `target-op-missing`).

How to fix: rename the node (and every input, `^control` and `loc:@` entry
that refers to it), e.g. replace `>` with `/`, or run the graph on TF 2.0 or
newer.

Okay:
  node { name: "outer/inner" op: "NoOp" }
Fail:
  node { name: "outer>inner" op: "NoOp" }   # target-node-name
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from tflint.finding import Issue, Severity
from tflint.tf.index import GraphIndex

ID = "target-node-name"
CATEGORY = "version"
DEFAULT_SEVERITY = Severity.ERROR
OPTIONS: dict[str, Any] = {}
# The docstring examples run with this configuration.
EXAMPLE_CONFIG = {"target-tf": "1.15"}


def check(graph: GraphIndex, options: Mapping[str, Any]) -> Iterator[Issue]:
    """Yield one issue per top-level node whose name some target release refuses."""
    if not graph.registry.targets:
        return
    from tflint.tf.target import NODE_NAME, target_issues

    yield from target_issues(graph, (NODE_NAME,))
