"""api-keys-removed: classify/regress signatures keep the keys TF Serving's Classify/Regress APIs look up."""

from __future__ import annotations

import pytest
from compat_models import model, pins, signature, tensor
from serving_graphs import line_of

# Where a missing key is reported: the signature's key in the new version (model() writes one signature).
SIGNATURE_LINE = line_of(model(signature("serving_default")), 'key: "serving_default"')
RULE = "api-keys-removed"
CLASSIFY = "tensorflow/serving/classify"
REGRESS = "tensorflow/serving/regress"
INPUTS = tensor("inputs", "inputs", "x:0", "DT_STRING")
EXAMPLES = tensor("inputs", "examples", "x:0", "DT_STRING")
CLASSES = tensor("outputs", "classes", "c:0", "DT_STRING")
SCORES = tensor("outputs", "scores", "s:0")
OUTPUTS = tensor("outputs", "outputs", "y:0")


def _model(method, *entries):
    return model(signature("serving_default", *entries, method=method))


@pytest.mark.parametrize(
    "old, new, expected",
    [
        pytest.param(
            _model(CLASSIFY, INPUTS, CLASSES, SCORES), _model(CLASSIFY, INPUTS, SCORES, CLASSES), [], id="same"
        ),
        pytest.param(
            _model(CLASSIFY, INPUTS, CLASSES, SCORES),
            _model(CLASSIFY, INPUTS, SCORES),
            [(RULE, None, SIGNATURE_LINE, "error")],
            id="classes",
        ),
        pytest.param(
            _model(REGRESS, INPUTS, OUTPUTS),
            _model(REGRESS, EXAMPLES, OUTPUTS),
            [(RULE, None, SIGNATURE_LINE, "error")],
            id="inputs",
        ),
        pytest.param(_model(CLASSIFY, INPUTS, SCORES), _model(CLASSIFY, INPUTS, SCORES, CLASSES), [], id="added"),
        pytest.param(_model(REGRESS, INPUTS, OUTPUTS), _model(CLASSIFY, INPUTS, SCORES), [], id="method-changed"),
        pytest.param(
            _model("tensorflow/serving/predict", INPUTS, OUTPUTS),
            _model("tensorflow/serving/predict", INPUTS),
            [],
            id="predict",
        ),
    ],
)
def test_rule(old, new, expected):
    assert pins(RULE, old, new) == expected
