"""Tensor and shape facts (tflint.tf.tensors): element sizes, value fields, partial-shape validity, string content.

The element sizes are TensorFlow 2.21's `tf.dtypes.as_dtype(n).size` for every DataType 1..33 (0 for
string, resource and variant, which have no fixed size and so no entry). Shape validity follows
`PartialTensorShape::IsValidShape`: at most 254 dims, none below -1, the product of known dims up to
the first -1 within int64. Strings in `tensor_content` are varint32 lengths, then the bytes.
"""

from __future__ import annotations

import pytest

from tflint.tf.tensors import (
    DTYPE_SIZE,
    VALUE_FIELD,
    element_count,
    partial_shape_problem,
    shape_text,
    string_content_problem,
)

# DataType enum value -> bytes per element, from TF 2.21 (`as_dtype(n).size`)
TF_2_21_SIZES = {
    1: 4, 2: 8, 3: 4, 4: 1, 5: 2, 6: 1, 8: 8, 9: 8, 10: 1, 11: 1, 12: 1, 13: 4, 14: 2, 15: 2, 16: 2, 17: 2,
    18: 16, 19: 2, 22: 4, 23: 8, 24: 1, 25: 1, 26: 1, 27: 1, 28: 1, 29: 1, 30: 1, 31: 1, 32: 1, 33: 1,
}  # fmt: skip


def test_element_sizes_match_tensorflow():
    assert DTYPE_SIZE == TF_2_21_SIZES


@pytest.mark.parametrize(
    ("dtype", "field"),
    [
        (1, "float_val"),
        (3, "int_val"),
        (4, "int_val"),  # uint8 is stored widened in int_val
        (7, "string_val"),
        (9, "int64_val"),
        (10, "bool_val"),
        (14, "half_val"),  # bfloat16's 16 bits, like half
        (19, "half_val"),
        (18, "dcomplex_val"),
        (22, "uint32_val"),
        (23, "uint64_val"),
        (29, "int_val"),  # int4
        (33, "float8_val"),  # float4_e2m1fn shares the float8 field
    ],
)
def test_value_field_of_each_dtype(dtype, field):
    assert VALUE_FIELD[dtype] == field


def test_every_sized_dtype_has_a_value_field():
    assert DTYPE_SIZE.keys() <= VALUE_FIELD.keys()


# dims, unknown_rank, the start of the problem (None: a valid partial shape)
SHAPES = [
    ([], False, None),
    ([], True, None),
    ([2, -1, 3], False, None),
    ([0, 1 << 62, 1 << 62], False, None),  # 0 first: the running product stays 0
    ([-1, 1 << 32, 1 << 32], False, None),  # TF stops multiplying at the first -1
    ([1 << 32, 1 << 32, 0], False, "it has more than 2**63 - 1 elements"),  # ... but not before it
    ([(1 << 63) - 1], False, None),
    ([1 << 63], False, "it has more than 2**63 - 1 elements"),
    ([2, -2], False, "dimension 1 is -2; a size must be at least -1"),
    ([1] * 254, False, None),
    ([1] * 255, False, "it has 255 dimensions; TensorFlow allows at most 254"),
    ([3], True, "unknown_rank is set but the shape also lists dimensions"),
]


@pytest.mark.parametrize(("dims", "unknown_rank", "problem"), SHAPES)
def test_partial_shape_problem(dims, unknown_rank, problem):
    found = partial_shape_problem(dims, unknown_rank)
    if problem is None:
        assert found is None
    else:
        assert found is not None and found.startswith(problem), found


@pytest.mark.parametrize(
    ("dims", "unknown_rank", "text"),
    [
        ([], False, "[]"),
        ([], True, "<unknown>"),
        ([2, -1, 3], False, "[2,?,3]"),
        (list(range(10)), False, "[0,1,2,3,4,5,6,7,... (10 dims)]"),
    ],
)
def test_shape_text(dims, unknown_rank, text):
    assert shape_text(dims, unknown_rank) == text


def test_element_count():
    assert element_count([]) == 1  # a scalar
    assert element_count([2, 3, 4]) == 24
    assert element_count([5, 0]) == 0


# content, string count, the start of the problem (None: DecodeStringList reads it)
STRINGS = [
    (b"", 0, None),
    (b"\x00", 1, None),  # one empty string
    (b"\x02\x01ab" + b"c", 2, None),  # lengths 2 and 1, then "abc"
    (b"\x80\x01" + b"x" * 128, 1, None),  # a two-byte varint: 128
    (b"\x02", 2, "it ends inside the length of string 1"),
    (b"\x80", 1, "it ends inside the length of string 0"),
    (b"\x03ab", 1, "its 1 lengths add up to 3 bytes but 2 bytes follow them"),
    (b"\x01ab", 1, "its 1 lengths add up to 1 bytes but 2 bytes follow them"),  # trailing bytes are an error
    (b"\xff\xff\xff\xff\xff\x01", 1, "the length of string 0 is not a valid varint32"),  # a sixth byte
]


@pytest.mark.parametrize(("content", "count", "problem"), STRINGS)
def test_string_content_problem(content, count, problem):
    found = string_content_problem(content, count)
    if problem is None:
        assert found is None
    else:
        assert found is not None and found.startswith(problem), found
