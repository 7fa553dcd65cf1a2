"""target-text-schema: a .pbtxt field or enum value a target release's protobuf schema lacks."""

from __future__ import annotations

import pytest
from conftest import lint_bytes, lint_text, pinned

from tflint import protos

RULE = "target-text-schema"
TYPED = 'node {{ name: "a" op: "NoOp" experimental_type {{ type_id: {0} }} }}'
SHAPE_TENSOR = 'node {\n  name: "a" op: "NoOp"\n  experimental_type {\n    type_id: TFT_SHAPE_TENSOR\n  }\n}'


@pytest.mark.parametrize(
    "pbtxt, targets, expected",
    [
        pytest.param('node { name: "a" op: "NoOp" }', "1.15", [], id="plain"),
        # NodeDef.experimental_type: unknown to TF 2.4 and older.
        pytest.param(TYPED.format("TFT_PRODUCT"), "2.4", [(RULE, None, 1)], id="field"),
        pytest.param(TYPED.format("TFT_PRODUCT"), "2.8", [], id="field-known"),
        # FullTypeId TFT_SHAPE_TENSOR: unknown to 2.8 and 2.11, known to 2.15; reported where it is written.
        pytest.param(SHAPE_TENSOR, "2.11", [(RULE, None, 4)], id="enum-value"),
        pytest.param(SHAPE_TENSOR, "2.15", [], id="enum-value-known"),
        # Both, for 2.4 (the field) and 2.8 (the value): one finding each.
        pytest.param(SHAPE_TENSOR, "2.4,2.8", [(RULE, None, 3), (RULE, None, 4)], id="two-targets"),
        pytest.param(TYPED.format("TFT_PRODUCT"), None, [], id="no-target"),
        # A MetaGraphDef's stripped_op_list: OpDef.ArgDef.experimental_full_type is unknown to TF 1.15.
        pytest.param(
            'meta_info_def {\n  stripped_op_list {\n    op {\n      name: "NoOp"\n      output_arg {\n'
            '        name: "o" type: DT_FLOAT\n        experimental_full_type { type_id: TFT_UNSET }\n'
            "      }\n    }\n  }\n}\ngraph_def { }",
            "1.15",
            [(RULE, None, 7)],
            id="meta-graph",
        ),
    ],
)
def test_rule(pbtxt, targets, expected):
    config = {"target-tf": targets} if targets else None
    assert pinned(lint_text(pbtxt, config), rule=RULE) == expected


def test_the_binary_form_is_not_checked():
    # Binary parsing keeps unknown fields and enum numbers: the release imports it.
    graph = protos.GraphDef()
    node = graph.node.add(name="a", op="NoOp")
    type_id = protos.FullTypeDef.DESCRIPTOR.fields_by_name["type_id"].enum_type.values_by_name["TFT_SHAPE_TENSOR"]
    node.experimental_type.type_id = type_id.number
    assert pinned(lint_bytes(graph.SerializeToString(), {"target-tf": "2.4"}), rule=RULE) == []
    # The text twin: the unknown field is the finding (what is inside it is never reached by TF 2.4's parser).
    found = [f for f in lint_text(TYPED.format("TFT_SHAPE_TENSOR"), {"target-tf": "2.4"}) if f.rule == RULE]
    assert [(f.line, "field 'experimental_type' of tensorflow.NodeDef" in f.message) for f in found] == [(1, True)]
