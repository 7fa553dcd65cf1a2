"""call-signature: a call's Tin / Tout (T for While) against the called function's signature.

Verified with TensorFlow 2.21: every graph here imports (tf.graph_util.import_graph_def), and
running a mismatched PartitionedCall / StatefulPartitionedCall fails in the session
(InvalidArgumentError / InternalError: the function cannot be instantiated for those types).
"""

from __future__ import annotations

import pytest
from conftest import lint_text, pinned

RULE = "call-signature"
INPUTS = """\
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "i" op: "Placeholder" attr { key: "dtype" value { type: DT_INT32 } } }
node { name: "p" op: "Placeholder" attr { key: "dtype" value { type: DT_BOOL } } }
"""
LIBRARY = """\
library {
  function { signature { name: "f" input_arg { name: "a" type: DT_FLOAT } output_arg { name: "y" type: DT_FLOAT } }
    ret { key: "y" value: "a" } }
  function { signature { name: "c" input_arg { name: "a" type: DT_FLOAT } output_arg { name: "y" type: DT_BOOL } }
    node_def { name: "n" op: "Const" attr { key: "dtype" value { type: DT_BOOL } }
      attr { key: "value" value { tensor { dtype: DT_BOOL tensor_shape { } bool_val: true } } } }
    ret { key: "y" value: "n:output:0" } }
  function { signature { name: "poly" input_arg { name: "a" type_attr: "T" } output_arg { name: "y" type_attr: "T" }
    attr { name: "T" type: "type" } }
    ret { key: "y" value: "a" } }
}
"""


def _call(op, inputs, tin, tout, funcs):
    tin_text = " ".join(f"type: {t}" for t in tin)
    tout_text = " ".join(f"type: {t}" for t in tout)
    return (
        f'node {{ name: "call" op: "{op}" '
        + " ".join(f'input: "{i}"' for i in inputs)
        + f' attr {{ key: "Tin" value {{ list {{ {tin_text} }} }} }}'
        + f' attr {{ key: "Tout" value {{ list {{ {tout_text} }} }} }} '
        + " ".join(f'attr {{ key: "{k}" value {{ func {{ name: "{v}" }} }} }}' for k, v in funcs.items())
        + (' attr { key: "Tcond" value { type: DT_BOOL } }' if "If" in op else "")
        + " }\n"
    )


def _while(inputs, types, cond="c", body="f"):
    types_text = " ".join(f"type: {t}" for t in types)
    return (
        'node { name: "call" op: "While" '
        + " ".join(f'input: "{i}"' for i in inputs)
        + f' attr {{ key: "T" value {{ list {{ {types_text} }} }} }}'
        + f' attr {{ key: "cond" value {{ func {{ name: "{cond}" }} }} }}'
        + f' attr {{ key: "body" value {{ func {{ name: "{body}" }} }} }} }}\n'
    )


F = {"f": "f"}
BRANCHES = {"then_branch": "f", "else_branch": "f"}
FLOAT, INT = "DT_FLOAT", "DT_INT32"


@pytest.mark.parametrize(
    "call, expected",
    [
        pytest.param(_call("PartitionedCall", ["x"], [FLOAT], [FLOAT], F), [], id="matching-call"),
        pytest.param(
            _call("StatefulPartitionedCall", ["x", "x"], [FLOAT, FLOAT], [FLOAT], F), [(RULE, "call", 4)], id="count"
        ),
        pytest.param(_call("PartitionedCall", ["i"], [INT], [FLOAT], F), [(RULE, "call", 4)], id="dtype"),
        pytest.param(
            _call("StatefulPartitionedCall", ["x"], [FLOAT], [INT], F), [(RULE, "call", 4)], id="result-dtype"
        ),
        pytest.param(
            _call("PartitionedCall", ["x"], [FLOAT], [FLOAT, FLOAT], F), [(RULE, "call", 4)], id="result-count"
        ),
        pytest.param(_call("PartitionedCall", ["i"], [INT], [INT], {"f": "poly"}), [], id="polymorphic-not-checked"),
        pytest.param(
            _call("PartitionedCall", ["x"], [FLOAT], [FLOAT], {"f": "nowhere"}), [], id="unknown-function-elsewhere"
        ),
        pytest.param(_call("If", ["p", "x"], [FLOAT], [FLOAT], BRANCHES), [], id="if-matching"),
        pytest.param(
            _call("If", ["p", "x", "x"], [FLOAT, FLOAT], [FLOAT], BRANCHES),
            [(RULE, "call", 4)] * 2,
            id="if-both-branches",
        ),
        pytest.param(_while(["x"], [FLOAT]), [], id="while-matching"),
        pytest.param(_while(["i"], [INT]), [(RULE, "call", 4)] * 2, id="while-body-and-cond"),
    ],
)
def test_rule(call, expected):
    assert pinned(lint_text(INPUTS + call + LIBRARY), rule=RULE) == expected


def test_message():
    findings = [
        f for f in lint_text(INPUTS + _call("PartitionedCall", ["i"], [INT], [FLOAT], F) + LIBRARY) if f.rule == RULE
    ]
    assert [f.message for f in findings] == [
        "Node 'call' (PartitionedCall) calls 'f' (f) with Tin [int32], but 'f' takes [float]; "
        "TensorFlow imports the graph but fails when it runs the call"
    ]
