"""required-input-added: a new input fed by a Placeholder fails old clients; PlaceholderWithDefault does not."""

from __future__ import annotations

import pytest
from compat_models import model, pins, placeholder, signature, tensor
from serving_graphs import line_of, node

RULE = "required-input-added"
X = tensor("inputs", "x", "x:0")
SCALE = tensor("inputs", "scale", "scale:0")
ONE = node("one", "Const")
OPTIONAL = node("scale", "PlaceholderWithDefault", "one", attrs='attr { key: "dtype" value { type: DT_FLOAT } } ')
OLD = model(signature("serving_default", X), nodes=(placeholder("x"),))


def _new(*nodes, entries=(X, SCALE)):
    return model(signature("serving_default", *entries), nodes=(placeholder("x"), *nodes))


REQUIRED = _new(placeholder("scale"))
UNKNOWN = _new()


@pytest.mark.parametrize(
    "new, expected",
    [
        pytest.param(_new(entries=(X,)), [], id="same"),
        pytest.param(REQUIRED, [(RULE, "scale", line_of(REQUIRED, '"scale:0"'), "error")], id="placeholder"),
        pytest.param(_new(ONE, OPTIONAL), [], id="placeholder-with-default"),
        pytest.param(UNKNOWN, [(RULE, None, line_of(UNKNOWN, '"scale:0"'), "error")], id="node-not-in-graph"),
        pytest.param(_new(placeholder("features"), entries=(tensor("inputs", "features", "x:0"),)), [], id="rename"),
    ],
)
def test_rule(new, expected):
    assert pins(RULE, OLD, new) == expected


def test_message_says_what_feeds_it():
    from conftest import compat_text

    (finding,) = [f for f in compat_text(OLD, REQUIRED) if f.rule == RULE]
    assert finding.message == (
        "serving_default input 'scale' is new in version 2 and required (a Placeholder): "
        "requests of version 1's clients do not send it and fail"
    )
