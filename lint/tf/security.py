"""What a graph can do to the machine that runs it: dangerous ops by capability, when they fire, and their targets.

TensorFlow's security policy treats a model as a program. This module holds
the facts behind `unsafe-op`:

- `CATALOGUE`: every op of the bundled registries (TF 1.15 to 2.21, older
  ones included) that reads or writes files, lists directories, talks to the
  network, runs Python or writes to the process's streams, with the input or
  attr that carries its target (the file name, the URL, the callback token);
- `exposure`: for each node, top-level or in a library function, the
  triggers that run it (`load`: the init op, main op, legacy init op, asset
  initializers, the restore op and the TF2 resource initializers; `serve:<key>`:
  upstream of a signature's outputs; `run`: a GraphDef or a meta graph that
  says nothing about what runs, where any session run may run it; `dormant`:
  nothing runs it) and one shortest path from a trigger to it;
- `target_of`: where an op's target comes from: a signature input (set by
  whoever sends a request), one of the model's own assets, a constant (and
  whether it leaves the model's directory), or something computed;
- `nested_graphs`: GraphDefs serialized into a string constant that an op
  runs (`DatasetFromGraph`), parsed with bounded depth and size.

Everything here is TensorFlow semantics: no I/O, iterative, cached per GraphIndex.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from tflint.records import record
from tflint.tf.functions import func_references
from tflint.tf.index import GraphIndex, Scope
from tflint.tf.node import Node, parse_input
from tflint.tf.serving import (
    INIT_OP_COLLECTIONS,
    asset_file_defs,
    saver_nodes,
    signature_tensors,
)

# -- capabilities --------------------------------------------------------------------------------

CODE = "code-execution"
READ = "file-read"
WRITE = "file-write"
LIST = "directory-listing"
NETWORK = "network"
LOGGING = "logging"
CAPABILITIES = (CODE, READ, WRITE, LIST, NETWORK, LOGGING)


@record(frozen=True)
class Danger:
    """One catalogued op: what it can do, and where its target is.

    `kind` is "input" (the target is data input number `position`, named `name`
    in the OpDef), "attr" (attr `name`: a string, a list of strings, or for
    debug ops a list of URLs), or "" (the op names no target itself: a queue
    reader reads whatever file names its queue is fed). `saver` marks
    checkpoint I/O, legitimate inside the model's own saver; `empty_is_safe`
    an op whose empty target means "no file" (`CacheDataset` caches in memory).
    """

    capability: str
    kind: str
    name: str
    position: int
    saver: bool
    empty_is_safe: bool

    def __init__(
        self,
        capability: str,
        kind: str = "",
        name: str = "",
        position: int = 0,
        saver: bool = False,
        empty_is_safe: bool = False,
    ) -> None:
        vars(self).update(
            capability=capability,
            kind=kind,
            name=name,
            position=position,
            saver=saver,
            empty_is_safe=empty_is_safe,
        )

    def target_text(self) -> str:
        """`input 'filename'`, `attr 'debug_urls'`, or "" when the op names no target."""
        return f"{self.kind} '{self.name}'" if self.kind else ""


def _inputs(capability: str, name: str, ops: tuple[str, ...], position: int = 0, **flags: bool) -> dict[str, Danger]:
    return dict.fromkeys(ops, Danger(capability, "input", name, position, **flags))


def _attrs(capability: str, name: str, ops: tuple[str, ...]) -> dict[str, Danger]:
    return dict.fromkeys(ops, Danger(capability, "attr", name))


def _untargeted(capability: str, ops: tuple[str, ...]) -> dict[str, Danger]:
    return dict.fromkeys(ops, Danger(capability))


# Positions are those of the OpDefs of every bundled release (tests/tf/test_security.py checks each
# against every variant): all the arguments before a target are single tensors.
CATALOGUE: dict[str, Danger] = {
    # Python callbacks: the body lives in the exporting process, keyed by the `token` attr.
    **_attrs(CODE, "token", ("PyFunc", "PyFuncStateless", "EagerPyFunc")),
    # File reads.
    **_inputs(READ, "filename", ("ReadFile",)),
    **_inputs(READ, "filename", ("InitializeTableFromTextFile", "InitializeTableFromTextFileV2"), position=1),
    **_inputs(
        READ,
        "filenames",
        (
            "TFRecordDataset",
            "TFRecordDatasetV2",
            "TextLineDataset",
            "FixedLengthRecordDataset",
            "FixedLengthRecordDatasetV2",
            "LMDBDataset",
            "ExperimentalLMDBDataset",
            "CSVDataset",
            "CSVDatasetV2",
            "ExperimentalCSVDataset",
        ),
    ),
    **_inputs(READ, "data_source_name", ("SqlDataset", "ExperimentalSqlDataset"), position=1),
    **_inputs(READ, "path", ("LoadDataset",)),
    **_inputs(READ, "shard_dir", ("SnapshotDatasetReader",)),
    **_inputs(READ, "chunk_file", ("SnapshotChunkDataset",)),
    **_inputs(READ, "new_vocab_file", ("GenerateVocabRemapping",)),
    **_inputs(READ, "ckpt_path", ("LoadAndRemapMatrix",)),
    **_inputs(READ, "file_pattern", ("Restore", "RestoreSlice"), saver=True),
    **_inputs(READ, "prefix", ("RestoreV2", "DTensorRestoreV2"), saver=True),
    **_attrs(READ, "memory_region_name", ("ImmutableConst",)),
    **_attrs(READ, "file_pattern", ("RecordInput",)),
    **_attrs(READ, "descriptor_source", ("DecodeProtoV2", "EncodeProto")),
    **_untargeted(
        READ,
        (
            "WholeFileReader",
            "WholeFileReaderV2",
            "TextLineReader",
            "TextLineReaderV2",
            "TFRecordReader",
            "TFRecordReaderV2",
            "FixedLengthRecordReader",
            "FixedLengthRecordReaderV2",
            "LMDBReader",
            "SnapshotNestedDatasetReader",
        ),
    ),
    # Directory listings.
    **_inputs(LIST, "pattern", ("MatchingFiles",)),
    **_inputs(LIST, "patterns", ("MatchingFilesDataset", "ExperimentalMatchingFilesDataset")),
    **_inputs(LIST, "snapshot_path", ("ListSnapshotChunksDataset",)),
    # File writes.
    **_inputs(WRITE, "filename", ("WriteFile",)),
    **_inputs(WRITE, "filename", ("Save", "SaveSlices"), saver=True),
    **_inputs(WRITE, "prefix", ("SaveV2",), saver=True),
    **_inputs(WRITE, "destination_prefix", ("MergeV2Checkpoints",), position=1, saver=True),
    **_inputs(WRITE, "filename", ("CacheDataset", "CacheDatasetV2"), position=1, empty_is_safe=True),
    **_inputs(WRITE, "filename", ("DatasetToTFRecord", "ExperimentalDatasetToTFRecord"), position=1),
    **_inputs(WRITE, "path", ("SaveDataset", "SaveDatasetV2", "SnapshotDataset", "SnapshotDatasetV2"), position=1),
    **_inputs(WRITE, "directory", ("DistributedSave",), position=1),
    **_inputs(WRITE, "logdir", ("CreateSummaryFileWriter",), position=1),
    **_inputs(WRITE, "db_uri", ("CreateSummaryDbWriter",), position=1),
    **_attrs(WRITE, "log_dir_path", ("DumpTensor",)),
    **_attrs(WRITE, "output_file_path", ("CalibrationStatisticsSaver",)),
    # Debug ops send the tensor to each of their URLs (file:// writes, grpc:// connects).
    **_attrs(
        WRITE,
        "debug_urls",
        ("DebugIdentity", "DebugIdentityV2", "DebugIdentityV3", "DebugNanCount", "DebugNumericSummary"),
    ),
    **_attrs(WRITE, "debug_ops_spec", ("Copy", "CopyHost")),
    **_untargeted(
        WRITE,
        (
            "WriteSummary",
            "WriteScalarSummary",
            "WriteHistogramSummary",
            "WriteImageSummary",
            "WriteAudioSummary",
            "WriteGraphSummary",
            "WriteRawProtoSummary",
            "ImportEvent",
            "FlushSummaryWriter",
        ),
    ),
    # The network.
    **_inputs(NETWORK, "address", ("Rpc", "TryRpc")),
    **_inputs(NETWORK, "server_address", ("RpcClient", "RpcServer")),
    **_inputs(NETWORK, "address", ("DataServiceDataset",), position=2),
    **_inputs(NETWORK, "address", ("DataServiceDatasetV2", "DataServiceDatasetV3", "DataServiceDatasetV4"), position=2),
    **_inputs(NETWORK, "address", ("RegisterDataset", "RegisterDatasetV2"), position=1),
    **_inputs(NETWORK, "target", ("RemoteCall",)),
    **_inputs(NETWORK, "scheme", ("FileSystemSetConfiguration",)),
    **_inputs(NETWORK, "json", ("GcsConfigureCredentials",)),
    **_attrs(NETWORK, "project_id", ("BigQueryReader", "GenerateBigQueryReaderPartitions")),
    **_untargeted(NETWORK, ("RpcServerStart", "RpcServerRegister", "RpcCall", "GcsConfigureBlockCache")),
    # The process's own streams (or, for PrintV2, a file named by `output_stream`).
    **_attrs(LOGGING, "output_stream", ("PrintV2",)),
    **_untargeted(LOGGING, ("Print",)),
}

# Ops that run a GraphDef serialized into one of their inputs: (input position, its OpDef name).
GRAPH_INPUTS: dict[str, tuple[int, str]] = {"DatasetFromGraph": (0, "graph_def")}
# Checkpoint ops (the saver's): exempt inside the model's own saver unless a signature reaches them.
SAVER_OPS = frozenset(op for op, danger in CATALOGUE.items() if danger.saver)
# PrintV2's standard destinations (logging_ops.cc); anything else is `file://<path>`.
STANDARD_STREAMS = frozenset({"stderr", "stdout", "log(info)", "log(warning)", "log(error)"})
# Attr values of DecodeProtoV2 / EncodeProto that name no file.
_DESCRIPTOR_POOLS = ("", "local://")


# -- triggers and paths --------------------------------------------------------------------------

LOAD = "load"
RUN = "run"
DORMANT = "dormant"
SERVE = "serve:"

# A step of reachability: ("node", name) for a top-level node, ("function", name) for a library function.
Item = tuple[str, str]
# The TF2 object graph's children naming what a loader calls while restoring a resource.
_RESOURCE_LOADERS = frozenset({"_create_resource", "_initialize"})


@record(frozen=True)
class Exposure:
    """Which triggers run each top-level node and function, and how the first trigger reaches it.

    `triggers` maps an Item to its triggers, in order (load first, then
    signatures by key); `parents` maps an Item to the Item before it on the
    first trigger's path and the node it goes through (the call node in a
    function body, "" otherwise); `roots` maps each root Item of a trigger
    to what names it ("signature 'serving_default' output 'y'", "init op").
    `everything` is True for a graph that says nothing about what runs.
    """

    triggers: dict[Item, list[str]]
    parents: dict[Item, tuple[Item, str]]
    roots: dict[Item, str]
    everything: bool

    def __init__(
        self,
        triggers: dict[Item, list[str]],
        parents: dict[Item, tuple[Item, str]],
        roots: dict[Item, str],
        everything: bool,
    ) -> None:
        vars(self).update(triggers=triggers, parents=parents, roots=roots, everything=everything)

    def of(self, node: Node) -> list[str]:
        """The triggers that run `node` (in a function body: those that run its function); [] if none."""
        if self.everything:
            return [RUN]
        item = ("node", node.name) if node.function is None else ("function", node.function)
        return self.triggers.get(item, [])

    def path(self, node: Node) -> list[str]:
        """From the first trigger to `node`: what starts it, then each node and function on the way."""
        if self.everything:
            return [RUN, _step(node)]
        item: Item = ("node", node.name) if node.function is None else ("function", node.function)
        if item not in self.triggers:
            return [DORMANT, _step(node)]
        steps: list[str] = [] if node.function is None else [_step(node)]
        seen: set[Item] = set()
        while item not in seen:
            seen.add(item)
            steps.append(f"{item[0]} '{item[1]}'")
            parent = self.parents.get(item)
            if parent is None:
                break
            item, via = parent
            if via:
                steps.append(f"node '{via}'")
        steps.append(self.roots.get(item, self.triggers[item][0]))
        steps.reverse()
        return steps

    def caller(self, function: str) -> tuple[Item, str] | None:
        """The step before `function` on its first trigger's path: (the caller's Item, its call node)."""
        return self.parents.get(("function", function))


def _step(node: Node) -> str:
    return f"node '{node.name}'"


def exposure(graph: GraphIndex) -> Exposure:
    """The triggers of every node and function of `graph` (computed on first use, then shared)."""
    return graph.derived(_exposure)


def _exposure(graph: GraphIndex) -> Exposure:
    named = list(_trigger_roots(graph))
    if not named:
        return Exposure({}, {}, {}, True)
    by_trigger: dict[str, list[tuple[Item, str]]] = {}
    for trigger, item, label in named:
        by_trigger.setdefault(trigger, []).append((item, label))
    triggers: dict[Item, list[str]] = {}
    parents: dict[Item, tuple[Item, str]] = {}
    roots: dict[Item, str] = {}
    order = sorted(by_trigger, key=lambda trigger: (trigger != LOAD, trigger))
    for trigger in order:
        starts = by_trigger[trigger]
        # The graph's own entry points first: a resource's initializer is also called from the init op,
        # and that path (with the asset the init op passes it) is the one to show.
        _walk(graph, trigger, [start for start in starts if start[0][0] == "node"], triggers, parents, roots)
        _walk(graph, trigger, [start for start in starts if start[0][0] != "node"], triggers, parents, roots)
    return Exposure(triggers, parents, roots, False)


def _trigger_roots(graph: GraphIndex) -> Iterator[tuple[str, Item, str]]:
    """(trigger, root Item, what the root is) of every entry point of the graph's meta graph."""
    meta = graph.meta_graph
    if meta is None:
        return
    found = False
    for item in signature_tensors(meta):
        if not item.name or item.direction != "outputs":
            continue
        found = True
        node = parse_input(item.name).node
        if item.signature == "__saved_model_init_op":
            yield LOAD, ("node", node), "init op"
        elif item.is_op:
            continue  # the train op runs only when a trainer asks for it
        else:
            yield SERVE + item.signature, ("node", node), item.describe()
    for key in INIT_OP_COLLECTIONS:
        collection = meta.collection_def[key] if key in meta.collection_def else None
        if collection is not None and collection.WhichOneof("kind") == "node_list":
            for name in collection.node_list.value:
                found = True
                yield LOAD, ("node", parse_input(name).node), f"collection '{key}'"
    if not found:
        return
    if meta.HasField("saver_def") and meta.saver_def.restore_op_name:
        yield LOAD, ("node", parse_input(meta.saver_def.restore_op_name).node), "restore op"
    for asset in asset_file_defs(meta):
        if asset.tensor_info.name:
            yield LOAD, ("node", parse_input(asset.tensor_info.name).node), f"asset '{asset.filename}'"
    if meta.HasField("object_graph_def"):
        objects = meta.object_graph_def.nodes
        for parent in objects:
            for child in parent.children:
                if child.local_name in _RESOURCE_LOADERS and 0 <= child.node_id < len(objects):
                    target = objects[child.node_id]
                    if target.WhichOneof("kind") == "function":
                        for name in target.function.concrete_functions:
                            yield LOAD, ("function", name), f"resource {child.local_name[1:]} function '{name}'"


def _walk(
    graph: GraphIndex,
    trigger: str,
    starts: list[tuple[Item, str]],
    triggers: dict[Item, list[str]],
    parents: dict[Item, tuple[Item, str]],
    roots: dict[Item, str],
) -> None:
    """Breadth-first from `starts`: top-level nodes upstream, and the functions they call, transitively."""
    by_name = graph.main.by_name
    scopes = {scope.name: scope for scope in graph.function_scopes}
    library = graph.function_by_name
    seen: set[Item] = set()
    queue: list[Item] = []
    for item, label in starts:
        if (
            item in seen
            or (item[0] == "node" and item[1] not in by_name)
            or (item[0] == "function" and item[1] not in scopes)
        ):
            continue
        seen.add(item)
        queue.append(item)
        _mark(item, trigger, triggers)
        roots.setdefault(item, label)
    head = 0
    while head < len(queue):
        item = queue[head]
        head += 1
        if item[0] == "node":
            node = by_name[item[1]]
            nexts: list[tuple[Item, str]] = [(("node", source.node), "") for source in node.inputs]
            nexts.extend((("function", name), "") for name in _callees(node, library))
        else:
            nexts = [
                (("function", name), inner.name) for inner in scopes[item[1]].nodes for name in _callees(inner, library)
            ]
        for following, via in nexts:
            if following in seen:
                continue
            if following[0] == "node" and following[1] not in by_name:
                continue
            if following[0] == "function" and following[1] not in scopes:
                continue
            seen.add(following)
            queue.append(following)
            if _mark(following, trigger, triggers):
                parents[following] = (item, via)


def _mark(item: Item, trigger: str, triggers: dict[Item, list[str]]) -> bool:
    """Add `trigger` to `item`'s; True when it is the item's first (its path comes from this walk)."""
    known = triggers.get(item)
    if known is None:
        triggers[item] = [trigger]
        return True
    if known[-1] != trigger:
        known.append(trigger)
    return False


def _callees(node: Node, library: dict[str, Any]) -> Iterator[str]:
    if node.op in library:
        yield node.op
    if node.attr:
        for _, function in func_references(node):
            if function.name in library:
                yield function.name


# -- targets -------------------------------------------------------------------------------------

# Where a target comes from.
FROM_INPUT = "signature-input"  # a request sets it
FROM_ASSET = "asset"  # one of the model's own assets, fed by the loader
FROM_SAVER = "saver"  # the saver's filename tensor, fed with the model's own variables/ path
OUTSIDE = "constant-outside"  # a constant naming something outside the model's directory
RELATIVE = "constant-relative"  # a constant relative path (resolved against the server's working directory)
EMPTY = "constant-empty"
COMPUTED = "computed"
NONE = "none"  # the op names no target of its own

# Ops that pass their first input through unchanged, for tracing a target back to its source.
_PASS_THROUGH = frozenset({"Identity", "Snapshot", "StopGradient", "PreventGradient", "CheckNumerics", "EnsureShape"})
# Call ops whose data inputs map one to one onto the called function's arguments, after this many leading inputs.
_ARG_OFFSET = {"StatefulPartitionedCall": 0, "PartitionedCall": 0, "While": 0, "StatelessWhile": 0}
_ARG_OFFSET |= {"If": 1, "StatelessIf": 1, "Case": 1, "StatelessCase": 1}
# URL schemes that leave the model's directory (any `scheme://` does).
_SCHEME_SEPARATOR = "://"
# The most steps taken tracing one target back, and the most string values looked at in one constant.
MAX_TRACE_STEPS = 64
MAX_TARGET_VALUES = 16


@record(frozen=True)
class Target:
    """Where an op's target comes from (`source`, one of the FROM_/constant kinds) and its value when constant."""

    source: str
    values: tuple[str, ...]

    def __init__(self, source: str, values: tuple[str, ...] = ()) -> None:
        vars(self).update(source=source, values=values)


def classify_path(value: str) -> str:
    """OUTSIDE for an absolute path, `~`, `..`, or any URL scheme; EMPTY for ""; else RELATIVE."""
    if not value:
        return EMPTY
    if value.startswith(("/", "~", "\\")) or _SCHEME_SEPARATOR in value or value[1:3] == ":\\":
        return OUTSIDE
    parts = value.replace("\\", "/").split("/")
    return OUTSIDE if ".." in parts else RELATIVE


def attr_strings(node: Node, name: str) -> list[str]:
    """The string (or list of strings) value of attr `name`, decoded leniently; [] when absent."""
    value = node.attr.get(name)
    if value is None:
        return []
    kind = value.WhichOneof("value")
    if kind == "s":
        return [_text(value.s)]
    if kind == "list":
        return [_text(item) for item in list(value.list.s)[:MAX_TARGET_VALUES]]
    return []


def _text(data: bytes) -> str:
    return data.decode("utf-8", "replace")


def attr_target(node: Node, danger: Danger) -> Target:
    """The target an attr names: standard PrintV2 streams, debug URLs, descriptor pools are told apart."""
    values = attr_strings(node, danger.name)
    if danger.name == "output_stream":
        stream = values[0] if values else "stderr"
        if stream in STANDARD_STREAMS:
            return Target(NONE, (stream,))
        return Target(OUTSIDE, (stream,))
    if danger.name == "debug_ops_spec":
        # Each entry is `op;url;gated`: the URL is what the debug op writes to.
        values = [entry.split(";")[1] if entry.count(";") >= 2 else entry for entry in values]
    if danger.name == "descriptor_source" and all(
        value in _DESCRIPTOR_POOLS or value.startswith("bytes://") for value in values
    ):
        return Target(NONE, tuple(values))
    if danger.name == "token":
        return Target(NONE, tuple(values))
    if not values or all(not value for value in values):
        return Target(EMPTY, tuple(values))
    worst = OUTSIDE if any(classify_path(value) == OUTSIDE for value in values) else RELATIVE
    return Target(worst, tuple(values))


def target_of(graph: GraphIndex, node: Node, danger: Danger) -> Target:
    """Where `node`'s target comes from (a node of `graph`, top-level or in a function body)."""
    if danger.kind == "attr":
        return attr_target(node, danger)
    if danger.kind != "input":
        return Target(NONE)
    data = node.data_inputs
    if danger.position >= len(data):
        return Target(COMPUTED)
    return _trace(graph, node.function, data[danger.position].node)


def _scope(graph: GraphIndex, function: str | None) -> Scope | None:
    if function is None:
        return graph.main
    for scope in graph.function_scopes:
        if scope.name == function:
            return scope
    return None


def _trace(graph: GraphIndex, function: str | None, name: str) -> Target:
    """Follow a tensor back (identities, function arguments to their callers, variables to their assigns)."""
    reach = exposure(graph)
    meta_inputs, assets, saver = _fed_names(graph)
    for _ in range(MAX_TRACE_STEPS):
        scope = _scope(graph, function)
        if scope is None:
            return Target(COMPUTED)
        if function is not None and name in scope.arg_names:
            located = _argument_source(graph, reach, function, name)
            if located is None:
                return Target(COMPUTED)
            function, name = located
            continue
        if function is None and name in assets:
            return Target(FROM_ASSET)  # TF1 writes the export-time path as a Const; the loader feeds the real one
        producer = scope.by_name.get(name)
        if producer is None:
            return Target(COMPUTED)
        op = producer.op
        if op in _PASS_THROUGH and producer.data_inputs:
            name = producer.data_inputs[0].node
            continue
        if op == "Const":
            return _constant_target(producer)
        if function is None and op in ("Placeholder", "PlaceholderWithDefault"):
            if name in saver:
                return Target(FROM_SAVER)
            # A GraphDef's placeholders are fed by whoever runs it; a meta graph's, by its signatures.
            return Target(FROM_INPUT) if name in meta_inputs or graph.meta_graph is None else Target(COMPUTED)
        if function is None and op == "ReadVariableOp" and producer.data_inputs:
            assigned = _assigned_value(scope, producer.data_inputs[0].node)
            if assigned is None:
                return Target(COMPUTED)
            name = assigned
            continue
        return Target(FROM_INPUT) if _upstream_of_inputs(scope, producer, meta_inputs) else Target(COMPUTED)
    return Target(COMPUTED)


def _fed_names(graph: GraphIndex) -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    """Top-level placeholders fed by requests, by the loader with an asset path, by the saver with its prefix."""
    return graph.derived(_new_fed_names)


def _new_fed_names(graph: GraphIndex) -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    meta = graph.meta_graph
    if meta is None:
        return frozenset(), frozenset(), frozenset()
    inputs = frozenset(
        parse_input(item.name).node for item in signature_tensors(meta) if item.direction == "inputs" and item.name
    )
    assets = frozenset(
        parse_input(asset.tensor_info.name).node for asset in asset_file_defs(meta) if asset.tensor_info.name
    )
    saver = frozenset({parse_input(meta.saver_def.filename_tensor_name).node} if meta.HasField("saver_def") else set())
    return inputs, assets, saver


def _argument_source(graph: GraphIndex, reach: Exposure, function: str, arg: str) -> tuple[str | None, str] | None:
    """The caller's input that feeds argument `arg` of `function`, on the function's first trigger path."""
    step = reach.caller(function)
    if step is None:
        return None
    (kind, caller_name), via = step
    caller_function = None if kind == "node" else caller_name
    scope = _scope(graph, caller_function)
    if scope is None:
        return None
    call = scope.by_name.get(via or caller_name)
    if call is None:
        return None
    offset = 0 if call.op in graph.function_by_name else _ARG_OFFSET.get(call.op)
    definition = graph.function_by_name.get(function)
    if offset is None or definition is None:
        return None
    names = [item.name for item in definition.signature.input_arg]
    if arg not in names:
        return None
    position = offset + names.index(arg)
    data = call.data_inputs
    if position >= len(data):
        return None
    return caller_function, data[position].node


def _assigned_value(scope: Scope, handle: str) -> str | None:
    """The value a top-level `AssignVariableOp` writes into variable `handle` (one assign only)."""
    values = [
        consumer.data_inputs[1].node
        for consumer, item in scope.consumers_of(handle)
        if consumer.op == "AssignVariableOp"
        and len(consumer.data_inputs) > 1
        and consumer.data_inputs[0].node == handle
    ]
    return values[0] if len(values) == 1 else None


def _upstream_of_inputs(scope: Scope, start: Node, inputs: frozenset[str]) -> bool:
    """Whether a request input flows into `start` (a bounded look upstream within its scope)."""
    if scope.function is not None:
        return False
    seen: set[str] = set()
    stack = [start.name]
    while stack and len(seen) < 4096:
        name = stack.pop()
        if name in seen:
            continue
        seen.add(name)
        node = scope.by_name.get(name)
        if name in inputs or (not inputs and node is not None and node.op == "Placeholder"):
            return True
        if node is not None:
            stack.extend(item.node for item in node.data_inputs)
    return False


def _constant_target(node: Node) -> Target:
    value = node.attr.get("value")
    if value is None or value.WhichOneof("value") != "tensor":
        return Target(COMPUTED)
    strings = [_text(item) for item in list(value.tensor.string_val)[:MAX_TARGET_VALUES]]
    if not strings:
        return Target(EMPTY)
    kinds = {classify_path(item) for item in strings}
    for kind in (OUTSIDE, RELATIVE):
        if kind in kinds:
            return Target(kind, tuple(strings))
    return Target(EMPTY, tuple(strings))


def is_own_saver_op(graph: GraphIndex, node: Node) -> bool:
    """A checkpoint op of the model's own saver (its SaverDef's subgraph, or the `save/` scope)."""
    return node.op in SAVER_OPS and saver_nodes(graph).covers(node)


# -- nested GraphDefs ----------------------------------------------------------------------------

# How deep graphs nest in graphs, and the most bytes one nested GraphDef may have, before it is left unread.
MAX_NESTING = 4
MAX_NESTED_BYTES = 64 << 20
MAX_UPSTREAM = 64


@record(frozen=True)
class NestedOp:
    """A catalogued op inside a GraphDef that an op of the outer graph runs: where it is, and its target."""

    chain: tuple[str, ...]  # the outer node, then each nested graph's running node, then the op's node
    op: str
    danger: Danger
    target: Target

    def __init__(self, chain: tuple[str, ...], op: str, danger: Danger, target: Target) -> None:
        vars(self).update(chain=chain, op=op, danger=danger, target=target)


def nested_graph_bytes(graph: GraphIndex, node: Node) -> list[bytes]:
    """The string constants upstream of a graph-running op's GraphDef input (`DatasetFromGraph`'s `graph_def`).

    The bytes need not feed the op directly: a model may pass them through
    string ops (joined with an empty piece of a request keeps grappler from
    folding the dataset away). At most MAX_UPSTREAM nodes are looked at, and
    constants over MAX_NESTED_BYTES are left unread.
    """
    spec = GRAPH_INPUTS.get(node.op)
    if spec is None or spec[0] >= len(node.data_inputs):
        return []
    scope = _scope(graph, node.function)
    if scope is None:
        return []
    found: list[bytes] = []
    seen: set[str] = set()
    stack = [node.data_inputs[spec[0]].node]
    while stack and len(seen) < MAX_UPSTREAM:
        name = stack.pop()
        if name in seen:
            continue
        seen.add(name)
        producer = scope.by_name.get(name)
        if producer is None:
            continue
        if producer.op != "Const":
            stack.extend(item.node for item in producer.data_inputs)
            continue
        value = producer.attr.get("value")
        if value is None or value.WhichOneof("value") != "tensor" or len(value.tensor.string_val) != 1:
            continue
        data = bytes(value.tensor.string_val[0])
        if 0 < len(data) <= MAX_NESTED_BYTES:
            found.append(data)
    return found


def graph_variables(graph: GraphIndex, node: Node) -> list[str]:
    """The top-level variables whose value flows into a graph-running op's GraphDef input.

    Each is named as its checkpoint knows it: a `VarHandleOp`'s `shared_name` (else its node
    name), a `VariableV2`'s node name. Function arguments are followed to their callers on the
    op's first trigger path; at most MAX_UPSTREAM nodes are looked at per scope.
    """
    spec = GRAPH_INPUTS.get(node.op)
    if spec is None or spec[0] >= len(node.data_inputs):
        return []
    reach = exposure(graph)
    found: list[str] = []
    pending: list[tuple[str | None, str]] = [(node.function, node.data_inputs[spec[0]].node)]
    seen: set[tuple[str | None, str]] = set()
    while pending and len(seen) < MAX_UPSTREAM:
        function, name = pending.pop()
        if (function, name) in seen:
            continue
        seen.add((function, name))
        scope = _scope(graph, function)
        if scope is None:
            continue
        if function is not None and name in scope.arg_names:
            located = _argument_source(graph, reach, function, name)
            if located is not None:
                pending.append(located)
            continue
        producer = scope.by_name.get(name)
        if producer is None or producer.op == "Const":
            continue
        if function is None and producer.op in ("VarHandleOp", "VariableV2", "Variable"):
            shared = attr_strings(producer, "shared_name") if producer.op == "VarHandleOp" else []
            found.append(shared[0] if shared and shared[0] else producer.name)
            continue
        pending.extend((function, item.node) for item in producer.data_inputs)
    return found


def nested_ops(graph: GraphIndex, node: Node, blobs: list[bytes] | None = None) -> list[NestedOp]:
    """Every catalogued op in the GraphDef `node` runs, and in the graphs that one runs, to MAX_NESTING deep.

    A nested graph has no signatures: all of it may run when its dataset is
    iterated. Bytes that do not parse as a GraphDef are left alone (TensorFlow
    fails on them too).
    """
    found = []
    for chain, inner, by_name in _nested_nodes(graph, node, blobs):
        danger = CATALOGUE.get(inner.op)
        if danger is not None:
            found.append(NestedOp(chain, inner.op, danger, _nested_target(inner, danger, by_name)))
    return found


def nested_graph_ops(
    graph: GraphIndex, node: Node, blobs: list[bytes] | None = None
) -> list[tuple[str, tuple[str, ...]]]:
    """(op, chain) of every node of the GraphDefs `node` runs (as `nested_ops`, catalogued or not)."""
    return [(inner.op, chain) for chain, inner, _ in _nested_nodes(graph, node, blobs)]


def _nested_nodes(
    graph: GraphIndex, node: Node, blobs: list[bytes] | None
) -> Iterator[tuple[tuple[str, ...], Any, dict[str, Any]]]:
    """(chain, NodeDef, its container's nodes by name) for each node of each nested GraphDef, bounded.

    The GraphDefs are `blobs` when given (a variable's saved value), else the graph's own constants.
    """
    from tflint import protos

    if blobs is None:
        blobs = nested_graph_bytes(graph, node)
    pending: list[tuple[tuple[str, ...], bytes, int]] = [((node.name,), data, 1) for data in blobs]
    while pending:
        chain, blob, depth = pending.pop()
        message = protos.GraphDef()
        try:
            message.ParseFromString(blob)
        except Exception:  # not a GraphDef: TensorFlow's DatasetFromGraph fails on it as well
            continue
        containers = [(None, list(message.node))]
        containers.extend((function.signature.name, list(function.node_def)) for function in message.library.function)
        for function, node_defs in containers:
            by_name = {item.name: item for item in node_defs}
            for inner in node_defs:
                where = chain + ((f"{function}/{inner.name}",) if function else (inner.name,))
                yield where, inner, by_name
                spec = GRAPH_INPUTS.get(inner.op)
                if spec is not None and depth < MAX_NESTING:
                    inner_data = _nested_constant(inner, spec[0], by_name)
                    if inner_data is not None:
                        pending.append((where, inner_data, depth + 1))


def _nested_input(inner: Any, position: int, by_name: dict[str, Any]) -> Any | None:
    data = [item for item in inner.input if not item.startswith("^")]
    if position >= len(data):
        return None
    return by_name.get(data[position].split(":")[0])


def _nested_constant(inner: Any, position: int, by_name: dict[str, Any]) -> bytes | None:
    producer = _nested_input(inner, position, by_name)
    if producer is None or producer.op != "Const" or "value" not in producer.attr:
        return None
    strings = producer.attr["value"].tensor.string_val
    if len(strings) != 1 or len(strings[0]) > MAX_NESTED_BYTES:
        return None
    return bytes(strings[0])


def _nested_target(inner: Any, danger: Danger, by_name: dict[str, Any]) -> Target:
    if danger.kind == "attr":
        return attr_target(Node(inner.name, inner.op, "", dict(inner.attr), ()), danger)
    if danger.kind != "input":
        return Target(NONE)
    producer = _nested_input(inner, danger.position, by_name)
    if producer is None or producer.op != "Const":
        return Target(COMPUTED)
    return _constant_target(Node(producer.name, producer.op, "", dict(producer.attr), ()))


# -- Keras 2 metadata ----------------------------------------------------------------------------

# A Keras 2 SavedModel's `keras_metadata.pb` (a SavedMetadata: field 1, repeated SavedObject with
# node_path = 3, identifier = 4 and metadata = 5, a JSON text) keeps each layer's config. A Lambda
# layer's config holds its function as marshalled Python bytecode, which Keras turns back into a
# function (and so runs) when it loads the model.
KERAS_METADATA = "keras_metadata.pb"
MAX_LAYER_METADATA = 16 << 20


@record(frozen=True)
class KerasLambda:
    """A Lambda layer of a Keras 2 SavedModel: its object path and how its function is stored."""

    path: str
    function: str  # "lambda" (bytecode), or the name of a function Keras looks up by name

    def __init__(self, path: str, function: str) -> None:
        vars(self).update(path=path, function=function)


def keras_lambda_layers(data: bytes) -> list[KerasLambda]:
    """The Lambda layers `keras_metadata.pb`'s bytes describe ([] for bytes that are no SavedMetadata)."""
    import json

    from tflint.wire import LENGTH_DELIMITED, WireError, fields

    found: list[KerasLambda] = []
    try:
        for number, wire, _, start, end in fields(data):
            if number != 1 or wire != LENGTH_DELIMITED:
                continue
            path, metadata = "", b""
            for inner, inner_wire, _, value_start, value_end in fields(data, start, end):
                if inner_wire != LENGTH_DELIMITED:
                    continue
                if inner == 3:
                    path = _text(bytes(data[value_start:value_end]))
                elif inner == 5 and value_end - value_start <= MAX_LAYER_METADATA:
                    metadata = bytes(data[value_start:value_end])
            if b"Lambda" not in metadata and b"lambda" not in metadata:
                continue
            try:
                layer = json.loads(metadata)
            except ValueError:
                continue
            config = layer.get("config") if isinstance(layer, dict) else None
            if not isinstance(config, dict):
                continue
            kind = config.get("function_type")
            function = config.get("function")
            if isinstance(function, dict) and function.get("class_name") == "__lambda__":
                kind = "lambda"
            if layer.get("class_name") == "Lambda" or kind == "lambda":
                found.append(KerasLambda(path, kind if isinstance(kind, str) else "function"))
    except WireError:
        return found
    return found
