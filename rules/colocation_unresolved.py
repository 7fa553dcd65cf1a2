"""Colocation entries (`_class: loc:@X`) name nodes of the graph.

The internal attr `_class` holds a node's colocation groups: each entry
`loc:@X` asks to place the node on the same device as node `X`. TensorFlow's
importer reads it as a list of strings without any type check and refuses
the graph when an `X` is not a node of the GraphDef (`Node 'b' expects to be
colocated with unknown node 'X'`). `X` is a plain node name: `loc:@x:0` or
`loc:@` name no node. Entries without the `loc:@` prefix are ignored.

TensorFlow's Python `import_graph_def` then reads `_class` back and fails
with a TypeError (or AssertionError, UnicodeDecodeError) when it is not a
list of strings (`s: "loc:@x"`, `i: 1`, `list { i: 1 }`, ...) or holds an
entry that is not UTF-8; those are reported too. An empty value and an empty
list are fine.

Only the top-level graph is checked: TensorFlow does not validate `_class`
inside function bodies (its placer treats an unknown name as a group label),
and functions TensorFlow converts from graphs keep entries naming nodes of
the graph they came from.

How to fix: point the entry at the node the op should live with (usually
the variable it reads), or delete the stale entry.

Okay:
  node { name: "v" op: "NoOp" }
  node { name: "b" op: "NoOp" attr { key: "_class" value { list { s: "loc:@v" } } } }
Fail:
  node { name: "b" op: "NoOp" attr { key: "_class" value { list { s: "loc:@missing" } } } }   # colocation-unresolved
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from tflint.finding import Issue, Severity
from tflint.tf.index import GraphIndex
from tflint.tf.node import Node

ID = "colocation-unresolved"
CATEGORY = "structure"
DEFAULT_SEVERITY = Severity.ERROR
OPTIONS: dict[str, Any] = {}
# Time on a large graph relative to other rules, for the parallel planner (rules/__init__.py).
COST = 2

ATTR = "_class"
PREFIX = b"loc:@"
# Python's Operation.get_attr returns the first non-empty list field, in this order.
_LIST_FIELDS = ("s", "i", "f", "b", "type", "shape", "tensor", "func")


def check(graph: GraphIndex, options: Mapping[str, Any]) -> Iterator[Issue]:
    """Yield an issue per `_class` entry naming no node, and per `_class` TensorFlow cannot read."""
    known = graph.main.by_name
    yield from graph.main.attr_group_issues(lambda node: _node_issues(node, known), ATTR)


def _node_issues(node: Node, known: Mapping[str, Node]) -> Iterator[Issue]:
    """The issues of one node's `_class`: a function of its attrs (the graph's names are fixed)."""
    value = node.attr[ATTR]
    kind = value.WhichOneof("value")
    if kind is None or (kind == "s" and not value.s):
        return
    if kind != "list":
        yield Issue(
            node,
            f"Node '{node.name}': attr '{ATTR}' holds {_describe(kind)}, not a list of strings; TensorFlow's Python "
            "importer fails reading it",
            field=ATTR,
        )
        return
    listed = value.list
    first = next((field for field in _LIST_FIELDS if len(getattr(listed, field))), None)
    if first is not None and first != "s":
        yield Issue(
            node,
            f"Node '{node.name}': attr '{ATTR}' is a list({first}), not a list of strings; TensorFlow's Python "
            "importer fails reading it",
            field=ATTR,
        )
        return
    for entry in listed.s:
        try:
            text = entry.decode("utf-8")
        except UnicodeDecodeError:
            yield Issue(
                node,
                f"Node '{node.name}': attr '{ATTR}' entry {entry!r} is not UTF-8 text; TensorFlow's Python importer "
                "fails decoding it",
                field=ATTR,
            )
            continue
        if entry.startswith(PREFIX):
            target = text[len(PREFIX) :]
            if target not in known:
                yield Issue(
                    node,
                    f"Node '{node.name}': attr '{ATTR}' entry '{text}' names no node of the graph (TensorFlow: "
                    f"expects to be colocated with unknown node '{target}')",
                    field=ATTR,
                )


def _describe(kind: str) -> str:
    return {
        "s": "a single string",
        "i": "an int",
        "f": "a float",
        "b": "a bool",
        "type": "a type",
        "shape": "a shape",
        "tensor": "a tensor",
        "func": "a function",
        "placeholder": "a placeholder",
    }.get(kind, kind)
