"""The shared attr analysis (tflint.tf.attrs): one pass per graph, layered OpDefs, and a mutation suite.

The mutation suite breaks real graphs written by TensorFlow (../shared/corpus) one attr at a
time and pins exactly what the five attr rules report. Each mutation was imported with
TensorFlow 2.21; the comment quotes its verdict.
"""

from __future__ import annotations

import pytest
from conftest import CORPUS, lint_bytes, require

from tflint import protos
from tflint.api import registry_for
from tflint.config.settings import default_config
from tflint.engine.run import build_index
from tflint.read.load import load_bytes
from tflint.rules import (
    allowed_values,
    attr_minimum,
    attr_type_mismatch,
    missing_attr,
    unknown_attr,
)
from tflint.tf.attrs import attr_report, op_attrs, quote_string, type_name

ATTR_RULES = ("missing-attr", "unknown-attr", "attr-type-mismatch", "allowed-values", "attr-minimum")

CNN = "b_keras_cnn_frozen.pb"
CONV = "small_cnn_1/conv1_1/convolution"
POOL = "small_cnn_1/pool1_1/MaxPool2d"
META = "a_tf1_saver_ref.meta"


def _index(data: bytes, name: str = "graph.pb"):
    artifact = load_bytes(data, name)
    return build_index(artifact.graphs[0], registry_for(default_config()), artifact)


def _attr_findings(data: bytes, name: str = "graph.pb"):
    return sorted((f.rule, f.node, f.message) for f in lint_bytes(data, name=name) if f.rule in ATTR_RULES)


def _graph(name: str):
    graph = protos.GraphDef()
    graph.ParseFromString(require(CORPUS / name).read_bytes())
    return graph


def _node(graph, name: str):
    return next(node for node in graph.node if node.name == name)


def _drop(key):
    def apply(node):
        del node.attr[key]

    return apply


def _set(key, **field):
    def apply(node):
        node.attr[key].Clear()
        for name, value in field.items():
            if name == "list_i":
                node.attr[key].list.i.extend(value)
            elif name == "list_s":
                node.attr[key].list.s.extend(value)
            elif name == "empty":
                node.attr[key].SetInParent()
            else:
                setattr(node.attr[key], name, value)

    return apply


MUTATIONS = [
    # NodeDef missing attr 'T' from Op<name=Conv2D; ...>
    pytest.param(
        CONV,
        _drop("T"),
        [("missing-attr", CONV, f"Node '{CONV}' (op Conv2D) is missing attr 'T' (type), which has no default")],
        id="drop-T",
    ),
    # Defaults are filled in at import: dropping data_format / dilations changes nothing (imports).
    pytest.param(CONV, _drop("data_format"), [], id="drop-defaulted"),
    # NodeDef mentions attribute bogus which is not in the op definition (logged; imports)
    pytest.param(
        CONV,
        _set("bogus", i=1),
        [
            (
                "unknown-attr",
                CONV,
                f"Node '{CONV}' (op Conv2D) has attr 'bogus', which op Conv2D does not define; TensorFlow ignores it",
            )
        ],
        id="add-unknown",
    ),
    # Internal attrs are never checked (imports).
    pytest.param(CONV, _set("_bogus", placeholder=""), [], id="add-internal"),
    # AttrValue had value with type 'int' when 'type' expected
    pytest.param(
        CONV,
        _set("T", i=1),
        [("attr-type-mismatch", CONV, f"Node '{CONV}' (op Conv2D): attr 'T' holds an int where a type is expected")],
        id="T-int",
    ),
    # AttrValue must not have reference type value of float_ref
    pytest.param(
        CONV,
        _set("T", type=101),
        [
            (
                "attr-type-mismatch",
                CONV,
                f"Node '{CONV}' (op Conv2D): attr 'T' is float_ref, a reference type (attrs name the base type, float)",
            )
        ],
        id="T-ref",
    ),
    # AttrValue has invalid DataType enum: 77
    pytest.param(
        CONV,
        _set("T", type=77),
        [
            (
                "attr-type-mismatch",
                CONV,
                f"Node '{CONV}' (op Conv2D): attr 'T' is 77, which is not a DataType number TensorFlow defines",
            )
        ],
        id="T-77",
    ),
    # Value for attr 'T' of int64 is not in the list of allowed values: half, bfloat16, float, double, int32
    pytest.param(
        CONV,
        _set("T", type=9),
        [
            (
                "allowed-values",
                CONV,
                f"Node '{CONV}' (op Conv2D): attr 'T' is int64; allowed values are half, bfloat16, float, double, int32",
            )
        ],
        id="T-int64",
    ),
    # Value for attr 'padding' of "FOO" is not in the list of allowed values: "SAME", "VALID", "EXPLICIT"
    pytest.param(
        CONV,
        _set("padding", s=b"FOO"),
        [
            (
                "allowed-values",
                CONV,
                f'Node \'{CONV}\' (op Conv2D): attr \'padding\' is "FOO"; allowed values are "SAME", "VALID", "EXPLICIT"',
            )
        ],
        id="padding-FOO",
    ),
    # AttrValue had value with type 'list(string)' when 'list(int)' expected
    pytest.param(
        CONV,
        _set("strides", list_s=[b"1"]),
        [
            (
                "attr-type-mismatch",
                CONV,
                f"Node '{CONV}' (op Conv2D): attr 'strides' holds a list(string) where a list(int) is expected",
            )
        ],
        id="strides-strings",
    ),
    # Length for attr 'ksize' of 2 must be at least minimum 4
    pytest.param(
        POOL,
        _set("ksize", list_i=[1, 2]),
        [("attr-minimum", POOL, f"Node '{POOL}' (op MaxPool): attr 'ksize' has 2 elements; it needs at least 4")],
        id="ksize-short",
    ),
    # Imports: Python's importer replaces an empty value by the OpDef default.
    pytest.param(POOL, _set("data_format", empty=True), [], id="empty-defaulted"),
    # AttrValue missing value with expected type 'string'
    pytest.param(
        POOL,
        _set("padding", empty=True),
        [
            (
                "attr-type-mismatch",
                POOL,
                f"Node '{POOL}' (op MaxPool): attr 'padding' has no value (a string is expected)",
            )
        ],
        id="empty-padding",
    ),
]


@pytest.mark.parametrize("node_name, mutate, expected", MUTATIONS)
def test_mutated_real_graph(node_name, mutate, expected):
    graph = _graph(CNN)
    mutate(_node(graph, node_name))
    assert _attr_findings(graph.SerializeToString()) == sorted(expected)


def test_real_graphs_are_clean():
    for path in sorted(require(CORPUS).iterdir()):
        if path.suffix in (".md",):
            continue
        assert _attr_findings(path.read_bytes(), name=path.name) == [], path.name


def test_meta_graph_with_older_stripped_op_list():
    """A producer's OpDef without an attr TF 2.21 has: the node may carry it, or leave it out."""
    meta = protos.MetaGraphDef()
    meta.ParseFromString(require(CORPUS / META).read_bytes())
    stripped = next(op for op in meta.meta_info_def.stripped_op_list.op if op.name == "VariableV2")
    kept = [attr for attr in stripped.attr if attr.name != "container"]
    del stripped.attr[:]
    stripped.attr.extend(kept)
    assert _attr_findings(meta.SerializeToString(), name="g.meta") == []
    # Removing the default from the producer's `shape` changes nothing either: TF 2.21 has none
    # (it is required), and the node sets it.
    node = next(node for node in meta.graph_def.node if node.op == "VariableV2")
    del node.attr["shape"]
    assert _attr_findings(meta.SerializeToString(), name="g.meta") == [
        (
            "missing-attr",
            node.name,
            f"Node '{node.name}' (op VariableV2) is missing attr 'shape' (shape), which has no default",
        )
    ]


def test_report_is_built_once_and_shared_by_the_rules():
    graph = _graph(CNN)
    _node(graph, CONV).attr["T"].i = 1
    _node(graph, POOL).attr["bogus"].i = 1
    del _node(graph, POOL).attr["padding"]
    index = _index(graph.SerializeToString())
    report = attr_report(index)
    assert attr_report(index) is report
    assert list(attr_type_mismatch.check(index, {})) == report.mismatch and len(report.mismatch) == 1
    assert list(unknown_attr.check(index, {})) == report.unknown and len(report.unknown) == 1
    assert list(missing_attr.check(index, {})) == report.missing and len(report.missing) == 1
    assert list(allowed_values.check(index, {})) == list(attr_minimum.check(index, {})) == []


def test_layers_merge_defaults_minimums_and_allowed_values():
    meta = protos.MetaGraphDef()
    op = meta.meta_info_def.stripped_op_list.op.add(name="StringJoin")
    op.input_arg.add(name="inputs", type=7, number_attr="N")
    op.output_arg.add(name="output", type=7)
    op.attr.add(name="N", type="int", has_minimum=True, minimum=1)
    op.attr.add(name="separator", type="string")  # no default here; TF 2.21 has one
    op.attr.add(
        name="future", type="string", allowed_values=protos.AttrValue(list=protos.AttrValue.ListValue(s=[b"a"]))
    )
    meta.graph_def.node.add(name="j", op="StringJoin")
    index = _index(meta.SerializeToString(), "g.meta")
    spec = op_attrs(index, "StringJoin")
    assert spec.required == ("N", "future")
    assert spec.attrs["N"].minimum == 0  # TF 2.21 lowered it
    assert spec.attrs["separator"].has_default
    assert spec.attrs["future"].allowed == (b"a",)  # only one layer declares it
    assert op_attrs(index, "NoSuchOp") is None


def test_names():
    assert [type_name(number) for number in (1, 3, 101, 0, 150)] == ["float", "int32", "float_ref", "DT_INVALID", "150"]
    assert quote_string(b'a"b\\c\n\x01') == '"a\\"b\\\\c\\n\\001"'
