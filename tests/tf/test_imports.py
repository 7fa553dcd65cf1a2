"""What `tf.graph_util.import_graph_def` makes of its arguments (tflint.tf.imports): names, dtypes, specs.

`parse_tensor_name` is Python's `importer._ParseTensorName`; every row of NAMES was run through TF
2.21's own function (None: it raised, with the message the row quotes). Python's `int()` is lenient
(`' 1'`, `'+2'`, `'1_0'`), and `^x` is a tensor name only through `input_map` keys.
"""

from __future__ import annotations

import pytest

from tflint.tf.imports import (
    TensorKey,
    TensorNameError,
    TensorSpec,
    dtype_from_name,
    input_map_key,
    parse_tensor_name,
    shape_from_value,
    shown,
    tensor_spec,
)

NAMES = [
    ("x", ("x", 0)),
    ("x:3", ("x", 3)),
    ("x:01", ("x", 1)),
    ("x: 1", ("x", 1)),
    ("x:-1", ("x", -1)),
    ("x:+2", ("x", 2)),
    ("x:1_0", ("x", 10)),
    ("^x", ("^x", 0)),  # not a control name here
    ("", ("", 0)),
    ("x:", "Second component of the name following the `:` should be an int. Got ."),
    ("x:a", "Second component of the name following the `:` should be an int. Got a."),
    ("a:b:c", "Tensor names should not contain more than 1 `:`. Obtained 2"),
]


@pytest.mark.parametrize(("name", "expected"), NAMES)
def test_parse_tensor_name_is_pythons(name, expected):
    if isinstance(expected, str):
        with pytest.raises(TensorNameError) as error:
            parse_tensor_name(name)
        assert str(error.value) == f"Cannot convert {name!r} to a tensor name. {expected}"
    else:
        assert parse_tensor_name(name) == TensorKey(*expected)


def test_input_map_keys_name_control_outputs_with_a_caret():
    assert input_map_key("^x") == TensorKey("x", -1)
    assert str(input_map_key("^x")) == "^x"
    assert str(input_map_key("x")) == "x:0"


@pytest.mark.parametrize(
    ("name", "number"),
    [("float32", 1), ("float", 1), ("DT_FLOAT", 1), (" Float64 ", 2), ("half", 19), ("float16", 19), ("bfloat16", 14)]
    + [("int64", 9), ("string", 7), ("bool", 10), ("nonsense", None), ("dt_", None)],
)
def test_dtype_names(name, number):
    assert dtype_from_name(name) == number


@pytest.mark.parametrize(("value", "shape"), [(None, None), ([], ()), ([2, None, -1], (2, -1, -1)), ((1, 0), (1, 0))])
def test_shape_from_value(value, shape):
    assert shape_from_value(value) == shape


@pytest.mark.parametrize("value", ["2,3", b"\x02", 3, [True], [-2], [1.5]])
def test_shape_from_value_rejects(value):
    with pytest.raises(ValueError):
        shape_from_value(value)


class _FakeTensor:
    """What a tf.Tensor shows of itself, without TensorFlow."""

    class dtype:
        as_datatype_enum = 3

    class shape:
        @staticmethod
        def as_list():
            return [None, 4]


def test_tensor_spec_from_what_callers_give():
    assert tensor_spec(None, "x") == TensorSpec()
    assert tensor_spec("int32", "x") == TensorSpec(dtype=3)
    assert tensor_spec({"dtype": "float32", "shape": [None, 2]}, "x") == TensorSpec(dtype=1, shape=(-1, 2))
    assert tensor_spec(_FakeTensor(), "x") == TensorSpec(dtype=3, shape=(-1, 4))
    assert tensor_spec([1.0, 2.0], "x") == TensorSpec(python_value=True)  # TF makes a constant of it
    with pytest.raises(ValueError, match=r"^in\.a: unknown key 'size' \(expected dtype, shape\)$"):
        tensor_spec({"size": 3}, "in.a")
    with pytest.raises(ValueError, match=r"^in\.a: unknown dtype 'float33'"):
        tensor_spec("float33", "in.a")
    with pytest.raises(ValueError, match=r"^in\.a\.shape: "):
        tensor_spec({"shape": "2"}, "in.a")


def test_shown_escapes_control_and_non_ascii():
    assert shown("a/b:0") == "a/b:0"
    assert shown("a\nb") == "a\\nb"
    assert shown("é") == "\\xe9"
