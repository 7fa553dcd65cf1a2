"""allowed-values: type / string attrs (and their lists) against `allowed_values` (E3, E4).

Rejected cases were imported with TensorFlow 2.21; the comments quote its message.
"""

from __future__ import annotations

import pytest
from conftest import lint_text, pinned

from tflint.finding import Severity

ID = "allowed-values"

CONST = 'node { name: "c" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 1 } } } }'


def _conv(**attrs: str) -> str:
    """A graph whose line 2 is a Conv2D; keyword args replace its attrs' values."""
    values = {"T": "type: DT_FLOAT", "padding": 's: "SAME"', "strides": "list { i: 1 i: 1 i: 1 i: 1 }"}
    values.update(attrs)
    body = " ".join(f'attr {{ key: "{key}" value {{ {value} }} }}' for key, value in values.items())
    return CONST + f'\nnode {{ name: "conv" op: "Conv2D" input: "c" input: "c" {body} }}\n'


STRING = 'node { name: "s" op: "Const" attr { key: "dtype" value { type: DT_STRING } } attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape { } string_val: "1" } } } }'


def _decode_csv(types: str) -> str:
    return f'{STRING}\n{CONST}\nnode {{ name: "csv" op: "DecodeCSV" input: "s" input: "c" attr {{ key: "OUT_TYPE" value {{ list {{ {types} }} }} }} }}\n'


def _enum_list(strings: str) -> str:
    # AttrEnumList is one of TensorFlow's test ops: a list(string) with allowed "apples", "oranges".
    return f'node {{ name: "e" op: "AttrEnumList" attr {{ key: "a" value {{ list {{ {strings} }} }} }} }}\n'


# An old producer's stripped_op_list allows fewer dtypes for Conv2D than TF 2.21 does (bfloat16
# came later), and names a custom op whose `mode` allows "x" only.
STRIPPED = """
meta_info_def {
  stripped_op_list {
    op {
      name: "Conv2D"
      input_arg { name: "input" type_attr: "T" }
      input_arg { name: "filter" type_attr: "T" }
      output_arg { name: "output" type_attr: "T" }
      attr { name: "T" type: "type" allowed_values { list { type: DT_HALF type: DT_FLOAT } } }
      attr { name: "strides" type: "list(int)" }
      attr { name: "padding" type: "string" allowed_values { list { s: "SAME" s: "VALID" } } }
    }
    op { name: "MyOp" attr { name: "mode" type: "string" allowed_values { list { s: "x" } } } }
  }
}
graph_def {
  node { name: "p" op: "Placeholder" attr { key: "dtype" value { type: DT_BFLOAT16 } } }
  node { name: "conv" op: "Conv2D" input: "p" input: "p" attr { key: "T" value { type: DT_BFLOAT16 } } attr { key: "padding" value { s: "EXPLICIT" } } attr { key: "explicit_paddings" value { list { i: 0 i: 0 i: 0 i: 0 i: 0 i: 0 i: 0 i: 0 } } } attr { key: "strides" value { list { i: 1 i: 1 i: 1 i: 1 } } } }
  node { name: "m" op: "MyOp" attr { key: "mode" value { s: "y" } } }
}
"""


def _library(call_t: str) -> str:
    return f"""{CONST}
node {{ name: "call" op: "f" input: "c" attr {{ key: "T" value {{ {call_t} }} }} }}
library {{
  function {{
    signature {{ name: "f" input_arg {{ name: "x" type: DT_FLOAT }} output_arg {{ name: "y" type: DT_FLOAT }} attr {{ name: "T" type: "type" allowed_values {{ list {{ type: DT_FLOAT }} }} }} }}
    node_def {{ name: "i" op: "Identity" input: "x" attr {{ key: "T" value {{ placeholder: "T" }} }} }}
    node_def {{ name: "p" op: "MaxPool" input: "i:output:0" attr {{ key: "T" value {{ type: DT_FLOAT }} }} attr {{ key: "padding" value {{ s: "FULL" }} }} attr {{ key: "ksize" value {{ list {{ i: 1 i: 1 i: 1 i: 1 }} }} }} attr {{ key: "strides" value {{ list {{ i: 1 i: 1 i: 1 i: 1 }} }} }} }}
    ret {{ key: "y" value: "i:output:0" }}
  }}
}}
"""


@pytest.mark.parametrize(
    "pbtxt, expected",
    [
        pytest.param(_conv(), [], id="clean"),
        pytest.param(_conv(data_format='s: "NCHW"'), [], id="allowed-string"),
        # Value for attr 'padding' of "FOO" is not in the list of allowed values: "SAME", "VALID", "EXPLICIT"
        pytest.param(_conv(padding='s: "FOO"'), [(ID, "conv", 2)], id="E4-string"),
        pytest.param(_conv(padding='s: "same"'), [(ID, "conv", 2)], id="E4-case-matters"),
        # Value for attr 'T' of int64 is not in the list of allowed values: half, bfloat16, float, double, int32
        pytest.param(_conv(T="type: DT_INT64"), [(ID, "conv", 2)], id="E3-type"),
        pytest.param(_conv(T="type: DT_INT64", padding='s: "FOO"'), [(ID, "conv", 2), (ID, "conv", 2)], id="two-attrs"),
        # Wrong kinds are attr-type-mismatch's, not this rule's.
        pytest.param(_conv(T="i: 9", padding="i: 1"), [], id="kind-mismatch-not-this-rule"),
        pytest.param(_conv(data_format=""), [], id="empty-value-takes-default"),
        pytest.param(_decode_csv("type: DT_FLOAT type: DT_STRING"), [], id="list-type-allowed"),
        # Value for attr 'OUT_TYPE' of bool is not in the list of allowed values: float, double, int32, int64, string
        pytest.param(_decode_csv("type: DT_FLOAT type: DT_BOOL"), [(ID, "csv", 3)], id="E3-list-type"),
        pytest.param(_enum_list('s: "apples" s: "oranges"'), [], id="list-string-allowed"),
        # Value for attr 'a' of "kiwi" is not in the list of allowed values: "apples", "oranges"
        pytest.param(_enum_list('s: "apples" s: "kiwi"'), [(ID, "e", 1)], id="E4-list-string"),
        pytest.param(STRIPPED, [(ID, "m", 19)], id="layers-widen-allowed-values"),
        # Value for attr 'T' of int32 is not in the list of allowed values: float
        pytest.param(_library("type: DT_INT32"), [(ID, "p", 7), (ID, "call", 2)], id="call-and-function-body"),
        pytest.param(_library("type: DT_FLOAT").replace('s: "FULL"', 's: "VALID"'), [], id="function-clean"),
    ],
)
def test_allowed_values(pbtxt, expected):
    assert sorted(pinned(lint_text(pbtxt), rule=ID), key=lambda item: item[2]) == sorted(
        expected, key=lambda item: item[2]
    )


def test_messages_use_tensorflow_names():
    findings = [f for f in lint_text(_conv(T="type: DT_INT64", padding='s: "FOO"')) if f.rule == ID]
    assert sorted(f.message for f in findings) == [
        "Node 'conv' (op Conv2D): attr 'T' is int64; allowed values are half, bfloat16, float, double, int32",
        'Node \'conv\' (op Conv2D): attr \'padding\' is "FOO"; allowed values are "SAME", "VALID", "EXPLICIT"',
    ]
    assert {f.severity for f in findings} == {Severity.ERROR}


def test_list_message_names_each_offending_element():
    [finding] = [
        f for f in lint_text(_decode_csv("type: DT_BOOL type: DT_FLOAT type: DT_INT8 type: DT_BOOL")) if f.rule == ID
    ]
    assert (
        finding.message
        == "Node 'csv' (op DecodeCSV): attr 'OUT_TYPE' contains bool, int8; allowed values are float, double, int32, int64, string"
    )
    [finding] = [f for f in lint_text(_enum_list('s: "kiwi\\n"')) if f.rule == ID]
    assert (
        finding.message
        == 'Node \'e\' (op AttrEnumList): attr \'a\' contains "kiwi\\n"; allowed values are "apples", "oranges"'
    )
