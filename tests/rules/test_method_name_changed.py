"""method-name-changed: classify/regress APIs refuse another method (error); Predict runs any (warning)."""

from __future__ import annotations

import pytest
from compat_models import model, pins, signature, tensor
from serving_graphs import line_of

RULE = "method-name-changed"
PREDICT = "tensorflow/serving/predict"
CLASSIFY = "tensorflow/serving/classify"
REGRESS = "tensorflow/serving/regress"


def _model(method):
    return model(signature("serving_default", tensor("inputs", "inputs", "x:0", "DT_STRING"), method=method))


@pytest.mark.parametrize(
    "old, new, level",
    [
        pytest.param(PREDICT, PREDICT, None, id="same"),
        pytest.param(REGRESS, PREDICT, "error", id="regress-to-predict"),
        pytest.param(CLASSIFY, REGRESS, "error", id="classify-to-regress"),
        pytest.param(PREDICT, CLASSIFY, "warning", id="predict-to-classify"),
        pytest.param("", PREDICT, "warning", id="none-to-predict"),
    ],
)
def test_rule(old, new, level):
    new_text = _model(new)
    expected = [(RULE, None, line_of(new_text, 'key: "serving_default"'), level)] if level else []
    assert pins(RULE, _model(old), new_text) == expected


def test_configured_level_wins():
    assert pins(RULE, _model(PREDICT), _model(REGRESS), {"rules": {RULE: "error"}})[0][3] == "error"
