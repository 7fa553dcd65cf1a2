"""signature-removed: a signature key of the old version that the new one lacks (TF Serving: key not found)."""

from __future__ import annotations

import pytest
from compat_models import model, pins, signature, tensor

RULE = "signature-removed"
DEFAULT = signature("serving_default", tensor("inputs", "x", "x:0"))
EMBED = signature("embed", tensor("inputs", "x", "x:0"))
INIT = signature("__saved_model_init_op", tensor("outputs", "__saved_model_init_op", "NoOp"), method="")


@pytest.mark.parametrize(
    "old, new, expected",
    [
        pytest.param(model(DEFAULT, EMBED), model(EMBED, DEFAULT), [], id="same-other-order"),
        pytest.param(model(DEFAULT, EMBED), model(DEFAULT), [(RULE, None, 1, "error")], id="removed"),
        pytest.param(model(DEFAULT, INIT), model(DEFAULT), [], id="init-op-is-no-api"),
        pytest.param(model(DEFAULT), model(DEFAULT, EMBED), [], id="added"),
        pytest.param(model(DEFAULT, tags=("gpu",)), model(tags=("serve",)), [], id="other-tag-set"),
    ],
)
def test_rule(old, new, expected):
    assert pins(RULE, old, new) == expected


def test_message():
    from conftest import compat_text

    (finding,) = [f for f in compat_text(model(DEFAULT, EMBED), model(DEFAULT)) if f.rule == RULE]
    assert finding.message == (
        "signature 'embed' is in version 1 but not in version 2: requests calling it are rejected "
        "(Serving signature key 'embed' not found)"
    )
