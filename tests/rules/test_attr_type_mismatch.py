"""attr-type-mismatch: AttrValue kind vs AttrDef type, placeholders, empty values, DataTypes (D1-D6).

Every rejected case below was imported with TensorFlow 2.21 (`tf.graph_util.import_graph_def`);
the comment quotes its message.
"""

from __future__ import annotations

import pytest
from conftest import lint_bytes, lint_text, pinned

from tflint import protos
from tflint.finding import Severity

ID = "attr-type-mismatch"

CONST = 'node { name: "c" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 1 } } } }'


def _relu_t(value: str) -> str:
    """A graph whose line 2 is a Relu with attr T set to `value`."""
    return CONST + f'\nnode {{ name: "r" op: "Relu" input: "c" attr {{ key: "T" value {{ {value} }} }} }}\n'


def _conv(**attrs: str) -> str:
    """A graph whose line 2 is a Conv2D; keyword args replace its attrs' values."""
    values = {"T": "type: DT_FLOAT", "padding": 's: "SAME"', "strides": "list { i: 1 i: 1 i: 1 i: 1 }"}
    values.update(attrs)
    body = " ".join(f'attr {{ key: "{key}" value {{ {value} }} }}' for key, value in values.items())
    return CONST + f'\nnode {{ name: "conv" op: "Conv2D" input: "c" input: "c" {body} }}\n'


def _library(
    body_t: str, signature_attrs: str = 'attr { name: "T" type: "type" }', call_t: str = "type: DT_FLOAT"
) -> str:
    """A function whose body node `i` (line 6) sets T to `body_t`, called from the top level."""
    return f"""{CONST}
node {{ name: "call" op: "f" input: "c" attr {{ key: "T" value {{ {call_t} }} }} }}
library {{
  function {{
    signature {{ name: "f" input_arg {{ name: "x" type: DT_FLOAT }} output_arg {{ name: "y" type: DT_FLOAT }} {signature_attrs} }}
    node_def {{ name: "i" op: "Identity" input: "x" attr {{ key: "T" value {{ {body_t} }} }} }}
    ret {{ key: "y" value: "i:output:0" }}
  }}
}}
"""


FIFO = (
    CONST
    + """
node { name: "q" op: "FIFOQueueV2" attr { key: "component_types" value { list { type: DT_FLOAT type: DT_INT32 } } } attr { key: "shapes" value { } } }
"""
)

ODD_NAMES = (
    CONST
    + """
node { name: "a>b" op: "Identity" input: "c:0" attr { key: "T" value { type: DT_FLOAT } } attr { key: "_class" value { i: 3 } } }
node { name: "x-y.z" op: "Identity" input: "a>b" attr { key: "T" value { type: DT_FLOAT } } attr { key: "_output_shapes" value { s: "not shapes" } } }
"""
)

MULTILINE = (
    CONST
    + """
node {
  name: "pool"
  op: "MaxPool"
  input: "c"
  attr { key: "T" value { type: DT_FLOAT } }
  attr { key: "ksize" value { list { i: 1 i: 2 s: "2" i: 1 } } }
  attr { key: "strides" value { i: 1 } }
  attr { key: "padding" value { list { } } }
  attr { key: "data_format" value { list { s: "NHWC" } } }
}
"""
)


@pytest.mark.parametrize(
    "pbtxt, expected",
    [
        pytest.param(_relu_t("type: DT_FLOAT"), [], id="clean"),
        pytest.param(_relu_t("type: DT_FLOAT4_E2M1FN"), [], id="newest-dtype-33"),
        # AttrValue had value with type 'int' when 'type' expected
        pytest.param(_relu_t("i: 1"), [(ID, "r", 2)], id="D1-scalar-kind"),
        # AttrValue had value with type 'list(type)' when 'type' expected
        pytest.param(_relu_t("list { type: DT_FLOAT }"), [(ID, "r", 2)], id="D1-list-for-scalar"),
        # AttrValue missing value with expected type 'type'
        pytest.param(_relu_t(""), [(ID, "r", 2)], id="D3-empty-no-default"),
        pytest.param(_relu_t("list { }"), [(ID, "r", 2)], id="D3-empty-list-for-scalar"),
        # AttrValue had value with unexpected type 'placeholder'
        pytest.param(_relu_t('placeholder: ""'), [(ID, "r", 2)], id="D2-empty-placeholder"),
        # Input 0 of node i was passed float from c:0 incompatible with expected INVALID.
        pytest.param(_relu_t('placeholder: "T"'), [(ID, "r", 2)], id="D2-placeholder-top-level"),
        # AttrValue must not have reference type value of float_ref
        pytest.param(_relu_t("type: DT_FLOAT_REF"), [(ID, "r", 2)], id="D5-ref"),
        # AttrValue has invalid DataType
        pytest.param(_relu_t("type: DT_INVALID"), [(ID, "r", 2)], id="D6-invalid"),
        # AttrValue has invalid DataType enum: 150
        pytest.param(_relu_t("type: 150"), [(ID, "r", 2)], id="D4-enum-150"),
        # AttrValue had value with type 'int' when 'list(int)' expected
        pytest.param(_conv(strides="i: 1"), [(ID, "conv", 2)], id="D1-scalar-for-list"),
        # AttrValue had value with type 'list(string)' when 'list(int)' expected
        pytest.param(_conv(strides='list { i: 1 i: 1 s: "a" }'), [(ID, "conv", 2)], id="D1-mixed-list"),
        pytest.param(_conv(strides='list { s: "1" }'), [(ID, "conv", 2)], id="D1-list-of-other-kind"),
        # An AttrValue with nothing set is an empty list for list types (strides has no default).
        pytest.param(_conv(strides=""), [], id="empty-value-is-empty-list"),
        # Python's importer replaces an empty value by the default (imports; the C API would not).
        pytest.param(_conv(data_format=""), [], id="empty-value-with-default"),
        pytest.param(
            _conv(data_format='s: "NHWC"', use_cudnn_on_gpu="b: false", dilations="list { }"), [], id="all-present"
        ),
        pytest.param(FIFO, [], id="list-types-and-empty-list"),
        pytest.param(ODD_NAMES, [], id="underscore-attrs-skipped"),
        pytest.param(
            MULTILINE, [(ID, "pool", 7), (ID, "pool", 8), (ID, "pool", 9), (ID, "pool", 10)], id="each-attr-on-its-line"
        ),
        # Function bodies: placeholders bound from the call are fine; unbound ones and empty values are not.
        pytest.param(_library('placeholder: "T"'), [], id="function-placeholder-bound"),
        # Failed to bind all placeholders in $Q
        pytest.param(_library('placeholder: "Q"'), [(ID, "i", 6)], id="function-placeholder-unbound"),
        # Failed to bind all placeholders in <Unknown AttrValue type>
        pytest.param(_library(""), [(ID, "i", 6)], id="function-empty-value"),
        # input input[0] expected type INVALID != float, the type of x[0]
        pytest.param(_library("i: 1"), [(ID, "i", 6)], id="function-body-kind"),
        # Calls are checked against the signature: AttrValue had value with type 'int' when 'type' expected
        pytest.param(_library('placeholder: "T"', call_t="i: 1"), [(ID, "call", 2)], id="call-kind"),
        pytest.param(
            _library('placeholder: "T"', 'attr { name: "T" type: "type" default_value { type: DT_FLOAT } }', call_t=""),
            [(ID, "call", 2)],
            id="call-empty-value",
        ),
        pytest.param('node { name: "u" op: "NoSuchOp" attr { key: "T" value { i: 1 } } }', [], id="unknown-op"),
        pytest.param(
            _relu_t("type: DT_FLOAT")
            + 'node { name: "s" op: "Relu" input: "c" attr { key: "U" value { i: 1 } } attr { key: "T" value { type: DT_FLOAT } } }\n',
            [],
            id="unknown-attr-not-this-rule",
        ),
    ],
)
def test_attr_type_mismatch(pbtxt, expected):
    assert pinned(lint_text(pbtxt), rule=ID) == expected


def _binary_graph(set_value) -> bytes:
    graph = protos.GraphDef()
    const = graph.node.add(name="c", op="Const")
    const.attr["dtype"].type = 1
    const.attr["value"].tensor.dtype = 1
    const.attr["value"].tensor.float_val.append(1.0)
    node = graph.node.add(name="q", op="FIFOQueueV2")
    node.attr["component_types"].list.type.append(1)
    relu = graph.node.add(name="r", op="Relu", input=["c"])
    relu.attr["T"].type = 1
    set_value(graph)
    return graph.SerializeToString()


def _set_t(number):
    def apply(graph):
        graph.node[2].attr["T"].type = number

    return apply


def _append_type(number):
    def apply(graph):
        graph.node[1].attr["component_types"].list.type.append(number)

    return apply


@pytest.mark.parametrize(
    "setter, message",
    [
        pytest.param(_set_t(1), None, id="float"),
        pytest.param(_set_t(33), None, id="float4_e2m1fn"),
        # AttrValue has invalid DataType enum: 34 / 100 / 134 / -1
        pytest.param(
            _set_t(34), "Node 'r' (op Relu): attr 'T' is 34, which is not a DataType number TensorFlow defines", id="34"
        ),
        pytest.param(
            _set_t(100),
            "Node 'r' (op Relu): attr 'T' is 100, which is not a DataType number TensorFlow defines",
            id="100",
        ),
        pytest.param(
            _set_t(134),
            "Node 'r' (op Relu): attr 'T' is 134, which is not a DataType number TensorFlow defines",
            id="134",
        ),
        pytest.param(
            _set_t(-1),
            "Node 'r' (op Relu): attr 'T' is -1, which is not a DataType number TensorFlow defines",
            id="negative",
        ),
        # AttrValue must not have reference type value of float4_e2m1fn_ref
        pytest.param(
            _set_t(133),
            "Node 'r' (op Relu): attr 'T' is float4_e2m1fn_ref, a reference type (attrs name the base type, float4_e2m1fn)",
            id="133-ref",
        ),
        # AttrValue has invalid DataType enum: 150 / must not have reference type / contains invalid DataType
        pytest.param(
            _append_type(150),
            "Node 'q' (op FIFOQueueV2): attr 'component_types' element 1 is 150, which is not a DataType number TensorFlow defines",
            id="list-150",
        ),
        pytest.param(
            _append_type(101),
            "Node 'q' (op FIFOQueueV2): attr 'component_types' element 1 is float_ref, a reference type (attrs name the base type, float)",
            id="list-ref",
        ),
        pytest.param(
            _append_type(0),
            "Node 'q' (op FIFOQueueV2): attr 'component_types' element 1 is DT_INVALID",
            id="list-invalid",
        ),
    ],
)
def test_data_type_numbers_in_binary_graphs(setter, message):
    findings = [f for f in lint_bytes(_binary_graph(setter)) if f.rule == ID]
    assert [f.message for f in findings] == ([message] if message else [])


def test_messages_say_expected_and_actual():
    findings = [f for f in lint_text(MULTILINE) if f.rule == ID]
    assert [f.message for f in findings] == [
        "Node 'pool' (op MaxPool): attr 'ksize' is a list mixing int and string values; a list(int) holds only int values",
        "Node 'pool' (op MaxPool): attr 'strides' holds a single int where a list(int) is expected",
        "Node 'pool' (op MaxPool): attr 'padding' has an empty list where a string value is needed",
        "Node 'pool' (op MaxPool): attr 'data_format' holds a list(string) where a single string is expected",
    ]
    assert {f.severity for f in findings} == {Severity.ERROR}


def test_placeholder_messages():
    [top] = [f.message for f in lint_text(_relu_t('placeholder: "T"')) if f.rule == ID]
    assert (
        top
        == "Node 'r' (op Relu): attr 'T' is a placeholder ($T), which only a function body can have; a value is needed"
    )
    [unbound] = [f for f in lint_text(_library('placeholder: "Q"')) if f.rule == ID]
    assert (
        unbound.message
        == "Node 'i' (op Identity): attr 'T' is the placeholder $Q, but function f has no attr 'Q' to bind it to"
    )
    assert unbound.function == "f"


def test_same_value_on_many_nodes_is_judged_once_but_reported_each_time():
    nodes = "\n".join(
        f'node {{ name: "r{i}" op: "Relu" input: "c" attr {{ key: "T" value {{ i: 1 }} }} }}' for i in range(50)
    )
    assert pinned(lint_text(CONST + "\n" + nodes + "\n"), rule=ID) == [(ID, f"r{i}", i + 2) for i in range(50)]
