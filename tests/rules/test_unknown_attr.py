"""unknown-attr: attr keys the op does not define (N6), with `_` keys skipped (N5)."""

from __future__ import annotations

import pytest
from conftest import lint_text, pinned

from tflint.finding import Severity

ID = "unknown-attr"

CONST = 'node { name: "c" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 1 } } } }'

INTERNAL = """
node {
  name: "c"
  op: "Const"
  attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 1 } } }
  attr { key: "_output_shapes" value { list { shape { } } } }
  attr { key: "_class" value { list { s: "loc:@c" } } }
  attr { key: "_XlaCompile" value { b: true } }
  attr { key: "_weird" value { placeholder: "" } }
}
"""

TYPO = """
node {
  name: "c"
  op: "Const"
  attr { key: "dtpye" value { type: DT_FLOAT } }
  attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 1 } } }
  attr { key: "colour" value { s: "red" } }
}
"""

# Odd but legal node names, and x:0 vs x, do not matter here.
ODD_NAMES = (
    CONST
    + """
node { name: "a>b" op: "Identity" input: "c:0" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "x-y.z" op: "Identity" input: "a>b" attr { key: "T" value { type: DT_FLOAT } } attr { key: "U" value { type: DT_FLOAT } } }
"""
)


def _library(body_attrs: str, call_attrs: str = "") -> str:
    return f"""{CONST}
node {{ name: "call" op: "f" input: "c" {call_attrs} }}
library {{
  function {{
    signature {{ name: "f" input_arg {{ name: "x" type: DT_FLOAT }} output_arg {{ name: "y" type: DT_FLOAT }} attr {{ name: "T" type: "type" }} }}
    node_def {{ name: "i" op: "Identity" input: "x" attr {{ key: "T" value {{ placeholder: "T" }} }} {body_attrs} }}
    ret {{ key: "y" value: "i:output:0" }}
  }}
}}
"""


T_FLOAT = 'attr { key: "T" value { type: DT_FLOAT } }'

# The producer's stripped_op_list is older than the node's attrs (no `dilations`): TF 2.21
# validates against its own registry, which has it. And it is newer than TF 2.21 for MaxPool
# (`future_attr`): the graph's own OpDef vouches for it.
STRIPPED = """
meta_info_def {
  stripped_op_list {
    op {
      name: "Conv2D"
      input_arg { name: "input" type_attr: "T" }
      input_arg { name: "filter" type_attr: "T" }
      output_arg { name: "output" type_attr: "T" }
      attr { name: "T" type: "type" }
      attr { name: "strides" type: "list(int)" }
      attr { name: "padding" type: "string" }
    }
    op {
      name: "MaxPool"
      input_arg { name: "input" type_attr: "T" }
      output_arg { name: "output" type_attr: "T" }
      attr { name: "T" type: "type" default_value { type: DT_FLOAT } }
      attr { name: "ksize" type: "list(int)" has_minimum: true minimum: 4 }
      attr { name: "strides" type: "list(int)" has_minimum: true minimum: 4 }
      attr { name: "padding" type: "string" }
      attr { name: "future_attr" type: "int" default_value { i: 0 } }
    }
  }
}
graph_def {
  node { name: "p" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
  node {
    name: "conv"
    op: "Conv2D"
    input: "p"
    input: "p"
    attr { key: "T" value { type: DT_FLOAT } }
    attr { key: "padding" value { s: "SAME" } }
    attr { key: "strides" value { list { i: 1 i: 1 i: 1 i: 1 } } }
    attr { key: "dilations" value { list { i: 1 i: 1 i: 1 i: 1 } } }
  }
  node {
    name: "pool"
    op: "MaxPool"
    input: "conv"
    attr { key: "T" value { type: DT_FLOAT } }
    attr { key: "ksize" value { list { i: 1 i: 1 i: 1 i: 1 } } }
    attr { key: "strides" value { list { i: 1 i: 1 i: 1 i: 1 } } }
    attr { key: "padding" value { s: "SAME" } }
    attr { key: "future_attr" value { i: 0 } }
    attr { key: "nobody_knows" value { i: 0 } }
  }
}
"""


@pytest.mark.parametrize(
    "pbtxt, expected",
    [
        pytest.param(CONST, [], id="clean"),
        pytest.param(INTERNAL, [], id="underscore-attrs-skipped"),
        pytest.param(TYPO, [(ID, "c", 5), (ID, "c", 8)], id="typo-and-stray"),
        pytest.param(ODD_NAMES, [(ID, "x-y.z", 3)], id="odd-names"),
        pytest.param(_library(""), [], id="function-clean"),
        pytest.param(_library('attr { key: "U" value { i: 1 } }'), [(ID, "i", 6)], id="function-body"),
        pytest.param(_library("", T_FLOAT), [], id="call-sets-signature-attr"),
        pytest.param(
            _library("", T_FLOAT + ' attr { key: "Tin" value { list { } } }'), [(ID, "call", 2)], id="call-sets-op-attr"
        ),
        pytest.param(STRIPPED, [(ID, "pool", 46)], id="stripped-op-list-either-way"),
        pytest.param('node { name: "u" op: "NoSuchOp" attr { key: "x" value { i: 1 } } }', [], id="unknown-op"),
    ],
)
def test_unknown_attr(pbtxt, expected):
    assert pinned(lint_text(pbtxt), rule=ID) == expected


def test_message_suggests_the_close_name_and_is_a_warning():
    findings = [f for f in lint_text(TYPO) if f.rule == ID]
    assert [f.message for f in findings] == [
        "Node 'c' (op Const) has attr 'dtpye', which op Const does not define (did you mean 'dtype'?); TensorFlow ignores it",
        "Node 'c' (op Const) has attr 'colour', which op Const does not define; TensorFlow ignores it",
    ]
    assert {f.severity for f in findings} == {Severity.WARNING}


def test_call_message_names_the_function():
    [finding] = [
        f for f in lint_text(_library("", T_FLOAT + ' attr { key: "Tin" value { list { } } }')) if f.rule == ID
    ]
    assert (
        finding.message
        == "Node 'call' (function f) has attr 'Tin', which function f does not define; TensorFlow ignores it"
    )
