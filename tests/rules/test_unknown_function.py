"""unknown-function: func attrs and GradientDefs must name library functions (TF 2.21 verified)."""

from __future__ import annotations

import pytest
from conftest import lint_text, pinned

RULE = "unknown-function"

LIB_F = 'library { function { signature { name: "f" } } }\n'


def _call(name: str, op: str = "PartitionedCall", node: str = "call") -> str:
    return (
        f'node {{ name: "{node}" op: "{op}" attr {{ key: "Tin" value {{ list {{ }} }} }} attr {{ key: "Tout" value {{ list {{ }} }} }} '
        f'attr {{ key: "f" value {{ func {{ name: "{name}" }} }} }} }}\n'
    )


IF_NODE = (
    'node {{ name: "if" op: "If" input: "p" attr {{ key: "Tcond" value {{ type: DT_BOOL }} }} attr {{ key: "Tin" value {{ list {{ }} }} }} '
    'attr {{ key: "Tout" value {{ list {{ }} }} }}\n'
    '  attr {{ key: "then_branch" value {{ func {{ name: "{then}" }} }} }}\n'
    '  attr {{ key: "else_branch" value {{ func {{ name: "{other}" }} }} }} }}\n'
)

CASE_NODE = (
    'node {{ name: "case" op: "Case" input: "i" attr {{ key: "Tin" value {{ list {{ }} }} }} attr {{ key: "Tout" value {{ list {{ }} }} }}\n'
    '  attr {{ key: "branches" value {{ list {{ func {{ name: "{first}" }} func {{ name: "{second}" }} }} }} }} }}\n'
)


@pytest.mark.parametrize(
    "pbtxt, expected",
    [
        pytest.param(LIB_F + _call("f"), [], id="known-function"),
        pytest.param(_call("g"), [(RULE, "call", 1)], id="missing-function"),
        pytest.param(_call(""), [(RULE, "call", 1)], id="empty-name"),
        # An op name does not work for PartitionedCall ("Failed to find function").
        pytest.param(_call("Neg"), [(RULE, "call", 1)], id="op-name-partitioned-call"),
        pytest.param(LIB_F + _call("g", op="StatefulPartitionedCall"), [(RULE, "call", 2)], id="stateful-call"),
        # SymbolicGradient may differentiate an op (its registered gradient): fine.
        pytest.param(_call("Neg", op="SymbolicGradient"), [], id="symbolic-gradient-of-op"),
        pytest.param(_call("nosuch", op="SymbolicGradient"), [(RULE, "call", 1)], id="symbolic-gradient-of-nothing"),
        pytest.param(LIB_F + IF_NODE.format(then="f", other="Identity"), [(RULE, "if", 4)], id="if-branch-op-name"),
        pytest.param(LIB_F + IF_NODE.format(then="f", other="f"), [], id="if-branches-ok"),
        pytest.param(LIB_F + CASE_NODE.format(first="f", second="missing"), [(RULE, "case", 3)], id="list-func"),
        # An attr the op does not declare is ignored by TensorFlow, so it is not checked.
        pytest.param(
            'node { name: "n" op: "NoOp" attr { key: "_f" value { func { name: "missing" } } } }',
            [],
            id="undeclared-attr",
        ),
        # A node whose op names nothing is unknown-op's finding, not this rule's.
        pytest.param('node { name: "n" op: "missing_fn" }', [], id="unknown-op-not-reported-here"),
        pytest.param(
            'library { function { signature { name: "outer" }\n'
            '  node_def { name: "inner_call" op: "PartitionedCall" attr { key: "Tin" value { list { } } } attr { key: "Tout" value { list { } } }\n'
            '    attr { key: "f" value { func { name: "gone" } } } }\n'
            "} }",
            [(RULE, "inner_call", 3)],
            id="inside-function-body",
        ),
        pytest.param(
            'library { function { signature { name: "outer" }\n'
            '  node_def { name: "c" op: "PartitionedCall" attr { key: "Tin" value { list { } } } attr { key: "Tout" value { list { } } }\n'
            '    attr { key: "f" value { placeholder: "fn" } } }\n'
            "} }",
            [],
            id="placeholder-bound-at-call",
        ),
        pytest.param(
            # A func attr the called function declares is checked too, nested in the NameAttrList.
            "library {\n"
            '  function { signature { name: "apply" attr { name: "fn" type: "func" } } }\n'
            "}\n"
            'node { name: "c" op: "PartitionedCall" attr { key: "Tin" value { list { } } } attr { key: "Tout" value { list { } } }\n'
            '  attr { key: "f" value { func { name: "apply" attr { key: "fn" value { func { name: "gone" } } } } } } }\n',
            [(RULE, "c", 5)],
            id="nested-func-declared-by-callee",
        ),
        pytest.param(
            # A function call node's own func attrs (declared by the signature).
            "library {\n"
            '  function { signature { name: "apply" attr { name: "fn" type: "func" } } }\n'
            "}\n"
            'node { name: "c" op: "apply" attr { key: "fn" value { func { name: "gone" } } } }\n',
            [(RULE, "c", 4)],
            id="call-node-func-attr",
        ),
    ],
)
def test_func_attrs(pbtxt, expected):
    assert pinned(lint_text(pbtxt), rule=RULE) == expected


GRADIENTS = (
    'library {{ function {{ signature {{ name: "f" }} }} function {{ signature {{ name: "g" }} }} {gradients} }}'
)


@pytest.mark.parametrize(
    "gradients, count",
    [
        ('gradient { function_name: "f" gradient_func: "g" }', 0),
        ('gradient { function_name: "f" gradient_func: "missing" }', 1),
        ('gradient { function_name: "missing" gradient_func: "g" }', 1),
        # The gradient function must be a function, not an op.
        ('gradient { function_name: "f" gradient_func: "Neg" }', 1),
    ],
)
def test_gradient_defs(gradients, count):
    findings = [f for f in lint_text(GRADIENTS.format(gradients=gradients)) if f.rule == RULE]
    assert len(findings) == count
    assert all(f.node is None for f in findings)


def test_gradient_defs_without_functions_are_not_checked():
    # tf.import_graph_def only reads GradientDefs when the library has functions (verified).
    assert pinned(lint_text('library { gradient { function_name: "a" gradient_func: "b" } }'), rule=RULE) == []


def test_message_for_op_name():
    (finding,) = [f for f in lint_text(_call("Neg")) if f.rule == RULE]
    assert finding.message == (
        "Node 'call' (op PartitionedCall): attr 'f' names function 'Neg', which is not in the graph's function library "
        "('Neg' is an op, and TensorFlow runs only library functions here)"
    )


def test_message_suggests_close_function():
    text = 'library { function { signature { name: "my_function_1" } } }\n' + _call("my_function_2")
    (finding,) = [f for f in lint_text(text) if f.rule == RULE]
    assert finding.message.endswith("(did you mean 'my_function_1'?)")
    assert finding.line == 2
