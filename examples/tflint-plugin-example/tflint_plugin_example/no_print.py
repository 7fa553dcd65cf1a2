"""Graphs meant for serving contain no debug Print ops.

`Print` and `PrintV2` write to the server's stderr on every request: a debug
aid left in an exported graph slows serving and floods its logs.

How to fix: remove the op (and rewire its consumers to its input) before
exporting the graph.

Okay:
  node { name: "a" op: "NoOp" }
Fail:
  node { name: "p" op: "PrintV2" }   # example/no-print
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from tflint.finding import Issue, Severity

ID = "example/no-print"
CATEGORY = "serving"
DEFAULT_SEVERITY = Severity.WARNING
OPTIONS: dict[str, Any] = {"ops": ["Print", "PrintV2"]}


def check(graph: Any, options: Mapping[str, Any]) -> Iterator[Issue]:
    """Yield an issue for each node whose op is one of `options["ops"]`."""
    banned = set(options["ops"])
    for node in graph.all_nodes():
        if node.op in banned:
            yield Issue(node, f"Node '{node.name}' is a debug {node.op} op; remove it before serving")
