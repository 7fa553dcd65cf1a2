"""tensor-content: tensors TensorFlow cannot build (errors) or builds from something else than written (warnings).

Every verdict here was checked with TensorFlow 2.21 by importing the graph
and running the Const (see the rule's docstring for the behaviour).
"""

from __future__ import annotations

import pytest
from conftest import lint_text, pinned

from tflint.finding import Severity
from tflint.rules import tensor_content

ID = tensor_content.ID
E, W = Severity.ERROR, Severity.WARNING


def const(name: str, tensor: str, dtype: str = "DT_FLOAT", op: str = "Const") -> str:
    return f'node {{ name: "{name}" op: "{op}" attr {{ key: "dtype" value {{ type: {dtype} }} }} attr {{ key: "value" value {{ tensor {{ {tensor} }} }} }} }}\n'


def graded(findings):
    return [(f.node, f.line, f.severity) for f in findings if f.rule == ID]


@pytest.mark.parametrize(
    "pbtxt, expected",
    [
        # -- legal, and must stay clean --------------------------------------------------------
        pytest.param(
            const("c", "dtype: DT_FLOAT tensor_shape { dim { size: 4 } } float_val: 1 float_val: 2"),
            [],
            id="fewer-values-repeat-the-last",
        ),
        pytest.param(const("c", "dtype: DT_FLOAT tensor_shape { dim { size: 3 } }"), [], id="no-values-mean-zeros"),
        pytest.param(const("c", "dtype: DT_FLOAT tensor_shape { } float_val: 2"), [], id="scalar"),
        pytest.param(
            const(
                "c",
                'dtype: DT_INT32 tensor_shape { dim { size: 2 } } tensor_content: "\\001\\000\\000\\000\\002\\000\\000\\000"',
                "DT_INT32",
            ),
            [],
            id="content-exact",
        ),
        pytest.param(
            const("c", 'dtype: DT_BOOL tensor_shape { dim { size: 2 } } tensor_content: "\\001\\000"', "DT_BOOL"),
            [],
            id="bool-content",
        ),
        pytest.param(
            const(
                "c", 'dtype: DT_STRING tensor_shape { dim { size: 2 } } tensor_content: "\\001\\002abc"', "DT_STRING"
            ),
            [],
            id="string-content",
        ),
        pytest.param(
            const(
                "c", 'dtype: DT_STRING tensor_shape { dim { size: 3 } } string_val: "x" string_val: "y"', "DT_STRING"
            ),
            [],
            id="string-values-repeat",
        ),
        pytest.param(
            const("c", "dtype: DT_HALF tensor_shape { dim { size: 2 } } half_val: 15360", "DT_HALF"), [], id="half-bits"
        ),
        pytest.param(
            const("c", "dtype: DT_BFLOAT16 tensor_shape { dim { size: 2 } } half_val: 16256", "DT_BFLOAT16"),
            [],
            id="bfloat16-in-half-val",
        ),
        pytest.param(
            const(
                "c",
                "dtype: DT_COMPLEX64 tensor_shape { dim { size: 2 } } scomplex_val: 1 scomplex_val: 2",
                "DT_COMPLEX64",
            ),
            [],
            id="complex-pair",
        ),
        pytest.param(
            const("c", "dtype: DT_INT4 tensor_shape { dim { size: 3 } } int_val: -8", "DT_INT4"),
            [],
            id="int4-in-int-val",
        ),
        pytest.param(
            const("c", 'dtype: DT_FLOAT8_E5M2 tensor_shape { dim { size: 2 } } float8_val: "\\070"', "DT_FLOAT8_E5M2"),
            [],
            id="float8-bytes",
        ),
        pytest.param(
            const("c", "dtype: DT_UINT32 tensor_shape { dim { size: 2 } } uint32_val: 4000000000", "DT_UINT32"),
            [],
            id="uint32-own-field",
        ),
        pytest.param(
            const("c", "dtype: DT_FLOAT tensor_shape { dim { size: 0 } dim { size: 5 } }"),
            [],
            id="zero-elements-no-data",
        ),
        pytest.param(
            const("c", "dtype: DT_RESOURCE tensor_shape { dim { size: 1 } }", "DT_RESOURCE"),
            [],
            id="resource-default-handle",
        ),
        pytest.param(
            const("c", "dtype: DT_INT32 tensor_shape { } int_val: 1", "DT_INT32", op="HostConst"), [], id="hostconst"
        ),
        pytest.param(
            'node { name: "c" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 1 } } } '
            'attr { key: "_extra" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: -1 } } } } } }\n',
            [],
            id="underscore-attr-not-read",
        ),
        pytest.param(
            'node { name: "u" op: "MyCustomOp" attr { key: "value" value { tensor { tensor_shape { dim { size: -1 } } } } } }\n',
            [],
            id="unknown-op-skipped",
        ),
        pytest.param(
            'node { name: "c" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { s: "x" } } }\n',
            [],
            id="wrong-kind-is-attr-type-mismatch",
        ),
        pytest.param(
            'node { name: "a>b.c-d" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 1 } } } }\n',
            [],
            id="odd-name-ok",
        ),
        pytest.param(
            "library {\n"
            "  function {\n"
            '    signature { name: "f" attr { name: "v" type: "tensor" } output_arg { name: "o" type: DT_FLOAT } }\n'
            '    node_def { name: "k" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { placeholder: "v" } } }\n'
            '    ret { key: "o" value: "k:output:0" }\n'
            "  }\n"
            "}\n",
            [],
            id="placeholder-in-function-body",
        ),
        # -- errors ----------------------------------------------------------------------------
        pytest.param(
            const("c", 'dtype: DT_FLOAT tensor_shape { dim { size: 2 } } tensor_content: "abcd"'),
            [("c", 1, E)],
            id="content-too-short",
        ),
        pytest.param(
            const("c", 'dtype: DT_FLOAT tensor_shape { dim { size: 1 } } tensor_content: "abcdefgh"'),
            [("c", 1, E)],
            id="content-too-long",
        ),
        pytest.param(
            const("c", 'dtype: DT_INT4 tensor_shape { dim { size: 2 } } tensor_content: "\\001"', "DT_INT4"),
            [("c", 1, E)],
            id="int4-one-byte-each",
        ),
        pytest.param(
            const("c", 'dtype: DT_BOOL tensor_shape { dim { size: 2 } } tensor_content: "\\002\\000"', "DT_BOOL"),
            [("c", 1, E)],
            id="bool-content-byte-2",
        ),
        pytest.param(
            const("c", 'dtype: DT_STRING tensor_shape { dim { size: 2 } } tensor_content: "\\005\\001ab"', "DT_STRING"),
            [("c", 1, E)],
            id="string-content-short",
        ),
        pytest.param(
            const(
                "c", 'dtype: DT_STRING tensor_shape { dim { size: 2 } } tensor_content: "\\001\\001abc"', "DT_STRING"
            ),
            [("c", 1, E)],
            id="string-content-trailing",
        ),
        pytest.param(const("c", "dtype: DT_INT32 tensor_shape { } int_val: 1"), [("c", 1, E)], id="dtype-mismatch"),
        pytest.param(
            const("c", "dtype: DT_INT32 tensor_shape { } int_val: 1", op="HostConst"),
            [("c", 1, E)],
            id="hostconst-dtype-mismatch",
        ),
        pytest.param(
            'node { name: "c" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { } } } }\n',
            [("c", 1, E)],
            id="empty-tensor-no-dtype",
        ),
        pytest.param(const("c", "dtype: DT_FLOAT_REF tensor_shape { } float_val: 1"), [("c", 1, E)], id="ref-dtype"),
        pytest.param(
            const("c", "dtype: DT_FLOAT tensor_shape { dim { size: -1 } dim { size: 1 } } float_val: 2"),
            [("c", 1, E)],
            id="not-fully-defined",
        ),
        pytest.param(
            const("c", "dtype: DT_FLOAT tensor_shape { dim { size: -5 } } float_val: 2"),
            [],
            id="below-minus-one-is-invalid-shape",
        ),
        pytest.param(
            'node { name: "c" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } }\n',
            [("c", 1, E)],
            id="const-without-value",
        ),
        pytest.param(
            'node { name: "img" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }\n'
            'node { name: "s" op: "ImageSummary" input: "img" input: "img" attr { key: "bad_color" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 4 } } int_val: 255 } } } }\n',
            [("s", 2, E)],
            id="image-summary-bad-color-dtype",
        ),
        pytest.param(
            'node { name: "s" op: "ImageSummary" attr { key: "bad_color" value { tensor { dtype: DT_UINT8 tensor_shape { } int_val: 255 } } } }\n',
            [("s", 1, E)],
            id="image-summary-bad-color-scalar",
        ),
        pytest.param(
            'node { name: "top" op: "f" }\n'
            "library {\n"
            "  function {\n"
            '    signature { name: "f" output_arg { name: "o" type: DT_FLOAT } }\n'
            '    node_def { name: "k" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } } tensor_content: "x" } } } }\n'
            '    node_def { name: "n" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } }\n'
            '    ret { key: "o" value: "k:output:0" }\n'
            "  }\n"
            "}\n",
            [("k", 5, E), ("n", 6, E)],
            id="function-body",
        ),
        # -- warnings: TensorFlow accepts, but reads something else than written ----------------
        pytest.param(
            const("c", "dtype: DT_FLOAT tensor_shape { dim { size: 2 } } float_val: 1 float_val: 2 float_val: 3"),
            [("c", 1, W)],
            id="more-values-than-elements",
        ),
        pytest.param(
            const("c", "dtype: DT_FLOAT tensor_shape { dim { size: 2 } } int_val: 1 int_val: 2"),
            [("c", 1, W)],
            id="values-in-wrong-field",
        ),
        pytest.param(
            const("c", "dtype: DT_HALF tensor_shape { } float_val: 1", "DT_HALF"), [("c", 1, W)], id="half-in-float-val"
        ),
        pytest.param(
            const(
                "c", 'dtype: DT_FLOAT tensor_shape { dim { size: 1 } } tensor_content: "\\000\\000\\200?" float_val: 5'
            ),
            [("c", 1, W)],
            id="content-and-values",
        ),
        pytest.param(
            const("c", "dtype: DT_FLOAT tensor_shape { dim { size: 0 } } float_val: 1"),
            [("c", 1, W)],
            id="data-for-zero-elements",
        ),
        pytest.param(
            const(
                "c",
                "dtype: DT_COMPLEX64 tensor_shape { dim { size: 2 } } scomplex_val: 1 scomplex_val: 2 scomplex_val: 3",
                "DT_COMPLEX64",
            ),
            [("c", 1, W)],
            id="odd-complex-count",
        ),
        pytest.param(
            const("c", "dtype: DT_INT8 tensor_shape { dim { size: 2 } } int_val: 300", "DT_INT8"),
            [("c", 1, W)],
            id="int8-out-of-range",
        ),
        pytest.param(
            const("c", "dtype: DT_FLOAT tensor_shape { unknown_rank: true dim { size: 2 } } float_val: 1"),
            [("c", 1, W)],
            id="unknown-rank-in-graphdef",
        ),
    ],
)
def test_tensor_content(pbtxt, expected):
    assert graded(lint_text(pbtxt)) == expected


BIG = "\\000" * 4100  # past the size up to which verdicts are memoized on the serialized value


@pytest.mark.parametrize(
    "tensor, expected",
    [
        pytest.param(
            f'dtype: DT_FLOAT tensor_shape {{ dim {{ size: 1025 }} }} tensor_content: "{BIG}"', [], id="big-ok"
        ),
        pytest.param(
            f'dtype: DT_FLOAT tensor_shape {{ dim {{ size: 1026 }} }} tensor_content: "{BIG}"',
            [("c", 1, E)],
            id="big-short",
        ),
        pytest.param(
            f'dtype: DT_FLOAT tensor_shape {{ dim {{ size: 1025 }} }} tensor_content: "{BIG}" float_val: 1',
            [("c", 1, W)],
            id="big-with-values",
        ),
        pytest.param(
            f'dtype: DT_INT32 tensor_shape {{ dim {{ size: 1025 }} }} tensor_content: "{BIG}"',
            [("c", 1, E)],
            id="big-dtype-mismatch",
        ),
        pytest.param(
            "dtype: DT_FLOAT tensor_shape { dim { size: 1100 } }" + " float_val: 1.5" * 1100, [], id="long-values"
        ),
        pytest.param(
            "dtype: DT_FLOAT tensor_shape { dim { size: 2 } }" + " float_val: 1.5" * 1100,
            [("c", 1, W)],
            id="long-values-too-many",
        ),
    ],
)
def test_big_tensors(tensor, expected):
    assert graded(lint_text(const("c", tensor))) == expected
    # the same node twice: the second is not answered from a memo of the first node's verdict
    assert graded(lint_text(const("c", tensor) + const("d", tensor))) == expected + [
        ("d", 2, sev) for _, _, sev in expected
    ]


def test_repeated_small_values_each_reported():
    bad = const("a", "dtype: DT_INT32 tensor_shape { } int_val: 1")
    pbtxt = bad + bad.replace('"a"', '"b"') + bad.replace('"a"', '"c"').replace("DT_FLOAT", "DT_INT32")
    assert graded(lint_text(pbtxt)) == [("a", 1, E), ("b", 2, E)]


def test_several_nodes_pinned_to_their_lines():
    pbtxt = (
        const("ok", "dtype: DT_FLOAT tensor_shape { } float_val: 1")
        + const("bad", "dtype: DT_INT64 tensor_shape { } int64_val: 1")
        + const("ok:0", "dtype: DT_FLOAT tensor_shape { } float_val: 1")
        + const("short", 'dtype: DT_FLOAT tensor_shape { dim { size: 3 } } tensor_content: "abcd"')
    )
    assert pinned(lint_text(pbtxt), rule=ID) == [(ID, "bad", 2), (ID, "short", 4)]


def test_list_of_tensors_names_the_element():
    pbtxt = (
        'node { name: "d" op: "DefaultAttrs" attr { key: "tensor_list_val" value { list { '
        "tensor { dtype: DT_FLOAT tensor_shape { } float_val: 1 } "
        'tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } } tensor_content: "ab" } } } } }\n'
    )
    findings = [f for f in lint_text(pbtxt) if f.rule == ID]
    assert [(f.node, f.line) for f in findings] == [("d", 1)]
    assert "attr 'tensor_list_val' tensor #1 has a tensor_content of 2 bytes" in findings[0].message


def test_message_content_length():
    findings = [
        f
        for f in lint_text(
            const("c", 'dtype: DT_FLOAT tensor_shape { dim { size: 2 } dim { size: 3 } } tensor_content: "abcd"')
        )
        if f.rule == ID
    ]
    assert [f.message for f in findings] == [
        "Node 'c' (op Const): attr 'value' has a tensor_content of 4 bytes, but a float tensor of shape [2,3] needs "
        "6 x 4 = 24 bytes (TensorFlow: `Cannot parse tensor from proto`)"
    ]


def test_message_dtype_mismatch():
    findings = [f for f in lint_text(const("c", "dtype: DT_INT32 tensor_shape { } int_val: 1")) if f.rule == ID]
    assert [f.message for f in findings] == [
        "Node 'c' (op Const): attr 'value' holds a int32 tensor but attr 'dtype' is float; the kernel fails with "
        "`Type mismatch between value (int32) and dtype (float)`"
    ]


def test_finding_points_at_the_value_attr():
    pbtxt = (
        "node {\n"
        '  name: "c"\n'
        '  op: "Const"\n'
        '  attr { key: "dtype" value { type: DT_FLOAT } }\n'
        "  attr {\n"
        '    key: "value"\n'
        "    value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: -1 } } } }\n"
        "  }\n"
        "}\n"
    )
    assert pinned(lint_text(pbtxt), rule=ID) == [(ID, "c", 6)]


SAVED_MODEL = """\
saved_model_schema_version: 1
meta_graphs {
  meta_info_def { tags: "serve" }
  graph_def {
    node { name: "c" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { unknown_rank: true } float_val: 1 } } } }
  }
}
"""


def test_unknown_rank_value_in_saved_model_is_an_error():
    # TensorFlow's SavedModel loader (ValidateSavedTensors) rejects it; a plain import reads a scalar.
    assert graded(lint_text(SAVED_MODEL)) == [("c", 5, E)]


def test_warnings_follow_a_configured_level():
    pbtxt = const("c", "dtype: DT_FLOAT tensor_shape { dim { size: 2 } } int_val: 1")
    findings = lint_text(pbtxt, {"rules": {ID: "error"}})
    assert graded(findings) == [("c", 1, E)]


def test_canonical_text_and_binary_agree():
    # TensorFlow's own text layout goes through the fast text reader (attr values shared between
    # equal texts); the same graph in binary goes through protobuf. Both must give the same findings.
    from conftest import lint_bytes
    from google.protobuf import text_format

    from tflint import protos

    source = (
        const("a", "dtype: DT_INT32 tensor_shape { } int_val: 1")
        + const("b", "dtype: DT_INT32 tensor_shape { } int_val: 1")
        + const("c", "dtype: DT_INT32 tensor_shape { } int_val: 1", "DT_INT32")
        + const("d", f'dtype: DT_FLOAT tensor_shape {{ dim {{ size: 1026 }} }} tensor_content: "{BIG}"')
        + const("e", "dtype: DT_FLOAT tensor_shape { dim { size: 2 } } int_val: 1")
    )
    graph = protos.GraphDef()
    text_format.Parse(source, graph, descriptor_pool=protos.POOL)
    canonical = text_format.MessageToString(graph)
    assert canonical.startswith('node {\n  name: "a"\n')
    from_text = [(f.node, f.severity, f.message) for f in lint_text(canonical) if f.rule == ID]
    from_binary = [(f.node, f.severity, f.message) for f in lint_bytes(graph.SerializeToString()) if f.rule == ID]
    assert from_text == from_binary
    assert [(node, severity) for node, severity, _ in from_text] == [("a", E), ("b", E), ("d", E), ("e", W)]
