"""What running a graph costs: floating-point operations per op from shapes, and the bytes of its tensors.

TensorFlow's own profiler (`tf.compat.v1.profiler` with `float_operation()`)
counts an op's FLOPs with a statistics function registered for that op
(`ops.RegisterStatistics(op, "flops")`, in nn_ops.py and
profiler/internal/flops_registry.py); an op without one counts zero (Relu,
Identity, Reshape, BatchNorm's fused kernel...). The table at the end follows
those registrations, one small function per family, so tflint's figure is
comparable with TensorFlow's: a multiply-add is two operations, an element-wise
op one per output element, a convolution two per multiply-add of its window.

Every function takes the node, the shapes of its data inputs and the shapes of
its outputs (tuples of ints, -1 for an unknown dimension, None for an unknown
rank) and returns a count, or None when a shape it needs is not fully known:
TensorFlow's profiler then skips the op, and tflint says the figure is a bound.
No I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from tflint.tf.serving import upstream_names
from tflint.tf.tensors import DTYPE_SIZE

Shape = tuple[int, ...] | None
FlopsFn = Callable[[Any, Sequence[Shape], Sequence[Shape]], "int | None"]

# Ops whose outputs are the weights themselves, not activations: their bytes are parameters.
VARIABLE_OPS = frozenset({"VarHandleOp", "VariableV2", "Variable"})
CONST_OPS = frozenset({"Const", "HostConst"})
# Ops that make no new tensor memory of their own: a constant, a variable or a read of it (the weights),
# a view, a feed.
NO_ACTIVATION_OPS = (
    CONST_OPS | VARIABLE_OPS | frozenset({"Identity", "NoOp", "Placeholder", "_Arg", "_Retval", "ReadVariableOp"})
)


def elements(shape: Shape) -> int | None:
    """The number of elements of a fully known shape, else None."""
    if shape is None:
        return None
    count = 1
    for size in shape:
        if size < 0:
            return None
        count *= size
    return count


def dtype_bytes(dtype: int) -> int:
    """Bytes per element of a DataType (4 when unknown: strings and variants have no fixed size)."""
    return DTYPE_SIZE.get(dtype % 100, 4)


def _first(shapes: Sequence[Shape]) -> Shape:
    return shapes[0] if shapes else None


def _attr_bool(node: Any, name: str) -> bool:
    value = node.attr.get(name)
    return value is not None and value.WhichOneof("value") == "b" and bool(value.b)


def _attr_ints(node: Any, name: str) -> list[int]:
    value = node.attr.get(name)
    if value is None or value.WhichOneof("value") != "list":
        return []
    return list(value.list.i)


# -- element-wise ------------------------------------------------------------------------------


def _per_input_element(per_element: int) -> FlopsFn:
    """`per_element` operations per element of input 0 (TensorFlow's unary ops, BiasAdd, Softmax)."""

    def flops(node: Any, inputs: Sequence[Shape], outputs: Sequence[Shape]) -> int | None:
        count = elements(_first(inputs))
        return None if count is None else count * per_element

    return flops


def _per_output_element(per_element: int) -> FlopsFn:
    """`per_element` operations per output element (TensorFlow's binary element-wise ops)."""

    def flops(node: Any, inputs: Sequence[Shape], outputs: Sequence[Shape]) -> int | None:
        count = elements(_first(outputs))
        return None if count is None else count * per_element

    return flops


def _l2_loss(node: Any, inputs: Sequence[Shape], outputs: Sequence[Shape]) -> int | None:
    count = elements(_first(inputs))
    return None if count is None else 3 * count - 1


def _add_n(node: Any, inputs: Sequence[Shape], outputs: Sequence[Shape]) -> int | None:
    if not inputs:
        return 0
    count = elements(inputs[0])
    return None if count is None else count * (len(inputs) - 1)


# -- reductions ----------------------------------------------------------------------------------


def _reduction(finalize: int) -> FlopsFn:
    """One operation per input element, less one per output element, plus `finalize` per output (Mean's divide)."""

    def flops(node: Any, inputs: Sequence[Shape], outputs: Sequence[Shape]) -> int | None:
        count_in, count_out = elements(_first(inputs)), elements(_first(outputs))
        if count_in is None or count_out is None:
            return None
        return count_in + count_out * (finalize - 1)

    return flops


# -- matrix products -----------------------------------------------------------------------------


def _mat_mul(node: Any, inputs: Sequence[Shape], outputs: Sequence[Shape]) -> int | None:
    """Two operations per output element per step of the shared dimension."""
    a, out = _first(inputs), elements(_first(outputs))
    if a is None or len(a) != 2 or out is None:
        return None
    k = a[0] if _attr_bool(node, "transpose_a") else a[1]
    return None if k < 0 else 2 * k * out


def _batch_mat_mul(node: Any, inputs: Sequence[Shape], outputs: Sequence[Shape]) -> int | None:
    a, out = _first(inputs), elements(_first(outputs))
    if a is None or len(a) < 2 or out is None:
        return None
    k = a[-2] if _attr_bool(node, "adj_x") else a[-1]
    return None if k < 0 else 2 * k * out


# -- convolutions and pooling --------------------------------------------------------------------


def _conv(window_dims: int, with_depth: bool) -> FlopsFn:
    """Two operations per output element per filter tap: the first `window_dims` filter dims (and its in-depth)."""

    def flops(node: Any, inputs: Sequence[Shape], outputs: Sequence[Shape]) -> int | None:
        if len(inputs) < 2:
            return None
        kernel, out = inputs[1], elements(_first(outputs))
        if kernel is None or len(kernel) < window_dims + 1 or out is None:
            return None
        taps = elements(kernel[: window_dims + 1] if with_depth else kernel[:window_dims])
        return None if taps is None else 2 * taps * out

    return flops


def _pool(node: Any, inputs: Sequence[Shape], outputs: Sequence[Shape]) -> int | None:
    """One operation per output element per element of the window."""
    out = elements(_first(outputs))
    if out is None:
        return None
    window = 1
    for size in _attr_ints(node, "ksize"):
        window *= size
    return window * out


def _conv_backprop_input(node: Any, inputs: Sequence[Shape], outputs: Sequence[Shape]) -> int | None:
    out, kernel = _first(outputs), inputs[1] if len(inputs) > 1 else None
    count, taps = elements(out), elements(kernel)
    strides = _attr_ints(node, "strides")
    if out is None or count is None or taps is None or len(strides) < 3 or not out or out[-1] <= 0:
        return None
    stride = strides[1] * strides[2]
    return 2 * count * taps // (out[-1] * stride) if stride > 0 else None


FLOPS_FNS: dict[str, FlopsFn] = {
    # unary (flops_registry.py)
    "Reciprocal": _per_input_element(1),
    "Square": _per_input_element(1),
    "Rsqrt": _per_input_element(2),
    "Log": _per_input_element(1),
    "Neg": _per_input_element(1),
    "AssignSub": _per_input_element(1),
    "AssignAdd": _per_input_element(1),
    "L2Loss": _l2_loss,
    "Softmax": _per_input_element(5),
    # binary element-wise
    **{
        op: _per_output_element(1)
        for op in (
            "Add",
            "AddV2",
            "Sub",
            "Mul",
            "RealDiv",
            "Maximum",
            "Minimum",
            "Pow",
            "GreaterEqual",
            "Greater",
            "LessEqual",
            "Less",
            "Equal",
            "NotEqual",
        )
    },
    "RsqrtGrad": _per_output_element(4),
    "SquaredDifference": _per_output_element(2),
    "AddN": _add_n,
    # reductions
    "Mean": _reduction(finalize=1),
    "Sum": _reduction(finalize=0),
    "ArgMax": _reduction(finalize=0),
    "ArgMin": _reduction(finalize=0),
    "BiasAddGrad": _reduction(finalize=0),
    # matrix products
    "MatMul": _mat_mul,
    "BatchMatMul": _batch_mat_mul,
    "BatchMatMulV2": _batch_mat_mul,
    "BatchMatMulV3": _batch_mat_mul,
    # convolutions and pooling (nn_ops.py)
    "Conv2D": _conv(2, with_depth=True),
    "Conv3D": _conv(3, with_depth=True),
    "DepthwiseConv2dNative": _conv(2, with_depth=False),
    "Dilation2D": _conv(2, with_depth=False),
    "BiasAdd": _per_input_element(1),
    "AvgPool": _pool,
    "MaxPool": _pool,
    "Conv2DBackpropInput": _conv_backprop_input,
}


def node_flops(node: Any, inputs: Sequence[Shape], outputs: Sequence[Shape]) -> tuple[int, bool]:
    """(FLOPs of `node`, whether they are known): 0 and known for an op TensorFlow counts as free."""
    fn = FLOPS_FNS.get(node.op)
    if fn is None:
        return 0, True
    found = fn(node, inputs, outputs)
    return (0, False) if found is None else (found, True)


def tensor_bytes(shape: Shape, dtype: int) -> int | None:
    """Bytes of a tensor of `shape` and `dtype` when the shape is fully known."""
    count = elements(shape)
    return None if count is None else count * dtype_bytes(dtype)


# -- a graph's cost ------------------------------------------------------------------------------


class Cost:
    """What running part of a graph costs: FLOPs, bytes of the tensors it makes, and what is unknown.

    `unknown_flops` counts the nodes whose FLOPs need a shape that is not known (the figure is
    then a lower bound), `unknown_bytes` the outputs of unknown size (likewise); `calls_skipped`
    the calls whose body could not be followed (their cost is not in the figures).
    """

    __slots__ = ("flops", "activation_bytes", "unknown_flops", "unknown_bytes", "calls_skipped", "nodes")

    def __init__(self) -> None:
        self.flops = 0
        self.activation_bytes = 0
        self.unknown_flops = 0
        self.unknown_bytes = 0
        self.calls_skipped = 0
        self.nodes = 0

    @property
    def exact(self) -> bool:
        """Whether every figure is complete (not a lower bound)."""
        return not (self.unknown_flops or self.unknown_bytes or self.calls_skipped)


def _batched(shape: Shape, batch: int) -> Shape:
    """A signature's input shape with an unknown leading (batch) dimension set to `batch`."""
    if shape is None or not shape or shape[0] >= 0:
        return shape
    return (batch, *shape[1:])


def batch_feeds(graph: Any, tensors: Sequence[tuple[str, int]], batch: int) -> dict[tuple[str, int], Shape]:
    """The shapes to feed a graph's input tensors (node, output) at `batch`: each Placeholder's declared shape."""
    from tflint.tf.shapes.algebra import Unknown as _Unknown
    from tflint.tf.shapes.algebra import partial_shape

    feeds: dict[tuple[str, int], Shape] = {}
    for name, index in tensors:
        node = graph.node(name)
        if node is None or node.op not in ("Placeholder", "PlaceholderWithDefault"):
            continue
        value = node.attr.get("shape")
        if value is None or value.WhichOneof("value") != "shape":
            continue
        try:
            declared = partial_shape(value.shape)
        except _Unknown:
            continue
        feeds[name, index] = _batched(declared, batch)
    return feeds


def reached(graph: Any, tensors: Sequence[tuple[str, int]]) -> list[Any]:
    """The top-level nodes that run to compute `tensors` (node, output): their ancestors, in graph order."""
    seen = upstream_names(graph, [name for name, _ in tensors])
    return [node for node in graph.nodes if node.name in seen]


def graph_cost(graph: Any, nodes: Sequence[Any], feeds: dict[tuple[str, int], Shape] | None = None) -> Cost:
    """The cost of running `nodes` of `graph` (top-level nodes), following function calls into their bodies."""
    from tflint.tf.shapes.inference import ShapeInference

    inference = ShapeInference(graph, feeds=feeds) if feeds else graph.derived(ShapeInference)
    cost = Cost()
    _scope_cost(graph, inference, nodes, None, cost)
    return cost


def _scope_cost(graph: Any, inference: Any, nodes: Sequence[Any], originals: Any, cost: Cost) -> None:
    from tflint.tf.op_signatures import signatures
    from tflint.tf.shapes.calls import called_function

    table = signatures(graph)
    for node in nodes:
        cost.nodes += 1
        if called_function(node, graph.function_by_name) is not None:
            followed = inference.called(node)
            if followed is None:
                cost.calls_skipped += 1
            else:
                body, inner = followed
                _scope_cost(graph, inner, body.nodes, body.originals, cost)
            continue
        outputs = inference.node_outputs(node) or ()
        flops, known = node_flops(node, inference.node_input_shapes(node), outputs)
        cost.flops += flops
        cost.unknown_flops += not known
        if node.op in NO_ACTIVATION_OPS:
            continue
        original = originals[node.ordinal] if originals is not None and node.ordinal < len(originals) else node
        signature = table.resolved(original)
        types = signature.output_types if signature is not None else None
        for position, dtype in enumerate(types or ()):
            shape = outputs[position] if position < len(outputs) else None
            size = tensor_bytes(shape, dtype or 1) if dtype != 20 else 0  # a resource handle holds no tensor
            if size is None:
                cost.unknown_bytes += 1
            else:
                cost.activation_bytes += size
