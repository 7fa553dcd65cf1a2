"""Each restored checkpoint entry has the dtype the restore op expects and the shape of its variable.

A SavedModel's `RestoreV2` nodes declare the dtype of every key they read
(their `dtypes` attr), and the variable each value is assigned to has a
shape. Checked with TensorFlow 2.21 on SavedModels whose checkpoint was
rewritten by TensorFlow with one variable cast or transposed:

- **another dtype** fails every loader at load: `tensor_name = bias/...;
  expected dtype float does not equal original dtype double`;
- **another shape** is not checked by the C++ loader TF Serving runs: the
  model loads (TF1 resource variables and TF2 alike) and the warm-up
  requests or the first request fail where the variable is used
  (`Matrix size-incompatible: In[0]: [2,3], In[1]: [4,3]`), while
  `tf.saved_model.load` refuses the TF2 model at load (`Received
  incompatible tensor with shape (4, 3) when attempting to restore variable
  with shape (3, 4)`).

Shapes come from the variable each TF1 `RestoreV2` output is assigned to
(`Assign` to a `VariableV2`, `AssignVariableOp` to a `VarHandleOp`), and for
TF2 SavedModels from the SavedObjectGraph's variables, whose keys the
checkpoint's object graph gives. Partitioned variables (a non-empty slice
spec) are compared by dtype only. Needs the SavedModel *directory*.

How to fix: re-export the model so that the checkpoint is written from the
graph's own variables.

Okay (directory):
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
      attr { key: "dtypes" value { list { type: DT_DOUBLE } } } }
    node { name: "save/restore_all" op: "NoOp" input: "^save/RestoreV2" }
  }
  saver_def {
    filename_tensor_name: "save/Const:0" save_tensor_name: "save/Const:0"
    restore_op_name: "save/restore_all"   # checkpoint-mismatch
  }
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from tflint.finding import Issue, Severity, at_saver
from tflint.tf.attrs import type_name
from tflint.tf.checkpoint import restored_keys, saved_variables, shapes_agree
from tflint.tf.index import GraphIndex
from tflint.tf.shapes.algebra import shape_text

ID = "checkpoint-mismatch"
CATEGORY = "serving"
DEFAULT_SEVERITY = Severity.ERROR
OPTIONS: dict[str, Any] = {}
EXAMPLE_FILES = {"checkpoint": {"w": ("DT_FLOAT", [2])}}


def check(graph: GraphIndex, options: Mapping[str, Any]) -> Iterator[Issue]:
    """Yield an issue per restored key whose entry has another dtype, or another shape than its variable."""
    files = graph.artifact.saved_model_files() if graph.artifact is not None else None
    if files is None or files.checkpoint is None or files.checkpoint.problem is not None:
        return
    entries = files.checkpoint.entries
    where = at_saver("restore_op_name")
    reported: set[str] = set()
    for restored in restored_keys(graph):
        entry = entries.get(restored.key)
        if entry is None or restored.key in reported:
            continue
        if restored.dtype is not None and entry.dtype != restored.dtype:
            reported.add(restored.key)
            yield Issue(
                None,
                f"Checkpoint key '{restored.key}' holds {type_name(entry.dtype)}, the restore op reads "
                f"{type_name(restored.dtype)}: every loader fails at load ('tensor_name = {restored.key}; expected "
                f"dtype {type_name(restored.dtype)} does not equal original dtype {type_name(entry.dtype)}')",
                at=where,
            )
        elif not restored.slice_spec and not shapes_agree(restored.shape, entry.shape):
            reported.add(restored.key)
            yield Issue(None, _shape_message(restored.key, restored.variable, restored.shape, entry.shape), at=where)
    for variable in saved_variables(graph.meta_graph, files.object_graph):
        entry = entries.get(variable.key) if variable.key else None
        if entry is None or variable.key in reported or entry.slices:
            continue
        if not shapes_agree(variable.shape, entry.shape):
            reported.add(variable.key or "")
            yield Issue(
                None,
                _shape_message(variable.key or "", variable.name, variable.shape, entry.shape)
                + "; tf.saved_model.load fails at load ('Received incompatible tensor with shape ...')",
                at=where,
            )


def _shape_message(key: str, variable: str | None, expected: Any, stored: Any) -> str:
    return (
        f"Checkpoint key '{key}' is {shape_text(stored)} but variable '{variable}' is {shape_text(expected)}: "
        "TF Serving's loader restores it anyway and the warm-up or first request that uses it fails"
    )
