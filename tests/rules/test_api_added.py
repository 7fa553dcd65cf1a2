"""api-added: what the new version adds (tag sets, signatures, outputs, optional inputs), as info."""

from __future__ import annotations

import pytest
from compat_models import model, pins, placeholder, signature, tensor
from serving_graphs import line_of, node

RULE = "api-added"
X = tensor("inputs", "x", "x:0")
Y = tensor("outputs", "y", "y:0")
OLD = model(signature("serving_default", X, Y), nodes=(placeholder("x"),))
WITH_OUTPUT = model(signature("serving_default", X, Y, tensor("outputs", "z", "z:0")), nodes=(placeholder("x"),))
WITH_SIGNATURE = model(signature("serving_default", X, Y), signature("embed", X), nodes=(placeholder("x"),))
OPTIONAL = node("s", "PlaceholderWithDefault", "x", attrs='attr { key: "dtype" value { type: DT_FLOAT } } ')
WITH_OPTIONAL = model(
    signature("serving_default", X, tensor("inputs", "s", "s:0"), Y), nodes=(placeholder("x"), OPTIONAL)
)
WITH_REQUIRED = model(signature("serving_default", X, tensor("inputs", "s", "x:0"), Y), nodes=(placeholder("x"),))


@pytest.mark.parametrize(
    "new, expected",
    [
        pytest.param(OLD, [], id="same"),
        pytest.param(WITH_OUTPUT, [(RULE, None, line_of(WITH_OUTPUT, '"z:0"'), "info")], id="output"),
        pytest.param(WITH_SIGNATURE, [(RULE, None, line_of(WITH_SIGNATURE, '"embed"'), "info")], id="signature"),
        pytest.param(WITH_OPTIONAL, [(RULE, "s", line_of(WITH_OPTIONAL, '"s:0"'), "info")], id="optional-input"),
        pytest.param(WITH_REQUIRED, [], id="required-input-is-not-an-addition"),
    ],
)
def test_rule(new, expected):
    assert pins(RULE, OLD, new) == expected


def test_tag_set_added():
    new = OLD.replace('tags: "serve"', 'tags: "serve" tags: "gpu"')
    assert pins(RULE, OLD, new) == [(RULE, None, 1, "info")]
