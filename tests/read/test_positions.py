"""scan_positions against a plain token-by-token reference scan, on every text graph of tests/data and on
layouts written to trip it (lists of messages, `< >` delimiters, braces in strings, comments and Any
type names, deep nesting inside and outside the messages it skips)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tflint.read import positions
from tflint.read.positions import TOKEN, LineTable, SourceMap, scan_positions

DATA = Path(__file__).resolve().parent.parent / "data"


def reference_scan(text: str, root: str) -> SourceMap:
    """Every token in turn, the field path of every open message rebuilt at each: slow and plain.

    This is the scan tflint used before it skipped messages; a later element of a `field: [ ... ]`
    list is located at its brace (the old scan took the last field name read before it).
    """
    lines = LineTable(text)
    source = SourceMap()
    graph_path = {"GraphDef": (), "MetaGraphDef": ("graph_def",), "SavedModel": ("meta_graphs", "graph_def")}[root]
    op_paths = {
        "MetaGraphDef": ("meta_info_def", "stripped_op_list", "op"),
        "SavedModel": ("meta_graphs", "meta_info_def", "stripped_op_list", "op"),
    }
    stack: list[tuple[str, dict[Any, Any]]] = [("", {})]
    lists: list[tuple[str | None, int]] = []
    pending: str | None = None
    pending_offset = -1
    meta_index = -1

    def carried() -> str | None:
        return lists[-1][0] if lists and lists[-1][1] == len(stack) else None

    def where() -> tuple[tuple[str, ...], int, int] | None:
        path = tuple(name for name, _ in stack[1:])
        if path[: len(graph_path)] != graph_path:
            return None
        graph = meta_index if graph_path and graph_path[0] == "meta_graphs" else 0
        return path, graph, len(graph_path)

    for match in TOKEN.finditer(text):
        kind = match.lastgroup
        if kind in ("space", "comment", "punct"):
            continue
        if kind in ("word", "bracketed", "string"):
            if pending is None:
                if kind != "string":
                    pending, pending_offset = match.group(), match.start()
                continue
            located = where()
            if located is not None and pending in ("name", "key"):
                path, graph, depth = located
                rest, at = path[depth:], lines.position(pending_offset)
                if rest == ("node",) and pending == "name":
                    source.nodes[(graph, None, stack[-1][1]["@index"])] = at
                elif rest == ("library", "function", "node_def") and pending == "name":
                    source.nodes[(graph, stack[-2][1]["@index"], stack[-1][1]["@index"])] = at
                elif rest == ("library", "function", "signature") and pending == "name":
                    source.functions[(graph, stack[-2][1]["@index"])] = at
                elif rest == ("node", "attr") and pending == "key":
                    source.attrs.setdefault(
                        (graph, None, stack[-2][1]["@index"], positions._unquote(match.group())), at
                    )
                elif rest == ("library", "function", "node_def", "attr") and pending == "key":
                    key = (graph, stack[-3][1]["@index"], stack[-2][1]["@index"], positions._unquote(match.group()))
                    source.attrs.setdefault(key, at)
            pending, pending_offset = carried(), -1
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
            offset = pending_offset if pending_offset >= 0 else match.start()
            stack.append((name, {"@index": counters[name]}))
            pending, pending_offset = None, -1
            at = lines.position(offset)
            index = stack[-1][1]["@index"]
            located = where()
            if located is None:
                path = tuple(name for name, _ in stack[1:])
                if path in op_paths.values():
                    source.ops[(meta_index if path[0] == "meta_graphs" else 0, index)] = at
                continue
            path, graph, depth = located
            rest = path[depth:]
            if len(path) == depth and depth > 0:
                source.graphs.setdefault(graph, at)
            elif rest == ("library", "function"):
                source.functions[(graph, index)] = at
            elif rest == ("versions",):
                source.fields.setdefault((graph, "versions"), at)
            elif rest == ("node",):
                source.nodes[(graph, None, index)] = at
            elif rest == ("library", "function", "node_def"):
                source.nodes[(graph, stack[-2][1]["@index"], index)] = at
        else:
            stack.pop()
            pending, pending_offset = carried(), -1
    return source


def _root(path: Path, text: str) -> str:
    if re.search(r"^meta_graphs\s*[{<:]", text, re.MULTILINE):
        return "SavedModel"
    if re.search(r"^(graph_def|meta_info_def)\s*[{<:]", text, re.MULTILINE):
        return "MetaGraphDef"
    return "GraphDef"


TEXT_FILES = sorted(
    path
    for path in DATA.rglob("*")
    if path.is_file() and path.suffix in (".pbtxt", ".textproto", ".prototxt") and path.stat().st_size < 4 << 20
)


def _nested_funcs(depth: int, inside: str) -> str:
    """An AttrValue's body nesting a function attr `depth` times (three messages a level) around `inside`."""
    body = inside
    for level in range(depth):
        body = f'func {{ name: "f{level}" attr {{ key: "a" value {{ {body} }} }} }}'
    return body


TRICKY = {
    "lists of messages, later ones nameless": (
        "GraphDef",
        'node: [{name: "a" op: "Const" attr {key: "T" value {type: DT_FLOAT}}}, {op: "Identity"}, <name: "c">]\n'
        'library { function: [{signature {name: "f"}\n'
        '  node_def: [{name: "x" attr: [{key: "k"}, {key: "j"}]}, {op: "y"}]}] }\n',
    ),
    "angle brackets, comments and strings holding braces": (
        "GraphDef",
        'node < name: "a{" # } a comment with a brace\n op: \'Op}\' attr < key: "T" value < s: "}}>{" > > >\n'
        'node {\n  # {\n  name: "b"\n  attr { key: "x" value { list { s: ["{", "}", \'>\'] } } }\n}\n',
    ),
    "Any type names in skipped and scanned messages": (
        "MetaGraphDef",
        'meta_info_def { any_info { [type.googleapis.com/tensorflow.AttrValue] { s: "}" } }\n'
        '  stripped_op_list { op { name: "A" } op: [{name: "B"}, {name: "C"}] } }\n'
        'graph_def { node { name: "n" attr { key: "v"\n'
        '  value { func { name: "[x]" attr { key: "#" value { s: "#" } } } } } }\n'
        "  versions { producer: 1 } }\n"
        'collection_def { key: "c" value { any_list {\n'
        '  value { [type.googleapis.com/tensorflow.NodeDef] < name: "}" > } } } }\n',
    ),
    "deep nesting in a skipped value": (
        "GraphDef",
        'node { name: "deep" attr { key: "v" value { '
        + _nested_funcs(30, 's: "}"')
        + ' } } }\nnode { name: "after" }\n',
    ),
    "string concatenation and bare values": (
        "GraphDef",
        'node { name: "a" "b" op: "X" input: ["p", "q"] device: "" attr { key: "k" "ey" value { i: -5 } } }\n'
        "node { name: \"c\" attr { key: 'q\\'' value { f: -inf } } } versions { producer: 27 min_consumer: 12 }\n",
    ),
    "a last comment holding brackets, without a newline": (
        "GraphDef",
        'node { name: "a" }  # tflint: ignore[unknown-op] { ] >\nnode { name: "b" }  # [x] } ] <',
    ),
    "saved model with several meta graphs": (
        "SavedModel",
        "saved_model_schema_version: 1\n"
        'meta_graphs { meta_info_def { stripped_op_list { op { name: "A" } } } graph_def { node { name: "x" } } }\n'
        'meta_graphs {\n  object_graph_def { nodes { children { node_id: 1 local_name: "{" } } }\n'
        '  graph_def {\n    node { name: "y" attr { key: "T" value { type: DT_INT32 } } }\n'
        '    library { function { signature { name: "g" input_arg { name: "z" } } node_def { name: "w" } } }\n  }\n}\n',
    ),
}


def _both(text: str, root: str) -> tuple[SourceMap, SourceMap]:
    return scan_positions(text, root), reference_scan(text, root)


@pytest.fixture(params=[True, False], ids=["one-match skip", "brace loop"])
def one_match(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> bool:
    """Skipped messages matched whole (as in a big text) or by counting braces (a small one)."""
    monkeypatch.setattr(positions, "_ONE_MATCH_TEXT", 0 if request.param else 1 << 60)
    return bool(request.param)


@pytest.mark.parametrize("path", TEXT_FILES, ids=lambda path: str(path.relative_to(DATA)))
def test_same_positions_as_the_reference_on_test_graphs(path: Path, one_match: bool) -> None:
    text = path.read_text(encoding="utf-8", errors="replace")
    fast, reference = _both(text, _root(path, text))
    assert fast == reference


@pytest.mark.parametrize("name", sorted(TRICKY))
def test_same_positions_as_the_reference_on_tricky_layouts(name: str, one_match: bool) -> None:
    root, text = TRICKY[name]
    fast, reference = _both(text, root)
    assert fast == reference
    assert fast.nodes  # the layout is read, not skipped whole


def test_a_later_list_element_is_located_at_its_brace() -> None:
    text = 'node: [{name: "a"},\n  {op: "X"}]\n'
    assert scan_positions(text, "GraphDef").nodes == {(0, None, 0): (1, 9), (0, None, 1): (2, 3)}


def test_a_skipped_message_nested_deeper_than_one_match_reaches_its_close(one_match: bool) -> None:
    depth = 40
    text = 'node { attr { key: "v" value { ' + _nested_funcs(depth, "i: 1") + ' } }\n name: "late" }\n'
    assert scan_positions(text, "GraphDef").nodes == {(0, None, 0): (2, 2)}


def test_positions_asked_out_of_order_are_looked_up() -> None:
    lines = positions._Lines("ab\ncd\nef")
    assert [lines.position(offset) for offset in (4, 7, 1)] == [(2, 2), (3, 2), (1, 2)]
