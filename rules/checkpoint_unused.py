"""Checkpoint entries that nothing restores, and restored variables that no signature reads.

Loaders restore exactly the keys of the restore op's `RestoreV2` nodes;
any other entry of `variables/variables.index` is ignored (checked with
TensorFlow 2.21 on SavedModels whose checkpoint had one more tensor: every
loader loads them and serves). They cost disk and download time, and often
mean that the checkpoint comes from another version of the model than the
graph (a renamed variable shows up as one missing key and one unused
entry), so they are reported as **info**, in one finding per meta graph.
An entry counts as read when a RestoreV2 of the restore op names it (TF2's
`_CHECKPOINTABLE_OBJECT_GRAPH` included); the slices of partitioned
variables are not listed. Needs the SavedModel *directory*.

With the option `unread-variables: true` (the `serving` preset sets it), a
second note, one level lower, lists the TF1 variables the restore op fills
that no signature output depends on: loaders restore them all the same, and they
are often a training export's optimizer slots or step counters (TF2
SavedModels are not judged: their signatures' functions capture variables
in a way the top-level graph does not show).

How to fix: export the serving model from the variables it uses (a
`tf.Module` with only the serving weights; for TF1, a Saver over the
serving variables), or ignore the rule for training exports.

Okay (directory):
  graph_def {
    node { name: "save/Const" op: "Const" attr { key: "dtype" value { type: DT_STRING } }
      attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape { } string_val: "model" } } } }
    node { name: "save/RestoreV2/tensor_names" op: "Const" attr { key: "dtype" value { type: DT_STRING } }
      attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape { dim { size: 2 } }
        string_val: "w" string_val: "x" } } } }
    node { name: "save/RestoreV2/shape_and_slices" op: "Const" attr { key: "dtype" value { type: DT_STRING } }
      attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape { dim { size: 2 } }
        string_val: "" string_val: "" } } } }
    node { name: "save/RestoreV2" op: "RestoreV2"
      input: "save/Const" input: "save/RestoreV2/tensor_names" input: "save/RestoreV2/shape_and_slices"
      attr { key: "dtypes" value { list { type: DT_FLOAT type: DT_FLOAT } } } }
    node { name: "save/restore_all" op: "NoOp" input: "^save/RestoreV2" }
  }
  saver_def {
    filename_tensor_name: "save/Const:0" save_tensor_name: "save/Const:0"
    restore_op_name: "save/restore_all"
  }
Fail (directory):
  graph_def {
    node { name: "save/Const" op: "Const" attr { key: "dtype" value { type: DT_STRING } }
      attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape { } string_val: "model" } } } }
    node { name: "save/RestoreV2/tensor_names" op: "Const" attr { key: "dtype" value { type: DT_STRING } }
      attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape { dim { size: 1 } } string_val: "w" } } } }
    node { name: "save/RestoreV2/shape_and_slices" op: "Const" attr { key: "dtype" value { type: DT_STRING } }
      attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape { dim { size: 1 } } string_val: "" } } } }
    node { name: "save/RestoreV2" op: "RestoreV2"
      input: "save/Const" input: "save/RestoreV2/tensor_names" input: "save/RestoreV2/shape_and_slices"
      attr { key: "dtypes" value { list { type: DT_FLOAT } } } }
    node { name: "save/restore_all" op: "NoOp" input: "^save/RestoreV2" }
  }
  saver_def {
    filename_tensor_name: "save/Const:0" save_tensor_name: "save/Const:0"
    restore_op_name: "save/restore_all"   # checkpoint-unused
  }
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from tflint.finding import Issue, Severity, at_saver
from tflint.tf.checkpoint import restored_keys, unread_variables
from tflint.tf.index import GraphIndex

ID = "checkpoint-unused"
CATEGORY = "serving"
DEFAULT_SEVERITY = Severity.INFO
# unread-variables: also note the TF1 variables no signature reads (the serving preset turns it on).
OPTIONS: dict[str, Any] = {"unread-variables": False}
EXAMPLE_FILES = {"checkpoint": {"w": ("DT_FLOAT", [2]), "x": ("DT_FLOAT", [2])}}
SHOWN = 3


def validate_options(options: Mapping[str, Any]) -> str | None:
    """unread-variables is a boolean."""
    if not isinstance(options["unread-variables"], bool):
        return f"unread-variables: expected true or false, got {options['unread-variables']!r}"
    return None


def check(graph: GraphIndex, options: Mapping[str, Any]) -> Iterator[Issue]:
    """Yield one issue per meta graph naming the checkpoint entries its restore op does not read."""
    files = graph.artifact.saved_model_files() if graph.artifact is not None else None
    if files is None or files.checkpoint is None or files.checkpoint.problem is not None:
        return
    restored = {item.key for item in restored_keys(graph)}
    if not restored:
        return  # a graph without RestoreV2 constants tflint can read: nothing to compare
    unread = unread_variables(graph) if options["unread-variables"] else []
    if unread:
        shown = ", ".join(repr(name) for name in unread[:SHOWN])
        more = f" and {len(unread) - SHOWN} more" if len(unread) > SHOWN else ""
        yield Issue(
            None,
            f"{len(unread)} restored variable{'s' if len(unread) > 1 else ''} that no signature reads: {shown}{more} "
            "(optimizer state, training counters?); loaders restore them anyway",
            at=at_saver("restore_op_name"),
            lesser=True,
        )
    unused = [key for key in files.checkpoint.entries if key not in restored and not key.startswith("\x00")]
    if not unused:
        return
    size = sum(max(files.checkpoint.entries[key].size, 0) for key in unused)
    shown = ", ".join(repr(key) for key in unused[:SHOWN])
    more = f" and {len(unused) - SHOWN} more" if len(unused) > SHOWN else ""
    yield Issue(
        None,
        f"{len(unused)} checkpoint entr{'ies' if len(unused) > 1 else 'y'} ({size:,} bytes) that the restore op "
        f"does not read: {shown}{more}; loaders ignore them",
        at=at_saver("restore_op_name"),
    )
