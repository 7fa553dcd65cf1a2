"""output-removed: output keys of the old signature missing from the new one; one-for-one swaps read as renames."""

from __future__ import annotations

import pytest
from compat_models import model, pins, signature, tensor
from serving_graphs import line_of

# Where a missing key is reported: the signature's key in the new version (model() writes one signature).
SIGNATURE_LINE = line_of(model(signature("serving_default")), 'key: "serving_default"')
RULE = "output-removed"
Y = tensor("outputs", "y", "y:0")
Z = tensor("outputs", "z", "z:0", "DT_INT64")
PROBS = tensor("outputs", "probs", "y:0")


def _model(*entries, method="tensorflow/serving/predict"):
    return model(signature("serving_default", *entries, method=method))


RENAMED = _model(PROBS, Z)
REGRESS_IN = tensor("inputs", "inputs", "x:0", "DT_STRING")


@pytest.mark.parametrize(
    "old, new, expected",
    [
        pytest.param(_model(Y, Z), _model(Z, Y), [], id="same"),
        pytest.param(_model(Y, Z), _model(Y), [(RULE, None, SIGNATURE_LINE, "error")], id="removed"),
        pytest.param(_model(Y, Z), RENAMED, [(RULE, None, line_of(RENAMED, "probs"), "error")], id="renamed"),
        pytest.param(_model(Y), _model(Y, Z), [], id="added"),
        pytest.param(
            _model(REGRESS_IN, tensor("outputs", "outputs", "y:0"), method="tensorflow/serving/regress"),
            _model(REGRESS_IN, method="tensorflow/serving/regress"),
            [],
            id="api-key-left-to-api-keys-removed",
        ),
    ],
)
def test_rule(old, new, expected):
    assert pins(RULE, old, new) == expected
