"""Shape functions of optimizer update ops (TensorFlow's core/ops/training_ops.cc).

Each Apply* op names its inputs: the variable and its slots (`var`, `accum`, `m`...) and the
gradient share one shape, the hyperparameters (`lr`, `momentum`, `beta1`...) are scalars. A
Resource* op reads the variable's and slots' shapes from their handles (`ShapeOrHandleShape`):
unknown unless a VarHandleOp declares them.
"""

from __future__ import annotations

from tflint.tf.shapes.algebra import Shape, merge, with_rank
from tflint.tf.shapes.context import Context, ShapeFn

# Per op, one letter per input in order: r = the variable or one of its slots (a handle in the
# Resource* op), g = the gradient (the variable's shape too), s = a scalar hyperparameter,
# x = not checked (FtrlV2's lr_power: TensorFlow 2.21 does not look at it).
_SPECS = {
    "GradientDescent": "rsg",
    "Momentum": "rrsgs",
    "KerasMomentum": "rrsgs",
    "Adam": "rrrssssssg",
    "Adagrad": "rrsg",
    "AdagradV2": "rrssg",
    "RMSProp": "rrrssssg",
    "Ftrl": "rrrgssss",
    "FtrlV2": "rrrgssssx",
    "Adadelta": "rrrsssg",
    "AdaMax": "rrrsssssg",
    "ProximalGradientDescent": "rsssg",
}
# Only the Resource* form of these exists.
_RESOURCE_ONLY = ("KerasMomentum",)
# What TensorFlow 2.21 does with a Resource* op's handles (checked against it, tools/fuzz_shapes_tf.py):
# the variable's and slots' shapes are merged; the gradient is merged with them only for these
# (a [3] gradient of a [2] variable imports for every other Resource* optimizer).
_GRADIENT_MERGED = ("GradientDescent",)


def _apply(c: Context) -> list[Shape]:
    op = c.node.op
    resource = op.startswith("Resource")
    name = op[len("ResourceApply") :] if resource else op[len("Apply") :]
    spec = _SPECS[name]
    c.expect_inputs(len(spec))
    shape: Shape = None
    for index, kind in enumerate(spec):
        if kind == "s":
            with_rank(c.shapes[index], 0, index)
            continue
        if kind == "x":
            continue
        if not resource:
            other = c.shapes[index]
        elif kind == "r":
            variable = c.var_handle(index)
            other = None if variable is None else variable[1]
        elif name in _GRADIENT_MERGED:
            other = c.shapes[index]
        else:
            continue
        shape = merge(shape, other)
    if resource:
        return []
    return [shape]


def _registry() -> dict[str, ShapeFn]:
    registry: dict[str, ShapeFn] = {}
    for name in _SPECS:
        if name not in _RESOURCE_ONLY:
            registry["Apply" + name] = _apply
        registry["ResourceApply" + name] = _apply
    return registry


SHAPE_FNS: dict[str, ShapeFn] = _registry()
