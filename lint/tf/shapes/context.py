"""What a shape function sees of one node (TensorFlow's `InferenceContext`): input shapes, constants, attrs."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tflint.tf.registry import OpSchema
from tflint.tf.shapes.algebra import ConstValue, Shape, Unknown, partial_shape
from tflint.tf.shapes.refiner import Refiner


class Context:
    """What a shape function sees of one node: input shapes, constant inputs, attrs.

    One Context serves every node in turn (its fields are reset per node), so
    the hot loop allocates nothing for it.
    """

    __slots__ = ("inference", "node", "shapes", "inputs", "_schema", "consts_read", "read_handles")

    def __init__(self, inference: Refiner) -> None:
        self.inference = inference
        self.node: Any = None
        self.shapes: list[Shape] = []
        self.inputs: Any = ()
        self._schema: OpSchema | None = None
        # What the shape function looked at beyond the node's op, attrs and input shapes:
        # the inputs whose Const values it read (in order), and whether it followed a
        # variable's handle (a result that is then never memoized).
        self.consts_read: list[int] = []
        self.read_handles = False

    @property
    def schema(self) -> OpSchema:
        """The node's OpDef schema (for attr defaults)."""
        if self._schema is None:
            schema = self.inference.graph.schema_for(self.node.op)
            if schema is None:
                raise Unknown
            self._schema = schema
        return self._schema

    @property
    def producer(self) -> int:
        """The graph's producer version, as TensorFlow's refiner sees it."""
        return self.inference.producer

    def expect_inputs(self, count: int) -> None:
        """Give up unless the node has exactly `count` data inputs (input-count's finding otherwise)."""
        if len(self.shapes) != count:
            raise Unknown

    def const(self, index: int) -> ConstValue | None:
        """The value of data input `index` when a Const produces it directly, else None."""
        self.consts_read.append(index)
        return self.inference.const_value(self.inputs[index])

    def partial(self, index: int) -> Any:
        """What is known of data input `index` read as a shape, element by element (constants.partial_shape_value)."""
        self.consts_read.append(index)
        return self.inference.partial_value(self.inputs[index])

    def handle_data(self, index: int) -> tuple[int, Shape] | None:
        """(element dtype, element shape) a list or TensorArray handle at data input `index` carries, else None."""
        self.read_handles = True
        return self.inference.handle_data(self.inputs[index])

    def set_handle_data(self, output: int, dtype: int, shape: Shape) -> None:
        """Record the handle data of output `output` (`set_output_handle_shapes_and_types`); never memoized."""
        self.read_handles = True
        self.inference.handles[self.node.ordinal, output] = (dtype, shape)

    def var_handle(self, index: int) -> tuple[int, Shape] | None:
        """(dtype, shape) of the variable whose handle data input `index` carries, else None."""
        self.read_handles = True
        return self.inference.var_handle(self.inputs[index])

    def _value(self, name: str) -> Any:
        """The node's AttrValue for `name`, else the OpDef default (TensorFlow fills it at import); else give up."""
        value = self.node.attr.get(name)
        if value is None:
            value = self.inference.graph.attr_default(self.schema, name)
            if value is None:
                raise Unknown
        return value

    def attr(self, name: str, kind: str) -> Any:
        """Attr `name` (or its default) when its AttrValue holds a `kind`; else give up."""
        value = self._value(name)
        if value.WhichOneof("value") != kind:
            raise Unknown
        return getattr(value, kind)

    def attr_ints(self, name: str) -> tuple[int, ...]:
        """A list(int) attr (or its default); an empty AttrValue is an empty list, as in TensorFlow."""
        return tuple(self.attr_list(name, "i"))

    def attr_list(self, name: str, field: str) -> list[Any]:
        """A list attr's `field` elements (types, shapes, strings, ints), or give up."""
        value = self._value(name)
        kind = value.WhichOneof("value")
        if kind is None:
            return []
        if kind != "list" or any(item.name != field for item, _ in value.list.ListFields()):
            raise Unknown
        return list(getattr(value.list, field))

    def attr_shape(self, name: str) -> Shape:
        """A shape attr as a partial shape; give up on an invalid one (invalid-shape reports it)."""
        return partial_shape(self.attr(name, "shape"))


# Each takes a Context and returns the shapes of all outputs (a list), or raises ShapeError
# (TensorFlow rejects the node) or Unknown (outputs unknown).
ShapeFn = Callable[[Context], list[Shape]]
