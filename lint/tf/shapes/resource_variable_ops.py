"""Shape functions of resource-variable ops (TensorFlow's core/ops/resource_variable_ops.cc)."""

from __future__ import annotations

from tflint.tf.attrs import type_name
from tflint.tf.shapes.algebra import (
    Shape,
    ShapeError,
    Unknown,
    merge,
    partial_shape,
)
from tflint.tf.shapes.common import (
    scalar,
)
from tflint.tf.shapes.context import Context, ShapeFn


def _var_handle(c: Context) -> list[Shape]:
    return [()]


def handle_data(c: Context) -> Shape:
    """`ValidateVariableResourceHandle`: the variable's shape when input 0 comes from a VarHandleOp.

    The handle's dtype must match the node's `dtype` attr. The handle is
    followed through Identity nodes only; when TensorFlow forwards it through
    other ops (Switch, Enter, function calls) the shape is unknown here and
    nothing is checked.
    """
    variable = c.var_handle(0)
    if variable is None:
        return None
    dtype, shape = variable
    wanted = c.attr("dtype", "type")
    if dtype != wanted:
        raise ShapeError(
            f"Trying to read variable with wrong dtype. Expected {type_name(dtype)} got {type_name(wanted)}", 0
        )
    return shape


def _read_variable(c: Context) -> list[Shape]:
    c.expect_inputs(1)
    annotation = c.node.attr.get("_shape")
    if annotation is not None:
        if annotation.WhichOneof("value") != "shape":
            raise Unknown
        return [partial_shape(annotation.shape)]
    return [handle_data(c)]


def _assign_variable(c: Context) -> list[Shape]:
    c.expect_inputs(2)
    merge(handle_data(c), c.shapes[1])
    return []


SHAPE_FNS: dict[str, ShapeFn] = {
    "VarHandleOp": _var_handle,
    "ReadVariableOp": _read_variable,
    "AssignVariableOp": _assign_variable,
    "AssignAddVariableOp": _assign_variable,
    "AssignSubVariableOp": _assign_variable,
    "VarIsInitializedOp": scalar,
}
