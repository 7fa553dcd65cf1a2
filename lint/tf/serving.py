"""What a model server sees in a SavedModel or MetaGraphDef: signatures, entry points, files, positions.

Shared by the `serving` rules. A model server (TensorFlow Serving, the C++
`LoadSavedModel`, `tf.compat.v1.saved_model.load`) picks the meta graph whose
tag *set* equals the requested one, restores variables by running
`saver_def.restore_op_name` with `variables/variables` fed to
`saver_def.filename_tensor_name`, runs the init op (the
`__saved_model_init_op` signature, or the `saved_model_main_op` /
`legacy_init_op` collection) with each asset's path fed to its tensor, and
then answers requests with `Session::Run`, feeding and fetching the tensor
names of a SignatureDef. It never runs the save op. This module computes
those facts once per graph:

- `signature_tensors`: every tensor name a SignatureDef mentions;
- `resolve_tensor` / `output_types`: the top-level node and output a name
  points at, and that output's DataType, looking through function-call nodes
  (`StatefulPartitionedCall`, `PartitionedCall`, or a library function used as
  an op) into the called function's signature, as TF2 SavedModels need;
- `served`: the nodes and library functions the server may run (backward
  closure from signature outputs, init ops and the restore op, then every
  function those nodes call, transitively); `saver_nodes`: the checkpoint
  subgraph; `alive_nodes`: what any signature, op, saver or collection needs;
The files of a SavedModel directory are listed by `tflint.read.saved_model`, and the
positions of signature entries in text sources found by `tflint.read.meta_positions`.

Everything is iterative (no recursion over graphs) and cached per GraphIndex.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any, cast

from tflint.records import record
from tflint.tf.functions import func_references
from tflint.tf.index import REF_OFFSET, GraphIndex
from tflint.tf.node import Input, Node, parse_input
from tflint.tf.op_signatures import signatures
from tflint.wire import LENGTH_DELIMITED, WireError, fields

# SignatureDefs whose "output" is an op to run, not a tensor (signature_constants.py).
INIT_OP_SIGNATURE_KEYS = frozenset({"__saved_model_init_op", "__saved_model_train_op"})
# Collections holding the op a loader runs after restoring (constants.py: MAIN_OP_KEY, LEGACY_INIT_OP_KEY).
INIT_OP_COLLECTIONS = ("saved_model_main_op", "legacy_init_op")
# TF1 SavedModels list their AssetFileDefs in this collection instead of `asset_file_def`.
ASSETS_COLLECTION = "saved_model_assets"

# Ops that call a function named by their `f` attr (the TF2 way signatures reach their code).
CALL_OPS = frozenset({"StatefulPartitionedCall", "PartitionedCall", "TPUPartitionedCall"})
# Checkpoint I/O the saver itself runs; legitimate only inside the saver's subgraph.
CHECKPOINT_OPS = frozenset(
    {"Save", "SaveV2", "SaveSlices", "Restore", "RestoreV2", "RestoreSlice", "MergeV2Checkpoints", "DTensorRestoreV2"}
)
# tf.compat.v1.train.Saver's name scopes (`save`, `save_1`, ...), for plain GraphDefs without a SaverDef.
_SAVER_SCOPE = re.compile(r"^save(?:_\d+)?/")
VARIABLE_OPS = frozenset({"VarHandleOp", "VariableV2", "Variable", "_VarHandlesOp"})


# -- the meta graph a GraphIndex belongs to ------------------------------------------------------


def meta_graph_ordinal(graph: GraphIndex) -> int | None:
    """The index of this graph's meta graph in its file (0 for a MetaGraphDef), or None for a GraphDef."""
    if graph.meta_graph is None:
        return None
    artifact = graph.artifact
    if artifact is None:
        return 0
    for ordinal, source in enumerate(artifact.graphs):
        if source.meta_graph is graph.meta_graph:
            return ordinal
    return 0


def is_saved_model(graph: GraphIndex) -> bool:
    """Whether the graph is one meta graph of a SavedModel (file or directory)."""
    artifact = graph.artifact
    return graph.meta_graph is not None and artifact is not None and artifact.message_type == "SavedModel"


def meta_graphs(graph: GraphIndex) -> list[Any]:
    """Every MetaGraphDef of the graph's file, in order (just this one for a MetaGraphDef)."""
    artifact = graph.artifact
    if artifact is None or graph.meta_graph is None:
        return [graph.meta_graph] if graph.meta_graph is not None else []
    return [source.meta_graph for source in artifact.graphs if source.meta_graph is not None]


def tag_set_text(tags: Iterable[str]) -> str:
    """A tag set written like TensorFlow's loader messages: `{ serve, gpu }`, `{ }` when empty."""
    ordered = sorted(set(tags))
    return "{ " + ", ".join(ordered) + " }" if ordered else "{ }"


# -- signature tensors ---------------------------------------------------------------------------


@record(frozen=True)
class SignatureTensor:
    """One tensor name in a SignatureDef.

    `direction` is "inputs" or "outputs", `key` the map key (the alias
    clients use), `info` the TensorInfo holding the name, `part` which tensor
    of a sparse or composite TensorInfo it is ("" for a dense one), `name`
    the tensor name itself.
    """

    signature: str
    direction: str
    key: str
    info: Any
    part: str
    name: str

    def __init__(self, signature: str, direction: str, key: str, info: Any, part: str, name: str) -> None:
        vars(self).update(signature=signature, direction=direction, key=key, info=info, part=part, name=name)

    @property
    def is_op(self) -> bool:
        """Init/train op signatures name an operation to run, not a tensor."""
        return self.signature in INIT_OP_SIGNATURE_KEYS

    def describe(self) -> str:
        """`signature 'serving_default' output 'y'` (plus the part of a sparse tensor)."""
        side = "input" if self.direction == "inputs" else "output"
        part = f" ({self.part})" if self.part else ""
        return f"signature '{self.signature}' {side} '{self.key}'{part}"


def signature_tensors(meta_graph: Any) -> Iterator[SignatureTensor]:
    """Every tensor name of every SignatureDef, in a stable order (signature, inputs before outputs, key)."""
    signatures = meta_graph.signature_def
    for signature in sorted(signatures):
        definition = signatures[signature]
        for direction in ("inputs", "outputs"):
            entries = getattr(definition, direction)
            for key in sorted(entries):
                yield from _tensor_names(signature, direction, key, entries[key], "")


def _tensor_names(signature: str, direction: str, key: str, info: Any, part: str) -> Iterator[SignatureTensor]:
    pending = [(info, part)]
    while pending:
        info, part = pending.pop(0)
        encoding = info.WhichOneof("encoding")
        if encoding == "name" or encoding is None:
            yield SignatureTensor(signature, direction, key, info, part, info.name)
        elif encoding == "coo_sparse":
            sparse = info.coo_sparse
            for role, name in (
                ("values", sparse.values_tensor_name),
                ("indices", sparse.indices_tensor_name),
                ("dense_shape", sparse.dense_shape_tensor_name),
            ):
                yield SignatureTensor(signature, direction, key, info, _join(part, role), name)
        elif encoding == "composite_tensor":
            for ordinal, component in enumerate(info.composite_tensor.components):
                pending.append((component, _join(part, f"component {ordinal}")))


def _join(outer: str, inner: str) -> str:
    return f"{outer}, {inner}" if outer else inner


# -- resolving tensor names ----------------------------------------------------------------------


@record(frozen=True)
class Resolved:
    """Where a tensor name points: the node and output index, its output types, or why it points nowhere."""

    node: Node | None
    index: int
    types: tuple[int, ...] | None
    problem: str | None

    def __init__(self, node: Node | None, index: int, types: tuple[int, ...] | None, problem: str | None) -> None:
        vars(self).update(node=node, index=index, types=types, problem=problem)


def resolve_tensor(graph: GraphIndex, name: str, *, operation: bool = False) -> Resolved:
    """Resolve `name` (`node:index`, or `node` for output 0) among the top-level nodes.

    With `operation`, `name` names an op to run (`^node` and `node` are both
    accepted) and only the node must exist. Otherwise the index must be below
    the node's output count, computed through the function library for call
    nodes; `types` is None when that count cannot be known.
    """
    if not name:
        return Resolved(None, 0, None, "names no tensor (the name is empty)")
    parsed: Input = parse_input(name)
    node = graph.node(parsed.node)
    if node is None:
        return Resolved(None, parsed.index, None, f"names '{name}', but the graph has no node '{parsed.node}'")
    if operation:
        return Resolved(node, 0, None, None)
    if parsed.is_control:
        return Resolved(node, 0, None, f"names '{name}', a control input, not a tensor")
    types = output_types(graph, node)
    if types is not None and not 0 <= parsed.index < len(types):
        count = len(types)
        outputs = "no outputs" if count == 0 else ("only output 0" if count == 1 else f"outputs 0 to {count - 1}")
        return Resolved(
            node, parsed.index, types, f"names '{name}', but node '{node.name}' (op {node.op}) has {outputs}"
        )
    return Resolved(node, parsed.index, types, None)


def called_function(graph: GraphIndex, node: Node) -> Any | None:
    """The FunctionDef a call node runs (its `f` attr, or its op naming a library function)."""
    function = graph.function_by_name.get(node.op)
    if function is not None:
        return function
    if node.op in CALL_OPS and "f" in node.attr:
        value = node.attr["f"]
        if value.WhichOneof("value") == "func":
            return graph.function_by_name.get(value.func.name)
    return None


def output_types(graph: GraphIndex, node: Node) -> tuple[int, ...] | None:
    """The DataTypes of a top-level node's outputs, or None when they cannot be known.

    For a call node whose function is in the library, the function's own
    output args decide (the `Tout` attr is only the caller's claim of them).
    """
    cache = _output_type_cache(graph)
    if node.name in cache:
        return cache[node.name]
    result: tuple[int, ...] | None = None
    function = called_function(graph, node) if node.op in CALL_OPS else None
    if function is not None:
        types: list[int] = []
        for arg in function.signature.output_arg:
            if arg.number_attr or arg.type_list_attr or not arg.type:
                break
            types.append(arg.type + REF_OFFSET if arg.is_ref else arg.type)
        else:
            result = tuple(types)
    if result is None:
        signature = signatures(graph).resolved(node)
        if signature is not None and signature.output_types is not None and None not in signature.output_types:
            result = tuple(signature.output_types)  # type: ignore[arg-type]
    cache[node.name] = result
    return result


def _output_type_cache(graph: GraphIndex) -> dict[str, tuple[int, ...] | None]:
    return graph.derived(_new_output_type_cache)


def _new_output_type_cache(graph: GraphIndex) -> dict[str, tuple[int, ...] | None]:
    return {}


def base_type(dtype: int) -> int:
    """The DataType without its reference bit (`float_ref` -> `float`)."""
    return dtype - REF_OFFSET if dtype > REF_OFFSET else dtype


# -- what runs -----------------------------------------------------------------------------------


@record()
class Reach:
    """A set of top-level node names and library function names (or, `by_scope`, a name pattern)."""

    nodes: set[str]
    functions: set[str]
    by_scope: bool

    def __init__(
        self,
        nodes: set[str] | None = None,
        functions: set[str] | None = None,
        by_scope: bool = False,
    ) -> None:
        self.nodes = set() if nodes is None else nodes
        self.functions = set() if functions is None else functions
        self.by_scope = by_scope

    def covers(self, node: Node) -> bool:
        """Whether `node` (top-level or in a function body) is in this set."""
        if self.by_scope:
            return _SAVER_SCOPE.match(node.name) is not None
        if node.function is None:
            return node.name in self.nodes
        return node.function in self.functions


def entry_points(graph: GraphIndex) -> list[str]:
    """Names of the top-level nodes a model server fetches or runs (signatures, init ops, restore op).

    Empty for a GraphDef, and for a meta graph that defines no signature and
    no init op (a training checkpoint's meta graph: nothing says what runs).
    """
    meta = graph.meta_graph
    if meta is None:
        return []
    roots = [
        parse_input(item.name).node for item in signature_tensors(meta) if item.name and item.direction == "outputs"
    ]
    for key in INIT_OP_COLLECTIONS:
        roots.extend(parse_input(name).node for name in _node_list(meta, key))
    if not roots:
        return []
    roots.extend(_saver_roots(meta, save=False))
    roots.extend(parse_input(asset.tensor_info.name).node for asset in asset_file_defs(meta) if asset.tensor_info.name)
    return roots


def served(graph: GraphIndex) -> Reach | None:
    """What the server may run: everything upstream of its entry points, and every function those call.

    None when there are no entry points (a GraphDef, a training meta graph);
    callers then treat the whole graph as what runs.
    """
    cache = _reach_cache(graph)
    if "served" not in cache:
        roots = entry_points(graph)
        cache["served"] = _closure(graph, roots) if roots else None
    return cast("Reach | None", cache["served"])


def saver_nodes(graph: GraphIndex) -> Reach:
    """The checkpoint subgraph: upstream of the SaverDef's save and restore ops, and the functions they call.

    Without a SaverDef (a GraphDef, or a meta graph exported without one),
    nodes in tf.compat.v1.train.Saver's name scopes (`save/`, `save_1/`, ...),
    in the graph or a function body, stand for it.
    """
    cache = _reach_cache(graph)
    if "saver" not in cache:
        roots = list(_saver_roots(graph.meta_graph, save=True))
        reach = _closure(graph, roots) if roots else Reach(by_scope=True)
        cache["saver"] = reach
    return cast(Reach, cache["saver"])


def signature_reach(graph: GraphIndex) -> Reach | None:
    """What requests run: upstream of the signatures' outputs (init-op signatures aside), and the functions they call.

    None when the meta graph has no such signature output.
    """
    cache = _reach_cache(graph)
    if "signatures" not in cache:
        meta = graph.meta_graph
        outputs = [item for item in signature_tensors(meta) if item.direction == "outputs"] if meta is not None else []
        roots = [parse_input(item.name).node for item in outputs if item.name and not item.is_op]
        cache["signatures"] = _closure(graph, roots) if roots else None
    return cast("Reach | None", cache["signatures"])


def restore_reach(graph: GraphIndex) -> Reach | None:
    """What a loader runs to restore variables: upstream of the SaverDef's restore op, and the functions it calls.

    None when the meta graph has no SaverDef restore op (nothing is restored).
    """
    cache = _reach_cache(graph)
    if "restore" not in cache:
        roots = list(_saver_roots(graph.meta_graph, save=False))
        cache["restore"] = _closure(graph, roots) if roots else None
    return cast("Reach | None", cache["restore"])


def is_saver_checkpoint_op(graph: GraphIndex, node: Node) -> bool:
    """A checkpoint read/write that belongs to the saver (legitimate), not to the model's own code."""
    return node.op in CHECKPOINT_OPS and saver_nodes(graph).covers(node)


def alive_nodes(graph: GraphIndex) -> set[str]:
    """Top-level nodes something needs: signatures, init/save/restore ops, assets, any collection entry."""
    cache = _reach_cache(graph)
    if "alive" not in cache:
        meta = graph.meta_graph
        roots = [parse_input(item.name).node for item in signature_tensors(meta) if item.name]
        roots.extend(_saver_roots(meta, save=True))
        roots.extend(
            parse_input(asset.tensor_info.name).node for asset in asset_file_defs(meta) if asset.tensor_info.name
        )
        known = graph.main.by_name
        roots.extend(name for name in collection_strings(meta) if name in known)
        cache["alive"] = upstream_names(graph, roots)
    return cast("set[str]", cache["alive"])


def _reach_cache(graph: GraphIndex) -> dict[str, Any]:
    return graph.derived(_new_reach_cache)


def _new_reach_cache(graph: GraphIndex) -> dict[str, Any]:
    return {}


def _saver_roots(meta: Any, save: bool) -> Iterator[str]:
    if meta is None or not meta.HasField("saver_def"):
        return
    saver = meta.saver_def
    names = [saver.restore_op_name, saver.filename_tensor_name]
    if save:
        names.append(saver.save_tensor_name)
    for name in names:
        if name:
            yield parse_input(name).node


def upstream_names(graph: GraphIndex, roots: Iterable[str]) -> set[str]:
    """Top-level node names upstream of `roots` (data and control inputs), roots included."""
    by_name = graph.main.by_name
    seen: set[str] = set()
    stack = list(roots)
    while stack:
        name = stack.pop()
        if name in seen:
            continue
        node = by_name.get(name)
        if node is None:
            continue
        seen.add(name)
        stack.extend(item.node for item in node.inputs)
    return seen


def _closure(graph: GraphIndex, roots: Iterable[str]) -> Reach:
    """The nodes upstream of `roots`, and every library function they (transitively) call."""
    nodes = upstream_names(graph, roots)
    functions: set[str] = set()
    scopes = {scope.name: scope for scope in graph.function_scopes}
    if not scopes:
        return Reach(nodes, functions)
    calls: dict[str, bool] = {}
    pending = [graph.main.by_name[name] for name in nodes]
    while pending:
        node = pending.pop()
        may_call = calls.get(node.op)
        if may_call is None:
            may_call = calls[node.op] = _may_call(graph, node.op)
        if not may_call:
            continue
        for name in _callees(graph, node):
            if name in functions:
                continue
            functions.add(name)
            scope = scopes.get(name)
            if scope is not None:
                pending.extend(scope.nodes)
    return Reach(nodes, functions)


def _may_call(graph: GraphIndex, op: str) -> bool:
    """Whether nodes of `op` can call library functions: a function itself, or an op with func attrs."""
    schema = graph.schema_for(op)
    if schema is None or schema.is_function:
        return True
    return any(attr.type in ("func", "list(func)") for attr in schema.attrs.values())


def _callees(graph: GraphIndex, node: Node) -> Iterator[str]:
    """Library functions a node may call: its op, and every func / list(func) attr value (nested too)."""
    library = graph.function_by_name
    if node.op in library:
        yield node.op
    for _, function in func_references(node):
        if function.name in library:
            yield function.name


# -- collections and assets ----------------------------------------------------------------------


def _node_list(meta: Any, key: str) -> list[str]:
    if key not in meta.collection_def:
        return []
    collection = meta.collection_def[key]
    return list(collection.node_list.value) if collection.WhichOneof("kind") == "node_list" else []


def collection_strings(meta: Any) -> set[str]:
    """Node names mentioned by any collection: node_list entries, and strings inside bytes_list / any_list protos.

    Collections of serialized protos (VariableDef, CondContextDef,
    QueueRunnerDef, ...) are scanned as protobuf wire format without their
    schemas: every length-delimited field that reads as a node or tensor name
    counts, so a context's pivot or a variable's initializer stays alive.
    """
    names: set[str] = set()
    for collection in meta.collection_def.values():
        kind = collection.WhichOneof("kind")
        if kind == "node_list":
            for value in collection.node_list.value:
                names.add(parse_input(value).node)
        elif kind == "bytes_list":
            for value in collection.bytes_list.value:
                names.update(_wire_strings(value))
        elif kind == "any_list":
            for value in collection.any_list.value:
                names.update(_wire_strings(value.value))
    return names


def _wire_strings(data: bytes) -> Iterator[str]:
    """Every length-delimited field of a serialized message, nested ones too, that decodes as UTF-8 text."""
    pending = [data]
    while pending:
        buffer = pending.pop()
        try:
            for _, wire, _, start, end in fields(buffer):
                if wire != LENGTH_DELIMITED:
                    continue
                chunk = buffer[start:end]
                try:
                    text = chunk.decode("utf-8")
                except UnicodeDecodeError:
                    text = None
                if text is not None and text.isprintable():
                    yield parse_input(text).node
                pending.append(chunk)  # it may also be a nested message
        except WireError:
            continue  # the rest of this buffer is not a message (a string, or garbage)


def asset_file_defs(meta: Any) -> list[Any]:
    """The AssetFileDefs a loader uses: the `asset_file_def` field, else the TF1 `saved_model_assets` collection.

    (C++ `GetAssetFileDefs` reads the field when it is non-empty, else the collection.)
    """
    if meta is None:
        return []
    if len(meta.asset_file_def):
        return list(meta.asset_file_def)
    if ASSETS_COLLECTION not in meta.collection_def:
        return []
    collection = meta.collection_def[ASSETS_COLLECTION]
    if collection.WhichOneof("kind") != "any_list":
        return []
    from tflint import protos

    found = []
    for value in collection.any_list.value:
        if value.type_url.rsplit("/", 1)[-1] != "tensorflow.AssetFileDef":
            continue
        asset = protos.AssetFileDef()
        try:
            asset.ParseFromString(value.value)
        except Exception:  # a corrupt Any: nothing a loader could use either
            continue
        found.append(asset)
    return found
