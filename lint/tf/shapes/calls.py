"""Function calls as TensorFlow's refiner sees them: which nodes call which body, and the body made inferable.

When TensorFlow's importer reaches a function call (`PartitionedCall`, `StatefulPartitionedCall`,
or a node whose op is a library function), its `ShapeRefiner` instantiates the function and runs
every body node's shape function with the caller's input shapes (`InferShapesForFunction`): an
argument is the caller's input (its shape, its value when a shape function asks for one, a
resource's handle data), the call's outputs are the shapes reaching the body's results. A body
node's own `_output_shapes` plays no part, and a node with `_disable_call_shape_inference` set
keeps unknown outputs. `If`, `While` and `Case` bodies are not looked at: their shape functions
read only their `output_shapes` attr (or, for a While, the inputs).

A `FunctionBody` is a function's nodes rewritten once so the refiner can run over them like a
graph: each data input addresses its producer's flattened output (`node:out_arg:i` becomes
output `offset(out_arg) + i`), arguments are nodes of op `_Arg` after the body's own, results are
inputs too. A function whose signature has list-valued arguments or results (`number_attr`,
`type_list_attr`) is not made inferable.
"""

from __future__ import annotations

from typing import Any

from tflint.tf.index import GraphIndex, Scope
from tflint.tf.node import Input, Node, parse_function_input
from tflint.tf.op_signatures import Signatures, signatures

CALL_OPS = frozenset({"PartitionedCall", "StatefulPartitionedCall"})
DISABLE_ATTR = "_disable_call_shape_inference"
DT_RESOURCE = 20
# A name no reference resolves to: the input's producer is unknown (a malformed reference, other rules' finding).
_NOWHERE = "\x00"


class FunctionBody:
    """One library function's body, rewritten for shape inference (see the module docstring)."""

    __slots__ = ("name", "nodes", "args", "by_name", "originals", "returns", "input_types", "output_types")

    def __init__(
        self,
        name: str,
        nodes: list[Node],
        args: list[Node],
        originals: list[Node],
        returns: list[Input | None],
        input_types: tuple[int, ...],
        output_types: tuple[int, ...],
    ) -> None:
        self.name = name
        self.nodes = nodes  # the body's nodes, in file order (copies with rewritten inputs)
        self.args = args  # one `_Arg` node per input arg, ordinals after the nodes'
        self.by_name: dict[str, Node] = {arg.name: arg for arg in args}
        for node in reversed(nodes):
            self.by_name.setdefault(node.name, node)
        self.originals = originals  # the body's own Nodes, by ordinal (where findings are located)
        self.returns = returns  # per output arg, the tensor it returns (None: not resolvable)
        self.input_types = input_types  # 0 for a type set by one of the function's attrs
        self.output_types = output_types


def called_function(node: Node, library: dict[str, Any]) -> str | None:
    """The library function whose body TensorFlow's refiner infers for `node`, if any."""
    if node.op in CALL_OPS:
        value = node.attr.get("f")
        if value is None or value.WhichOneof("value") != "func":
            return None
        name: str = value.func.name
    elif node.op in library:
        name = node.op
    else:
        return None
    if name not in library:
        return None
    disable = node.attr.get(DISABLE_ATTR)
    if disable is not None and disable.WhichOneof("value") == "b" and disable.b:
        return None
    return name


def build_body(graph: GraphIndex, scope: Scope) -> FunctionBody | None:
    """`scope`'s function made inferable, or None when its signature has list-valued args or results."""
    function = scope.function
    signature = function.signature
    input_args = list(signature.input_arg)
    output_args = list(signature.output_arg)
    if any(arg.number_attr or arg.type_list_attr for arg in input_args + output_args):
        return None
    originals = scope.nodes
    count = len(originals)
    args = [Node(arg.name, "_Arg", "", {}, (), None, count + position) for position, arg in enumerate(input_args)]
    arg_names = {arg.name for arg in args}
    cache = signatures(graph)
    offsets: dict[tuple[str, str], tuple[int, int] | None] = {}

    def rewrite(item: Input) -> Input:
        if item.is_control:
            return item
        if item.output_arg is None:
            if item.node in arg_names and item.index == 0 and item.node not in scope.by_name:
                return Input(item.raw, item.node, 0, False)
            return Input(item.raw, _NOWHERE, 0, False)
        producer = scope.by_name.get(item.node)
        if producer is None or item.index < 0:
            return Input(item.raw, _NOWHERE, 0, False)
        key = (item.node, item.output_arg)
        if key not in offsets:
            offsets[key] = _offset(cache, producer, item.output_arg)
        span = offsets[key]
        if span is None or item.index >= span[1]:
            return Input(item.raw, _NOWHERE, 0, False)
        return Input(item.raw, item.node, span[0] + item.index, False)

    nodes = []
    for original in originals:
        copy = Node(original.name, original.op, original.device, original.attr, original.raw_inputs, None)
        copy.ordinal = original.ordinal
        copy.inputs = tuple(rewrite(item) for item in original.inputs)
        nodes.append(copy)
    returns: list[Input | None] = []
    for arg in output_args:
        raw = function.ret.get(arg.name)
        returns.append(None if raw is None else rewrite(parse_function_input(raw)))
    return FunctionBody(
        signature.name,
        nodes,
        args,
        originals,
        returns,
        tuple(arg.type for arg in input_args),
        tuple(arg.type for arg in output_args),
    )


def _offset(cache: Signatures, producer: Node, output_arg: str) -> tuple[int, int] | None:
    """Where output arg `output_arg` of `producer` starts among its flattened outputs, and its length."""
    signature = cache.resolved_alone(producer)
    if signature is None:
        return None
    offset = 0
    for arg in signature.outputs:
        if arg.types is None:
            return None
        if arg.name == output_arg:
            return offset, len(arg.types)
        offset += len(arg.types)
    return None
