"""Shape arguments computed by small constant subgraphs, read the way TensorFlow's refiner reads them.

Each graph was imported with TensorFlow 2.21: those with a finding are rejected at import
(the message is TensorFlow's), the others import. A full value (an axis, a `dim`, a Fill
shape) is evaluated through Identity, Shape, Pack, Range and scalar arithmetic; a shape
argument produced by a Pack is read element by element, where a negative element is an
unknown dimension rather than an error.
"""

from __future__ import annotations

import pytest
from conftest import lint_text, pinned

ID = "shape-mismatch"


def _ph(name, dims, dtype="DT_FLOAT"):
    shape = " ".join(f"dim {{ size: {d} }}" for d in dims)
    return (
        f'node {{ name: "{name}" op: "Placeholder" attr {{ key: "dtype" value {{ type: {dtype} }} }} '
        f'attr {{ key: "shape" value {{ shape {{ {shape} }} }} }} }}'
    )


def _const(name, values, dims):
    shape = " ".join(f"dim {{ size: {d} }}" for d in dims)
    vals = " ".join(f"int_val: {v}" for v in values)
    return (
        f'node {{ name: "{name}" op: "Const" attr {{ key: "dtype" value {{ type: DT_INT32 }} }} '
        f'attr {{ key: "value" value {{ tensor {{ dtype: DT_INT32 tensor_shape {{ {shape} }} {vals} }} }} }} }}'
    )


def _node(name, op, inputs, **attrs):
    parts = [f'name: "{name}"', f'op: "{op}"'] + [f'input: "{i}"' for i in inputs]
    parts += [f'attr {{ key: "{k}" value {{ {v} }} }}' for k, v in attrs.items()]
    return "node { " + " ".join(parts) + " }"


INT = "type: DT_INT32"
FLOAT = "type: DT_FLOAT"
VERSION = "versions { producer: 1700 }"

# Slice's begin = Pack(2 - 7) = [-5]: an unknown dimension to TensorFlow, not an invalid shape.
PACKED_BEGIN = [
    _ph("x", [4]),
    _const("b0", [2], []),
    _const("b1", [7], []),
    _node("b2", "Sub", ["b0", "b1"], T=INT),
    _node("b", "Pack", ["b2"], T=INT, N="i: 1"),
    _const("s", [-1], [1]),
    _node("op", "Slice", ["x", "b", "s"], T=FLOAT, Index=INT),
    VERSION,
]
# The same [-5] straight from a Const (through an Identity) is: "Invalid value in tensor used for shape: -5".
IDENTITY_BEGIN = [
    _ph("x", [4]),
    _const("b0", [-5], [1]),
    _node("b", "Identity", ["b0"], T=INT),
    _const("s", [-1], [1]),
    _node("op", "Slice", ["x", "b", "s"], T=FLOAT, Index=INT),
    VERSION,
]
# Fill's dims are evaluated in full: "Fill dimensions must be >= 0".
FILL_PACKED = [
    _const("b0", [2], []),
    _const("b1", [7], []),
    _node("b2", "Sub", ["b0", "b1"], T=INT),
    _node("b", "Pack", ["b2"], T=INT, N="i: 1"),
    _node("v", "Const", [], dtype=FLOAT, value="tensor { dtype: DT_FLOAT tensor_shape { } float_val: 1 }"),
    _node("op", "Fill", ["b", "v"], T=FLOAT, index_type=INT),
    VERSION,
]
# The dynamic reshape: Reshape(x, Pack(StridedSlice(Shape(x), 0), 0, 28)) gives [?, 0, 28], which Unpack
# cannot split into 28 along axis 1.
DYNAMIC_RESHAPE = [
    _ph("x", [-1, 28, 28]),
    _node("shape", "Shape", ["x"], T=FLOAT, out_type=INT),
    _const("begin", [0], [1]),
    _const("end", [1], [1]),
    _const("stride", [1], [1]),
    _node("batch", "StridedSlice", ["shape", "begin", "end", "stride"], T=INT, Index=INT, shrink_axis_mask="i: 1"),
    _const("zero", [0], []),
    _const("cols", [28], []),
    _node("new_shape", "Pack", ["batch", "zero", "cols"], T=INT, N="i: 3"),
    _node("reshaped", "Reshape", ["x", "new_shape"], T=FLOAT, Tshape=INT),
    _node("op", "Unpack", ["reshaped"], T=FLOAT, num="i: 28", axis="i: 1"),
    VERSION,
]
# tf.reduce_all(x) over Range(0, Rank(x), 1): with the rank read as 1 on a scalar, axis 0 is out of range.
RANGE_AXES = [
    _ph("x", [], "DT_BOOL"),
    _const("start", [0], []),
    _const("rank", [1], []),
    _const("delta", [1], []),
    _node("axes", "Range", ["start", "rank", "delta"], Tidx=INT),
    _node("op", "All", ["x", "axes"], Tidx=INT, keep_dims="b: false"),
    VERSION,
]
# ExpandDims' dim through two Identity nodes: "dim 5 not in the interval [-3, 2]."
IDENTITY_DIM = [
    _ph("x", [2, 3]),
    _const("d0", [5], []),
    _node("d1", "Identity", ["d0"], T=INT),
    _node("d", "Snapshot", ["d1"], T=INT),
    _node("op", "ExpandDims", ["x", "d"], T=FLOAT, Tdim=INT),
    VERSION,
]


@pytest.mark.parametrize(
    "lines, expected",
    [
        pytest.param(PACKED_BEGIN, [], id="pack-negative-is-unknown"),
        pytest.param(IDENTITY_BEGIN, [(ID, "op", 5)], id="identity-negative-is-invalid"),
        pytest.param(FILL_PACKED, [(ID, "op", 6)], id="fill-evaluates-pack"),
        pytest.param(DYNAMIC_RESHAPE, [(ID, "op", 11)], id="dynamic-reshape-partial-shape"),
        pytest.param(RANGE_AXES, [(ID, "op", 6)], id="range-axes"),
        pytest.param(IDENTITY_DIM, [(ID, "op", 5)], id="identity-chain-dim"),
    ],
)
def test_constant_subgraphs(lines, expected):
    assert pinned(lint_text("\n".join(lines)), rule=ID) == expected


def test_messages_name_the_values():
    findings = [f for f in lint_text("\n".join(IDENTITY_DIM)) if f.rule == ID]
    assert findings[0].message == (
        "Node 'op': dim 5 not in the interval [-3, 2] for ExpandDims with input shapes [2,3], [], "
        "with constant input 'dim' = 5; TensorFlow rejects the graph at import"
    )
    findings = [f for f in lint_text("\n".join(DYNAMIC_RESHAPE)) if f.rule == ID]
    assert "Dimension must be 28 but is 0" in findings[0].message
