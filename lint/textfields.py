"""Positions of GraphDef fields the SourceMap does not record, found on demand (e.g. `versions`).

`tflint.textpos` records where nodes, attrs and functions are. A rule that
reports on another field of a GraphDef (its `versions` block) calls
`graph_field_position` only when it has something to report, so the extra
scan of the text costs nothing on clean graphs.
"""

from __future__ import annotations

from typing import Any

from tflint.textpos import _TOKEN, LineTable

_GRAPH_PATH = {"GraphDef": (), "MetaGraphDef": ("graph_def",), "SavedModel": ("meta_graphs", "graph_def")}


def graph_field_position(graph: Any, field: str) -> tuple[int, int] | None:
    """Where message field `field` of the GraphDef indexed by `graph` (a GraphIndex) is written, if known."""
    artifact = graph.artifact
    if artifact is None or not artifact.text or artifact.message_type not in _GRAPH_PATH:
        return None
    graph_id = next((source.graph_id for source in artifact.graphs if source.graph is graph.graph), None)
    if graph_id is None:
        return None
    target = _GRAPH_PATH[artifact.message_type] + (field,)
    return _find(artifact.text, target, graph_id if artifact.message_type == "SavedModel" else None)


def _find(text: str, target: tuple[str, ...], meta_index: int | None) -> tuple[int, int] | None:
    """The position of the first message opening at path `target` (inside meta graph `meta_index`)."""
    stack: list[str] = []
    # Open `field: [ ... ]` lists and the stack depth they belong to: inside one,
    # the field name carries on from element to element.
    lists: list[tuple[str | None, int, int]] = []
    metas_seen = -1
    pending: str | None = None
    pending_offset = 0

    def carried() -> tuple[str | None, int]:
        if lists and lists[-1][1] == len(stack):
            return lists[-1][0], lists[-1][2]
        return None, 0

    for match in _TOKEN.finditer(text):
        kind = match.lastgroup
        if kind in ("space", "comment", "punct"):
            continue
        if kind in ("word", "bracketed", "string"):
            if pending is None:
                if kind != "string":  # a field name
                    pending, pending_offset = match.group(), match.start()
                continue
            pending, pending_offset = carried()  # that was the field's scalar value
        elif kind == "list_open":
            lists.append((pending, len(stack), pending_offset))
        elif kind == "list_close":
            lists.pop()
            pending = None
        elif kind == "open":
            name = pending or ""
            if not stack and name == "meta_graphs":
                metas_seen += 1
            stack.append(name)
            if tuple(stack) == target and (meta_index is None or metas_seen == meta_index):
                return LineTable(text).position(pending_offset)
            pending = None
        else:
            stack.pop()
            pending, pending_offset = carried()
    return None
