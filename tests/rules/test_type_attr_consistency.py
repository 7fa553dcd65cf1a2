"""type-attr-consistency: the producer's output dtype against the consumer's expected input dtype.

Behaviour checked against TensorFlow 2.21: Identity(T=int32) fed a float Const and Assign's
ref input fed a Const ("... was passed float from a:0 incompatible with expected float_ref")
are refused at import; VariableV2 feeding Assign's ref input and a plain Identity imports; a
call to a library function and a PartitionedCall whose Tin disagrees with an int32 input are
refused; Switch/Merge with Merge:1 into an int32 consumer imports and runs. In function bodies
(run through a PartitionedCall) an int32 Identity fed a float arg is refused ("input input[0]
expected type int32 != float, the type of x[0]"), and a body reading a VariableV2's ref output
into a float Identity runs: TensorFlow compares base types there, so refs are accepted as in
the top-level graph.
"""

from __future__ import annotations

import pytest
from conftest import lint_text, pinned
from signature_graphs import const, graph, library, t, vector

from tflint.engine.run import NEVER_CALLED

RULE = "type-attr-consistency"
VAR = 'node { name: "v" op: "VariableV2" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape {} } } }'
FN = 'library { function { signature { name: "fn" input_arg { name: "a" type: DT_FLOAT } input_arg { name: "b" type: DT_INT32 } output_arg { name: "s" type: DT_FLOAT } } ret { key: "s" value: "a" } } }'


def loop(less_input: str) -> str:
    """A control-flow v1 while loop over an int32 counter (the shape of wild `while/Less`)."""
    return graph(
        const("zero", "DT_INT32"),
        const("limit", "DT_INT32"),
        'node { name: "h" op: "VarHandleOp" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "shape" value { shape {} } } }',
        f'node {{ name: "while/Enter" op: "Enter" input: "zero" {t("DT_INT32")} attr {{ key: "frame_name" value {{ s: "while" }} }} }}',
        f'node {{ name: "while/Enter_1" op: "Enter" input: "h" {t("DT_RESOURCE")} attr {{ key: "frame_name" value {{ s: "while" }} }} }}',
        f'node {{ name: "while/Merge" op: "Merge" input: "while/Enter" input: "while/NextIteration" {t("DT_INT32")} attr {{ key: "N" value {{ i: 2 }} }} }}',
        f'node {{ name: "while/Merge_1" op: "Merge" input: "while/Enter_1" input: "while/NextIteration_1" {t("DT_RESOURCE")} attr {{ key: "N" value {{ i: 2 }} }} }}',
        f'node {{ name: "while/Less/Enter" op: "Enter" input: "limit" {t("DT_INT32")} attr {{ key: "frame_name" value {{ s: "while" }} }} attr {{ key: "is_constant" value {{ b: true }} }} }}',
        f'node {{ name: "while/Less" op: "Less" input: "{less_input}" input: "while/Less/Enter" {t("DT_INT32")} }}',
        'node { name: "while/LoopCond" op: "LoopCond" input: "while/Less" }',
        f'node {{ name: "while/Switch" op: "Switch" input: "while/Merge" input: "while/LoopCond" {t("DT_INT32")} }}',
        f'node {{ name: "while/Switch_1" op: "Switch" input: "while/Merge_1" input: "while/LoopCond" {t("DT_RESOURCE")} }}',
        f'node {{ name: "while/Identity" op: "Identity" input: "while/Switch:1" {t("DT_INT32")} }}',
        const("while/one", "DT_INT32"),
        f'node {{ name: "while/add" op: "AddV2" input: "while/Identity" input: "while/one" {t("DT_INT32")} }}',
        f'node {{ name: "while/NextIteration" op: "NextIteration" input: "while/add" {t("DT_INT32")} }}',
        f'node {{ name: "while/NextIteration_1" op: "NextIteration" input: "while/Switch_1:1" {t("DT_RESOURCE")} }}',
        f'node {{ name: "while/Exit" op: "Exit" input: "while/Switch" {t("DT_INT32")} }}',
    )


CASES = [
    # -- clean ----------------------------------------------------------------
    pytest.param(
        graph(
            VAR,
            const("a"),
            f'node {{ name: "as" op: "Assign" input: "v" input: "a" {t("DT_FLOAT")} }}',
            f'node {{ name: "r" op: "Identity" input: "v:0" {t("DT_FLOAT")} }}',
        ),
        [],
        id="ref-variable-edges",
    ),
    pytest.param(loop("while/Merge"), [], id="control-flow-v1-loop"),
    pytest.param(
        graph(
            vector("a"),
            const("axis", "DT_INT32"),
            f'node {{ name: "c" op: "ConcatV2" input: "a" input: "a" input: "axis" attr {{ key: "N" value {{ i: 2 }} }} {t("DT_FLOAT")} }}',
        ),
        [],
        id="concat-omitted-default-tidx",
    ),
    pytest.param(
        graph(
            const("a"),
            const("b", "DT_INT32"),
            'node { name: "n" op: "IdentityN" input: "a" input: "b" attr { key: "T" value { list { type: DT_FLOAT type: DT_INT32 } } } }',
            f'node {{ name: "i" op: "Identity" input: "n:1" {t("DT_INT32")} }}',
        ),
        [],
        id="identityn-list",
    ),
    pytest.param(
        graph(const("a"), const("b", "DT_INT32"), 'node { name: "c" op: "fn" input: "a" input: "b" }', FN),
        [],
        id="call-by-function-name",
    ),
    pytest.param(
        graph(
            const("a"),
            'node { name: "c" op: "PartitionedCall" input: "a" attr { key: "Tin" value { list { type: DT_FLOAT } } } attr { key: "Tout" value { list { type: DT_FLOAT } } } attr { key: "f" value { func { name: "g" } } } }',
            f'node {{ name: "i" op: "Identity" input: "c" {t("DT_FLOAT")} }}',
        ),
        [],
        id="partitioned-call",
    ),
    pytest.param(
        graph(
            const("a.b-c>d"),
            f'node {{ name: "i" op: "Identity" input: "a.b-c>d:0" {t("DT_FLOAT")} attr {{ key: "_class" value {{ list {{ s: "loc:@a.b-c>d" }} }} }} }}',
        ),
        [],
        id="odd-names-and-underscore-attr",
    ),
    pytest.param(
        graph('node { name: "x" op: "NotAnOp" }', f'node {{ name: "i" op: "Identity" input: "x" {t("DT_FLOAT")} }}'),
        [],
        id="unknown-op-producer",
    ),
    pytest.param(
        graph(const("a"), 'node { name: "i" op: "Identity" input: "a" attr { key: "T" value { placeholder: "T" } } }'),
        [],
        id="placeholder-outside-function-not-guessed",
    ),
    pytest.param(
        graph(
            const("a"),
            f'node {{ name: "i" op: "Identity" input: "a" input: "a" {t("DT_INT32")} }}'.replace(
                'input: "a" input: "a"', 'input: "a:1"'
            ),
        ),
        [],
        id="bad-index-left-to-output-index",
    ),
    pytest.param(
        graph(
            library(
                'node_def { name: "i" op: "Identity" input: "x" attr { key: "T" value { placeholder: "T" } } }',
                'node_def { name: "j" op: "Identity" input: "i:output:0" attr { key: "T" value { type: DT_INT32 } } }',
                args='input_arg { name: "x" type_attr: "T" } attr { name: "T" type: "type" }',
            )
        ),
        [],
        id="body-types-from-function-attrs-skipped",
    ),
    pytest.param(
        graph(
            library(
                'node_def { name: "v" op: "VariableV2" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape {} } } }',
                'node_def { name: "as" op: "Assign" input: "v:ref" input: "x" attr { key: "T" value { type: DT_FLOAT } } }',
                'node_def { name: "i" op: "Identity" input: "as:output_ref:0" attr { key: "T" value { type: DT_FLOAT } } }',
            )
        ),
        [],
        id="body-ref-edges",
    ),
    pytest.param(
        graph(
            library(
                'node_def { name: "u" op: "Unpack" input: "x" attr { key: "num" value { i: 2 } } attr { key: "T" value { type: DT_FLOAT } } }',
                'node_def { name: "s" op: "AddN" input: "u:output" attr { key: "N" value { i: 2 } } attr { key: "T" value { type: DT_FLOAT } } }',
            )
        ),
        [],
        id="body-whole-output-arg",
    ),
    # -- failures -------------------------------------------------------------
    pytest.param(
        graph(const("a"), f'node {{ name: "i" op: "Identity" input: "a" {t("DT_INT32")} }}'),
        [(RULE, "i", 2)],
        id="identity-wrong-t",
    ),
    pytest.param(
        graph(const("a"), f'node {{ name: "as" op: "Assign" input: "a" input: "a" {t("DT_FLOAT")} }}'),
        [(RULE, "as", 2)],
        id="ref-input-fed-a-value",
    ),
    pytest.param(loop("while/Merge_1"), [(RULE, "while/Less", 9)], id="while-less-fed-resource"),
    pytest.param(
        graph(
            const("a"),
            f'node {{ name: "m" op: "Merge" input: "a" input: "a" attr {{ key: "N" value {{ i: 2 }} }} {t("DT_FLOAT")} }}',
            f'node {{ name: "i" op: "Identity" input: "m:1" {t("DT_FLOAT")} }}',
        ),
        [(RULE, "i", 3)],
        id="merge-value-index-is-int32",
    ),
    pytest.param(
        graph(
            vector("a"),
            f'node {{ name: "c" op: "ConcatV2" input: "a" input: "a" input: "a" attr {{ key: "N" value {{ i: 2 }} }} {t("DT_FLOAT")} }}',
        ),
        [(RULE, "c", 2)],
        id="concat-float-axis",
    ),
    pytest.param(
        graph(
            const("a"),
            'node { name: "n" op: "IdentityN" input: "a" input: "a" attr { key: "T" value { list { type: DT_FLOAT type: DT_INT64 } } } }',
        ),
        [(RULE, "n", 2)],
        id="type-list-second-element",
    ),
    pytest.param(
        graph(const("a"), const("b", "DT_INT32"), 'node { name: "c" op: "fn" input: "a" input: "a" }', FN),
        [(RULE, "c", 3)],
        id="call-by-function-name",
    ),
    pytest.param(
        graph(
            const("b", "DT_INT32"),
            'node { name: "c" op: "PartitionedCall" input: "b" input: "b" attr { key: "Tin" value { list { type: DT_FLOAT type: DT_INT32 } } } attr { key: "Tout" value { list { } } } attr { key: "f" value { func { name: "g" } } } }',
        ),
        [(RULE, "c", 2)],
        id="partitioned-call-tin",
    ),
    pytest.param(
        graph(library('node_def { name: "i" op: "Identity" input: "x" attr { key: "T" value { type: DT_INT32 } } }')),
        [(RULE, "i", 3)],
        id="body-arg-type",
    ),
    pytest.param(
        graph(
            library(
                'node_def { name: "u" op: "Unpack" input: "x" attr { key: "num" value { i: 2 } } attr { key: "T" value { type: DT_FLOAT } } }',
                'node_def { name: "s" op: "AddN" input: "u:output" attr { key: "N" value { i: 2 } } attr { key: "T" value { type: DT_HALF } } }',
            )
        ),
        [(RULE, "s", 4), (RULE, "s", 4)],
        id="body-whole-output-arg-each-element",
    ),
    pytest.param(
        graph(
            library(
                'node_def { name: "c" op: "Cast" input: "x:0" attr { key: "SrcT" value { type: DT_FLOAT } } attr { key: "DstT" value { type: DT_INT32 } } }',
                'node_def { name: "a" op: "Add" input: "x" input: "c:y:0" attr { key: "T" value { type: DT_FLOAT } } }',
            )
        ),
        [(RULE, "a", 4)],
        id="body-second-input",
    ),
    pytest.param(
        graph(
            library(
                'node_def { name: "as" op: "Assign" input: "x" input: "x" attr { key: "T" value { type: DT_FLOAT } } }',
            )
        ),
        [(RULE, "as", 3)],
        id="body-ref-input-fed-a-value",
    ),
]


@pytest.mark.parametrize("pbtxt, expected", CASES)
def test_type_attr_consistency(pbtxt, expected):
    assert pinned(lint_text(pbtxt), rule=RULE) == expected


def test_message_like_tensorflows_while_less():
    [finding] = [f for f in lint_text(loop("while/Merge_1")) if f.rule == RULE]
    assert (
        finding.message
        == "Node 'while/Less' (op Less): input 0 (input arg 'x', type from attr 'T') expects int32 but 'while/Merge_1' from node 'while/Merge_1' (op Merge) is resource"
    )


def test_ref_message_explains_the_reference():
    [finding] = [
        f
        for f in lint_text(
            graph(const("a"), f'node {{ name: "as" op: "Assign" input: "a" input: "a" {t("DT_FLOAT")} }}')
        )
        if f.rule == RULE
    ]
    assert (
        finding.message
        == "Node 'as' (op Assign): input 0 (input arg 'ref', type from attr 'T') expects float_ref but 'a' from node 'a' (op Const) is float; a ref input needs a reference, e.g. a TF1 variable's output"
    )


def test_body_message_names_the_function_argument():
    [finding] = [
        f
        for f in lint_text(
            graph(
                library('node_def { name: "i" op: "Identity" input: "x" attr { key: "T" value { type: DT_INT32 } } }')
            )
        )
        if f.rule == RULE
    ]
    assert finding.function == "f"
    assert (
        finding.message
        == "Node 'i' (op Identity): input 0 (input arg 'input', type from attr 'T') expects int32 but 'x' (an argument of the function) is float"
        f" ({NEVER_CALLED})"
    )
