"""Shape functions of tf.Example parsing ops (TensorFlow's core/ops/parsing_ops.cc)."""

from __future__ import annotations

from tflint.tf.shapes.algebra import (
    Shape,
    ShapeError,
    Unknown,
    add,
    partial_shape,
    shape_text,
    with_rank,
    with_rank_at_most,
)
from tflint.tf.shapes.context import Context, ShapeFn


def _parse_example(c: Context) -> list[Shape]:
    """ParseExample (v1): `serialized` and `names` are vectors."""
    num_sparse = c.attr("Nsparse", "i")
    num_dense = c.attr("Ndense", "i")
    sparse_types = c.attr_list("sparse_types", "type")
    dense_types = c.attr_list("Tdense", "type")
    dense_shapes = [partial_shape(shape) for shape in c.attr_list("dense_shapes", "shape")]
    _parse_example_attrs(num_sparse, sparse_types, num_dense, dense_types, dense_shapes)
    if len(c.shapes) != 2 + num_sparse + num_dense + len(dense_types):
        raise Unknown
    serialized = with_rank(c.shapes[0], 1, 0)
    with_rank(c.shapes[1], 1, 1)
    return _parse_outputs(num_sparse, serialized, dense_shapes)


def _parse_example_v2(c: Context) -> list[Shape]:
    """ParseExampleV2: `serialized` and `names` are scalars or vectors."""
    num_sparse = c.attr("num_sparse", "i")
    sparse_types = c.attr_list("sparse_types", "type")
    dense_types = c.attr_list("Tdense", "type")
    dense_shapes = [partial_shape(shape) for shape in c.attr_list("dense_shapes", "shape")]
    ragged_values = c.attr_list("ragged_value_types", "type")
    ragged_splits = c.attr_list("ragged_split_types", "type")
    _parse_example_attrs(num_sparse, sparse_types, len(dense_types), dense_types, dense_shapes)
    if len(ragged_values) != len(ragged_splits):
        raise ShapeError("len(ragged_keys) != len(ragged_split_types)")
    if len(c.shapes) != 5 + len(dense_types):
        raise Unknown
    serialized = with_rank_at_most(c.shapes[0], 1, 0)
    with_rank_at_most(c.shapes[1], 1, 1)
    outputs = _parse_outputs(num_sparse, serialized, dense_shapes)
    examples = serialized[0] if serialized is not None and len(serialized) == 1 else -1
    splits = add(examples, 1)
    outputs.extend([(-1,)] * len(ragged_values))
    outputs.extend([(splits,)] * len(ragged_values))
    return outputs


def _parse_single_example(c: Context) -> list[Shape]:
    """ParseSingleExample: `serialized` is a scalar."""
    num_sparse = c.attr("num_sparse", "i")
    sparse_keys = c.attr_list("sparse_keys", "s")
    dense_keys = c.attr_list("dense_keys", "s")
    sparse_types = c.attr_list("sparse_types", "type")
    dense_types = c.attr_list("Tdense", "type")
    dense_shapes = [partial_shape(shape) for shape in c.attr_list("dense_shapes", "shape")]
    if len(sparse_keys) != num_sparse:
        raise ShapeError(f"len(sparse_keys) != num_sparse ({len(sparse_keys)} vs {num_sparse})")
    _parse_example_attrs(num_sparse, sparse_types, len(dense_keys), dense_types, dense_shapes)
    if len(c.shapes) != 1 + len(dense_types):
        raise Unknown
    serialized = with_rank(c.shapes[0], 0, 0)
    return _parse_outputs(num_sparse, serialized, dense_shapes)


def _parse_example_attrs(
    num_sparse: int, sparse_types: list[int], num_dense: int, dense_types: list[int], dense_shapes: list[Shape]
) -> None:
    """The attr checks of `ParseExampleAttrs::FinishInit` that do not depend on dtypes."""
    if num_sparse < 0 or num_dense < 0:
        raise Unknown
    if num_sparse != len(sparse_types):
        raise ShapeError("len(sparse_keys) != len(sparse_types)")
    if num_dense != len(dense_types):
        raise ShapeError("len(dense_keys) != len(dense_types)")
    if num_dense != len(dense_shapes):
        raise ShapeError("len(dense_keys) != len(dense_shapes)")
    for position, shape in enumerate(dense_shapes):
        if shape is None or any(size < 0 for size in shape[1:]):
            raise ShapeError(
                f"dense_shapes[{position}] has unknown rank or unknown inner dimensions: {shape_text(shape)}"
            )


def _parse_outputs(num_sparse: int, serialized: Shape, dense_shapes: list[Shape]) -> list[Shape]:
    rank = -1 if serialized is None else len(serialized) + 1
    outputs: list[Shape] = []
    outputs.extend([(-1, rank)] * num_sparse)
    outputs.extend([(-1,)] * num_sparse)
    outputs.extend([(rank,)] * num_sparse)
    for dense in dense_shapes:
        outputs.append(None if serialized is None or dense is None else serialized + dense)
    return outputs


SHAPE_FNS: dict[str, ShapeFn] = {
    "ParseExample": _parse_example,
    "ParseExampleV2": _parse_example_v2,
    "ParseSingleExample": _parse_single_example,
}
