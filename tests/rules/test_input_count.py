"""input-count: data inputs vs the signature computed from the OpDef (or function signature) and attrs.

Behaviour checked against TensorFlow 2.21 (`tf.graph_util.import_graph_def`, and a session run
of a PartitionedCall for function bodies): Merge with N=3 and 2 inputs, Identity with too many
inputs, a call to a library function with 1 of 2 inputs, Unpack num=2**32 ("Number of outputs
is too big"), IdentityN with a list(string) T, and in function bodies "Attempt to access beyond
input size", "Expected input[1] == 'x' to be a control input" and "Input u:output too long for x".
"""

from __future__ import annotations

import pytest
from conftest import lint_bytes, lint_text, pinned
from signature_graphs import T_FLOAT, const, graph, library, vector

from tflint.engine.run import NEVER_CALLED

RULE = "input-count"
FN2 = 'library { function { signature { name: "fn" input_arg { name: "a" type: DT_FLOAT } input_arg { name: "b" type: DT_FLOAT } output_arg { name: "s" type: DT_FLOAT } } ret { key: "s" value: "a" } } }'


CASES = [
    # -- clean ----------------------------------------------------------------
    pytest.param(
        graph(
            const("a"),
            f'node {{ name: "s" op: "AddN" input: "a" input: "a:0" input: "^a" attr {{ key: "N" value {{ i: 2 }} }} {T_FLOAT} }}',
        ),
        [],
        id="addn-with-control-input",
    ),
    pytest.param(
        graph(
            vector("a"),
            const("axis", "DT_INT32"),
            f'node {{ name: "c" op: "ConcatV2" input: "a" input: "a" input: "axis" attr {{ key: "N" value {{ i: 2 }} }} {T_FLOAT} }}',
        ),
        [],
        id="concat-omitted-default-tidx",
    ),
    pytest.param(
        graph(
            const("a"),
            f'node {{ name: "i" op: "Identity" input: "a" {T_FLOAT} attr {{ key: "_class" value {{ list {{ s: "loc:@a" }} }} }} attr {{ key: "_output_shapes" value {{ list {{ shape {{}} }} }} }} }}',
        ),
        [],
        id="underscore-attrs",
    ),
    pytest.param(
        graph(
            const("a"),
            'node { name: "n" op: "IdentityN" input: "a" input: "a" attr { key: "T" value { list { type: DT_FLOAT type: DT_FLOAT } } } }',
        ),
        [],
        id="identityn-list",
    ),
    pytest.param(
        graph(
            'node { name: "c" op: "PartitionedCall" attr { key: "Tin" value { list { } } } attr { key: "Tout" value { list { } } } attr { key: "f" value { func { name: "g" } } } }'
        ),
        [],
        id="partitioned-call-no-args",
    ),
    pytest.param(
        graph(const("a"), 'node { name: "c" op: "fn" input: "a" input: "a" }', FN2), [], id="call-by-function-name"
    ),
    pytest.param(
        graph(const("a-b.c>d"), f'node {{ name: "i" op: "Identity" input: "a-b.c>d:0" {T_FLOAT} }}'), [], id="odd-names"
    ),
    pytest.param(
        graph(
            const("a"),
            f'node {{ name: "e" op: "Enter" input: "a" {T_FLOAT} attr {{ key: "frame_name" value {{ s: "w" }} }} }}',
            f'node {{ name: "m" op: "Merge" input: "e" input: "n" {T_FLOAT} attr {{ key: "N" value {{ i: 2 }} }} }}',
            f'node {{ name: "n" op: "NextIteration" input: "m" {T_FLOAT} }}',
        ),
        [],
        id="loop-back-edge",
    ),
    pytest.param(
        graph('node { name: "x" op: "NotAnOp" input: "y" input: "z" }', const("y"), const("z")),
        [],
        id="unknown-op-left-to-unknown-op",
    ),
    pytest.param(
        graph(const("a"), f'node {{ name: "s" op: "AddN" input: "a" {T_FLOAT} }}'),
        [],
        id="missing-n-left-to-missing-attr",
    ),
    pytest.param(
        graph(const("a"), 'node { name: "s" op: "Add" input: "a" }'),
        [(RULE, "s", 2)],
        id="missing-type-attr-does-not-hide-the-count",
    ),
    pytest.param(
        graph(const("a"), 'node { name: "s" op: "AddN" input: "a" attr { key: "N" value { i: 2 } } }'),
        [(RULE, "s", 2)],
        id="missing-type-attr-count-from-n",
    ),
    pytest.param(
        graph(const("a"), 'node { name: "s" op: "AddN" input: "a" input: "a" attr { key: "N" value { i: 2 } } }'),
        [],
        id="missing-type-attr-count-right",
    ),
    pytest.param(
        graph(
            const("a"),
            library(
                'node_def { name: "u" op: "Unpack" input: "x" attr { key: "num" value { i: 2 } } attr { key: "T" value { type: DT_FLOAT } } }',
                'node_def { name: "s" op: "AddN" input: "u:output" attr { key: "N" value { i: 2 } } attr { key: "T" value { type: DT_FLOAT } } }',
            ),
        ),
        [],
        id="body-whole-output-arg-fills-list",
    ),
    pytest.param(
        graph(
            library(
                'node_def { name: "s" op: "AddN" input: "x" input: "x" input: "x" attr { key: "N" value { placeholder: "N" } } attr { key: "T" value { placeholder: "T" } } }',
            )
        ),
        [],
        id="body-placeholder-length-skipped",
    ),
    pytest.param(
        graph(
            library(
                'node_def { name: "s" op: "AddN" input: "x" input: "x" attr { key: "N" value { i: 2 } } attr { key: "T" value { type: DT_FLOAT } } }',
                args='input_arg { name: "x" type: DT_FLOAT number_attr: "K" } attr { name: "K" type: "int" }',
            )
        ),
        [],
        id="body-arg-of-unknown-length-skipped",
    ),
    pytest.param(
        graph(
            library(
                'node_def { name: "n" op: "NoOp" }',
                'node_def { name: "i" op: "Identity" input: "n" input: "x" attr { key: "T" value { type: DT_FLOAT } } }',
            )
        ),
        [],
        id="body-zero-output-node-supplies-nothing",
    ),
    # -- failures -------------------------------------------------------------
    pytest.param(
        graph(
            const("a"),
            f'node {{ name: "m" op: "Merge" input: "a" input: "a" attr {{ key: "N" value {{ i: 3 }} }} {T_FLOAT} }}',
        ),
        [(RULE, "m", 2)],
        id="merge-n-disagrees",
    ),
    pytest.param(graph(f'node {{ name: "i" op: "Identity" {T_FLOAT} }}'), [(RULE, "i", 1)], id="no-inputs"),
    pytest.param(
        graph(const("a"), f'node {{ name: "i" op: "Identity" input: "a" input: "a" input: "^a" {T_FLOAT} }}'),
        [(RULE, "i", 2)],
        id="too-many-inputs",
    ),
    pytest.param(
        graph(
            const("a"),
            'node { name: "n" op: "IdentityN" input: "a" input: "a" attr { key: "T" value { list { type: DT_FLOAT } } } }',
        ),
        [(RULE, "n", 2)],
        id="type-list-shorter-than-inputs",
    ),
    pytest.param(
        graph(const("a"), 'node { name: "c" op: "fn" input: "a" }', FN2),
        [(RULE, "c", 2)],
        id="call-by-function-name-too-few",
    ),
    pytest.param(
        graph(
            const("a"),
            f'node {{ name: "u" op: "Unpack" input: "a" attr {{ key: "num" value {{ i: 4294967296 }} }} {T_FLOAT} }}',
        ),
        [(RULE, "u", 2)],
        id="number-attr-too-big",
    ),
    pytest.param(
        graph(
            const("a"),
            f'node {{ name: "u" op: "Unpack" input: "a" attr {{ key: "num" value {{ i: -1 }} }} {T_FLOAT} }}',
        ),
        [(RULE, "u", 2)],
        id="number-attr-negative",
    ),
    pytest.param(
        graph(
            const("a"), f'node {{ name: "s" op: "AddN" input: "a" attr {{ key: "N" value {{ s: "one" }} }} {T_FLOAT} }}'
        ),
        [(RULE, "s", 2)],
        id="number-attr-ill-typed",
    ),
    pytest.param(
        graph(
            const("a"),
            'node { name: "s" op: "AddN" input: "a" attr { key: "N" value { i: 1 } } attr { key: "T" value { list { type: DT_FLOAT } } } }',
        ),
        [(RULE, "s", 2)],
        id="repeated-type-attr-ill-typed",
    ),
    pytest.param(
        graph(
            const("a"), 'node { name: "n" op: "IdentityN" input: "a" attr { key: "T" value { list { s: "float" } } } }'
        ),
        [(RULE, "n", 2)],
        id="type-list-attr-of-strings",
    ),
    pytest.param(
        graph(
            const("a"),
            'node { name: "c" op: "g" input: "a" }',
            'library { function { signature { name: "g" input_arg { name: "x" type: DT_FLOAT number_attr: "K" } } } }',
        ),
        [(RULE, "c", 2)],
        id="length-attr-not-declared",
    ),
    pytest.param(
        graph(
            const("a"),
            library(
                'node_def { name: "s" op: "Add" input: "x" attr { key: "T" value { type: DT_FLOAT } } }',
            ),
        ),
        [(RULE, "s", 4)],
        id="body-too-few",
    ),
    pytest.param(
        graph(
            const("a"),
            library(
                'node_def { name: "s" op: "Identity" input: "x" input: "x" attr { key: "T" value { type: DT_FLOAT } } }',
            ),
        ),
        [(RULE, "s", 4)],
        id="body-too-many",
    ),
    pytest.param(
        graph(
            const("a"),
            library(
                'node_def { name: "u" op: "Unpack" input: "x" attr { key: "num" value { i: 2 } } attr { key: "T" value { type: DT_FLOAT } } }',
                'node_def { name: "s" op: "Add" input: "u:output" input: "x" attr { key: "T" value { type: DT_FLOAT } } }',
            ),
        ),
        [(RULE, "s", 5)],
        id="body-input-too-long-for-arg",
    ),
    pytest.param(
        graph(
            const("a"),
            library(
                'node_def { name: "u" op: "Unpack" input: "x" attr { key: "num" value { i: 2 } } attr { key: "T" value { type: DT_FLOAT } } }',
                'node_def { name: "s" op: "AddN" input: "u:output" input: "u:output:0" attr { key: "N" value { i: 2 } } attr { key: "T" value { type: DT_FLOAT } } }',
            ),
        ),
        [(RULE, "s", 5)],
        id="body-whole-list-plus-one",
    ),
]


@pytest.mark.parametrize("pbtxt, expected", CASES)
def test_input_count(pbtxt, expected):
    assert pinned(lint_text(pbtxt), rule=RULE) == expected


def test_location_points_at_the_broken_length_attr():
    pbtxt = graph(
        const("a"),
        "node {",
        '  name: "u"',
        '  op: "Unpack"',
        '  input: "a"',
        '  attr { key: "num" value { i: -3 } }',
        f"  {T_FLOAT}",
        "}",
    )
    assert pinned(lint_text(pbtxt), rule=RULE) == [(RULE, "u", 6)]


def test_a_missing_type_attr_and_a_wrong_count_are_two_findings_in_one_run():
    findings = lint_text(graph(const("a"), 'node { name: "s" op: "Add" input: "a" }'))
    assert [(f.rule, f.message) for f in findings if f.node == "s"] == [
        (RULE, "Node 's' (op Add) has 1 data input but its op expects 2"),
        ("missing-attr", "Node 's' (op Add) is missing attr 'T' (type), which has no default"),
    ]
    from google.protobuf import text_format

    from tflint import protos

    binary = text_format.Parse(
        graph(const("a"), 'node { name: "s" op: "Add" input: "a" }'), protos.GraphDef(), descriptor_pool=protos.POOL
    )
    assert sorted(f.rule for f in lint_bytes(binary.SerializeToString()) if f.node == "s") == [
        "input-count",
        "missing-attr",
    ]


def test_merge_message():
    pbtxt = graph(
        const("a"),
        f'node {{ name: "m" op: "Merge" input: "a" input: "a" attr {{ key: "N" value {{ i: 3 }} }} {T_FLOAT} }}',
    )
    [finding] = [f for f in lint_text(pbtxt) if f.rule == RULE]
    assert (
        finding.message
        == "Node 'm' (op Merge) has 2 data inputs but its signature expects 3 (float, float, float; attr 'N' is 3)"
    )


def test_too_big_message():
    pbtxt = graph(
        const("a"),
        f'node {{ name: "u" op: "Unpack" input: "a" attr {{ key: "num" value {{ i: 4294967296 }} }} {T_FLOAT} }}',
    )
    [finding] = [f for f in lint_text(pbtxt) if f.rule == RULE]
    assert (
        finding.message
        == "Node 'u' (op Unpack): its signature cannot be computed: attr 'num' (the length of output arg 'output') is 4294967296, too big for an int32"
    )


def test_function_body_message_names_the_leftover_input():
    pbtxt = graph(
        const("a"),
        library(
            'node_def { name: "s" op: "Identity" input: "x" input: "x" attr { key: "T" value { type: DT_FLOAT } } }'
        ),
    )
    [finding] = [f for f in lint_text(pbtxt) if f.rule == RULE]
    assert finding.function == "f"
    assert (
        finding.message
        == "Node 's' (op Identity): its data inputs supply 2 values but its signature expects 1 (float); 'x' and later data inputs are left over"
        f" ({NEVER_CALLED})"
    )
