"""The client-facing interface and how it changes (tflint.tf.compat): shapes, renames, API keys, new attrs.

(Named test_tf_compat: tests/test_compat.py is the `tflint compat` command as a whole.) Pinned
semantics: a request tensor fits a signature when it has the declared rank and every known size (an
unknown dimension, -1, takes any size); TensorFlow Serving's Classify and Regress APIs look up the
input `inputs` and the outputs `classes`/`scores` or `outputs` (classifier.cc, regressor.cc).
"""

from __future__ import annotations

import pytest

from tflint import protos
from tflint.tf.compat import (
    CLASSIFY,
    PREDICT,
    REGRESS,
    TensorSpec,
    input_shape_change,
    new_attrs,
    output_shape_change,
    renamed,
    shape_text,
    shown,
)

# old shape, new shape, (kind of the change for an input, for an output); None: no change
SHAPES = [
    ((-1, 4), (-1, 4), None, None),
    ((-1, 4), (1, 4), "breaking", "relaxed"),  # a batch of 2 no longer fits; outputs are now more precise
    ((1, 4), (-1, 4), "relaxed", "risky"),
    ((2, 4), (3, 4), "breaking", "breaking"),
    (None, (1,), "breaking", "relaxed"),
    ((1,), None, "relaxed", "risky"),
    ((1, 2), (1, 2, 3), "breaking", "breaking"),
    ((1, -1), (-1, 5), "breaking", "risky"),  # mixed: the worst change decides
]


@pytest.mark.parametrize(("old", "new", "as_input", "as_output"), SHAPES)
def test_shape_changes_for_inputs_and_outputs(old, new, as_input, as_output):
    change_in, change_out = input_shape_change(old, new), output_shape_change(old, new)
    assert (change_in.kind if change_in else None) == as_input
    assert (change_out.kind if change_out else None) == as_output


def test_change_reasons_name_the_dimension_and_stay_bounded():
    assert input_shape_change((-1, 4), (1, 4)).reasons == (
        "dimension 0 (batch) is now fixed at 1; clients sending a batch of 2 are rejected",
    )
    many = input_shape_change((1,) * 6, (2,) * 6).reasons
    assert len(many) == 5 and many[-1] == "and 2 more dimensions"
    assert shape_text(tuple(range(10))) == "[0,1,2,3,4,5,6,7,... (10 dimensions)]"
    assert shape_text(None) == "unknown rank" and shape_text(()) == "[]"


def _spec(key: str, dtype: int = 1, shape=(-1,)) -> TensorSpec:
    return TensorSpec(key, "name", dtype, shape, f"{key}:0")


def test_one_key_gone_and_one_come_alike_is_a_rename():
    assert renamed({"a": _spec("a"), "b": _spec("b")}, {"a": _spec("a"), "c": _spec("c")}) == {"b": "c"}
    assert renamed({"b": _spec("b")}, {"c": _spec("c", dtype=3)}) == {}  # another dtype
    assert renamed({"b": _spec("b")}, {"c": _spec("c", shape=(2,))}) == {}
    assert renamed({"b": _spec("b"), "d": _spec("d")}, {"c": _spec("c")}) == {}  # two gone: ambiguous


def test_serving_api_keys():
    from tflint.tf.compat import API_INPUTS, API_OUTPUTS

    assert API_INPUTS == {CLASSIFY: ("inputs",), REGRESS: ("inputs",)}
    assert API_OUTPUTS == {CLASSIFY: ("classes", "scores"), REGRESS: ("outputs",)}
    assert PREDICT not in API_INPUTS  # Predict takes any keys


def test_new_attrs_of_an_op_def():
    old, new = protos.OpDef(name="MatMul"), protos.OpDef(name="MatMul")
    old.attr.add(name="T", type="type")
    new.attr.add(name="T", type="type")
    new.attr.add(name="grad_a", type="bool").default_value.b = False
    new.attr.add(name="required", type="int")
    assert new_attrs(old, new) == [("grad_a", True), ("required", False)]


def test_shown_escapes_and_bounds_names_from_the_file():
    assert shown("a'b\n") == "a\\'b\\n"
    assert shown("x" * 500) == "x" * 117 + "..."
