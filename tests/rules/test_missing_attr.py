"""missing-attr: OpDef attrs without a default must be set (N9); function calls use the signature."""

from __future__ import annotations

import pytest
from conftest import lint_text, pinned

from tflint.finding import Severity

ID = "missing-attr"

CONST = 'node { name: "c" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 1 } } } }'

# Conv2D's data_format, dilations, explicit_paddings and use_cudnn_on_gpu have defaults.
CONV_DEFAULTS_OMITTED = (
    CONST
    + """
node { name: "conv" op: "Conv2D" input: "c" input: "c:0" attr { key: "T" value { type: DT_FLOAT } } attr { key: "padding" value { s: "SAME" } } attr { key: "strides" value { list { i: 1 i: 1 i: 1 i: 1 } } } }
"""
)

CONV_STRIDES_MISSING = (
    CONST
    + """
node { name: "conv" op: "Conv2D" input: "c" input: "c" attr { key: "T" value { type: DT_FLOAT } } attr { key: "padding" value { s: "SAME" } } }
"""
)

CONST_NOTHING = """
node { name: "c" op: "Const" }
"""

# `_`-prefixed attrs never stand in for real ones, and odd legal names change nothing.
ODD_NAMES = (
    CONST
    + """
node { name: "a>b" op: "Identity" input: "c" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "x-y.z" op: "Identity" input: "a>b" attr { key: "_T" value { type: DT_FLOAT } } }
"""
)

UNKNOWN_OP = """
node { name: "u" op: "NoSuchOp" }
"""


def _library(body_attrs: str, signature_attrs: str = "", call_attrs: str = "") -> str:
    return f"""{CONST}
node {{ name: "call" op: "f" input: "c" {call_attrs} }}
library {{
  function {{
    signature {{ name: "f" input_arg {{ name: "x" type: DT_FLOAT }} output_arg {{ name: "y" type: DT_FLOAT }} {signature_attrs} }}
    node_def {{ name: "i" op: "Identity" input: "x" {body_attrs} }}
    ret {{ key: "y" value: "i:output:0" }}
  }}
}}
"""


SIG_T = 'attr { name: "T" type: "type" }'
PLACEHOLDER_T = 'attr { key: "T" value { placeholder: "T" } }'
FLOAT_T = 'attr { key: "T" value { type: DT_FLOAT } }'

# A MetaGraphDef whose stripped_op_list (the producer's OpDefs) has no default for data_format:
# TensorFlow 2.21's registry has one and fills it in, so the node is fine.
STRIPPED_OLDER = """
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
      attr { name: "data_format" type: "string" }
    }
    op { name: "MyOp" output_arg { name: "y" type: DT_FLOAT } attr { name: "k" type: "int" } attr { name: "j" type: "int" default_value { i: 1 } } }
  }
}
graph_def {
  node { name: "p" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
  node { name: "conv" op: "Conv2D" input: "p" input: "p" attr { key: "T" value { type: DT_FLOAT } } attr { key: "padding" value { s: "SAME" } } attr { key: "strides" value { list { i: 1 i: 1 i: 1 i: 1 } } } }
  node { name: "m" op: "MyOp" }
  node { name: "m2" op: "MyOp" attr { key: "k" value { i: 3 } } }
}
"""


@pytest.mark.parametrize(
    "pbtxt, expected",
    [
        pytest.param(CONST, [], id="complete-const"),
        pytest.param(CONV_DEFAULTS_OMITTED, [], id="defaulted-attrs-omitted"),
        pytest.param(CONV_STRIDES_MISSING, [(ID, "conv", 2)], id="strides-missing"),
        pytest.param(CONST_NOTHING, [(ID, "c", 2)], id="one-finding-for-two-attrs"),
        pytest.param(ODD_NAMES, [(ID, "x-y.z", 3)], id="underscore-attr-is-not-the-attr"),
        pytest.param(UNKNOWN_OP, [], id="unknown-op-is-not-this-rule"),
        pytest.param(_library(FLOAT_T), [], id="function-body-complete"),
        pytest.param(_library(""), [(ID, "i", 6)], id="function-body-missing"),
        pytest.param(_library(PLACEHOLDER_T, SIG_T, FLOAT_T), [], id="placeholder-counts-as-present"),
        pytest.param(_library(PLACEHOLDER_T, SIG_T), [(ID, "call", 2)], id="call-misses-signature-attr"),
        pytest.param(
            _library(PLACEHOLDER_T, 'attr { name: "T" type: "type" default_value { type: DT_FLOAT } }'),
            [],
            id="signature-default-is-used",  # verified with TF 2.21: imports and runs
        ),
        pytest.param(STRIPPED_OLDER, [(ID, "m", 20)], id="stripped-op-list-layers"),
    ],
)
def test_missing_attr(pbtxt, expected):
    assert pinned(lint_text(pbtxt), rule=ID) == expected


def test_message_lists_every_missing_attr_with_its_type():
    [finding] = [f for f in lint_text(CONST_NOTHING) if f.rule == ID]
    assert (
        finding.message
        == "Node 'c' (op Const) is missing attrs 'value' (tensor), 'dtype' (type), which have no default"
    )
    assert finding.severity == Severity.ERROR


def test_message_names_the_function_for_call_nodes():
    [finding] = [f for f in lint_text(_library(PLACEHOLDER_T, SIG_T)) if f.rule == ID]
    assert finding.message == "Node 'call' (function f) is missing attr 'T' (type), which has no default"
    assert finding.function is None


def test_function_body_finding_names_the_function():
    [finding] = [f for f in lint_text(_library("")) if f.rule == ID]
    assert (finding.node, finding.function) == ("i", "f")
    assert finding.message == "Node 'i' (op Identity) is missing attr 'T' (type), which has no default"
