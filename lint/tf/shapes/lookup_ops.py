"""Shape functions of lookup tables (TensorFlow's core/ops/lookup_ops.cc)."""

from __future__ import annotations

from tflint.tf.shapes.algebra import Shape, Unknown, merge, with_rank
from tflint.tf.shapes.common import scalar
from tflint.tf.shapes.context import Context, ShapeFn


def _initialize_table(c: Context) -> list[Shape]:
    """InitializeTableV2: a table handle, a vector of keys and values of the same shape."""
    c.expect_inputs(3)
    with_rank(c.shapes[0], 0, 0)
    keys = with_rank(c.shapes[1], 1, 1)
    merge(keys, c.shapes[2])
    return []


def _find(c: Context) -> list[Shape]:
    """LookupTableFindV2: a table handle; the values' shape comes from the table (not followed here)."""
    c.expect_inputs(3)
    with_rank(c.shapes[0], 0, 0)
    raise Unknown


SHAPE_FNS: dict[str, ShapeFn] = {
    "HashTableV2": scalar,
    "InitializeTableV2": _initialize_table,
    "LookupTableFindV2": _find,
}
