"""Where a MetaGraphDef's or SavedModel's signatures, tags, assets, saver and collections are written in a text source.

Findings about no node (a SignatureDef tensor, an asset, a saver field, a collection entry) point at these positions:
rules name the element (`tflint.finding.Place`), `tflint.engine.place` looks it up here.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from tflint.read.positions import TOKEN, LineTable

# -- positions in text sources --------------------------------------------------------------------


class Locator:
    """Positions of the meta-graph fields serving findings point at, read from a text source.

    Keys (per meta graph ordinal): `("meta",)` the meta graph, `("tags",)` its
    first tag, `("signature", key)` a SignatureDef's key,
    `("tensor", signature, direction, key)` a TensorInfo's `name` (or its
    map entry), `("dtype", ...)` / `("shape", ...)` its dtype and tensor_shape
    (same keys as "tensor"), `("asset", index)` an AssetFileDef's `filename`,
    `("saver",)` the SaverDef, `("saver", field)` one of its fields, `("collection", key)` a CollectionDef's key and
    `("collection", key, number)` its node_list or bytes_list entry `number`. Built lazily, once per artifact,
    only when a finding needs a position.
    """

    def __init__(self, text: str, message_type: str) -> None:
        self.positions: dict[tuple[int, tuple[Any, ...]], tuple[int, int]] = {}
        self._scan(text, message_type)

    def get(self, ordinal: int, *key: Any) -> tuple[int, int] | None:
        """The (line, column) recorded for `key` in meta graph `ordinal`, or None."""
        return self.positions.get((ordinal, key))

    def _scan(self, text: str, message_type: str) -> None:
        where = LineTable(text).position
        # A frame per open message: field name, its path below the meta graph, scalars seen, children's data.
        root_depth = 1 if message_type == "SavedModel" else 0
        frames: list[dict[str, Any]] = [{"field": "", "path": (), "scalars": {}, "offset": 0}]
        lists: list[tuple[str | None, int]] = []
        pending: str | None = None
        pending_offset = 0
        meta_ordinal = -1 if message_type == "SavedModel" else 0
        for match in _tokens(text, message_type):
            kind = match.lastgroup
            if kind in ("space", "comment", "punct"):
                continue
            if kind in ("word", "bracketed", "string"):
                if pending is None:
                    if kind != "string":
                        pending = match.group()
                        pending_offset = match.start()
                    continue
                frame = frames[-1]
                if "skip" not in frame:
                    frame["scalars"].setdefault(pending, (_unquote(match.group()), where(pending_offset)))
                    if pending == "value" and frame["path"] in _LISTS:
                        frame.setdefault("values", []).append(where(match.start()))
                pending = lists[-1][0] if lists and lists[-1][1] == len(frames) else None
            elif kind == "list_open":
                lists.append((pending, len(frames)))
            elif kind == "list_close":
                if lists:
                    lists.pop()
                pending = None
            elif kind == "open":
                name = pending or ""
                parent = frames[-1]
                depth = len(frames)
                if message_type == "SavedModel" and depth == 1 and name == "meta_graphs":
                    meta_ordinal += 1
                    self.positions[(meta_ordinal, ("meta",))] = where(pending_offset)
                path = parent["path"] + (name,) if depth > root_depth else ()
                frame = {"field": name, "path": path, "scalars": {}, "offset": pending_offset, "children": []}
                if "skip" in parent or (path[:1] == ("graph_def",)):
                    frame["skip"] = True
                elif path and path[0] not in (
                    "meta_info_def",
                    "signature_def",
                    "asset_file_def",
                    "saver_def",
                    "collection_def",
                ):
                    frame["skip"] = True
                if path == ("asset_file_def",):
                    parent["asset_count"] = parent.get("asset_count", -1) + 1
                    frame["asset_index"] = parent["asset_count"]
                frames.append(frame)
                pending = None
            else:  # close
                if len(frames) == 1:
                    continue  # unbalanced text never parses; nothing to locate
                frame = frames.pop()
                if "skip" not in frame:
                    self._closed(frame, frames[-1], meta_ordinal, where)
                pending = lists[-1][0] if lists and lists[-1][1] == len(frames) else None

    def _closed(self, frame: dict[str, Any], parent: dict[str, Any], ordinal: int, where: Any) -> None:
        path = frame["path"]
        scalars = frame["scalars"]
        if path == ("meta_info_def",) and "tags" in scalars:
            self.positions.setdefault((ordinal, ("tags",)), scalars["tags"][1])
        elif path == ("saver_def",):
            self.positions.setdefault((ordinal, ("saver",)), where(frame["offset"]))
            for name, (_, position) in scalars.items():
                self.positions.setdefault((ordinal, ("saver", name)), position)
        elif path in _LISTS or path == _COLLECTION + ("value",):
            parent["values"] = frame.get("values", [])
        elif path == _COLLECTION:
            key, position = scalars.get("key", ("", where(frame["offset"])))
            self.positions.setdefault((ordinal, ("collection", key)), position)
            for number, entry in enumerate(frame.get("values", [])):
                self.positions.setdefault((ordinal, ("collection", key, number)), entry)
        elif path == ("asset_file_def",):
            position = scalars["filename"][1] if "filename" in scalars else where(frame["offset"])
            self.positions.setdefault((ordinal, ("asset", frame["asset_index"])), position)
        elif len(path) == 5 and path[:2] == ("signature_def", "value") and path[3:] == ("value", "tensor_shape"):
            parent["fields"] = {**parent.get("fields", {}), "shape": where(frame["offset"])}
        elif len(path) == 4 and path[:2] == ("signature_def", "value") and path[3] == "value":
            fields = dict(parent.get("fields", {}))
            fields.update(frame.get("fields", {}))
            for name in ("name", "dtype"):
                if name in scalars:
                    fields[name] = scalars[name][1]
            parent["fields"] = fields
        elif len(path) == 3 and path[:2] == ("signature_def", "value") and path[2] in ("inputs", "outputs"):
            key = scalars.get("key", ("", None))[0]
            fields = frame.get("fields", {})
            entry = where(frame["offset"])
            parent["children"].append((path[2], key, fields.get("name", entry), fields))
        elif path == ("signature_def", "value"):
            parent["children"].extend(frame["children"])
        elif path == ("signature_def",):
            key, position = scalars.get("key", ("", where(frame["offset"])))
            self.positions.setdefault((ordinal, ("signature", key)), position)
            for direction, io_key, io_position, fields in frame["children"]:
                self.positions.setdefault((ordinal, ("tensor", key, direction, io_key)), io_position)
                for name in ("dtype", "shape"):
                    if name in fields:
                        self.positions.setdefault((ordinal, (name, key, direction, io_key)), fields[name])


_COLLECTION = ("collection_def",)
# The lists of a CollectionDef whose entries findings point at.
_LISTS = (_COLLECTION + ("value", "node_list"), _COLLECTION + ("value", "bytes_list"))

# TensorFlow's own text layout of a graph_def block: its opening line, its closing line, and
# (to make sure the block really is laid out that way) a line indented too little to be inside it.
_CANONICAL_GRAPH_DEF = {
    "MetaGraphDef": ("graph_def {\n", "\n}\n", re.compile(r"\n ?[^ \n]")),
    "SavedModel": ("  graph_def {\n", "\n  }\n", re.compile(r"\n {0,3}[^ \n]")),
}


def _tokens(text: str, message_type: str) -> Iterator[re.Match[str]]:
    """The text's tokens, skipping canonically laid out graph_def blocks whole (they are most of the file)."""
    opener, closer, shallow = _CANONICAL_GRAPH_DEF[message_type]
    start = 0
    for at in _line_starts_with(text, opener):
        if at < start:
            continue  # inside a block already skipped
        body = at + len(opener) - 1  # the opener's newline
        end = text.find(closer, body)
        if end < 0 or shallow.search(text, body, end):
            continue  # not TensorFlow's layout after all: tokenize it like the rest
        yield from TOKEN.finditer(text, start, at)
        start = end + len(closer)
    yield from TOKEN.finditer(text, start)


def _line_starts_with(text: str, prefix: str) -> Iterator[int]:
    """Offsets of the lines of `text` that start with `prefix`."""
    if text.startswith(prefix):
        yield 0
    at = text.find("\n" + prefix)
    while at >= 0:
        yield at + 1
        at = text.find("\n" + prefix, at + 1)


def _unquote(token: str) -> str:
    if token[:1] in ("'", '"'):
        from google.protobuf import text_encoding

        try:
            return str(text_encoding.CUnescape(token[1:-1]).decode("utf-8", "replace"))
        except Exception:
            return token[1:-1]
    return token
