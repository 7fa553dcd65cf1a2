"""The checkpoint index (`variables/variables.index`) is a tensor bundle TensorFlow can read.

The index is a table in TensorFlow's (LevelDB's) format: a footer with a
magic number, an index block and data blocks, each with a CRC-32C that
TensorFlow verifies; its first entry is the bundle header (shard count,
byte order, format version). Checked with TensorFlow 2.21 on SavedModels
whose index was cut in half or overwritten: every loader fails at load
(`not an sstable (bad magic number)`; a flipped byte inside a block gives
`block checksum mismatch`). The finding says what broke and at which byte
of the index, the way TensorFlow's error does; entries are never guessed
past it.

tflint reads indexes of up to 256 MB and 2,000,000 entries (a model's index
is about 100 bytes a variable); a bigger one is reported as not read.

Needs the SavedModel *directory*, and a meta graph that restores variables
(a SaverDef with a restore op): only then does a loader read the index. It
is reported once, on the first such meta graph.

How to fix: copy `variables/` again from the export (an interrupted copy
or upload truncates the index), or re-export the model.

Okay (directory):
  graph_def {
    node { name: "save/Const" op: "Const" attr { key: "dtype" value { type: DT_STRING } }
      attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape { } string_val: "model" } } } }
    node { name: "save/restore_all" op: "NoOp" }
  }
  saver_def {
    filename_tensor_name: "save/Const:0" save_tensor_name: "save/Const:0"
    restore_op_name: "save/restore_all"
  }
Fail (directory):
  graph_def {
    node { name: "save/Const" op: "Const" attr { key: "dtype" value { type: DT_STRING } }
      attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape { } string_val: "model" } } } }
    node { name: "save/restore_all" op: "NoOp" }
  }
  saver_def {
    filename_tensor_name: "save/Const:0" save_tensor_name: "save/Const:0"
    restore_op_name: "save/restore_all"   # checkpoint-index
  }
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from tflint.finding import Issue, Severity, at_saver
from tflint.tf.checkpoint import header_problem
from tflint.tf.index import GraphIndex
from tflint.tf.serving import meta_graphs

ID = "checkpoint-index"
CATEGORY = "serving"
DEFAULT_SEVERITY = Severity.ERROR
OPTIONS: dict[str, Any] = {}
# The Okay example's directory has a sound index; the Fail example's is cut in half.
EXAMPLE_FILES = {"checkpoint": {"w": ("DT_FLOAT", [2])}, "Fail": {"truncate": "variables/variables.index"}}


def check(graph: GraphIndex, options: Mapping[str, Any]) -> Iterator[Issue]:
    """Yield one issue when the index does not read as TensorFlow reads it, or its header is refused."""
    files = graph.artifact.saved_model_files() if graph.artifact is not None else None
    meta = graph.meta_graph
    if files is None or files.checkpoint is None or meta is None or not _restores(meta):
        return
    if next(other for other in meta_graphs(graph) if _restores(other)) is not meta:
        return  # one index, reported once: on the first meta graph that restores
    index = files.checkpoint
    if index.problem is not None:
        what = f"variables/variables.index cannot be read: {index.problem}"
    elif index.header is not None and header_problem(index.header) is not None:
        what = f"variables/variables.index is refused: {header_problem(index.header)}"
    else:
        return
    yield Issue(
        None,
        f"{what}; every loader fails at load, before any variable is restored",
        at=at_saver("restore_op_name"),
    )


def _restores(meta: Any) -> bool:
    return meta.HasField("saver_def") and bool(meta.saver_def.restore_op_name)
