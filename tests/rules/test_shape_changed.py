"""shape-changed: TensorFlow Serving's shape check for inputs, and what outputs promise (error/warning/info)."""

from __future__ import annotations

import pytest
from compat_models import model, pins, signature, tensor
from serving_graphs import line_of

from tflint.tf.compat import input_shape_change, output_shape_change

RULE = "shape-changed"


def _model(direction, shape, unknown_rank=False):
    return model(signature("serving_default", tensor(direction, "t", "t:0", shape=shape, unknown_rank=unknown_rank)))


@pytest.mark.parametrize(
    "direction, old, new, level",
    [
        pytest.param("inputs", (-1, 224, 224, 3), (-1, 224, 224, 3), None, id="in-same"),
        pytest.param("inputs", (-1, 224, 224, 3), (1, 224, 224, 3), "error", id="in-batch-fixed"),
        pytest.param("inputs", (-1, 4), (-1, 5), "error", id="in-size-changed"),
        pytest.param("inputs", (-1, 4), (-1, 4, 1), "error", id="in-rank-changed"),
        pytest.param("inputs", None, (-1, 4), "error", id="in-rank-fixed"),
        pytest.param("inputs", (1, 4), (-1, 4), "info", id="in-batch-opened"),
        pytest.param("inputs", (-1, 4), None, "info", id="in-rank-opened"),
        pytest.param("outputs", (-1, 2), (1, 2), "info", id="out-narrowed"),
        pytest.param("outputs", (1, 2), (-1, 2), "warning", id="out-opened"),
        pytest.param("outputs", (-1, 2), None, "warning", id="out-rank-dropped"),
        pytest.param("outputs", (-1, 2), (-1, 3), "error", id="out-size-changed"),
        pytest.param("outputs", (-1, 2), (-1,), "error", id="out-rank-changed"),
    ],
)
def test_rule(direction, old, new, level):
    new_text = _model(direction, new, unknown_rank=new is None)
    expected = [(RULE, None, line_of(new_text, '"t:0"'), level)] if level else []
    assert pins(RULE, _model(direction, old, unknown_rank=old is None), new_text) == expected


def test_the_batch_message():
    from conftest import compat_text

    old = model(signature("serving_default", tensor("inputs", "image", "i:0", shape=(-1, 224, 224, 3))))
    new = model(signature("serving_default", tensor("inputs", "image", "i:0", shape=(1, 224, 224, 3))))
    (finding,) = [f for f in compat_text(old, new) if f.rule == RULE]
    assert finding.message == (
        "serving_default input 'image': shape [-1,224,224,3] in version 1 → [1,224,224,3] in version 2: "
        "dimension 0 (batch) is now fixed at 1; clients sending a batch of 2 are rejected"
    )


def test_shape_semantics_directly():
    assert input_shape_change((-1, 3), (-1, 3)) is None
    assert input_shape_change((2, 3), (4, 3)).reasons == (
        "dimension 0 (batch) is now 4, was 2; clients sending 2 are rejected",
    )
    assert output_shape_change(None, None) is None
    assert output_shape_change(None, (3,)).kind == "relaxed"
