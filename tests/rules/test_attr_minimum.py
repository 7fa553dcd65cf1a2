"""attr-minimum: int attrs below `minimum`, list attrs shorter than `minimum` (E1, E2).

Rejected cases were imported with TensorFlow 2.21; the comments quote its message.
"""

from __future__ import annotations

import pytest
from conftest import lint_text, pinned

from tflint.finding import Severity

ID = "attr-minimum"

CONST = 'node { name: "c" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 1 } } } }'
AXIS = 'node { name: "axis" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { } int_val: 0 } } } }'


def _concat(count: str, inputs: int = 2) -> str:
    feeds = " ".join('input: "c"' for _ in range(inputs))
    return f'{CONST}\n{AXIS}\nnode {{ name: "cat" op: "ConcatV2" {feeds} input: "axis" attr {{ key: "N" value {{ {count} }} }} attr {{ key: "T" value {{ type: DT_FLOAT }} }} attr {{ key: "Tidx" value {{ type: DT_INT32 }} }} }}\n'


def _max_pool(ksize: str) -> str:
    return (
        CONST
        + f'\nnode {{ name: "pool" op: "MaxPool" input: "c" attr {{ key: "T" value {{ type: DT_FLOAT }} }} attr {{ key: "ksize" value {{ {ksize} }} }} attr {{ key: "strides" value {{ list {{ i: 1 i: 1 i: 1 i: 1 }} }} }} attr {{ key: "padding" value {{ s: "VALID" }} }} }}\n'
    )


def _queue(types: str) -> str:
    return f'node {{ name: "q" op: "FIFOQueueV2" attr {{ key: "component_types" value {{ {types} }} }} }}\n'


PARTITIONED_CALL_NO_ARGS = """
node { name: "call" op: "PartitionedCall" attr { key: "Tin" value { list { } } } attr { key: "Tout" value { } } attr { key: "f" value { func { name: "f" } } } }
library {
  function {
    signature { name: "f" }
    node_def { name: "n" op: "NoOp" }
  }
}
"""

# An old producer's StringJoin needed N >= 1; TensorFlow 2.21 allows 0. A custom op's own minimum holds.
STRIPPED = """
meta_info_def {
  stripped_op_list {
    op {
      name: "StringJoin"
      input_arg { name: "inputs" type: DT_STRING number_attr: "N" }
      output_arg { name: "output" type: DT_STRING }
      attr { name: "N" type: "int" has_minimum: true minimum: 1 }
      attr { name: "separator" type: "string" default_value { s: "" } }
    }
    op { name: "MyOp" attr { name: "k" type: "int" has_minimum: true minimum: 3 } }
  }
}
graph_def {
  node { name: "j" op: "StringJoin" attr { key: "N" value { i: 0 } } }
  node { name: "m" op: "MyOp" attr { key: "k" value { i: 2 } } }
}
"""


def _library(body_n: str) -> str:
    return f"""{CONST}
{AXIS}
node {{ name: "call" op: "f" input: "c" }}
library {{
  function {{
    signature {{ name: "f" input_arg {{ name: "x" type: DT_FLOAT }} input_arg {{ name: "a" type: DT_INT32 }} output_arg {{ name: "y" type: DT_FLOAT }} }}
    node_def {{ name: "cat" op: "ConcatV2" input: "x" input: "x" input: "a" attr {{ key: "N" value {{ {body_n} }} }} attr {{ key: "T" value {{ type: DT_FLOAT }} }} attr {{ key: "Tidx" value {{ type: DT_INT32 }} }} }}
    ret {{ key: "y" value: "cat:output:0" }}
  }}
}}
"""


@pytest.mark.parametrize(
    "pbtxt, expected",
    [
        pytest.param(_concat("i: 2"), [], id="at-minimum"),
        pytest.param(_concat("i: 3", 3), [], id="above-minimum"),
        # Value for attr 'N' of 1 must be at least minimum 2
        pytest.param(_concat("i: 1", 1), [(ID, "cat", 3)], id="E1-int"),
        pytest.param(_concat("i: -5", 1), [(ID, "cat", 3)], id="E1-negative"),
        pytest.param(_concat('s: "2"'), [], id="kind-mismatch-not-this-rule"),
        pytest.param(_max_pool("list { i: 1 i: 2 i: 2 i: 1 }"), [], id="list-long-enough"),
        # Length for attr 'ksize' of 0 must be at least minimum 4
        pytest.param(_max_pool("list { i: 1 i: 2 }"), [(ID, "pool", 2)], id="E2-list"),
        pytest.param(_max_pool("list { }"), [(ID, "pool", 2)], id="E2-empty-list"),
        pytest.param(_max_pool(""), [(ID, "pool", 2)], id="E2-empty-value-is-empty-list"),
        pytest.param(_queue("list { type: DT_FLOAT }"), [], id="list-type-min-1"),
        # Length for attr 'component_types' of 0 must be at least minimum 1
        pytest.param(_queue(""), [(ID, "q", 1)], id="E2-list-type"),
        pytest.param(PARTITIONED_CALL_NO_ARGS, [], id="min-0-lists-may-be-empty"),
        pytest.param(STRIPPED, [(ID, "m", 16)], id="layers-lower-minimums"),
        pytest.param(_library("i: 2"), [], id="function-body-clean"),
        pytest.param(_library("i: 1"), [(ID, "cat", 7)], id="function-body"),
    ],
)
def test_attr_minimum(pbtxt, expected):
    assert pinned(lint_text(pbtxt), rule=ID) == expected


def test_messages_state_value_and_minimum():
    [int_finding] = [f for f in lint_text(_concat("i: 1", 1)) if f.rule == ID]
    assert int_finding.message == "Node 'cat' (op ConcatV2): attr 'N' is 1, below its minimum 2"
    assert int_finding.severity == Severity.ERROR
    [list_finding] = [f for f in lint_text(_max_pool("list { i: 1 }")) if f.rule == ID]
    assert list_finding.message == "Node 'pool' (op MaxPool): attr 'ksize' has 1 element; it needs at least 4"
