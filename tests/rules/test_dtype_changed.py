"""dtype-changed: inputs and outputs whose dtype or encoding (dense, sparse, composite) changed."""

from __future__ import annotations

import pytest
from compat_models import model, pins, signature, tensor
from serving_graphs import line_of

RULE = "dtype-changed"
SPARSE = (
    'inputs { key: "x" value { dtype: DT_FLOAT coo_sparse { values_tensor_name: "v:0" '
    'indices_tensor_name: "i:0" dense_shape_tensor_name: "s:0" } } }'
)


def _model(*entries):
    return model(signature("serving_default", *entries))


FLOAT_IN = _model(tensor("inputs", "x", "x:0"))
DOUBLE_IN = _model(tensor("inputs", "x", "x:0", "DT_DOUBLE"))
INT_OUT = _model(tensor("outputs", "y", "y:0", "DT_INT32"))
SPARSE_IN = _model(SPARSE)


@pytest.mark.parametrize(
    "old, new, expected",
    [
        pytest.param(FLOAT_IN, _model(tensor("inputs", "x", "other:0")), [], id="same-dtype-other-tensor"),
        pytest.param(FLOAT_IN, DOUBLE_IN, [(RULE, None, line_of(DOUBLE_IN, "DT_DOUBLE"), "error")], id="input"),
        pytest.param(
            _model(tensor("outputs", "y", "y:0")),
            INT_OUT,
            [(RULE, None, line_of(INT_OUT, "DT_INT32"), "error")],
            id="output",
        ),
        pytest.param(FLOAT_IN, SPARSE_IN, [(RULE, None, line_of(SPARSE_IN, "coo_sparse"), "error")], id="to-sparse"),
        pytest.param(SPARSE_IN, SPARSE_IN, [], id="sparse-same"),
    ],
)
def test_rule(old, new, expected):
    assert pins(RULE, old, new) == expected


def test_messages():
    from conftest import compat_text

    (finding,) = [f for f in compat_text(FLOAT_IN, DOUBLE_IN) if f.rule == RULE]
    assert finding.message == (
        "serving_default input 'x': dtype float in version 1 → double in version 2: requests sending float are rejected"
    )
    (finding,) = [f for f in compat_text(FLOAT_IN, SPARSE_IN) if f.rule == RULE]
    assert "encoding dense in version 1 → sparse (COO) in version 2" in finding.message
