"""Source positions for text-format graphs: where each node, attr and function is.

protobuf's text parser builds messages but keeps no positions, so this module
scans the same text once more, token by token, and records the (line, column)
of the fields findings point at. It only ever runs on text that the parser
has already accepted, so it can be small: it tracks nesting and counts the
repeated fields on the way to nodes, attrs and functions.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable
from typing import Any

from tflint.records import record

# One alternative per token kind; text is already known to be valid text format.
TOKEN = re.compile(
    r"""
      (?P<space>\s+)
    | (?P<comment>\#[^\n]*)
    | (?P<string>"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')
    | (?P<bracketed>\[[^\]\s"'{}<>]*\])
    | (?P<word>[A-Za-z0-9_.+\-]+)
    | (?P<open>[{<])
    | (?P<close>[}>])
    | (?P<list_open>\[)
    | (?P<list_close>\])
    | (?P<punct>[:,;])
    """,
    re.VERBOSE,
)


# Protobuf refuses messages nested deeper than this; so do we, before Python's stack does.
MAX_TEXT_NESTING = 100


def excess_nesting(text: str) -> tuple[str, int, int] | None:
    """Refuse text nested deeper than protobuf allows, before recursion does."""
    if text.count("{") + text.count("<") <= MAX_TEXT_NESTING:
        return None
    depth = 0
    for match in re.finditer(r"[{<]|[}>]|\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\.)*'|#[^\n]*", text):
        token = match.group()
        if token in "{<":
            depth += 1
            if depth > MAX_TEXT_NESTING:
                line = text.count("\n", 0, match.start()) + 1
                column = match.start() - (text.rfind("\n", 0, match.start()) + 1) + 1
                return f"message nesting deeper than {MAX_TEXT_NESTING} levels", line, column
        elif token in "}>":
            depth -= 1
    return None


@record()
class SourceMap:
    """Positions (1-based line, column) of the parts of a text graph findings name.

    Keys use indexes, not names, because names may repeat: graph `g` (the
    index of the GraphDef in the file: 0 for a GraphDef, the meta graph index
    otherwise), function `f` (index in the library, or None for top-level
    nodes), node `n` (index in its list).
    """

    nodes: dict[tuple[int, int | None, int], tuple[int, int]]
    attrs: dict[tuple[int, int | None, int, str], tuple[int, int]]
    functions: dict[tuple[int, int], tuple[int, int]]
    graphs: dict[int, tuple[int, int]]
    # (graph, field name) for GraphDef fields such as `versions`.
    fields: dict[tuple[int, str], tuple[int, int]]
    # (graph, op index) for each OpDef of a meta graph's stripped_op_list.
    ops: dict[tuple[int, int], tuple[int, int]]

    def __init__(
        self,
        nodes: dict[tuple[int, int | None, int], tuple[int, int]] | None = None,
        attrs: dict[tuple[int, int | None, int, str], tuple[int, int]] | None = None,
        functions: dict[tuple[int, int], tuple[int, int]] | None = None,
        graphs: dict[int, tuple[int, int]] | None = None,
        fields: dict[tuple[int, str], tuple[int, int]] | None = None,
        ops: dict[tuple[int, int], tuple[int, int]] | None = None,
    ) -> None:
        self.nodes = {} if nodes is None else nodes
        self.attrs = {} if attrs is None else attrs
        self.functions = {} if functions is None else functions
        self.graphs = {} if graphs is None else graphs
        self.fields = {} if fields is None else fields
        self.ops = {} if ops is None else ops

    def remapped(self, line_of: Callable[[int], int]) -> SourceMap:
        """A copy with every line number passed through `line_of`."""

        def move(table: dict[Any, tuple[int, int]]) -> dict[Any, tuple[int, int]]:
            return {key: (line_of(line), column) for key, (line, column) in table.items()}

        return SourceMap(
            move(self.nodes),
            move(self.attrs),
            move(self.functions),
            move(self.graphs),
            move(self.fields),
            move(self.ops),
        )


class LineTable:
    """Turns character offsets into 1-based (line, column) pairs."""

    def __init__(self, text: str) -> None:
        self._starts = [0]
        self._starts.extend(m.end() for m in re.finditer("\n", text))

    def position(self, offset: int) -> tuple[int, int]:
        """The (line, column) of character `offset`, both 1-based."""
        line = bisect.bisect_right(self._starts, offset)
        return line, offset - self._starts[line - 1] + 1


def _graph_root_depth(root: str) -> tuple[str, ...]:
    """The field path, from the file's message, under which a GraphDef lives."""
    return {"GraphDef": (), "MetaGraphDef": ("graph_def",), "SavedModel": ("meta_graphs", "graph_def")}[root]


def scan_positions(text: str, root: str) -> SourceMap:
    """Scan accepted text-format `text` whose top message is `root`.

    `root` is "GraphDef", "MetaGraphDef" or "SavedModel".
    """
    lines = LineTable(text)
    source = SourceMap()
    graph_path = _graph_root_depth(root)

    # The stack holds, per open message, its field name and a counter of
    # repeated child fields seen so far (to know node/function indexes).
    stack: _Stack = [("", {})]
    # Open `field: [ ... ]` lists, with the stack depth they belong to: inside
    # one, the field name carries on from element to element.
    lists: list[tuple[str | None, int]] = []
    pending: str | None = None
    pending_offset = 0
    meta_index = -1

    def carried() -> str | None:
        if lists and lists[-1][1] == len(stack):
            return lists[-1][0]
        return None

    for match in TOKEN.finditer(text):
        kind = match.lastgroup
        if kind in ("space", "comment", "punct"):
            continue
        if kind in ("word", "bracketed", "string"):
            if pending is None:
                if kind != "string":  # a field name
                    pending = match.group()
                    pending_offset = match.start()
                continue  # a string with no field: the tail of "a" "b" concatenation
            _scalar(stack, pending, match.group(), pending_offset, lines, source, graph_path, meta_index)
            pending = carried()
        elif kind == "list_open":
            lists.append((pending, len(stack)))
        elif kind == "list_close":
            lists.pop()
            pending = None
        elif kind == "open":
            name = pending or ""
            counters = stack[-1][1]
            counters[name] = counters.get(name, -1) + 1
            if name == "meta_graphs" and len(stack) == 1:
                meta_index = counters[name]
            stack.append((name, {"@index": counters[name], "@offset": pending_offset}))
            _opened(stack, lines, source, graph_path, meta_index)
            pending = None
        else:  # close
            stack.pop()
            pending = carried()
    return source


_Stack = list[tuple[str, dict[Any, Any]]]  # per open message: its field name, its counters (see scan_positions)


def _path(stack: _Stack) -> tuple[str, ...]:
    return tuple(name for name, _ in stack[1:])


def _graph_index(stack: _Stack, graph_path: tuple[str, ...], meta_index: int) -> tuple[int, int] | None:
    """If the stack is inside the GraphDef, return (graph index, depth of the GraphDef)."""
    path = _path(stack)
    depth = len(graph_path)
    if path[:depth] != graph_path:
        return None
    return (meta_index if graph_path and graph_path[0] == "meta_graphs" else 0), depth


# Where a meta graph's stripped_op_list entries sit, by the file's top message.
_OP_PATHS = {
    "MetaGraphDef": ("meta_info_def", "stripped_op_list", "op"),
    "SavedModel": ("meta_graphs", "meta_info_def", "stripped_op_list", "op"),
}


def _opened(stack: _Stack, lines: LineTable, source: SourceMap, graph_path: tuple[str, ...], meta_index: int) -> None:
    """Record the openings findings point at: graphs, functions, nodes, versions, OpDefs."""
    located = _graph_index(stack, graph_path, meta_index)
    if located is None:
        path = _path(stack)
        if path in _OP_PATHS.values():
            graph = meta_index if path[0] == "meta_graphs" else 0
            source.ops[(graph, stack[-1][1]["@index"])] = lines.position(stack[-1][1]["@offset"])
        return
    graph, depth = located
    path = _path(stack)
    offset = stack[-1][1]["@offset"]
    rest = path[depth:]
    if len(path) == depth and depth > 0:
        source.graphs.setdefault(graph, lines.position(offset))
    elif rest == ("library", "function"):
        source.functions[(graph, stack[-1][1]["@index"])] = lines.position(offset)
    elif rest == ("versions",):
        source.fields.setdefault((graph, "versions"), lines.position(offset))
    elif rest == ("node",):
        # Until its `name:` is seen, a node is located at its opening field.
        source.nodes[(graph, None, stack[-1][1]["@index"])] = lines.position(offset)
    elif rest == ("library", "function", "node_def"):
        source.nodes[(graph, stack[-2][1]["@index"], stack[-1][1]["@index"])] = lines.position(offset)


def _scalar(
    stack: _Stack,
    field_name: str,
    value: str,
    offset: int,
    lines: LineTable,
    source: SourceMap,
    graph_path: tuple[str, ...],
    meta_index: int,
) -> None:
    """Record node names and attr keys: the fields findings point at."""
    if field_name not in ("name", "key"):
        return
    located = _graph_index(stack, graph_path, meta_index)
    if located is None:
        return
    graph, depth = located
    rest = _path(stack)[depth:]
    if rest == ("node",) and field_name == "name":
        source.nodes[(graph, None, stack[-1][1]["@index"])] = lines.position(offset)
    elif rest == ("library", "function", "node_def") and field_name == "name":
        function = stack[-2][1]["@index"]
        source.nodes[(graph, function, stack[-1][1]["@index"])] = lines.position(offset)
    elif rest == ("library", "function", "signature") and field_name == "name":
        source.functions[(graph, stack[-2][1]["@index"])] = lines.position(offset)
    elif rest == ("node", "attr") and field_name == "key":
        node = stack[-2][1]["@index"]
        source.attrs.setdefault((graph, None, node, _unquote(value)), lines.position(offset))
    elif rest == ("library", "function", "node_def", "attr") and field_name == "key":
        function = stack[-3][1]["@index"]
        node = stack[-2][1]["@index"]
        source.attrs.setdefault((graph, function, node, _unquote(value)), lines.position(offset))


def _unquote(token: str) -> str:
    """The text of a string token, escapes resolved (attr keys are plain in practice)."""
    from google.protobuf import text_encoding

    body = token[1:-1]
    if "\\" not in body:
        return body
    return str(text_encoding.CUnescape(body).decode("utf-8", "replace"))
