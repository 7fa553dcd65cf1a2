"""Attrs that can be removed without changing what a graph computes, on any bundled TensorFlow.

TensorFlow fills an absent attr from the OpDef of the release that loads the
graph, so removing an attr whose value is its default (what
`strip_default_attrs=True` does at export) leaves the computation unchanged
— provided every release that knows the attr has the same default. An attr
whose default changed between releases is kept; so are internal `_` attrs,
attrs of calls to library functions and placeholders. Removing them lets
older releases import graphs written by newer ones (`target-attr`).
"""

from __future__ import annotations

from typing import Any

from tflint.tf.index import GraphIndex
from tflint.tf.node import Node
from tflint.tf.registry import bundled_ops


def strippable(graph: GraphIndex) -> list[tuple[Node, str]]:
    """(node, attr key) of every attr of `graph` (function bodies included) that can safely go."""
    from tflint.tf.releases import known_releases, release

    newest = bundled_ops()
    olds = [release(name).ops for name in known_releases()]
    defaults: dict[tuple[str, str], Any] = {}
    found = []
    for node in graph.all_nodes():
        op = node.op
        if op in graph.function_by_name or op not in newest:
            continue
        attrs = node.attr
        for key in attrs:
            if key[:1] == "_":
                continue
            default = defaults.get((op, key), _UNSET)
            if default is _UNSET:
                default = defaults[(op, key)] = _shared_default(op, key, newest[op], olds)
            if default is not None and attrs[key] == default:
                found.append((node, key))
    return found


_UNSET = object()


def _shared_default(op: str, key: str, new_def: Any, olds: list[dict[str, Any]]) -> Any:
    """The default of `op.key` if the newest OpDef has one and every release knowing the attr agrees."""
    default = _default(new_def, key)
    if default is None:
        return None
    for ops in olds:
        old_def = ops.get(op)
        if old_def is None:
            continue
        for attr in old_def.attr:
            if attr.name == key and (not attr.HasField("default_value") or attr.default_value != default):
                return None
    return default


def _default(op_def: Any, key: str) -> Any:
    for attr in op_def.attr:
        if attr.name == key:
            return attr.default_value if attr.HasField("default_value") else None
    return None
