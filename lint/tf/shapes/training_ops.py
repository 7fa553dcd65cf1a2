"""Shape functions of optimizer update ops (TensorFlow's core/ops/training_ops.cc).

Each Apply* op names its inputs: the variable and its slots (`var`, `accum`, `m`...) and the
gradient share one shape, the hyperparameters (`lr`, `momentum`, `beta1`...) are scalars. A
Resource* op reads the variable's and slots' shapes from their handles (`ShapeOrHandleShape`):
unknown unless a VarHandleOp declares them. A SparseApply* op updates the rows `indices` names:
its gradient has one row per index (`HandleGradAndIndicesInputs`), the variable's shape past the
first dimension.
"""

from __future__ import annotations

from tflint.tf.shapes.algebra import Shape, ShapeError, merge, merge_dim, with_rank
from tflint.tf.shapes.context import Context, ShapeFn

# Per op, one letter per input in order: r = the variable or one of its slots (a handle in the
# Resource* op), g = the gradient (the variable's shape too), s = a scalar hyperparameter,
# x = not checked (FtrlV2's lr_power: TensorFlow 2.21 does not look at it).
_SPECS = {
    "GradientDescent": "rsg",
    "Momentum": "rrsgs",
    "KerasMomentum": "rrsgs",
    "Adam": "rrrssssssg",
    "AdamWithAmsgrad": "rrrrssssssg",
    "Adagrad": "rrsg",
    "AdagradV2": "rrssg",
    "AdagradDA": "rrrgssss",
    "ProximalAdagrad": "rrsssg",
    "RMSProp": "rrrssssg",
    "CenteredRMSProp": "rrrrssssg",
    "Ftrl": "rrrgssss",
    "FtrlV2": "rrrgssssx",
    "Adadelta": "rrrsssg",
    "AdaMax": "rrrsssssg",
    "AddSign": "rrssssg",
    "PowerSign": "rrssssg",
    "ProximalGradientDescent": "rsssg",
}
# The SparseApply* forms: the gradient's indices follow it (the `g` of _SPECS).
_SPARSE = (
    "Adadelta",
    "Adagrad",
    "AdagradDA",
    "AdagradV2",
    "CenteredRMSProp",
    "Ftrl",
    "FtrlV2",
    "KerasMomentum",
    "Momentum",
    "ProximalAdagrad",
    "ProximalGradientDescent",
    "RMSProp",
)
# Only the Resource* form of these exists.
_RESOURCE_ONLY = ("KerasMomentum", "AdamWithAmsgrad")
# What TensorFlow 2.21 does with a Resource* op's inputs (checked against it, tools/fuzz_shapes_tf.py): the
# variable's and slots' shapes come from their handles and are merged; the gradient is read the same way
# (`ShapeOrHandleShape<true>`), and a plain tensor has no handle data, so its shape is unknown: a [3] gradient
# of a [2] variable imports, and a ResourceSparseApply*'s gradient is not looked at (its indices are). Only
# these read the gradient itself: GradientDescent's shape function, and ProximalAdagrad's, which TensorFlow
# registers for ResourceApplyProximalAdagrad with is_resource=false.
_GRADIENT_MERGED = ("GradientDescent", "ProximalAdagrad")


def _apply(c: Context) -> list[Shape]:
    resource, sparse, name = _OPS[c.node.op]
    spec = _SPECS[name]
    c.expect_inputs(len(spec) + sparse)
    shape: Shape = None
    index = 0
    for kind in spec:
        if kind == "s":
            with_rank(c.shapes[index], 0, index)
        elif kind == "r":
            if resource:
                variable = c.var_handle(index)
                shape = merge(shape, None if variable is None else variable[1])
            else:
                shape = merge(shape, c.shapes[index])
        elif kind == "g" and sparse:
            shape = _sparse_gradient(c, index, shape, known=not resource)
            index += 1
        elif kind == "g" and (not resource or name in _GRADIENT_MERGED):
            shape = merge(shape, c.shapes[index])
        index += 1
    if resource:
        return []
    return [shape]


def _sparse_gradient(c: Context, index: int, shape: Shape, known: bool) -> Shape:
    """The variable's shape after its sparse gradient at `index` (indices next): one row per index.

    `known`: whether TensorFlow reads the gradient's shape (not in a ResourceSparseApply*, see _GRADIENT_MERGED).
    """
    with_rank(c.shapes[index + 1], 1, index + 1)
    grad = c.shapes[index] if known else None
    if grad is None:
        return shape
    if not grad:
        raise ShapeError("Argument grad must not be a scalar. Got grad with rank 0", index)
    indices = c.shapes[index + 1]
    if indices is not None:
        merge_dim(indices[0], grad[0])
    return merge(shape, (-1, *grad[1:]))


def _registry() -> dict[str, ShapeFn]:
    registry: dict[str, ShapeFn] = {}
    for op in _OPS:
        registry[op] = _apply
    return registry


# Op name -> (a Resource* op, a SparseApply* op, its name in _SPECS).
_OPS: dict[str, tuple[bool, bool, str]] = {}
for _name in _SPECS:
    if _name not in _RESOURCE_ONLY:
        _OPS["Apply" + _name] = (False, False, _name)
    _OPS["ResourceApply" + _name] = (True, False, _name)
for _name in _SPARSE:
    if _name not in _RESOURCE_ONLY:
        _OPS["SparseApply" + _name] = (False, True, _name)
    _OPS["ResourceSparseApply" + _name] = (True, True, _name)


SHAPE_FNS: dict[str, ShapeFn] = _registry()
