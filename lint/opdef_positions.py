"""Where each OpDef of a text MetaGraphDef's or SavedModel's `stripped_op_list` is written.

`tflint.textpos` records nodes, attrs and functions; OpDefs are only needed
when `opdef-wellformed` has something to report, so they are located here,
lazily, with the same tokenizer: one pass over the text, tracking the path of
open message fields.
"""

from __future__ import annotations

from typing import Any

from tflint.textpos import _TOKEN, LineTable

_META_PATH = ("meta_info_def", "stripped_op_list")
_SAVED_MODEL_PATH = ("meta_graphs", "meta_info_def", "stripped_op_list")


def stripped_op_positions(text: str, root: str) -> dict[tuple[int, int], tuple[int, int]]:
    """(meta graph index, op index) -> (line, column) of each `op` of a stripped_op_list.

    `root` is the text's top message: "MetaGraphDef" (meta graph index 0) or
    "SavedModel"; any other root has no stripped_op_list.
    """
    if root == "MetaGraphDef":
        wanted = _META_PATH
    elif root == "SavedModel":
        wanted = _SAVED_MODEL_PATH
    else:
        return {}
    lines = LineTable(text)
    found: dict[tuple[int, int], tuple[int, int]] = {}
    path: list[str] = []
    lists: list[tuple[str | None, int]] = []  # open `field: [ ... ]` lists and the depth they belong to
    pending: str | None = None
    pending_offset = 0
    meta_index = 0 if root == "MetaGraphDef" else -1
    op_index = -1

    def carried() -> str | None:
        return lists[-1][0] if lists and lists[-1][1] == len(path) else None

    for match in _TOKEN.finditer(text):
        kind = match.lastgroup
        if kind in ("space", "comment", "punct"):
            continue
        if kind in ("word", "bracketed", "string"):
            if pending is None:
                if kind != "string":
                    pending, pending_offset = match.group(), match.start()
                continue
            pending = carried()
        elif kind == "list_open":
            lists.append((pending, len(path)))
        elif kind == "list_close":
            lists.pop()
            pending = None
        elif kind == "open":
            name = pending or ""
            if not path and name == "meta_graphs":
                meta_index += 1
            if tuple(path) == wanted and name == "op":
                op_index += 1
                found[(meta_index, op_index)] = lines.position(pending_offset)
            elif tuple(path) == wanted[:-1] and name == "stripped_op_list":
                op_index = -1
            path.append(name)
            pending = None
        else:
            path.pop()
            pending = carried()
    return found


def op_position(artifact: Any, meta_graph: Any, op_index: int, cache: dict[str, Any]) -> tuple[int, int] | None:
    """The position of `meta_graph`'s stripped_op_list entry `op_index` in a text artifact, or None.

    `cache` keeps the scan of the artifact for further calls.
    """
    if artifact is None or getattr(artifact, "text", None) is None:
        return None
    if "positions" not in cache:
        cache["positions"] = stripped_op_positions(artifact.text, artifact.message_type or "")
        cache["meta_index"] = {id(source.meta_graph): source.graph_id for source in artifact.graphs if source.meta_graph is not None}
    meta_index = cache["meta_index"].get(id(meta_graph))
    if meta_index is None:
        return None
    return cache["positions"].get((meta_index, op_index))
