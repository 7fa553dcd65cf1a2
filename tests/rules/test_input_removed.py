"""input-removed: input keys of the old signature missing from the new one; one-for-one swaps read as renames."""

from __future__ import annotations

import pytest
from compat_models import model, pins, signature, tensor
from serving_graphs import line_of

# Where a missing key is reported: the signature's key in the new version (model() writes one signature).
SIGNATURE_LINE = line_of(model(signature("serving_default")), 'key: "serving_default"')
RULE = "input-removed"
X = tensor("inputs", "x", "x:0", shape=(-1, 4))
Y = tensor("inputs", "y", "y:0", "DT_INT32")
FEATURES = tensor("inputs", "features", "x:0", shape=(-1, 4))
FEATURES_INT = tensor("inputs", "features", "x:0", "DT_INT32", shape=(-1, 4))
OUT = tensor("outputs", "out", "x:0")


def _model(*entries, method="tensorflow/serving/predict"):
    return model(signature("serving_default", *entries, method=method))


NEW_RENAMED = _model(FEATURES)
NEW_OTHER = _model(FEATURES_INT)


@pytest.mark.parametrize(
    "old, new, expected",
    [
        pytest.param(_model(X, Y), _model(Y, X), [], id="same"),
        pytest.param(_model(X, Y), _model(X), [(RULE, None, SIGNATURE_LINE, "error")], id="removed"),
        pytest.param(_model(X), NEW_RENAMED, [(RULE, None, line_of(NEW_RENAMED, "features"), "error")], id="renamed"),
        pytest.param(_model(X), NEW_OTHER, [(RULE, None, SIGNATURE_LINE, "error")], id="removed-and-another-added"),
        pytest.param(
            _model(tensor("inputs", "inputs", "x:0", "DT_STRING"), OUT, method="tensorflow/serving/regress"),
            _model(tensor("inputs", "examples", "x:0", "DT_STRING"), OUT, method="tensorflow/serving/regress"),
            [],
            id="api-key-left-to-api-keys-removed",
        ),
    ],
)
def test_rule(old, new, expected):
    assert pins(RULE, old, new) == expected


def test_rename_message():
    from conftest import compat_text

    (finding,) = [f for f in compat_text(_model(X), NEW_RENAMED) if f.rule == RULE]
    assert finding.message == (
        "serving_default input 'x' is renamed 'features' in version 2 (same dtype and shape): "
        "requests sending 'x' are rejected (input tensor alias not found in signature)"
    )
