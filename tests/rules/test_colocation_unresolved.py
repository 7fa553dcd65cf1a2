"""colocation-unresolved: `_class` entries `loc:@X` must name a node; `_class` must be readable.

Verified with TensorFlow 2.21 (`import_graph_def`):
- `loc:@missing`, `loc:@`, `loc:@x:0` -> "Node 'b' expects to be colocated with unknown node '...'";
- `loc:@x` and `loc:@b` (itself), entries without the prefix, `list {}`, an
  empty AttrValue, `s: ""`, `list { s: "loc:@x" i: 1 }` -> imported;
- `s: "loc:@x"`, `i: 3`, `b`, `f`, `type`, `shape`, `func`, `list { i: 1 }`,
  `list { type: DT_FLOAT }` -> TypeError in Python's importer; `placeholder`
  -> AssertionError; a non-UTF-8 entry -> UnicodeDecodeError;
- in a function body, `loc:@missing` and `loc:@<top-level node>` -> the
  called function runs.
"""

from __future__ import annotations

import pytest
from conftest import lint_text, pinned

ID = "colocation-unresolved"

HEAD = 'node { name: "x" op: "NoOp" }\n'


def _graph(value: str) -> str:
    return HEAD + f'node {{ name: "b" op: "NoOp" attr {{ key: "_class" value {{ {value} }} }} }}\n'


@pytest.mark.parametrize(
    "value",
    [
        pytest.param('list { s: "loc:@x" }', id="resolves"),
        pytest.param('list { s: "loc:@b" }', id="itself"),
        pytest.param('list { s: "loc:@x" s: "loc:@b" }', id="several"),
        pytest.param('list { s: "x" s: "loc:x" s: "LOC:@x" }', id="not-colocation-entries"),
        pytest.param("list { }", id="empty-list"),
        pytest.param("", id="empty-value"),
        pytest.param('s: ""', id="empty-string"),
        pytest.param('list { s: "loc:@x" i: 1 }', id="strings-win-in-a-mixed-list"),
    ],
)
def test_clean(value):
    assert pinned(lint_text(_graph(value)), rule=ID) == []


@pytest.mark.parametrize(
    "value, count",
    [
        pytest.param('list { s: "loc:@missing" }', 1, id="unknown-node"),
        pytest.param('list { s: "loc:@" }', 1, id="empty-name"),
        pytest.param('list { s: "loc:@x:0" }', 1, id="tensor-name"),
        pytest.param('list { s: "loc:@x" s: "loc:@y" s: "loc:@z" }', 2, id="each-entry"),
        pytest.param('s: "loc:@x"', 1, id="single-string"),
        pytest.param("i: 3", 1, id="int"),
        pytest.param("b: true", 1, id="bool"),
        pytest.param("shape { }", 1, id="shape"),
        pytest.param('func { name: "f" }', 1, id="func"),
        pytest.param('placeholder: "T"', 1, id="placeholder"),
        pytest.param("list { i: 1 }", 1, id="list-of-ints"),
        pytest.param("list { type: DT_FLOAT }", 1, id="list-of-types"),
        pytest.param('list { s: "\\377" }', 1, id="not-utf8"),
    ],
)
def test_reported(value, count):
    assert pinned(lint_text(_graph(value)), rule=ID) == [(ID, "b", 2)] * count


def test_location_is_the_attr_entry():
    text = (
        HEAD
        + 'node {\n  name: "b"\n  op: "NoOp"\n  attr {\n    key: "_class"\n    value { list { s: "loc:@gone" } }\n  }\n}\n'
    )
    [finding] = [f for f in lint_text(text) if f.rule == ID]
    assert (finding.node, finding.line) == ("b", 6)  # the `key: "_class"` line, not the node's (2)


def test_function_bodies_are_not_checked():
    text = HEAD + (
        "library { function {\n"
        '  signature { name: "f" }\n'
        '  node_def { name: "n" op: "NoOp" attr { key: "_class" value { list { s: "loc:@Const" } } } }\n'
        '  node_def { name: "m" op: "NoOp" attr { key: "_class" value { list { s: "loc:@x" } } } }\n'
        "} }\n"
    )
    assert pinned(lint_text(text), rule=ID) == []


def test_names_are_looked_up_in_the_top_level_graph_only():
    text = (
        "library { function {\n"
        '  signature { name: "f" }\n'
        '  node_def { name: "inner" op: "NoOp" }\n'
        "} }\n"
        'node { name: "b" op: "NoOp" attr { key: "_class" value { list { s: "loc:@inner" } } } }\n'
    )
    assert pinned(lint_text(text), rule=ID) == [(ID, "b", 5)]


def test_messages():
    [finding] = [f for f in lint_text(_graph('list { s: "loc:@missing" }')) if f.rule == ID]
    assert finding.message == (
        "Node 'b': attr '_class' entry 'loc:@missing' names no node of the graph "
        "(TensorFlow: expects to be colocated with unknown node 'missing')"
    )
    [finding] = [f for f in lint_text(_graph("i: 3")) if f.rule == ID]
    assert (
        finding.message
        == "Node 'b': attr '_class' holds an int, not a list of strings; TensorFlow's Python importer fails reading it"
    )
