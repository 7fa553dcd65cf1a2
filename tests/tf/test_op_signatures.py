"""tflint.tf.op_signatures: resolved signatures shared by the signature rules."""

from __future__ import annotations

import textwrap

from google.protobuf import text_format

from tflint import protos
from tflint.tf.index import GraphIndex
from tflint.tf.op_signatures import (
    Signature,
    SignatureProblem,
    body_input,
    dtype_name,
    signatures,
    types_compatible,
)
from tflint.tf.registry import OpRegistry, bundled_ops, user_registry


def index(pbtxt: str, registry: OpRegistry | None = None) -> GraphIndex:
    graph = protos.GraphDef()
    text_format.Parse(textwrap.dedent(pbtxt), graph, descriptor_pool=protos.POOL)
    return GraphIndex(graph, registry or user_registry())


def test_dtype_names_and_compatibility():
    assert dtype_name(1) == "float"
    assert dtype_name(103) == "int32_ref"
    assert dtype_name(None) == "unknown"
    assert dtype_name(99) == "DataType 99"
    assert types_compatible(1, 1) and types_compatible(1, 101) and types_compatible(101, 101)
    assert not types_compatible(101, 1) and not types_compatible(3, 1)


def test_signatures_are_memoized_per_op_and_attr_values():
    graph = index("""
        node { name: "a" op: "Identity" attr { key: "T" value { type: DT_FLOAT } } }
        node { name: "b" op: "Identity" attr { key: "T" value { type: DT_FLOAT } } }
        node { name: "c" op: "Identity" attr { key: "T" value { type: DT_INT32 } } }
    """)
    cache = signatures(graph)
    a, b, c = (cache.of(node) for node in graph.nodes)
    assert a is b and a is not c
    assert a.input_types == (1,) and c.output_types == (3,)
    assert signatures(graph) is cache


def test_lengths_refs_and_defaults():
    graph = index("""
        node { name: "m" op: "Merge" attr { key: "T" value { type: DT_FLOAT } } attr { key: "N" value { i: 3 } } }
        node { name: "v" op: "VariableV2" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape {} } } }
        node { name: "s" op: "Shape" attr { key: "T" value { type: DT_FLOAT } } attr { key: "out_type" value { } } }
        node { name: "c" op: "ConcatV2" attr { key: "T" value { type: DT_FLOAT } } attr { key: "N" value { i: 2 } } }
    """)
    cache = signatures(graph)
    merge, variable, shape, concat = (cache.resolved(node) for node in graph.nodes)
    assert merge.input_types == (1, 1, 1) and merge.output_types == (1, 3)
    assert variable.output_types == (101,)
    assert shape.output_types == (3,)  # an empty AttrValue takes the default, as Python's importer does
    assert concat.input_types == (1, 1, 3)  # Tidx omitted: its default int32


def test_problems_say_which_attr_and_whether_the_op_declares_it():
    graph = index("""
        node { name: "u" op: "Unpack" attr { key: "T" value { type: DT_FLOAT } } attr { key: "num" value { i: -1 } } }
        node { name: "n" op: "AddN" attr { key: "T" value { type: DT_FLOAT } } }
        node { name: "i" op: "IdentityN" attr { key: "T" value { s: "float" } } }
        node { name: "x" op: "NotAnOp" }
    """)
    unpack, addn, identity_n, unknown = (signatures(graph).of(node) for node in graph.nodes)
    assert isinstance(unpack, SignatureProblem) and (unpack.kind, unpack.attr) == ("negative", "num")
    assert (addn.kind, addn.attr, addn.declared) == ("missing", "N", True)
    assert (identity_n.kind, identity_n.attr) == ("ill-typed", "T")
    assert unknown is None


def test_placeholders_make_types_and_lengths_unknown():
    graph = index("""
        library { function {
          signature { name: "f" input_arg { name: "x" type_attr: "T" } input_arg { name: "xs" type: DT_FLOAT number_attr: "K" } output_arg { name: "y" type: DT_FLOAT } attr { name: "T" type: "type" } attr { name: "K" type: "int" } }
          node_def { name: "i" op: "Identity" input: "x" attr { key: "T" value { placeholder: "T" } } }
          node_def { name: "s" op: "AddN" input: "xs" attr { key: "T" value { type: DT_FLOAT } } attr { key: "N" value { placeholder: "K" } } }
          ret { key: "y" value: "s:sum:0" }
        } }
    """)
    cache = signatures(graph)
    scope = graph.function_scopes[0]
    identity, addn = (cache.of(node) for node in scope.nodes)
    assert isinstance(identity, Signature) and identity.input_types == (None,)
    assert addn.input_types is None and addn.output_types == (1,)
    assert body_input(cache, scope, scope.nodes[0].inputs[0]).types == (None,)
    assert body_input(cache, scope, scope.nodes[1].inputs[0]).types is None


def test_a_default_missing_from_the_first_layer_comes_from_another():
    old_shape = protos.OpDef()
    old_shape.CopyFrom(bundled_ops()["Shape"])
    for attr in old_shape.attr:
        if attr.name == "out_type":
            attr.ClearField("default_value")
    registry = OpRegistry([("stripped_op_list", {"Shape": old_shape})])
    graph = index('node { name: "s" op: "Shape" attr { key: "T" value { type: DT_FLOAT } } }', registry)
    assert signatures(graph).resolved(graph.nodes[0]).output_types == (3,)
