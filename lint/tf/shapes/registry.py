"""The registry: op name -> shape function, one entry per op, gathered from the op families.

To add an op, write its shape function in the module of its family (like TensorFlow's
core/ops/<family>.cc) and list it in that module's `SHAPE_FNS`; a test checks that no op is
registered by two families.
"""

from __future__ import annotations

from tflint.tf.shapes import (
    array_ops,
    control_flow_ops,
    data_flow_ops,
    dataset_ops,
    function_ops,
    image_ops,
    io_ops,
    linalg_ops,
    list_ops,
    logging_ops,
    lookup_ops,
    math_ops,
    nn_ops,
    parsing_ops,
    random_ops,
    resource_variable_ops,
    sparse_ops,
    state_ops,
    string_ops,
    training_ops,
)
from tflint.tf.shapes.context import ShapeFn

FAMILIES = (
    array_ops,
    math_ops,
    nn_ops,
    control_flow_ops,
    state_ops,
    resource_variable_ops,
    sparse_ops,
    random_ops,
    parsing_ops,
    image_ops,
    linalg_ops,
    list_ops,
    data_flow_ops,
    training_ops,
    io_ops,
    logging_ops,
    string_ops,
    lookup_ops,
    function_ops,
    dataset_ops,
)


def _gather() -> dict[str, ShapeFn]:
    registry: dict[str, ShapeFn] = {}
    for family in FAMILIES:
        for op, fn in family.SHAPE_FNS.items():
            if op in registry:
                raise RuntimeError(f"shape function of {op} registered twice ({family.__name__})")
            registry[op] = fn
    return registry


SHAPE_FNS: dict[str, ShapeFn] = _gather()
