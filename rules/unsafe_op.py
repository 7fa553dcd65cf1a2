"""A model runs no op that reads or writes files, lists directories, reaches the network or runs Python.

TensorFlow's security policy says a model is a program: whatever ops it
runs, run inside the process that loads or serves it, with that process's
files and network. This rule reports every such op wherever TensorFlow can
run it, says when it fires and what it points at, and grades it (the path
from the trigger to the op is in the finding's properties, `--format json`
or `sarif`):

- **where**: the top-level graph; every library function reached through a
  call op or a function-valued attr (`If`/`While`/`Case` branches, a
  dataset's `f`, `predicate`, `reduce_func`, ...), transitively; a GraphDef
  serialized into a string constant (or a variable's checkpointed value)
  that an op runs (`DatasetFromGraph`), nested at most 4 deep and 64 MiB
  each; and, for a SavedModel directory, the assets the loader reads.
- **when** (the finding's trigger): `load` (the init op, main op or legacy
  init op, an asset initializer, the restore op, a TF2 resource's
  `_create_resource` / `_initialize` function: it runs as soon as the model is
  loaded), `serve:<signature>` (upstream of that signature's outputs, or
  called from there), `run` (a GraphDef, or a meta graph that names no
  signature or init op: any session run may run it), or `dormant` (in the
  file, but nothing runs it). The message shows the path from the trigger to
  the op.
- **what** (the target): the input or attr that names the file, URL or
  callback. A target that comes from a signature input is set by whoever
  sends a request; a constant outside the model's directory (an absolute
  path, `~`, `..`, any `scheme://`) is fixed by whoever wrote the model; a
  relative constant is resolved against the server's working directory.

The catalogue (`tflint.tf.security.CATALOGUE`), by capability, with the
input or attr that carries the target, covers the ops of every bundled
release (TF 1.15 to 2.21):

- code execution: `PyFunc`, `PyFuncStateless`, `EagerPyFunc` (attr `token`:
  the body is a Python function of the exporting process);
- file reads: `ReadFile` (`filename`), `InitializeTableFromTextFile`,
  `InitializeTableFromTextFileV2` (`filename`), the file datasets
  `TFRecordDataset(V2)`, `TextLineDataset`, `FixedLengthRecordDataset(V2)`,
  `LMDBDataset`, `ExperimentalLMDBDataset`, `CSVDataset(V2)`,
  `ExperimentalCSVDataset` (`filenames`), `SqlDataset`,
  `ExperimentalSqlDataset` (`data_source_name`), `LoadDataset` (`path`),
  `SnapshotDatasetReader` (`shard_dir`), `SnapshotChunkDataset`
  (`chunk_file`), `GenerateVocabRemapping` (`new_vocab_file`),
  `LoadAndRemapMatrix` (`ckpt_path`), `Restore`, `RestoreSlice`
  (`file_pattern`), `RestoreV2`, `DTensorRestoreV2` (`prefix`),
  `ImmutableConst` (attr `memory_region_name`), `RecordInput` (attr
  `file_pattern`), `DecodeProtoV2`, `EncodeProto` (attr `descriptor_source`,
  when it names a file), and the queue readers `WholeFileReader(V2)`,
  `TextLineReader(V2)`, `TFRecordReader(V2)`, `FixedLengthRecordReader(V2)`,
  `LMDBReader`, `SnapshotNestedDatasetReader`;
- directory listings: `MatchingFiles` (`pattern`), `MatchingFilesDataset`,
  `ExperimentalMatchingFilesDataset` (`patterns`), `ListSnapshotChunksDataset`
  (`snapshot_path`);
- file writes: `WriteFile` (`filename`), `Save`, `SaveSlices` (`filename`),
  `SaveV2` (`prefix`), `MergeV2Checkpoints` (`destination_prefix`),
  `CacheDataset`, `CacheDatasetV2` (`filename`; an empty one caches in
  memory), `DatasetToTFRecord`, `ExperimentalDatasetToTFRecord` (`filename`),
  `SaveDataset(V2)`, `SnapshotDataset(V2)` (`path`), `DistributedSave`
  (`directory`), `CreateSummaryFileWriter` (`logdir`),
  `CreateSummaryDbWriter` (`db_uri`), `DumpTensor` (attr `log_dir_path`),
  `CalibrationStatisticsSaver` (attr `output_file_path`), the debug ops
  `DebugIdentity`, `DebugIdentityV2`, `DebugIdentityV3`, `DebugNanCount`,
  `DebugNumericSummary` (attr `debug_urls`: `file://` writes, `grpc://`
  connects), `Copy`, `CopyHost` (attr `debug_ops_spec`), and the summary
  writes `WriteSummary`, `WriteScalarSummary`, `WriteHistogramSummary`,
  `WriteImageSummary`, `WriteAudioSummary`, `WriteGraphSummary`,
  `WriteRawProtoSummary`, `ImportEvent`, `FlushSummaryWriter`;
- the network: `Rpc`, `TryRpc` (`address`), `RpcClient`, `RpcServer`
  (`server_address`), `RpcServerStart`, `RpcServerRegister`, `RpcCall`,
  `DataServiceDataset(V2, V3, V4)`, `RegisterDataset(V2)` (`address`),
  `RemoteCall` (`target`), `FileSystemSetConfiguration` (`scheme`),
  `GcsConfigureCredentials` (`json`), `GcsConfigureBlockCache`,
  `BigQueryReader`, `GenerateBigQueryReaderPartitions` (attr `project_id`);
- the process's streams: `Print`, `PrintV2` (attr `output_stream`; a
  `file://` stream is a file write).

Levels and scores (the `security-severity` of SARIF and JSON output, 0-10),
relative to the rule's level (error under the `serving` and `untrusted`
presets): Python callbacks that run (9.8), a target from a signature input
(9.3), a constant target outside the model (8.5), any other network target
(8.0), an asset that is a symbolic link or leaves the model's directory (8.0,
a load-time file read), the saver's own checkpoint op reached from a
signature (7.5), a computed or untargeted file op that runs (7.0): at the
rule's level. A relative or empty constant target (5.5): one level below. Dormant ops (3.0), printing
to the standard streams and debug ops without a URL (2.0), a table
initializer reading a file a loader feeds (2.0): two levels below. Not
reported: the model's own saver saving and restoring its checkpoint
through the saver's filename (what every model does), a table initializer
reading the model's own asset at load time, a `CacheDataset` caching in
memory.

Options: `ops` replaces the catalogue's op list; `extra-ops` adds to it (a
custom op); `allow-ops`, when not empty, is allow-list mode, the stance
TensorFlow's policy recommends for untrusted models: every op not listed
(top-level, in a function, in a nested graph) is reported at the rule's
level, besides the catalogued ones (the `untrusted` preset lists the ops of
ordinary Keras and `tf.Module` models). Off by default (TensorFlow itself
accepts all of these); the `serving` preset makes it an error.

A Keras 2 SavedModel's `keras_metadata.pb` is read too: a `Lambda` layer
keeps its function as Python bytecode (or a name), which Keras runs when it
loads the model (trigger `load`, code execution, 9.8; TensorFlow's own
loaders and servers never read that file).

A GraphDef can also hide in the checkpoint, as the saved value of a
string variable the graph-running op reads: it is read (at most 64 MiB)
from `variables/` when the SavedModel directory has them.

How to fix: remove the op from the exported model (do file I/O and
logging outside it, replace `tf.py_function` with TensorFlow ops, read
vocabularies through `tf.saved_model.Asset`), or, if the deployment trusts
the model, drop the op from `ops`.

Okay:
  node { name: "path" op: "Placeholder" attr { key: "dtype" value { type: DT_STRING } } }
  node { name: "save/RestoreV2" op: "RestoreV2" input: "path" input: "path" input: "path"
    attr { key: "dtypes" value { list { type: DT_FLOAT } } } }
Fail:
  node { name: "path" op: "Placeholder" attr { key: "dtype" value { type: DT_STRING } } }
  node { name: "contents" op: "ReadFile" input: "path" }   # unsafe-op
  node { name: "log" op: "PrintV2" input: "contents" }   # unsafe-op
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from tflint.finding import Issue, Severity, at_asset, at_meta_graph
from tflint.tf.checkpoint import saved_variables
from tflint.tf.index import GraphIndex
from tflint.tf.node import Node
from tflint.tf.security import (
    CATALOGUE,
    CODE,
    COMPUTED,
    DORMANT,
    EMPTY,
    FROM_ASSET,
    FROM_INPUT,
    FROM_SAVER,
    GRAPH_INPUTS,
    KERAS_METADATA,
    LOAD,
    LOGGING,
    MAX_NESTED_BYTES,
    NETWORK,
    NONE,
    OUTSIDE,
    READ,
    RELATIVE,
    RUN,
    SERVE,
    WRITE,
    Danger,
    Target,
    classify_path,
    exposure,
    graph_variables,
    is_own_saver_op,
    keras_lambda_layers,
    nested_graph_ops,
    nested_ops,
    target_of,
)
from tflint.tf.serving import asset_file_defs, meta_graph_ordinal

ID = "unsafe-op"
CATEGORY = "serving"
DEFAULT_SEVERITY = Severity.OFF
# The score of the rule's worst case (GitHub code scanning shows it beside the rule).
SECURITY_SEVERITY = 9.8

OPTIONS: dict[str, Any] = {"ops": sorted(CATALOGUE), "extra-ops": [], "allow-ops": []}

_WHAT = {
    CODE: "runs Python code of the exporting process",
    READ: "reads files",
    WRITE: "writes files",
    "directory-listing": "lists directories",
    NETWORK: "reaches the network",
    LOGGING: "writes to the process's output streams",
    "custom": "is on unsafe-op's list",
}
# The table initializers: a loader feeds them an asset's path, which the graph alone cannot show.
_TABLE_INITIALIZERS = frozenset({"InitializeTableFromTextFile", "InitializeTableFromTextFileV2"})
_DEBUG_OPS = frozenset(op for op, danger in CATALOGUE.items() if danger.name in ("debug_urls", "debug_ops_spec"))


def check(graph: GraphIndex, options: Mapping[str, Any]) -> Iterator[Issue]:
    """Yield an issue per listed op that runs (or ships dormant), per unlisted op in allow-list mode, per bad asset."""
    listed = frozenset(options["ops"]) | frozenset(options["extra-ops"])
    allowed = frozenset(options.get("allow-ops") or ())
    watched = listed | GRAPH_INPUTS.keys()
    if allowed:
        yield from _not_allowed(graph, allowed)
    if any(not watched.isdisjoint(scope.by_op()) for scope in graph.scopes()):
        for scope in graph.scopes():
            by_op = scope.by_op()
            for op in sorted(watched & by_op.keys(), key=lambda name: by_op[name][0].ordinal):
                for node in by_op[op]:
                    if op in listed:
                        issue = _issue(graph, node, CATALOGUE.get(op, Danger("custom")))
                        if issue is not None:
                            yield issue
                    if op in GRAPH_INPUTS:
                        yield from _nested(graph, node, listed, allowed)
    yield from _assets(graph)
    yield from _keras_lambdas(graph)


def _issue(graph: GraphIndex, node: Node, danger: Danger) -> Issue | None:
    triggers = exposure(graph).of(node)
    serving = [trigger for trigger in triggers if trigger.startswith(SERVE)]
    if danger.saver and is_own_saver_op(graph, node):
        if not serving:
            return None  # the model's own checkpoint, saved and restored through the saver's filename
        target = Target(FROM_SAVER)
        score: float | None = 7.5
    else:
        if danger.saver and not triggers:
            return None  # a checkpoint op nothing runs is a training graph's saver, as a rule
        target = target_of(graph, node, danger)
        score = _score(node.op, danger, target, triggers)
    if score is None:
        return None
    capability = _capability(danger, target)
    trigger = triggers[0] if triggers else DORMANT
    path = exposure(graph).path(node)
    message = f"Node '{node.name}' runs {node.op}, which {_WHAT[capability]}{_target_text(danger, target, trigger)}"
    message += f"; {_when(trigger)}{_depth(path)}"
    return Issue(
        node,
        message,
        field=danger.name if danger.kind == "attr" and danger.name in node.attr else None,
        lesser=_levels_below(score),
        properties=_properties(trigger, triggers, capability, danger, target, path, score),
    )


def _score(op: str, danger: Danger, target: Target, triggers: list[str]) -> float | None:
    """The security-severity of a catalogued op that is not the saver's: None when it is not reported."""
    source = target.source
    if danger.empty_is_safe and source == EMPTY:
        return None
    if op in _TABLE_INITIALIZERS and source in (FROM_ASSET, FROM_SAVER, COMPUTED, RELATIVE):
        if source == FROM_ASSET and LOAD in triggers:
            return None  # the model's own vocabulary, read when it loads
        return 2.0 if triggers else 1.0
    if danger.name == "descriptor_source" and source == NONE:
        return None  # DecodeProtoV2 with the generated descriptor pool: no file
    if not triggers:
        return 1.0 if danger.capability == LOGGING else 3.0
    if danger.capability == LOGGING and source == NONE:
        return 2.0
    if op in _DEBUG_OPS and source == EMPTY:
        return 2.0
    if danger.capability == CODE:
        return 9.8
    if source == FROM_INPUT:
        return 9.3
    if source == OUTSIDE:
        return 8.5
    if danger.capability == NETWORK:
        return 8.0
    if source in (FROM_ASSET, FROM_SAVER):
        return 2.0
    if source in (RELATIVE, EMPTY):
        return 5.5
    return 7.0


def _levels_below(score: float) -> int:
    """0 for a high or critical score (7.0 and up), 1 for a medium one (4.0 and up), else 2."""
    return 0 if score >= 7.0 else (1 if score >= 4.0 else 2)


def _capability(danger: Danger, target: Target) -> str:
    if danger.capability == LOGGING and target.source == OUTSIDE:
        return WRITE  # PrintV2 to `file://...`
    if danger.name == "debug_urls" or danger.name == "debug_ops_spec":
        if any(value.startswith("grpc://") for value in target.values):
            return NETWORK
    return danger.capability


def _target_text(danger: Danger, target: Target, trigger: str) -> str:
    where = danger.target_text()
    if not where or target.source == NONE:
        return ""
    if target.source == FROM_INPUT:
        fed = "a signature input" if trigger.startswith(SERVE) else "a fed input"
        return f" named by {fed} ({where})"
    if target.source in (OUTSIDE, RELATIVE, EMPTY) and target.values:
        shown = ", ".join(f"'{value}'" for value in target.values[:3])
        return f" {shown} ({where})"
    if target.source == FROM_ASSET:
        return f" from one of the model's assets ({where})"
    if target.source == FROM_SAVER:
        return f" through the saver's filename ({where})"
    return f" ({where}, computed in the graph)"


def _depth(path: list[str]) -> str:
    """How many library functions lie between the trigger and the op (the whole path is in the properties)."""
    functions = sum(step.startswith("function '") for step in path)
    return f" ({functions} function{'s' if functions != 1 else ''} deep)" if functions else ""


def _when(trigger: str) -> str:
    if trigger == LOAD:
        return "it runs when the model is loaded"
    if trigger.startswith(SERVE):
        return f"it runs when signature '{trigger[len(SERVE) :]}' is served"
    if trigger == RUN:
        return "it runs whenever the graph runs"
    return "nothing runs it, but it ships in the model"


def _properties(
    trigger: str,
    triggers: list[str],
    capability: str,
    danger: Danger,
    target: Target,
    path: list[str],
    score: float,
) -> tuple[tuple[str, Any], ...]:
    return (
        ("trigger", trigger),
        ("triggers", list(triggers) or [DORMANT]),
        ("capability", capability),
        ("target", danger.target_text() or None),
        ("target-source", target.source),
        ("target-values", list(target.values)),
        ("path", list(path)),
        ("security-severity", score),
    )


def _nested(graph: GraphIndex, node: Node, listed: frozenset[str], allowed: frozenset[str]) -> Iterator[Issue]:
    """Catalogued (or, in allow-list mode, unlisted) ops of the GraphDefs `node` runs, reported on `node`:
    those in the graph's constants, and those saved as a variable's value in the checkpoint."""
    yield from _nested_in(graph, node, listed, allowed, None, [])
    for key, blob in _checkpoint_graphs(graph, node):
        yield from _nested_in(graph, node, listed, allowed, [blob], [f"checkpoint '{key}'"])


def _checkpoint_graphs(graph: GraphIndex, node: Node) -> list[tuple[str, bytes]]:
    """(checkpoint key, bytes) of the variables whose saved value `node` runs as a GraphDef."""
    artifact = graph.artifact
    names = graph_variables(graph, node)
    if artifact is None or not names:
        return []
    files = artifact.saved_model_files()
    keys = {item.name: item.key for item in saved_variables(graph.meta_graph, files.object_graph)} if files else {}
    found = []
    for name in names:
        key = keys.get(name) or name  # TF1 checkpoints key a variable by its name
        blob = artifact.checkpoint_string(key, MAX_NESTED_BYTES)
        if blob:
            found.append((key, blob))
    return found


def _nested_in(
    graph: GraphIndex,
    node: Node,
    listed: frozenset[str],
    allowed: frozenset[str],
    blobs: list[bytes] | None,
    via: list[str],
) -> Iterator[Issue]:
    triggers = exposure(graph).of(node)
    trigger = triggers[0] if triggers else DORMANT
    outer = exposure(graph).path(node) + via
    for found in nested_ops(graph, node, blobs):
        if found.op in listed:
            capability = _capability(found.danger, found.target)
            score = _score(found.op, found.danger, found.target, triggers)
            if score is None:
                continue
            path = [*outer, "nested GraphDef", *(f"node '{step}'" for step in found.chain[1:])]
            what = _WHAT[capability] + _target_text(found.danger, found.target, trigger)
            message = f"Node '{node.name}' runs a nested GraphDef holding {found.op}, which {what}; "
            message += f"{_when(trigger)}{_depth(path)}"
            yield Issue(
                node,
                message,
                lesser=_levels_below(score),
                properties=_properties(trigger, triggers, capability, found.danger, found.target, path, score),
            )
    if allowed:
        for op, chain in _nested_unlisted(graph, node, allowed, blobs):
            yield Issue(
                node,
                f"Node '{node.name}' runs a nested GraphDef whose node '{chain[-1]}' is {op}, "
                "which is not on unsafe-op's allow-ops list",
                properties=(("trigger", trigger), ("capability", "not-allowed"), ("security-severity", 7.0)),
            )


def _nested_unlisted(
    graph: GraphIndex, node: Node, allowed: frozenset[str], blobs: list[bytes] | None
) -> list[tuple[str, tuple[str, ...]]]:
    return [(op, chain) for op, chain in nested_graph_ops(graph, node, blobs) if op not in allowed]


def _not_allowed(graph: GraphIndex, allowed: frozenset[str]) -> Iterator[Issue]:
    """Allow-list mode: every op that is neither listed nor a library function."""
    library = graph.function_by_name
    reach = exposure(graph)
    for scope in graph.scopes():
        by_op = scope.by_op()
        for op in sorted(by_op.keys() - allowed - library.keys(), key=lambda name: by_op[name][0].ordinal):
            for node in by_op[op]:
                triggers = reach.of(node)
                trigger = triggers[0] if triggers else DORMANT
                yield Issue(
                    node,
                    f"Node '{node.name}' is {op}, which is not on unsafe-op's allow-ops list; {_when(trigger)}",
                    lesser=0 if triggers else 1,
                    properties=(
                        ("trigger", trigger),
                        ("capability", "not-allowed"),
                        ("path", reach.path(node)),
                        ("security-severity", 7.0 if triggers else 3.0),
                    ),
                )


def _assets(graph: GraphIndex) -> Iterator[Issue]:
    """Assets the loader reads that are not the model's own: a path leaving assets/, or a symbolic link."""
    meta = graph.meta_graph
    if meta is None:
        return
    assets = asset_file_defs(meta)
    if not assets:
        return
    listing = graph.artifact.directory_listing() if graph.artifact is not None else None
    links = listing.links if listing is not None else frozenset()
    in_field = len(meta.asset_file_def) > 0
    seen: set[tuple[str, str]] = set()
    for ordinal, asset in enumerate(assets):
        name = asset.filename
        if (name, asset.tensor_info.name) in seen:
            continue  # a TF1 collection may list one asset twice
        seen.add((name, asset.tensor_info.name))
        normalized = name.replace("\\", "/")
        if classify_path(normalized) == OUTSIDE:
            why = "a path that leaves the model's assets/ directory"
        elif normalized in links or any(normalized.startswith(link + "/") for link in links):
            why = "a symbolic link: the loader reads whatever it points at"
        else:
            continue
        tensor = asset.tensor_info.name.split(":")[0]
        node = graph.node(tensor)
        path = [f"asset '{name}'", f"node '{tensor}'"]
        yield Issue(
            node,
            f"Asset '{name}' is {why}; it is read when the model is loaded (file read at load)",
            at=at_asset(ordinal) if in_field else at_meta_graph(),
            properties=(
                ("trigger", LOAD),
                ("triggers", [LOAD]),
                ("capability", READ),
                ("target", "asset_file_def filename"),
                ("target-source", OUTSIDE),
                ("target-values", [name]),
                ("path", path),
                ("security-severity", 8.0),
            ),
        )


def _keras_lambdas(graph: GraphIndex) -> Iterator[Issue]:
    """Keras 2 Lambda layers in `keras_metadata.pb`: Python bytecode that runs when Keras loads the model."""
    artifact = graph.artifact
    if artifact is None or graph.meta_graph is None or meta_graph_ordinal(graph) != 0:
        return  # the file belongs to the directory: reported once, with its first meta graph
    data = artifact.keras_metadata()
    if not data:
        return
    for layer in keras_lambda_layers(data):
        how = "its Python bytecode" if layer.function == "lambda" else "a Python function looked up by name"
        yield Issue(
            None,
            f"{KERAS_METADATA}: layer '{layer.path}' is a Keras Lambda layer; {how} runs when the model is "
            "loaded with Keras (`tf.keras.models.load_model`), not by TensorFlow's loaders",
            at=at_meta_graph(),
            properties=(
                ("trigger", LOAD),
                ("triggers", [LOAD]),
                ("capability", CODE),
                ("target", "Lambda layer config 'function'"),
                ("target-source", NONE),
                ("target-values", []),
                ("path", [KERAS_METADATA, f"layer '{layer.path}'"]),
                ("security-severity", 9.8),
            ),
        )
