"""The per-graph index (tflint.tf.index): scopes, name lookup, consumers, attr groups, schema lookup.

TensorFlow semantics pinned: inputs refer to the *first* node of a name; a node named like an input
string with an index or '^' (`a:1`) does not answer that string; a call resolves against the
graph's function library before the op registry.
"""

from __future__ import annotations

from tflint.api import registry_for
from tflint.config.settings import default_config
from tflint.engine.run import build_index
from tflint.read.load import load_bytes
from tflint.tf.index import Scope
from tflint.tf.node import Node


def _node(name: str, *raw_inputs: str, op: str = "Identity", attr=None) -> Node:
    return Node(name, op, "", {} if attr is None else attr, raw_inputs)


def test_the_first_node_of_a_name_is_the_one_inputs_refer_to():
    first, second, reader = _node("a", op="Const"), _node("a", op="Placeholder"), _node("b", "a")
    scope = Scope(None, None, [first, second, reader])
    assert scope.by_name["a"] is first
    assert scope.duplicates == [second]
    assert scope.name is None and scope.arg_names == frozenset()
    assert Scope(None, None, [first, reader]).duplicates == []


def test_consumers_and_readers():
    a, b = _node("a"), _node("b", op="Split")
    c, d = _node("c", "a", "b:1", "^a"), _node("d", "b:1")
    scope = Scope(None, None, [a, b, c, d])
    assert [(node.name, item.raw) for node, item in scope.consumers_of("a")] == [("c", "a"), ("c", "^a")]
    assert [(node.name, item.index) for node, item in scope.consumers_of("b")] == [("c", 1), ("d", 1)]
    assert scope.consumers_of("nobody") == []
    assert [node.name for node in scope.nodes_reading({"b:1"})] == ["c", "d"]
    assert list(scope.nodes_reading([])) == []


def test_inputs_to_resolve_skip_plain_names_of_nodes():
    scope = Scope(None, None, [_node("a"), _node("b", "a", "a:0", "^a", "ghost")])
    assert sorted(item.raw for item in scope.inputs_to_resolve()) == ["^a", "a:0", "ghost"]
    # A node literally named `x:1` does not answer the input `x:1`: TensorFlow reads output 1 of `x`.
    odd = Scope(None, None, [_node("x:1"), _node("y", "x:1", "y")])
    assert [item.raw for item in odd.inputs_to_resolve()] == ["x:1"]


def test_attr_groups_follow_the_shared_attr_dict():
    shared, other = {"T": 1}, {"T": 1}  # equal but not shared: a reader shares identical attrs itself
    nodes = [
        _node("p", attr=shared),
        _node("q", attr=shared),
        _node("r", attr=other),
        _node("s", op="Neg", attr=shared),
    ]
    scope = Scope(None, None, nodes)
    assert [[node.name for node in group] for group in scope.attr_groups()] == [["p", "q"], ["r"], ["s"]]
    assert {op: [node.name for node in same] for op, same in scope.by_op().items()} == {
        "Identity": ["p", "q", "r"],
        "Neg": ["s"],
    }
    checked = []

    def issues_of(node):
        checked.append(node.name)
        return [node.name] if node.op == "Identity" else []

    # The first node of a group stands for it; the rest are checked only when it has issues.
    assert list(scope.attr_group_issues(issues_of)) == ["p", "q", "r"]
    assert checked == ["p", "q", "r", "s"]
    assert list(scope.attr_group_issues(issues_of, attr="missing")) == []


GRAPH = b"""
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "call" op: "Relu" input: "x" }
library {
  function { signature { name: "Relu" input_arg { name: "a" type: DT_FLOAT } output_arg { name: "y" type: DT_FLOAT } }
    node_def { name: "n" op: "Neg" input: "a" attr { key: "T" value { type: DT_FLOAT } } }
    ret { key: "y" value: "n:y:0" } } }
"""


def test_graph_index_scopes_and_the_library_shadowing_an_op():
    artifact = load_bytes(GRAPH, "graph.pbtxt")
    index = build_index(artifact.graphs[0], registry_for(default_config()), artifact)
    assert [scope.name for scope in index.scopes()] == [None, "Relu"]
    assert [node.name for node in index.all_nodes()] == ["x", "call", "n"]
    body = list(index.scopes())[1]
    assert body.arg_names == frozenset({"a"}) and body.nodes[0].function == "Relu"
    assert index.node("call").op == "Relu" and index.node("n") is None  # top level only
    # A library function named like a registered op is what a node with that op calls.
    schema = index.schema_for("Relu")
    assert schema.is_function and schema.source == "function library"
    assert not index.schema_for("Neg").is_function
    assert index.schema_for("NoSuchOp") is None
    # A schema without the default falls back to another registry layer's; functions have none.
    assert index.attr_default(index.schema_for("Placeholder"), "shape") is not None
    assert index.attr_default(schema, "T") is None


def test_derived_analyses_are_built_once_and_dropped_on_release():
    artifact = load_bytes(GRAPH, "graph.pbtxt")
    index = build_index(artifact.graphs[0], registry_for(default_config()), artifact)
    built = []

    def factory(graph):
        built.append(graph)
        return object()

    assert index.derived(factory) is index.derived(factory) and built == [index]
    index.release()
    index.derived(factory)
    assert built == [index, index]
