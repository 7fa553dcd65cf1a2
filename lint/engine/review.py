"""Reviewing a model: its canonical view (`show`), what it costs (`stats`), two views compared (`diff`).

A `ModelView` is what a reviewer needs of a graph artifact, with everything a
save changes without changing the model taken out, so that the same model
always gives the same view:

- nodes keyed by name (file order is not a change), inputs as TensorFlow
  resolves them (`x:0` is `x`, control inputs as a set), attrs that differ
  from their op's default, rendered by tflint (never by protobuf's text
  format, which differs between protobuf releases);
- functions under a canonical name: TensorFlow numbers a function per trace and
  process (`__inference_call_124` one time, `__inference_call_1380` the next),
  so the number is dropped, and functions left with the same name are told
  apart by their content;
- weights by variable name, not checkpoint key (Keras fills checkpoint lists
  from sets; the checkpoint's own object graph says which key holds which
  variable, `tflint.tf.checkpoint.saved_variables`), summarised by dtype,
  shape, bytes and a content hash read in pieces (`tflint.read.weights`);
  never their values;
- `fingerprint.pb` (a random id per save) is not read at all.

Text and binary forms of a graph give the same view. The diff compares two
views, adds the serving-contract changes `tflint compat` finds, and how much
each changed weight moved.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from tflint.engine.run import build_index
from tflint.errors import UsageError
from tflint.read.load import Artifact, load_path
from tflint.read.saved_model import OBJECT_GRAPH_KEY, saved_model_files
from tflint.read.tensor_bundle import BundleIndex
from tflint.read.weights import BytesContent, Content, EntryContent, MappedContent, ShardReader, content_hash, hash_of
from tflint.records import record
from tflint.tf.checkpoint import saved_variables
from tflint.tf.cost import (
    CONST_OPS,
    VARIABLE_OPS,
    Cost,
    batch_feeds,
    dtype_bytes,
    elements,
    graph_cost,
    reached,
)
from tflint.tf.index import GraphIndex
from tflint.tf.node import parse_input
from tflint.tf.op_signatures import dtype_name
from tflint.tf.registry import OpRegistry
from tflint.tf.tensors import MappedBytes, tensor_content

# A Const of at most this many elements shows its values; a larger one is a weight (summarised).
INLINE_ELEMENTS = 16
# Attrs that say nothing about what a node computes, only about how a save recorded it.
_BOOKKEEPING_ATTRS = frozenset({"_output_shapes"})
_NUMBERED = re.compile(r"^(?P<base>.+?)_(?P<number>\d+)$")
_FLOATING = frozenset({1, 2, 14, 19})  # float, double, bfloat16, half
VALUE_SUFFIX = "/.ATTRIBUTES/VARIABLE_VALUE"
# Checkpoint entries that are no weight: the object graph, and the saver's count of saves.
_NOT_WEIGHTS = frozenset({OBJECT_GRAPH_KEY, "save_counter" + VALUE_SUFFIX})


class UnreadableGraph(UsageError):
    """A file that holds a graph tflint cannot parse: what linting it reports as `invalid-graph` (exit 1)."""


@record(frozen=True)
class NodeView:
    """One node as a reviewer reads it: op, resolved inputs, control inputs (a set), device, non-default attrs."""

    name: str
    op: str
    inputs: tuple[str, ...]
    control: tuple[str, ...]
    device: str
    attrs: tuple[tuple[str, str], ...]

    def __init__(
        self,
        name: str,
        op: str,
        inputs: tuple[str, ...],
        control: tuple[str, ...],
        device: str,
        attrs: tuple[tuple[str, str], ...],
    ) -> None:
        vars(self).update(name=name, op=op, inputs=inputs, control=control, device=device, attrs=attrs)


@record(frozen=True)
class Weight:
    """A weight: dtype, shape, bytes, content hash (None when its content could not be read), where it lies."""

    name: str
    dtype: int
    shape: tuple[int, ...] | None
    size: int
    digest: str | None
    source: str

    def __init__(
        self, name: str, dtype: int, shape: tuple[int, ...] | None, size: int, digest: str | None, source: str
    ) -> None:
        vars(self).update(name=name, dtype=dtype, shape=shape, size=size, digest=digest, source=source)

    @property
    def elements(self) -> int:
        return elements(self.shape) or 0


@record(frozen=True)
class TensorView:
    """A signature's input or output: its tensor (as TensorFlow resolves it), dtype and shape."""

    tensor: str
    dtype: int
    shape: tuple[int, ...] | None

    def __init__(self, tensor: str, dtype: int, shape: tuple[int, ...] | None) -> None:
        vars(self).update(tensor=tensor, dtype=dtype, shape=shape)


@record(frozen=True)
class SignatureView:
    """A SignatureDef: method name, inputs and outputs by key."""

    key: str
    method: str
    inputs: Mapping[str, TensorView]
    outputs: Mapping[str, TensorView]

    def __init__(
        self, key: str, method: str, inputs: Mapping[str, TensorView], outputs: Mapping[str, TensorView]
    ) -> None:
        vars(self).update(key=key, method=method, inputs=inputs, outputs=outputs)


@record(frozen=True)
class SignatureCost:
    """What one signature (or a whole graph, key None) costs per request at a batch size."""

    key: str | None
    batch: int
    flops: int
    activation_bytes: int
    exact: bool
    unknown: tuple[str, ...]

    def __init__(
        self, key: str | None, batch: int, flops: int, activation_bytes: int, exact: bool, unknown: tuple[str, ...]
    ) -> None:
        vars(self).update(
            key=key, batch=batch, flops=flops, activation_bytes=activation_bytes, exact=exact, unknown=unknown
        )


@record()
class GraphView:
    """One graph of the artifact (a meta graph, or the GraphDef): signatures, nodes, functions, ops, cost."""

    label: str
    tags: tuple[str, ...] | None
    signatures: dict[str, SignatureView]
    nodes: dict[str, NodeView]
    functions: dict[str, dict[str, NodeView]]
    ops: Counter[str]
    costs: list[SignatureCost]
    digests: dict[str, str]
    machinery: tuple[int, tuple[str, ...]]

    def __init__(
        self,
        label: str,
        tags: tuple[str, ...] | None,
        signatures: dict[str, SignatureView],
        nodes: dict[str, NodeView],
        functions: dict[str, dict[str, NodeView]],
        ops: Counter[str],
        costs: list[SignatureCost],
        digests: dict[str, str] | None = None,
        machinery: tuple[int, tuple[str, ...]] = (0, ()),
    ) -> None:
        self.label = label
        self.tags = tags
        self.signatures = signatures
        self.nodes = nodes
        self.functions = functions
        self.ops = ops
        self.costs = costs
        # Each function's content hash (by canonical name), and the checkpoint machinery left out of
        # `nodes` and `functions`: (how many top-level nodes, which functions).
        self.digests = digests or {}
        self.machinery = machinery


@record(hidden=("contents",))
class ModelView:
    """A graph artifact as a reviewer sees it (see the module docstring).

    `contents` holds the TensorProto of each Const weight, to read its content again (weight_content).
    """

    path: str
    kind: str
    graphs: list[GraphView]
    weights: dict[str, Weight]
    parameters_from: str
    notes: list[str]
    contents: dict[str, Any]

    def __init__(
        self,
        path: str,
        kind: str,
        graphs: list[GraphView],
        weights: dict[str, Weight],
        parameters_from: str,
        notes: list[str],
        contents: dict[str, Any] | None = None,
    ) -> None:
        self.path = path
        self.kind = kind
        self.graphs = graphs
        self.weights = weights
        self.parameters_from = parameters_from
        self.notes = notes
        self.contents = contents or {}

    def parameters(self) -> int:
        """The number of parameters: elements of the weights (variables, or a frozen graph's float Consts)."""
        return sum(weight.elements for weight in self.weights.values() if self._is_parameter(weight))

    def parameter_bytes(self) -> dict[str, int]:
        """Bytes of the parameters by dtype name."""
        found: Counter[str] = Counter()
        for weight in self.weights.values():
            if self._is_parameter(weight):
                found[dtype_name(weight.dtype)] += weight.size
        return dict(sorted(found.items()))

    def _is_parameter(self, weight: Weight) -> bool:
        if self.parameters_from == "variables":
            return not weight.source.startswith("node ")
        return weight.dtype in _FLOATING

    def ops(self) -> Counter[str]:
        """The op histogram over every graph and function of the artifact."""
        total: Counter[str] = Counter()
        for graph in self.graphs:
            total.update(graph.ops)
        return total


# -- building a view -----------------------------------------------------------------------------


def load_view(
    path: str,
    registry: OpRegistry,
    *,
    input_type: str | None = None,
    batch: int = 1,
    costs: bool = True,
    hashes: bool = True,
) -> tuple[ModelView, Artifact]:
    """The ModelView of the graph file or SavedModel directory at `path` (UsageError when it is not one)."""
    if path != "-" and not os.path.exists(path):  # `-`: standard input (`git show HEAD:m.pb | tflint show -`)
        raise UsageError(f"{path}: no such file or directory")
    artifact = load_path(path, input_type)
    if artifact.skipped is not None:
        raise UsageError(f"{path}: not a TensorFlow graph ({artifact.skipped})")
    if artifact.unsupported is not None:
        raise UsageError(f"{path}: {artifact.unsupported}")
    if artifact.failure is not None:
        where = f":{artifact.failure.line}" if artifact.failure.line is not None else ""
        raise UnreadableGraph(f"{path}{where}: {artifact.failure.message} [invalid-graph]")
    return view_of(artifact, registry, batch=batch, costs=costs, hashes=hashes), artifact


def view_of(
    artifact: Artifact, registry: OpRegistry, *, batch: int = 1, costs: bool = True, hashes: bool = True
) -> ModelView:
    """The ModelView of a loaded artifact."""
    graphs: list[GraphView] = []
    weights: dict[str, Weight] = {}
    contents: dict[str, Any] = {}  # a Const weight's TensorProto, to read its content again (weight_content)
    metas: list[Any] = []
    for source in artifact.graphs:
        index = build_index(source, registry, artifact)
        graph_view, canonical = _graph_view(index, source, batch, costs)
        graphs.append(graph_view)
        for node in index.all_nodes():
            if node.op in CONST_OPS:
                weight = _const_weight(node, weight_name(node, canonical), hashes)
                if weight is not None and weight.name not in weights:
                    weights[weight.name] = weight
                    contents[weight.name] = node.attr["value"].tensor
        if source.meta_graph is not None:
            metas.append(source.meta_graph)
        index.release()
    notes: list[str] = []
    parameters_from = "constants"
    variable_weights = _variable_weights(artifact, graphs, metas, hashes, notes)
    # A frozen graph's weights are its floating-point Consts of rank 1 or more (a scalar is an epsilon, a
    # clip value); other Consts (shapes, axes, tables) count as weights only when they are big.
    weights = {
        name: weight
        for name, weight in weights.items()
        if (weight.dtype in _FLOATING and weight.shape) or weight.elements > INLINE_ELEMENTS
    }
    if variable_weights is not None:
        parameters_from = "variables"
        weights.update(variable_weights)
    kind = artifact.message_type or "GraphDef"
    weights = dict(sorted(weights.items()))
    kept = {name: tensor for name, tensor in contents.items() if name in weights}
    return ModelView(artifact.path, kind, graphs, weights, parameters_from, notes, kept)


def _graph_view(index: GraphIndex, source: Any, batch: int, with_costs: bool) -> tuple[GraphView, dict[str, str]]:
    canonical, digests = canonical_function_names(index)
    meta = source.meta_graph
    machinery_nodes, machinery_functions = checkpoint_machinery(index, meta)
    memo: dict[Any, Any] = {}
    nodes = {
        node.name: node_view(index, node, canonical, memo) for node in index.nodes if node.name not in machinery_nodes
    }
    functions: dict[str, dict[str, NodeView]] = {}
    # The op histogram counts what runs and what is stored alike: machinery included.
    ops: Counter[str] = Counter(node.op for node in index.nodes)
    for scope in index.function_scopes:
        ops.update(node.op for node in scope.nodes)
        if scope.name in machinery_functions:
            continue
        own = scope.function.signature.name
        functions[canonical.get(own, own)] = {
            node.name: node_view(index, node, canonical, memo) for node in scope.nodes
        }
    signatures: dict[str, SignatureView] = {}
    tags = None
    if meta is not None:
        tags = tuple(sorted(meta.meta_info_def.tags))
        for key in sorted(meta.signature_def):
            signature = meta.signature_def[key]
            signatures[key] = SignatureView(
                key,
                signature.method_name,
                {name: _tensor_view(signature.inputs[name]) for name in sorted(signature.inputs)},
                {name: _tensor_view(signature.outputs[name]) for name in sorted(signature.outputs)},
            )
    costs = _costs(index, signatures, batch) if with_costs else []
    label = ",".join(tags) if tags is not None else "graph"
    kept_digests = {canonical.get(name, name): digest for name, digest in digests.items()}
    machinery = (len(machinery_nodes), tuple(sorted(canonical.get(name, name) for name in machinery_functions)))
    view = GraphView(
        label,
        tags,
        signatures,
        dict(sorted(nodes.items())),
        dict(sorted(functions.items())),
        ops,
        costs,
        kept_digests,
        machinery,
    )
    return view, canonical


def checkpoint_machinery(index: GraphIndex, meta: Any) -> tuple[set[str], set[str]]:
    """The top-level nodes and functions that only save and restore the checkpoint (a SavedModel's saver).

    TensorFlow rebuilds them from the variables on every save: they list the variables in the order the
    object graph had them in that process, and embed the object graph itself. What they do is fully said
    by the variables, which the review compares by name; so they are counted, not compared.
    """
    if meta is None or not meta.HasField("saver_def"):
        return set(), set()
    saver = meta.saver_def
    roots = [name for name in (saver.save_tensor_name, saver.restore_op_name) if name]
    serving = [
        info.name
        for signature in meta.signature_def.values()
        for info in list(signature.inputs.values()) + list(signature.outputs.values())
        if info.name
    ]
    if not roots:
        return set(), set()
    served = {node.name for node in reached(index, [_tensor(name) for name in serving])}
    saving = {node.name for node in reached(index, [_tensor(name) for name in roots])}
    machinery = saving - served
    if saver.filename_tensor_name:
        filename = _tensor(saver.filename_tensor_name)[0]
        if filename not in served:
            machinery.add(filename)
    called_by: dict[str, set[str]] = {}
    calls_from_kept: set[str] = set()
    for node in index.nodes:
        for name in _called_functions(node, index):
            called_by.setdefault(name, set()).add(node.name)
            if node.name not in machinery:
                calls_from_kept.add(name)
    for scope in index.function_scopes:
        for node in scope.nodes:
            for name in _called_functions(node, index):
                called_by.setdefault(name, set()).add(f"{scope.name}/{node.name}")
    functions = {
        name
        for name, callers in called_by.items()
        if name not in calls_from_kept and callers and all(caller in machinery for caller in callers)
    }
    return machinery, functions


def _called_functions(node: Any, index: GraphIndex) -> list[str]:
    names = []
    for value in node.attr.values():
        kind = value.WhichOneof("value")
        if kind == "func" and value.func.name in index.function_by_name:
            names.append(value.func.name)
        elif kind == "list":
            names.extend(item.name for item in value.list.func if item.name in index.function_by_name)
    if node.op in index.function_by_name:
        names.append(node.op)
    return names


def _tensor_view(info: Any) -> TensorView:
    shape = None
    if info.HasField("tensor_shape") and not info.tensor_shape.unknown_rank:
        shape = tuple(dim.size if dim.size >= 0 else -1 for dim in info.tensor_shape.dim)
    name = info.name
    if name:
        parsed = parse_input(name)
        name = parsed.node if parsed.index == 0 else f"{parsed.node}:{parsed.index}"
    return TensorView(name or info.WhichOneof("encoding") or "", info.dtype, shape)


def _costs(index: GraphIndex, signatures: Mapping[str, SignatureView], batch: int) -> list[SignatureCost]:
    """The cost of each signature that serves requests (init ops excluded), or of the whole graph when it has none."""
    found = []
    served = {key: sig for key, sig in signatures.items() if not key.startswith("__")}
    if not served:
        # No signature names the feeds: every Placeholder is one, its unknown leading dimension the batch.
        placeholders = [(node.name, 0) for node in index.nodes if node.op == "Placeholder"]
        cost = graph_cost(index, index.nodes, batch_feeds(index, placeholders, batch))
        found.append(_signature_cost(None, batch, cost))
        return found
    for key, signature in served.items():
        tensors = [_tensor(view.tensor) for view in signature.outputs.values()]
        feeds = batch_feeds(index, [_tensor(view.tensor) for view in signature.inputs.values()], batch)
        cost = graph_cost(index, reached(index, tensors), feeds)
        found.append(_signature_cost(key, batch, cost))
    return found


def _tensor(name: str) -> tuple[str, int]:
    parsed = parse_input(name)
    return parsed.node, max(parsed.index, 0)


def _signature_cost(key: str | None, batch: int, cost: Cost) -> SignatureCost:
    unknown = []
    if cost.unknown_flops:
        unknown.append(f"{cost.unknown_flops} node(s) with FLOPs on unknown shapes")
    if cost.unknown_bytes:
        unknown.append(f"{cost.unknown_bytes} output(s) of unknown size")
    if cost.calls_skipped:
        unknown.append(f"{cost.calls_skipped} call(s) not followed")
    return SignatureCost(key, batch, cost.flops, cost.activation_bytes, cost.exact, tuple(unknown))


def canonical_function_names(index: GraphIndex) -> tuple[dict[str, str], dict[str, str]]:
    """Each library function's name without TensorFlow's per-trace number, and each function's content hash.

    A base name left to one function is its name; several traces of one base are told apart by their
    content (`base#<hash>`), so a function that did not change keeps its name whatever number
    TensorFlow gave it. Content hashes name callees by base name.
    """
    bases: dict[str, list[str]] = {}
    for function in index.functions:
        name = function.signature.name
        match = _NUMBERED.match(name)
        base = match.group("base") if match is not None and name.startswith("__") else name
        bases.setdefault(base, []).append(name)
    plain = {name: base for base, names in bases.items() for name in names}
    digests = {name: _function_digest(index, name, plain) for name in plain}
    canonical: dict[str, str] = {}
    for base, names in bases.items():
        if len(names) == 1:
            canonical[names[0]] = base
            continue
        seen: Counter[str] = Counter()
        for name in sorted(names, key=lambda item: (digests[item], item)):
            seen[digests[name]] += 1
            repeat = f"-{seen[digests[name]]}" if seen[digests[name]] > 1 else ""
            canonical[name] = f"{base}#{digests[name][:6]}{repeat}"
    return canonical, digests


def _function_digest(index: GraphIndex, name: str, names: Mapping[str, str]) -> str:
    scope = _scopes_by_name(index).get(name)
    if scope is None:
        return ""
    lines = [repr(node_view(index, node, names)) for node in sorted(scope.nodes, key=lambda n: n.name)]
    signature = scope.function.signature
    lines.extend(f"in {arg.name} {arg.type}" for arg in signature.input_arg)
    lines.extend(f"out {arg.name} {arg.type}" for arg in signature.output_arg)
    return content_hash(line.encode("utf-8", "surrogateescape") for line in lines)


def _scopes_by_name(index: GraphIndex) -> dict[str, Any]:
    """The function scopes of a graph by function name (the first of a name), built once per graph."""
    return index.derived(_scope_table)


def _scope_table(index: GraphIndex) -> dict[str, Any]:
    return {scope.name: scope for scope in reversed(index.function_scopes) if scope.name is not None}


def node_view(
    index: GraphIndex, node: Any, functions: Mapping[str, str], memo: dict[Any, Any] | None = None
) -> NodeView:
    """A node as a reviewer reads it (see NodeView); a Const's big value is a weight (tensor_text).

    `memo` keeps the rendered attrs of each (op, attr dict): the readers share one attr dict between
    the nodes whose attrs are the same, so a graph of 100,000 nodes renders a few thousand.
    """
    data, control = [], set()
    for item in node.inputs:
        if item.is_control:
            control.add(item.node)
        elif node.function is not None:
            data.append(item.raw)
        else:
            data.append(item.node if item.index == 0 else f"{item.node}:{item.index}")
    key = (node.op, id(node.attr))
    attrs = None if memo is None or node.op in CONST_OPS else memo.get(key)
    if attrs is None:
        attrs = _attrs(index, node, functions)
        if memo is not None and node.op not in CONST_OPS:
            memo[key] = attrs
    op = functions.get(node.op, node.op)
    return NodeView(node.name, op, tuple(data), tuple(sorted(control)), node.device, attrs)


def _attrs(index: GraphIndex, node: Any, functions: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    schema = index.schema_for(node.op)
    attrs = []
    for key in sorted(node.attr):
        if key in _BOOKKEEPING_ATTRS:
            continue
        value = node.attr[key]
        if schema is not None:
            default = index.attr_default(schema, key)
            if default is not None and default == value:
                continue
        attrs.append((key, attr_text(value, functions, weight=key == "value" and node.op in CONST_OPS)))
    return tuple(attrs)


def attr_text(value: Any, functions: Mapping[str, str], weight: bool = False) -> str:
    """An AttrValue in tflint's own stable notation (not protobuf's text format); `weight`: see tensor_text."""
    kind = value.WhichOneof("value")
    if kind is None:
        return "[]"
    if kind == "s":
        return _bytes_text(value.s)
    if kind == "i":
        return str(value.i)
    if kind == "f":
        return repr(value.f)
    if kind == "b":
        return "true" if value.b else "false"
    if kind == "type":
        return dtype_name(value.type)
    if kind == "shape":
        return _shape_proto_text(value.shape)
    if kind == "tensor":
        return tensor_text(value.tensor, weight)
    if kind == "func":
        return _func_text(value.func, functions)
    if kind == "placeholder":
        return f"${value.placeholder}"
    if kind == "list":
        items = []
        for field, values in value.list.ListFields():
            for item in values:
                if field.name == "s":
                    items.append(_bytes_text(item))
                elif field.name == "type":
                    items.append(dtype_name(item))
                elif field.name == "shape":
                    items.append(_shape_proto_text(item))
                elif field.name == "tensor":
                    items.append(tensor_text(item))
                elif field.name == "func":
                    items.append(_func_text(item, functions))
                elif field.name == "b":
                    items.append("true" if item else "false")
                else:
                    items.append(repr(item))
        return "[" + ", ".join(items) + "]"
    return "?"


def weight_name(node: Any, functions: Mapping[str, str]) -> str:
    """The name a Const's value goes by among the weights: its node's, after its function's canonical name."""
    if node.function is None:
        return str(node.name)
    return f"{functions.get(node.function, node.function)}/{node.name}"


def _bytes_text(value: bytes) -> str:
    text = value.decode("utf-8", "backslashreplace")
    if len(text) > 200:
        return f'"{text[:80]}..." ({len(value)} bytes, {content_hash([value])})'
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _func_text(func: Any, functions: Mapping[str, str]) -> str:
    name: str = functions.get(func.name, func.name)
    if not len(func.attr):
        return name
    inner = ", ".join(f"{key}={attr_text(func.attr[key], functions)}" for key in sorted(func.attr))
    return f"{name}{{{inner}}}"


def _shape_proto_text(shape: Any) -> str:
    if shape.unknown_rank:
        return "?"
    return "[" + ",".join("?" if dim.size < 0 else str(dim.size) for dim in shape.dim) + "]"


def _dims(shape: Any) -> tuple[int, ...] | None:
    if shape.unknown_rank:
        return None
    return tuple(dim.size for dim in shape.dim)


def tensor_text(tensor: Any, weight: bool = False) -> str:
    """A TensorProto: dtype and shape, its values when there are few, else its size and content hash.

    A Const's big value is a `weight`: its hash is in the weights (`tflint show` lists them under the
    node's name) rather than here, so a changed weight is one change, not two, and a renamed Const
    is a rename.
    """
    shape = _dims(tensor.tensor_shape)
    count = elements(shape)
    head = f"{dtype_name(tensor.dtype)}{_shape_proto_text(tensor.tensor_shape)}"
    content = tensor_content(tensor)
    if count is not None and count <= INLINE_ELEMENTS:
        values = _small_values(tensor, content)
        if values is not None:
            return f"{head} {values}"
    if weight:
        return f"{head} (weight)"
    if len(content):
        return f"{head} {len(content)} bytes #{_content_digest(content)}"
    digest = content_hash([tensor.SerializeToString(deterministic=True)])
    return f"{head} #{digest}"


def _small_values(tensor: Any, content: Any) -> str | None:
    """The values of a small tensor as a list (from tensor_content or the typed fields)."""
    from array import array

    formats = {1: "f", 2: "d", 3: "i", 9: "q", 4: "B", 6: "b", 5: "h", 10: "B"}
    if len(content):
        code = formats.get(tensor.dtype)
        if code is None:
            return None
        values = array(code, bytes(content))
        return "[" + ", ".join(repr(v) for v in values) + "]"
    for field, repeated in tensor.ListFields():
        if field.name.endswith("_val") and field.name != "resource_handle_val":
            if field.name == "string_val":
                return "[" + ", ".join(_bytes_text(item) for item in repeated) + "]"
            return "[" + ", ".join(repr(item) for item in repeated) + "]"
    return "[]"


# -- weights -------------------------------------------------------------------------------------


def _const_weight(node: Any, name: str, hashes: bool) -> Weight | None:
    value = node.attr.get("value")
    if value is None or value.WhichOneof("value") != "tensor":
        return None
    tensor = value.tensor
    shape = _dims(tensor.tensor_shape)
    content = tensor_content(tensor)
    size = len(content) if len(content) else (elements(shape) or 0) * dtype_bytes(tensor.dtype)
    digest = None
    if hashes:
        if len(content):
            digest = _content_digest(content)
        else:
            digest = content_hash([tensor.SerializeToString(deterministic=True)])
    where = f"node {node.name}" if node.function is None else f"node {node.name} in {node.function}"
    return Weight(name, tensor.dtype, shape, size, digest, where)


def _variable_weights(
    artifact: Artifact, graphs: Sequence[GraphView], metas: Sequence[Any], hashes: bool, notes: list[str]
) -> dict[str, Weight] | None:
    """The variables of a SavedModel by name (from its checkpoint), or of a graph's variable nodes; None: none."""
    files = saved_model_files(artifact)
    index = files.checkpoint if files is not None else None
    if index is not None and index.problem is not None:
        notes.append(f"variables not read: {index.path}: {index.problem}")
    elif index is not None and files is not None:
        by_key: dict[str, str] = {}
        for meta in metas:
            for variable in saved_variables(meta, files.object_graph):
                if variable.key:
                    by_key.setdefault(variable.key, variable.name or variable.path)
        return _bundle_weights(index, by_key, hashes)
    declared: dict[str, Weight] = {}
    for graph in graphs:
        for node in graph.nodes.values():
            if node.op in VARIABLE_OPS:
                attrs = dict(node.attrs)
                shape = _parse_shape_text(attrs.get("shape", "?"))
                dtype = _dtype_number(attrs.get("dtype", "float"))
                name = attrs.get("shared_name", "").strip('"') or node.name
                size = (elements(shape) or 0) * dtype_bytes(dtype)
                declared.setdefault(name, Weight(name, dtype, shape, size, None, f"variable {node.name}"))
    if declared:
        notes.append("variables' values are not in the graph: weights are summarised by dtype and shape only")
        return declared
    return None


def _bundle_weights(index: BundleIndex, by_key: Mapping[str, str], hashes: bool) -> dict[str, Weight]:
    """A checkpoint's tensors as weights named after their variables (by checkpoint key when none is known)."""
    found: dict[str, Weight] = {}
    keys_of: dict[str, str] = {}
    for key in sorted(index.entries):
        entry = index.entries[key]
        if key in _NOT_WEIGHTS:
            continue
        name = by_key.get(key, key.removesuffix(VALUE_SUFFIX))
        if name in found:
            continue  # the same variable under another path (Keras tracks it in several lists)
        keys_of[name] = key
        found[name] = Weight(name, entry.dtype, entry.shape, entry.size, None, f"checkpoint {key}")
    if hashes:
        with ShardReader(index) as reader:
            for name, key in keys_of.items():
                weight = found[name]
                digest = hash_of(EntryContent(reader, index.entries[key]))
                found[name] = Weight(name, weight.dtype, weight.shape, weight.size, digest, weight.source)
    return found


def _parse_shape_text(text: str) -> tuple[int, ...] | None:
    if not text.startswith("["):
        return None
    inner = text[1:-1]
    if not inner:
        return ()
    return tuple(-1 if part == "?" else int(part) for part in inner.split(","))


def _dtype_number(name: str) -> int:
    from tflint.tf.registry import snapshot_info

    for number, known in snapshot_info().data_types.items():
        if known == name:
            return number
    return 0


def _content_digest(content: bytes | MappedBytes) -> str:
    """content_hash of a Const's content; one left in its file is read into a reused buffer (hash_of)."""
    return hash_of(MappedContent(content)) if isinstance(content, MappedBytes) else content_hash([content])


def weight_content(
    view: ModelView, artifact: Artifact, reader_of: Callable[[BundleIndex], ShardReader], weight: Weight
) -> Content | None:
    """Where a weight's bytes are, to be read by position (None when they cannot be: a variable of a graph
    without a checkpoint). `reader_of` gives the ShardReader of a checkpoint (the caller closes them)."""
    tensor = view.contents.get(weight.name)
    if tensor is not None:
        content = tensor_content(tensor)
        if isinstance(content, MappedBytes):
            return MappedContent(content)
        if len(content):
            return BytesContent(content)
        return BytesContent(tensor.SerializeToString(deterministic=True))
    source = weight.source
    files = saved_model_files(artifact) if source.startswith("checkpoint ") else None
    index = files.checkpoint if files is not None else None
    if index is None or index.problem is not None:
        return None
    entry = index.entries.get(source.removeprefix("checkpoint "))
    if entry is None:
        return None
    return EntryContent(reader_of(index), entry)


__all__ = [
    "GraphView",
    "UnreadableGraph",
    "ModelView",
    "NodeView",
    "SignatureCost",
    "SignatureView",
    "TensorView",
    "Weight",
    "attr_text",
    "canonical_function_names",
    "load_view",
    "node_view",
    "tensor_text",
    "view_of",
    "weight_content",
]
