"""Source positions for text-format graphs: where each node, attr and function is.

protobuf's text parser builds messages but keeps no positions, so this module
scans the same text once more, token by token, and records the (line, column)
of the fields findings point at. It only ever runs on text that the parser
has already accepted, so it can be small: it tracks nesting and counts the
repeated fields on the way to nodes, attrs and functions.
"""

from __future__ import annotations

import bisect
import functools
import re
import sys
from collections.abc import Callable
from typing import Any, NamedTuple

from tflint.records import record
from tflint.runtime.patterns import lazy

# One alternative per token kind; text is already known to be valid text format. A bracketed name
# (an extension or Any type) holds no `[`: each `[` is looked past once, however many there are.
TOKEN = lazy(
    r"""
      (?P<space>\s+)
    | (?P<comment>\#[^\n]*)
    | (?P<string>"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')
    | (?P<bracketed>\[[^\[\]\s"'{}<>]*\])
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


# The next token from a position, after the blanks, comments and separators before it (TOKEN's
# spaces, comments and punctuation, which the scan ignores). Its alternatives are TOKEN's, in
# TOKEN's order, but a field name comes with what follows it when that is a message's open or a
# scalar value: one match for `key: "T"` or `value {` instead of three. Blanks and comments take
# turns (a comment runs to a newline), and every character is some token (`other` at worst), as is
# the end: a match is never undone, which could give back the end of a comment to read as tokens.
_STRING = r""""(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'"""
_BRACKETED = r"""\[[^\[\]\s"'{}<>]*\]"""
_NEXT = re.compile(
    rf"""[\s:,;]*(?:\#[^\n]*[\s:,;]*)*
    (?:(?P<field>[A-Za-z0-9_.+\-]+|{_BRACKETED})[\s:]*(?:\#[^\n]*[\s:]*)*
         (?:(?P<field_open>[{{<])|(?P<value>{_STRING}|{_BRACKETED}|[A-Za-z0-9_.+\-]+))?
      |(?P<string>{_STRING})
      |(?P<open>[{{<])
      |(?P<close>[}}>])
      |(?P<list_open>\[)
      |(?P<list_close>\])
      |(?P<other>.)
      |(?P<end>\Z))""",
    re.VERBOSE | re.DOTALL,
)
# What can change the nesting depth inside a message the scan skips: its braces, found by search
# (the text between them is passed over in C), and the tokens that may hold a brace (strings,
# comments, bracketed names), matched whole from where TOKEN would start them.
_NESTING = re.compile(rf"""([{{<])|([}}>])|{_STRING}|\#[^\n]*|{_BRACKETED}""")


@functools.cache
def _rest_of_message(depth: int) -> re.Pattern[str] | None:
    """The rest of a message nested at most `depth` levels, up to its close, in one match (Python 3.11+).

    The same tokens as _NESTING, each taken whole and never given back
    (possessive), so a message nested deeper only fails to match, in time
    linear in its length.
    """
    if sys.version_info < (3, 11):
        return None  # no possessive quantifiers before 3.11: _past_message counts braces in a loop
    # A `[` that starts no bracketed name, a quote that starts no string: a character each.
    possessive = str.maketrans({"*": "*+"})
    tokens = (
        rf"""[^{{}}<>"'\#\[]++|{_STRING.translate(possessive)}|\#[^\n]*+|{_BRACKETED.translate(possessive)}|[\["']"""
    )
    nested = ""  # `|` and a message nested in this one, itself nesting up to the levels left
    for _ in range(depth):
        nested = rf"""|[{{<](?:{tokens}{nested})*+[}}>]"""
    return re.compile(rf"""(?:{tokens}{nested})*+[}}>]""")


# Most skipped messages (attr values, a shape, a list of them) nest less deeply than this.
_ONE_MATCH_DEPTH = 5
# From this long a text on, skipped messages are matched whole (compiling the pattern costs 1-2 ms).
_ONE_MATCH_TEXT = 256 << 10


def _past_message(text: str, start: int, one_match: re.Pattern[str] | None) -> int:
    """The offset just past the close of the message whose open ends at `start`."""
    if one_match is not None:
        rest = one_match.match(text, start)
        if rest is not None:
            return rest.end()
    depth = 1
    for match in _NESTING.finditer(text, start):
        if match.group(1) is not None:
            depth += 1
        elif match.group(2) is not None:
            depth -= 1
            if depth == 0:
                return match.end()
    return len(text)


# What an open message is to scan_positions: what its opening, and its `name` or `key` field, locate.
_OTHER = 0  # a message on the way to those below
_GRAPH = 1
_FUNCTION = 2
_VERSIONS = 3
_NODE = 4
_FUNCTION_NODE = 5
_OP = 6
_NODE_ATTR = 7
_SIGNATURE = 8
_FUNCTION_NODE_ATTR = 9

# Where a meta graph's stripped_op_list entries sit, by the file's top message.
_OP_PATHS = {
    "MetaGraphDef": ("meta_info_def", "stripped_op_list", "op"),
    "SavedModel": ("meta_graphs", "meta_info_def", "stripped_op_list", "op"),
}


def _roles(root: str) -> dict[tuple[str, ...], int]:
    """The field paths of the messages scan_positions looks inside, with what each is.

    They lead to what findings point at (the graph, its nodes and their attr
    keys, its functions, their signatures' names, their nodes and attr keys,
    its versions, a meta graph's OpDefs); any other message is skipped whole.
    """
    graph = _graph_root_depth(root)
    roles = {
        graph + ("library", "function"): _FUNCTION,
        graph + ("versions",): _VERSIONS,
        graph + ("node",): _NODE,
        graph + ("library", "function", "node_def"): _FUNCTION_NODE,
        graph + ("node", "attr"): _NODE_ATTR,
        graph + ("library", "function", "signature"): _SIGNATURE,
        graph + ("library", "function", "node_def", "attr"): _FUNCTION_NODE_ATTR,
    }
    if graph:
        roles[graph] = _GRAPH
    if root in _OP_PATHS:
        roles[_OP_PATHS[root]] = _OP
    for path in list(roles):
        for length in range(1, len(path)):
            roles.setdefault(path[:length], _OTHER)
    return roles


class _Frame(NamedTuple):
    """An open message of scan_positions' stack."""

    path: tuple[str, ...]
    role: int
    number: int  # among the messages of its field in its parent
    counters: dict[str, int]  # how many messages of each field it has opened so far


class _Lines:
    """LineTable.position for offsets met in increasing order: lines counted as the scan goes."""

    def __init__(self, text: str) -> None:
        self._text = text
        self._offset = 0  # the last offset asked about
        self._line = 1  # its line
        self._line_start = 0  # where that line starts
        self._table: LineTable | None = None

    def position(self, offset: int) -> tuple[int, int]:
        if offset < self._offset:  # not met in order (never, for a scan): look it up
            if self._table is None:
                self._table = LineTable(self._text)
            return self._table.position(offset)
        newlines = self._text.count("\n", self._offset, offset)
        if newlines:
            self._line += newlines
            self._line_start = self._text.rfind("\n", self._offset, offset) + 1
        self._offset = offset
        return self._line, offset - self._line_start + 1


def scan_positions(text: str, root: str) -> SourceMap:
    """Scan accepted text-format `text` whose top message is `root`.

    `root` is "GraphDef", "MetaGraphDef" or "SavedModel". Messages that hold
    nothing findings point at (attr values, a SavedModel's object graph, ...)
    are passed over by their braces alone: most of a big file's tokens are there.
    """
    lines = _Lines(text)
    source = SourceMap()
    roles = _roles(root)
    in_meta_graphs = root == "SavedModel"  # graphs are numbered by meta graph, else all are graph 0
    graph = 0
    stack: list[_Frame] = [_Frame((), _OTHER, 0, {})]
    # Open `field: [ ... ]` lists, with the stack depth they belong to: inside
    # one, the field name carries on from element to element.
    lists: list[tuple[str | None, int]] = []
    pending: str | None = None  # the field name read, whose value or message comes next
    pending_offset = -1  # where it is written; -1 when it is carried on in a list

    one_match = _rest_of_message(_ONE_MATCH_DEPTH) if len(text) >= _ONE_MATCH_TEXT else None
    next_token = _NEXT.match
    position = 0
    while True:
        match = next_token(text, position)
        if match is None or match.lastgroup == "end":  # (never None: every text has a next token, or its end)
            return source
        position = match.end()
        kind = match.lastgroup
        if kind == "field" or kind == "value" or kind == "field_open":
            if pending is not None:
                # A value of a list (`[a, b]`): the word alone, and what follows is read again.
                value = match.group("field")
                position = match.end("field")
                kind = "scalar"
            elif kind == "field":
                pending = match.group("field")
                pending_offset = match.start("field")
                continue
            else:
                pending = match.group("field")
                pending_offset = match.start("field")
                value = match.group("value")
                kind = "scalar" if kind == "value" else "open"
        elif kind == "string":
            if pending is None:
                continue  # a string with no field: the tail of "a" "b" concatenation
            value = match.group("string")
            kind = "scalar"
        if kind == "scalar":
            if pending == "name" or pending == "key":
                frame = stack[-1]
                role = frame.role
                if pending == "name":
                    if role == _NODE:
                        source.nodes[(graph, None, frame.number)] = lines.position(pending_offset)
                    elif role == _FUNCTION_NODE:
                        source.nodes[(graph, stack[-2].number, frame.number)] = lines.position(pending_offset)
                    elif role == _SIGNATURE:
                        source.functions[(graph, stack[-2].number)] = lines.position(pending_offset)
                elif role == _NODE_ATTR:
                    key: tuple[int, int | None, int, str] = (graph, None, stack[-2].number, _unquote(value))
                    if key not in source.attrs:
                        source.attrs[key] = lines.position(pending_offset)
                elif role == _FUNCTION_NODE_ATTR:
                    key = (graph, stack[-3].number, stack[-2].number, _unquote(value))
                    if key not in source.attrs:
                        source.attrs[key] = lines.position(pending_offset)
            pending = lists[-1][0] if lists and lists[-1][1] == len(stack) else None
            pending_offset = -1
        elif kind == "open":
            name = pending or ""
            parent = stack[-1]
            counters = parent.counters
            index = counters[name] = counters.get(name, -1) + 1
            if in_meta_graphs and name == "meta_graphs" and len(stack) == 1:
                graph = index
            path = parent.path + (name,)
            opened = roles.get(path)
            if opened is None:
                position = _past_message(text, position, one_match)
            else:
                # A message starts at its field name; a later element of a `field: [ ... ]` list, at its brace.
                stack.append(_Frame(path, opened, index, {}))
                if opened != _OTHER:
                    offset = pending_offset if pending_offset >= 0 else match.start(kind)
                    _opened(source, opened, graph, stack, lines.position(offset))
                pending = None
                pending_offset = -1
                continue
            pending = lists[-1][0] if lists and lists[-1][1] == len(stack) else None
            pending_offset = -1
        elif kind == "close":
            stack.pop()
            pending = lists[-1][0] if lists and lists[-1][1] == len(stack) else None
            pending_offset = -1
        elif kind == "list_open":
            lists.append((pending, len(stack)))
        elif kind == "list_close":
            lists.pop()
            pending = None


def _opened(source: SourceMap, role: int, graph: int, stack: list[_Frame], where: tuple[int, int]) -> None:
    """Record the openings findings point at: graphs, functions, nodes, versions, OpDefs."""
    index = stack[-1].number
    if role == _NODE:
        # Until its `name:` is seen, a node is located at its opening field.
        source.nodes[(graph, None, index)] = where
    elif role == _FUNCTION_NODE:
        source.nodes[(graph, stack[-2].number, index)] = where
    elif role == _FUNCTION:
        source.functions[(graph, index)] = where
    elif role == _GRAPH:
        source.graphs.setdefault(graph, where)
    elif role == _VERSIONS:
        source.fields.setdefault((graph, "versions"), where)
    elif role == _OP:
        source.ops[(graph, index)] = where


def _unquote(token: str) -> str:
    """The text of a string token, escapes resolved (attr keys are plain in practice)."""
    from google.protobuf import text_encoding

    body = token[1:-1]
    if "\\" not in body:
        return body
    return str(text_encoding.CUnescape(body).decode("utf-8", "replace"))
