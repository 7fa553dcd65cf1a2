"""invalid-shape: shape attrs, tensor shapes and `_output_shapes`, as TensorFlow 2.21 reads them.

The verdicts were checked by importing each graph with TensorFlow (Placeholder
shapes, `_output_shapes` entries and counts, queue shapes at run time).
"""

from __future__ import annotations

import pytest
from conftest import lint_text, pinned

from tflint.finding import Severity
from tflint.rules import invalid_shape

ID = invalid_shape.ID
E, W = Severity.ERROR, Severity.WARNING


def placeholder(name: str, shape: str) -> str:
    return f'node {{ name: "{name}" op: "Placeholder" attr {{ key: "dtype" value {{ type: DT_FLOAT }} }} attr {{ key: "shape" value {{ shape {{ {shape} }} }} }} }}\n'


def const(name: str, output_shapes: str | None = None, shape: str = "") -> str:
    extra = f' attr {{ key: "_output_shapes" value {{ {output_shapes} }} }}' if output_shapes is not None else ""
    return (
        f'node {{ name: "{name}" op: "Const" attr {{ key: "dtype" value {{ type: DT_FLOAT }} }} '
        f'attr {{ key: "value" value {{ tensor {{ dtype: DT_FLOAT tensor_shape {{ {shape} }} float_val: 1 }} }} }}{extra} }}\n'
    )


def graded(findings):
    return [(f.node, f.line, f.severity) for f in findings if f.rule == ID]


DIMS_255 = "dim { size: 1 } " * 255
BIG = "dim { size: 4294967296 } dim { size: 4294967296 }"

SPLIT = (
    'node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }\n'
    'node { name: "d" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { } int_val: 0 } } } }\n'
    'node { name: "s" op: "Split" input: "d" input: "x" attr { key: "T" value { type: DT_FLOAT } } attr { key: "num_split" value { i: 2 } } '
    'attr { key: "_output_shapes" value { list { %s } } } }\n'
)


@pytest.mark.parametrize(
    "pbtxt, expected",
    [
        # -- legal, and must stay clean --------------------------------------------------------
        pytest.param(placeholder("p", "dim { size: -1 } dim { size: 3 }"), [], id="unknown-dim"),
        pytest.param(placeholder("p", "unknown_rank: true"), [], id="unknown-rank"),
        pytest.param(placeholder("p", ""), [], id="scalar"),
        pytest.param(placeholder("p", "dim { size: 1 } " * 254), [], id="254-dims"),
        pytest.param(placeholder("p", "dim { size: -1 } " + BIG), [], id="no-overflow-after-unknown"),
        pytest.param(placeholder("p", "dim { size: 0 } " + "dim { size: 4294967296 } " * 3), [], id="zero-first"),
        pytest.param(
            'node { name: "p" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }\n',
            [],
            id="shape-attr-omitted",
        ),
        pytest.param(const("c", "list { shape { } }"), [], id="output-shapes-ok"),
        pytest.param(const("c", "list { shape { unknown_rank: true } }"), [], id="output-shapes-unknown-rank"),
        pytest.param(const("c:0", "list { shape { dim { size: -1 } } }"), [], id="output-shapes-unknown-dim"),
        pytest.param(
            'node { name: "n" op: "NoOp" attr { key: "_output_shapes" value { list { } } } }\n',
            [],
            id="no-outputs-no-shapes",
        ),
        pytest.param(SPLIT % "shape { dim { size: 1 } } shape { dim { size: 1 } }", [], id="two-outputs-two-shapes"),
        pytest.param(
            'node { name: "u" op: "NotAnOp" attr { key: "shape" value { shape { dim { size: -5 } } } } }\n',
            [],
            id="unknown-op-attr-unread",
        ),
        pytest.param(
            'node { name: "c" op: "Const" attr { key: "_shape" value { shape { dim { size: -5 } } } } }\n',
            [],
            id="other-underscore-attr",
        ),
        pytest.param(
            "library {\n"
            "  function {\n"
            '    signature { name: "f" attr { name: "s" type: "shape" } output_arg { name: "o" type: DT_FLOAT } }\n'
            '    node_def { name: "p" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { placeholder: "s" } } }\n'
            '    ret { key: "o" value: "p:output:0" }\n'
            "  }\n"
            "}\n",
            [],
            id="placeholder-in-function",
        ),
        # -- errors: shape attrs ---------------------------------------------------------------
        pytest.param(placeholder("p", "dim { size: -5 }"), [("p", 1, E)], id="below-minus-one"),
        pytest.param(
            placeholder("p", "unknown_rank: true dim { size: 3 }"), [("p", 1, E)], id="unknown-rank-with-dims"
        ),
        pytest.param(placeholder("p", DIMS_255), [("p", 1, E)], id="255-dims"),
        pytest.param(placeholder("p", BIG + " dim { size: -1 }"), [("p", 1, E)], id="overflow-before-unknown"),
        pytest.param(placeholder("p", BIG + " dim { size: 0 }"), [("p", 1, E)], id="overflow-before-zero"),
        pytest.param(
            'node { name: "q" op: "FIFOQueueV2" attr { key: "component_types" value { list { type: DT_FLOAT type: DT_INT32 } } } '
            'attr { key: "shapes" value { list { shape { } shape { dim { size: -3 } } } } } }\n',
            [("q", 1, E)],
            id="list-of-shapes",
        ),
        # -- errors: tensor shapes -------------------------------------------------------------
        pytest.param(const("c", shape="dim { size: -5 }"), [("c", 1, E)], id="tensor-dim-below-minus-one"),
        pytest.param(const("c", shape=DIMS_255), [("c", 1, E)], id="tensor-255-dims"),
        pytest.param(const("c", shape="dim { size: -1 }"), [], id="tensor-minus-one-is-tensor-content"),
        pytest.param(
            const("c", shape="unknown_rank: true dim { size: 2 }"), [], id="tensor-unknown-rank-is-tensor-content"
        ),
        # -- errors: _output_shapes at import --------------------------------------------------
        pytest.param(
            const("c", "list { shape { dim { size: -5 } } }"), [("c", 1, E)], id="output-shapes-below-minus-one"
        ),
        pytest.param(
            const("c", "list { shape { unknown_rank: true dim { size: 3 } } }"),
            [("c", 1, E)],
            id="output-shapes-unknown-rank-with-dims",
        ),
        pytest.param(const("c", f"list {{ shape {{ {BIG} }} }}"), [("c", 1, E)], id="output-shapes-overflow"),
        pytest.param(const("c", "list { }"), [("c", 1, E)], id="output-shapes-empty-list"),
        pytest.param(const("c", ""), [("c", 1, E)], id="output-shapes-empty-value"),
        pytest.param(SPLIT % "shape { dim { size: 1 } }", [("s", 3, E)], id="fewer-shapes-than-outputs"),
        pytest.param(
            'node { name: "test_model" op: "_Arg" attr { key: "T" value { type: DT_FLOAT } } attr { key: "index" value { i: 8 } } '
            'attr { key: "_output_shapes" value { list { shape { dim { size: -5 } } } } } }\n',
            [("test_model", 1, E)],
            id="wild-arg-negative-shape",
        ),
        # -- warnings: TensorFlow accepts -----------------------------------------------------
        pytest.param(const("c", "list { shape { } shape { } }"), [("c", 1, W)], id="more-shapes-than-outputs"),
        pytest.param(
            const("c", "list { shape { } shape { dim { size: -5 } } }"),
            [("c", 1, W), ("c", 1, W)],
            id="bad-entry-past-the-outputs",
        ),
        pytest.param(const("c", "list { shape { } i: 3 }"), [("c", 1, W)], id="output-shapes-mixed-list"),
        pytest.param(const("c", "shape { dim { size: -5 } }"), [("c", 1, W)], id="output-shapes-single-shape"),
        pytest.param(
            'node { name: "n" op: "NoOp" attr { key: "_output_shapes" value { list { shape { dim { size: -5 } } } } } }\n',
            [("n", 1, W), ("n", 1, W)],
            id="no-outputs-bad-entry",
        ),
        pytest.param(
            'node { name: "top" op: "f" }\n'
            "library {\n"
            "  function {\n"
            '    signature { name: "f" output_arg { name: "o" type: DT_FLOAT } }\n'
            '    node_def { name: "k" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 1 } } } '
            'attr { key: "_output_shapes" value { list { shape { dim { size: -5 } } } } } }\n'
            '    node_def { name: "p" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: -2 } } } } }\n'
            '    ret { key: "o" value: "k:output:0" }\n'
            "  }\n"
            "}\n",
            [("k", 5, W), ("p", 6, E)],
            id="function-body",
        ),
    ],
)
def test_invalid_shape(pbtxt, expected):
    assert graded(lint_text(pbtxt)) == expected


def test_unknown_op_output_shapes_checked_without_count():
    pbtxt = 'node { name: "u" op: "NotAnOp" attr { key: "_output_shapes" value { list { shape { dim { size: -7 } } } } } }\n'
    assert graded(lint_text(pbtxt)) == [("u", 1, E)]


def test_pinned_lines_several_nodes():
    pbtxt = placeholder("ok", "dim { size: 2 }") + placeholder("bad", "dim { size: -2 }") + const("c>d", "list { }")
    assert pinned(lint_text(pbtxt), rule=ID) == [(ID, "bad", 2), (ID, "c>d", 3)]


def test_message_below_minus_one():
    findings = [f for f in lint_text(placeholder("p", "dim { size: 2 } dim { size: -2 }")) if f.rule == ID]
    assert [f.message for f in findings] == [
        "Node 'p' (op Placeholder): attr 'shape' is [2,-2], which is not a valid shape: dimension 1 is -2; "
        "a size must be at least -1 (-1 means unknown)"
    ]


def test_message_too_few_output_shapes():
    findings = [f for f in lint_text(SPLIT % "shape { dim { size: 1 } }") if f.rule == ID]
    assert [f.message for f in findings] == [
        "Node 's' (op Split): attr '_output_shapes' lists 1 shape but the node has 2 outputs; TensorFlow rejects "
        "the graph at import"
    ]


def test_finding_points_at_the_attr():
    pbtxt = (
        "node {\n"
        '  name: "p"\n'
        '  op: "Placeholder"\n'
        '  attr { key: "dtype" value { type: DT_FLOAT } }\n'
        "  attr {\n"
        '    key: "shape"\n'
        "    value { shape { dim { size: -9 } } }\n"
        "  }\n"
        "}\n"
    )
    assert pinned(lint_text(pbtxt), rule=ID) == [(ID, "p", 6)]
