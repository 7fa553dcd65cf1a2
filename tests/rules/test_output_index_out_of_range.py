"""output-index-out-of-range: inputs naming outputs their producer does not have.

Behaviour checked against TensorFlow 2.21: `const2:1` on a Const and `sw:2` on a Switch
("Connecting to invalid output 2 of source node sw which has 2 outputs"), a NoOp read as data
(0 outputs), a call to a library function read at `c:2` (2 outputs), `a:4294967295` and `a:2147483648` (both
a segmentation fault at import), `a:00` and `a:4294967296` (both read as output 0, imported); in
function bodies (run through a PartitionedCall) `x:1` on a one-value arg, `i:out:0`, a bare `i`
and `i:output:1` on an Identity ("input ... is not found"; `i:0` and `x:output:0` fail the same
way and are input-syntax's findings).
"""

from __future__ import annotations

import pytest
from conftest import lint_text, pinned
from signature_graphs import T_FLOAT, const, graph, library, vector

from tflint.engine.run import NEVER_CALLED

RULE = "output-index-out-of-range"


def identity(name: str, *sources: str) -> str:
    inputs = " ".join(f'input: "{source}"' for source in sources)
    return f'node {{ name: "{name}" op: "Identity" {inputs} {T_FLOAT} }}'


def body_identity(name: str, source: str) -> str:
    return f'node_def {{ name: "{name}" op: "Identity" input: "{source}" {T_FLOAT} }}'


UNPACK2 = f'node {{ name: "u" op: "Unpack" input: "a" attr {{ key: "num" value {{ i: 2 }} }} {T_FLOAT} }}'
SWITCH = f'node {{ name: "sw" op: "Switch" input: "a" input: "p" {T_FLOAT} }}'
FN2 = 'library { function { signature { name: "fn" input_arg { name: "a" type: DT_FLOAT } output_arg { name: "s" type: DT_FLOAT } output_arg { name: "p" type: DT_FLOAT } } ret { key: "s" value: "a" } ret { key: "p" value: "a" } } }'

CASES = [
    # -- clean ----------------------------------------------------------------
    pytest.param(graph(vector("a"), UNPACK2, identity("i", "u:1"), identity("j", "u")), [], id="number-attr-outputs"),
    pytest.param(
        graph(const("a"), const("p", "DT_BOOL"), SWITCH, identity("t", "sw:1"), identity("f", "sw")),
        [],
        id="switch-both-outputs",
    ),
    pytest.param(
        graph(
            const("a"),
            f'node {{ name: "m" op: "Merge" input: "a" input: "a" attr {{ key: "N" value {{ i: 2 }} }} {T_FLOAT} }}',
            'node { name: "k" op: "Identity" input: "m:1" attr { key: "T" value { type: DT_INT32 } } }',
        ),
        [],
        id="merge-value-index",
    ),
    pytest.param(
        graph(
            const("a"),
            'node { name: "n" op: "IdentityN" input: "a" input: "a" attr { key: "T" value { list { type: DT_FLOAT type: DT_FLOAT } } } }',
            identity("i", "n:1"),
        ),
        [],
        id="type-list-outputs",
    ),
    pytest.param(
        graph(const("a"), 'node { name: "c" op: "fn" input: "a" }', identity("i", "c:1"), FN2),
        [],
        id="call-by-function-name",
    ),
    pytest.param(graph(const("a.b-c>d"), identity("i", "a.b-c>d:00")), [], id="odd-name-leading-zero-index"),
    pytest.param(graph(const("a"), identity("i", "missing:3")), [], id="unresolved-left-to-unresolved-input"),
    pytest.param(graph('node { name: "x" op: "NotAnOp" }', identity("i", "x:7")), [], id="unknown-op-producer"),
    pytest.param(
        graph(
            const("a"),
            'node { name: "n" op: "NoOp" input: "^a" }',
            identity("i", "a"),
            'node { name: "j" op: "NoOp" input: "^n" }',
        ),
        [],
        id="control-inputs-of-no-output-node",
    ),
    pytest.param(
        graph(
            const("a"),
            library(
                'node_def { name: "u" op: "Unpack" input: "x:0" attr { key: "num" value { i: 2 } } attr { key: "T" value { type: DT_FLOAT } } }',
                body_identity("i", "u:output:1"),
                'node_def { name: "s" op: "AddN" input: "u:output" attr { key: "N" value { i: 2 } } attr { key: "T" value { type: DT_FLOAT } } }',
                'node_def { name: "n" op: "NoOp" }',
                f'node_def {{ name: "j" op: "Identity" input: "n" input: "x" {T_FLOAT} }}',
            ),
        ),
        [],
        id="body-valid-references",
    ),
    pytest.param(
        graph(
            library(
                body_identity("i", "x:5"),
                'node_def { name: "u" op: "Unpack" input: "x" attr { key: "num" value { placeholder: "K" } } attr { key: "T" value { type: DT_FLOAT } } }',
                body_identity("j", "u:output:9"),
                args='input_arg { name: "x" type: DT_FLOAT number_attr: "N" } attr { name: "N" type: "int" } attr { name: "K" type: "int" }',
            )
        ),
        [],
        id="body-lengths-from-function-attrs-skipped",
    ),
    pytest.param(
        graph(library(body_identity("i", "x"), body_identity("j", "i:0"))),
        [],
        id="body-numbered-output-left-to-input-syntax",
    ),
    pytest.param(
        graph(library(body_identity("i", "x:output:0"))), [], id="body-arg-with-output-arg-left-to-input-syntax"
    ),
    # -- failures -------------------------------------------------------------
    pytest.param(
        graph(
            const("a"),
            const("b"),
            f'node {{ name: "m" op: "Merge" input: "a:0" input: "b:1" attr {{ key: "N" value {{ i: 2 }} }} {T_FLOAT} }}',
        ),
        [(RULE, "m", 3)],
        id="const-has-one-output",
    ),
    pytest.param(graph(vector("a"), UNPACK2, identity("i", "u:2")), [(RULE, "i", 3)], id="past-number-attr-outputs"),
    pytest.param(
        graph(const("a"), const("p", "DT_BOOL"), SWITCH, identity("i", "sw:2")),
        [(RULE, "i", 4)],
        id="switch-has-two-outputs",
    ),
    pytest.param(
        graph('node { name: "n" op: "NoOp" }', identity("i", "n")), [(RULE, "i", 2)], id="no-outputs-read-as-data"
    ),
    pytest.param(
        graph(const("a"), 'node { name: "c" op: "fn" input: "a" }', identity("i", "c:2"), FN2),
        [(RULE, "i", 3)],
        id="call-by-function-name",
    ),
    pytest.param(graph(const("a"), identity("i", "a:4294967295")), [(RULE, "i", 2)], id="wraps-to-minus-one"),
    pytest.param(graph(const("a"), identity("i", "a:2147483648")), [(RULE, "i", 2)], id="wraps-to-int32-min"),
    pytest.param(
        graph(
            const("a"),
            'node { name: "n" op: "IdentityN" input: "a" attr { key: "T" value { list { type: DT_FLOAT } } } }',
            identity("i", "n:1"),
            identity("j", "n:1"),
        ),
        [(RULE, "i", 3), (RULE, "j", 4)],
        id="every-bad-reader",
    ),
    pytest.param(
        graph('node { name: "d" op: "NoOp" }', const("d"), identity("i", "d")),
        [(RULE, "i", 3)],
        id="duplicate-name-first-one-read",
    ),
    pytest.param(
        graph(const("d"), 'node { name: "d" op: "NoOp" }', identity("i", "d")), [], id="duplicate-name-first-has-output"
    ),
    pytest.param(
        graph(
            'node { name: "n" op: "NoOp" }',
            'node { name: "m" op: "NoOp" }',
            identity("i", "m", "^n"),
            identity("j", "n", "m"),
        ),
        [(RULE, "i", 3), (RULE, "j", 4), (RULE, "j", 4)],
        id="no-outputs-every-reader-in-order",
    ),
    pytest.param(
        graph(
            vector("a"),
            'node { name: "u" op: "Unpack" input: "a" attr { key: "num" value { i: 0 } } attr { key: "T" value { type: DT_FLOAT } } }',
            identity("i", "u"),
        ),
        [(RULE, "i", 3)],
        id="number-attr-zero-outputs",
    ),
    pytest.param(graph(library(body_identity("i", "x:1"))), [(RULE, "i", 3)], id="body-arg-element"),
    pytest.param(
        graph(library(body_identity("i", "x"), body_identity("j", "i:out:0"))),
        [(RULE, "j", 4)],
        id="body-unknown-output-arg",
    ),
    pytest.param(
        graph(library(body_identity("i", "x"), body_identity("j", "i:output:1"))),
        [(RULE, "j", 4)],
        id="body-output-arg-element",
    ),
    pytest.param(
        graph(library(body_identity("i", "x"), body_identity("j", "i"))),
        [(RULE, "j", 4)],
        id="body-bare-node-with-outputs",
    ),
]


@pytest.mark.parametrize("pbtxt, expected", CASES)
def test_output_index(pbtxt, expected):
    assert pinned(lint_text(pbtxt), rule=RULE) == expected


def test_message_names_the_count_and_the_op():
    pbtxt = graph(
        const("const1"),
        const("const2"),
        f'node {{ name: "merge" op: "Merge" input: "const1:0" input: "const2:1" attr {{ key: "N" value {{ i: 2 }} }} {T_FLOAT} }}',
    )
    [finding] = [f for f in lint_text(pbtxt) if f.rule == RULE]
    assert (
        finding.message
        == "Node 'merge': input 'const2:1' asks for output 1 of node 'const2', which has 1 output (op Const)"
    )


def test_wrapped_index_message():
    [finding] = [f for f in lint_text(graph(const("a"), identity("i", "a:4294967295"))) if f.rule == RULE]
    assert (
        finding.message
        == "Node 'i': input 'a:4294967295' asks for output -1 of node 'a': the index overflows TensorFlow's 32-bit parser and wraps around to a negative number"
    )


def test_body_message():
    [finding] = [
        f for f in lint_text(graph(library(body_identity("i", "x"), body_identity("j", "i:out:0")))) if f.rule == RULE
    ]
    assert finding.function == "f"
    assert (
        finding.message
        == "Node 'j': input 'i:out:0' names no output: node 'i' has no output arg 'out' (op Identity has output args 'output')"
        f" ({NEVER_CALLED})"
    )
