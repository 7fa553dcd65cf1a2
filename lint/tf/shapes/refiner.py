"""What shape functions and constant evaluation ask of the inference that runs them (a Protocol).

`tflint.tf.shapes.inference.ShapeInference` is the one implementation; the modules below it
(context, constants, and through them every op family's shape functions) name this instead, so
that nothing they import leads back to the inference, not even for type checking.
"""

from __future__ import annotations

from typing import Any, Protocol

from tflint.tf.index import GraphIndex
from tflint.tf.node import Input, Node
from tflint.tf.shapes.algebra import ConstValue, Shape


class Refiner(Protocol):
    """The graph being refined, and the shapes, values and handle data known of its tensors."""

    graph: GraphIndex
    producer: int  # the GraphDef version TensorFlow's refiner applies (min of its own and the graph's)
    # Handle data of list and TensorArray handles: (node ordinal, output) -> (dtype, element shape).
    handles: dict[tuple[int, int], tuple[int, Shape]]
    # Values of (node ordinal, output index) as constant evaluation computed them.
    values: dict[tuple[int, int], ConstValue | None]

    def input_shape(self, item: Input) -> Shape: ...

    def const_value(self, item: Input) -> ConstValue | None: ...

    def partial_value(self, item: Input) -> Any: ...

    def handle_data(self, item: Input) -> tuple[int, Shape] | None: ...

    def var_handle(self, item: Input) -> tuple[int, Shape] | None: ...

    def argument_value(self, node: Node) -> ConstValue | None: ...

    def producer_of(self, item: Input) -> Node | None: ...

    def has_shape_fn(self, op: str) -> bool: ...
