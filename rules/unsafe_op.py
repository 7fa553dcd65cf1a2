"""A serving graph runs no op that a model server must not run from an untrusted graph, or cannot run at all.

A SavedModel is code: whatever ops its signatures reach run inside the
server process, with the server's file system and network. This rule
reports ops from a configurable list, by default:

- Python callbacks (`PyFunc`, `PyFuncStateless`, `EagerPyFunc`): their
  bodies are Python functions that are not in the graph; a model server has
  no Python interpreter. TensorFlow 2.21 imports such a graph, and running
  it in any other process fails (`Could not find callback with
  key=pyfunc_0 in the registry`).
- file reads and writes: `ReadFile`, `WriteFile`, `MatchingFiles`,
  `ImmutableConst` (memory-maps a file), the queue-based readers, file
  datasets (`TFRecordDataset`, `TextLineDataset`, ...), summary writers,
  dataset savers and checkpoint ops (`SaveV2`, `RestoreV2`, ...) outside
  the saver;
- `Print` / `PrintV2` (write to the server's stderr or to a file named in
  the graph), debugger and RPC ops, `FileSystemSetConfiguration`.

What runs: in a meta graph with signatures or an init op, the nodes
upstream of the signature outputs, the init op and the restore op, and every
function those nodes call (transitively); elsewhere (a GraphDef, a meta
graph with no signature) every node. A listed op that nothing reaches (a
leftover of training, a function no signature calls) is reported one level
below the rule's (a warning under the `serving` preset), as
`saved_model_cli scan` flags every denylisted op in the meta graph and its
function library; unreached checkpoint ops are left out (a training graph's
saver is one). The saver's own checkpoint ops (the
subgraph of the SaverDef's save and restore ops, or the `save/` scope of a
GraphDef) are what a server runs to restore variables, and are never
reported; neither are lookup-table initializers reading `assets/`. A
model that reads its own asset with `ReadFile` at request time (TensorFlow's
`AssetModule` test model does) is reported: the path comes from the graph's
state, not from the SavedModel's directory, so nothing keeps it there.

Options: `ops` replaces the default list; `extra-ops` adds to it (e.g. a
custom op). Off by default (TensorFlow itself accepts all of these); the
`serving` preset makes it an error.

How to fix: remove the op from the exported signature (do file I/O and
logging outside the model, replace `tf.py_function` with TensorFlow ops),
or, if the deployment trusts the model, drop the op from `ops`.

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

from tflint.finding import Issue, Severity
from tflint.tf.index import GraphIndex
from tflint.tf.serving import CHECKPOINT_OPS, is_saver_checkpoint_op, served

ID = "unsafe-op"
CATEGORY = "serving"
DEFAULT_SEVERITY = Severity.OFF

_PYTHON = "calls back into Python, which a model server does not have"
_READS = "reads files on the server's host"
_WRITES = "writes files on the server's host"
_CHECKPOINT = "reads or writes a checkpoint outside the saver"
_LOGS = "writes to the server's stderr or to a file named in the graph"
_NETWORK = "talks to other processes over the network"

# The default list, with why each op is unsafe.
REASONS: dict[str, str] = {
    **dict.fromkeys(("PyFunc", "PyFuncStateless", "EagerPyFunc"), _PYTHON),
    **dict.fromkeys(
        (
            "ReadFile",
            "MatchingFiles",
            "ImmutableConst",
            "WholeFileReader",
            "WholeFileReaderV2",
            "TextLineReader",
            "TextLineReaderV2",
            "TFRecordReader",
            "TFRecordReaderV2",
            "FixedLengthRecordReader",
            "FixedLengthRecordReaderV2",
            "LMDBReader",
            "RecordInput",
            "TFRecordDataset",
            "TFRecordDatasetV2",
            "TextLineDataset",
            "FixedLengthRecordDataset",
            "FixedLengthRecordDatasetV2",
            "LMDBDataset",
            "ExperimentalLMDBDataset",
            "MatchingFilesDataset",
            "ExperimentalMatchingFilesDataset",
            "SqlDataset",
            "ExperimentalSqlDataset",
            "CSVDataset",
            "CSVDatasetV2",
            "ExperimentalCSVDataset",
            "LoadDataset",
            "SnapshotDatasetReader",
            "SnapshotNestedDatasetReader",
            "SnapshotChunkDataset",
            "ListSnapshotChunksDataset",
        ),
        _READS,
    ),
    **dict.fromkeys(
        (
            "WriteFile",
            "CreateSummaryFileWriter",
            "CreateSummaryDbWriter",
            "WriteSummary",
            "WriteScalarSummary",
            "WriteHistogramSummary",
            "WriteImageSummary",
            "WriteAudioSummary",
            "WriteGraphSummary",
            "WriteRawProtoSummary",
            "ImportEvent",
            "FlushSummaryWriter",
            "DatasetToTFRecord",
            "ExperimentalDatasetToTFRecord",
            "SaveDataset",
            "SaveDatasetV2",
            "DistributedSave",
            "SnapshotDataset",
            "SnapshotDatasetV2",
            "DebugIdentityV2",
            "DebugIdentityV3",
            "DumpTensor",
            "FileSystemSetConfiguration",
        ),
        _WRITES,
    ),
    **dict.fromkeys(sorted(CHECKPOINT_OPS), _CHECKPOINT),
    **dict.fromkeys(("Print", "PrintV2"), _LOGS),
    **dict.fromkeys(("RpcClient", "RpcServer", "RpcServerStart", "RpcServerRegister", "RpcCall"), _NETWORK),
}

OPTIONS: dict[str, Any] = {"ops": sorted(REASONS), "extra-ops": []}


def check(graph: GraphIndex, options: Mapping[str, Any]) -> Iterator[Issue]:
    """Yield an issue for each listed op among the nodes a model server may run."""
    unsafe = frozenset(options["ops"]) | frozenset(options["extra-ops"])
    reach = served(graph)
    for scope in graph.scopes():
        scope_reached = reach is None or scope.function is None or scope.name in reach.functions
        for node in scope.nodes:
            if node.op not in unsafe:
                continue
            if node.op in CHECKPOINT_OPS and is_saver_checkpoint_op(graph, node):
                continue
            reason = REASONS.get(node.op, "is on unsafe-op's list of ops a model server must not run")
            reached = scope_reached and (reach is None or node.function is not None or node.name in reach.nodes)
            if reached:
                yield Issue(node, f"Node '{node.name}' runs {node.op}, which {reason}")
            elif node.op not in CHECKPOINT_OPS:  # an unreached checkpoint op is the saver's, as a rule
                yield Issue(
                    node,
                    f"Node '{node.name}' is {node.op}, which {reason}; no signature, init or restore op "
                    "reaches it, but it ships in the model",
                    lesser=True,
                )
