"""non-finite-constant: NaN / infinity in floating-point Consts, from tensor_content or the *_val fields, for every float dtype."""

from __future__ import annotations

import math
import struct

import pytest
from conftest import DATA, lint_bytes, lint_text, pinned, require
from google.protobuf import text_format

from tflint import protos
from tflint.api import lint_file
from tflint.rules.non_finite_constant import non_finite

RULE = "non-finite-constant"
ON = {"rules": {RULE: "warning"}}
DT = {
    "float": 1,
    "double": 2,
    "bfloat16": 14,
    "half": 19,
    "complex64": 8,
    "complex128": 18,
    "int32": 3,
    "float8_e5m2": 24,
    "float8_e4m3fn": 25,
    "float8_e4m3fnuz": 26,
}


def tensor(dtype: str, content: bytes = b"", count: int | None = None, **values):
    proto = protos.TensorProto(dtype=DT[dtype], tensor_content=content)
    for key, items in values.items():
        if isinstance(items, bytes):
            setattr(proto, key, items)
        else:
            getattr(proto, key).extend(items)
    if count is not None:
        proto.tensor_shape.dim.add(size=count)
    return proto


def _bf16(value: float) -> bytes:
    return struct.pack("<f", value)[2:]


@pytest.mark.parametrize(
    "proto, expected",
    [
        pytest.param(tensor("float", float_val=[1.0, -3.4e38, 0.0]), None, id="float-finite"),
        pytest.param(tensor("float", float_val=[1.0, math.nan]), (1, 1, "nan"), id="float-val-nan"),
        pytest.param(tensor("float", float_val=[math.inf, 2.0, -math.inf]), (2, 0, "inf"), id="float-val-infs"),
        pytest.param(tensor("float", struct.pack("<4f", 1, 2, -math.inf, 4)), (1, 2, "-inf"), id="float-content"),
        pytest.param(tensor("float", struct.pack("<3f", 3.4e38, -1e-45, 0)), None, id="float-content-extremes"),
        pytest.param(tensor("double", double_val=[1e308, -1e308]), None, id="double-finite"),
        pytest.param(tensor("double", struct.pack("<2d", 0.5, math.nan)), (1, 1, "nan"), id="double-content"),
        pytest.param(tensor("half", struct.pack("<3e", 1, 65504, -math.inf)), (1, 2, "-inf"), id="half-content"),
        pytest.param(tensor("half", half_val=[0x3C00, 0x7E00]), (1, 1, "nan"), id="half-val"),
        pytest.param(tensor("half", half_val=[0x7BFF]), None, id="half-max-finite"),
        pytest.param(tensor("bfloat16", _bf16(1.0) + _bf16(math.inf)), (1, 1, "inf"), id="bfloat16-content"),
        pytest.param(tensor("bfloat16", half_val=[0x3F80, 0x7F7F]), None, id="bfloat16-max-finite"),
        pytest.param(
            tensor("complex64", scomplex_val=[1.0, 2.0, 3.0, math.nan]), (1, 1, "nan"), id="complex64-imaginary"
        ),
        pytest.param(
            tensor("complex128", struct.pack("<4d", math.inf, 0, 1, 1)), (1, 0, "inf"), id="complex128-content"
        ),
        pytest.param(tensor("float8_e5m2", b"\x3c\x7c"), (1, 1, "inf"), id="float8-e5m2-inf"),
        pytest.param(tensor("float8_e4m3fn", b"\x7e\x7f"), (1, 1, "nan"), id="float8-e4m3fn-nan"),
        pytest.param(tensor("float8_e4m3fnuz", float8_val=b"\x7f\x80"), (1, 1, "nan"), id="float8-fnuz-nan"),
        pytest.param(tensor("float", b"\x00\x00\xc0\x7f\x00"), (1, 0, "nan"), id="ragged-content-truncated"),
    ],
)
def test_non_finite(proto, expected):
    assert non_finite(proto) == expected


def _graph(*tensors, function: bool = False) -> str:
    graph = protos.GraphDef()
    nodes = graph.library.function.add().node_def if function else graph.node
    if function:
        graph.library.function[0].signature.name = "f"
    for index, value in enumerate(tensors):
        item = nodes.add(name=f"c{index}", op="Const")
        item.attr["dtype"].type = value.dtype
        item.attr["value"].tensor.CopyFrom(value)
    return text_format.MessageToString(graph)


def test_rule_in_graph_and_function():
    text = _graph(tensor("float", float_val=[1.0]), tensor("float", float_val=[math.nan]))
    found = [(f.node, f.function) for f in lint_text(text, ON) if f.rule == RULE]
    assert found == [("c1", None)]
    text = _graph(tensor("double", double_val=[-math.inf]), function=True)
    assert [(f.node, f.function) for f in lint_text(text, ON) if f.rule == RULE] == [("c0", "f")]


def test_points_at_the_value_attr():
    pbtxt = (
        'node {\n  name: "c"\n  op: "Const"\n  attr { key: "dtype" value { type: DT_FLOAT } }\n'
        '  attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: inf } } }\n}\n'
    )
    assert pinned(lint_text(pbtxt, ON), rule=RULE) == [(RULE, "c", 5)]


def test_integers_and_other_ops_are_not_checked():
    graph = protos.GraphDef()
    item = graph.node.add(name="i", op="Const")
    item.attr["value"].tensor.CopyFrom(tensor("int32", int_val=[0x7FC00000]))
    other = graph.node.add(name="p", op="PlaceholderWithDefault")
    other.attr["value"].tensor.CopyFrom(tensor("float", float_val=[math.nan]))
    assert [f for f in lint_bytes(graph.SerializeToString(), ON) if f.rule == RULE] == []


def test_message():
    text = _graph(tensor("float", float_val=[1.0, math.inf, math.nan, 2.0]))
    assert [f.message for f in lint_text(text, ON) if f.rule == RULE] == [
        "Node 'c0' (op Const, float) holds 2 NaN or infinite values (element 1 is inf)",
    ]


def test_off_by_default():
    assert [f for f in lint_text(_graph(tensor("float", float_val=[math.nan]))) if f.rule == RULE] == []


def test_real_graph_special_values():
    findings = [f for f in lint_file(require(DATA / "real" / "tf1_misc_ops.pbtxt"), ON).findings if f.rule == RULE]
    assert {"c_nan", "c_inf", "c_neg_inf"} <= {f.node for f in findings}
