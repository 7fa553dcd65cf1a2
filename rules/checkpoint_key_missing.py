"""Every key the SavedModel's restore op reads is in its checkpoint (`variables/variables.index`).

Loading a SavedModel runs the SaverDef's restore op, whose `RestoreV2`
nodes read the checkpoint keys of their `tensor_names` constant: for TF1
savers the variables' names (`dense/kernel`), for TF2 SavedModels the
object-graph paths (`model/dense/kernel/.ATTRIBUTES/VARIABLE_VALUE`). A
key absent from the checkpoint fails every loader at load, checked with
TensorFlow 2.21 on SavedModels whose checkpoint was rewritten without one
variable: the C++ loader TF Serving runs, `tf.compat.v1.saved_model.load`
and `tf.saved_model.load` all stop with `Key ... not found in checkpoint`.

Needs the SavedModel *directory* (`tflint export/1/`); a lone
`saved_model.pb` has no checkpoint to compare with. Nothing is reported
when the index itself is missing (`missing-variables`) or unreadable
(`checkpoint-index`).

How to fix: re-export the model, so that the graph and its checkpoint come
from the same variables; never copy `variables/` from another export.

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
      attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape { dim { size: 1 } } string_val: "v" } } } }
    node { name: "save/RestoreV2/shape_and_slices" op: "Const" attr { key: "dtype" value { type: DT_STRING } }
      attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape { dim { size: 1 } } string_val: "" } } } }
    node { name: "save/RestoreV2" op: "RestoreV2"
      input: "save/Const" input: "save/RestoreV2/tensor_names" input: "save/RestoreV2/shape_and_slices"
      attr { key: "dtypes" value { list { type: DT_FLOAT } } } }
    node { name: "save/restore_all" op: "NoOp" input: "^save/RestoreV2" }
  }
  saver_def {
    filename_tensor_name: "save/Const:0" save_tensor_name: "save/Const:0"
    restore_op_name: "save/restore_all"   # checkpoint-key-missing
  }
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from tflint.finding import Issue, Severity, at_saver
from tflint.tf.checkpoint import restored_keys
from tflint.tf.index import GraphIndex

ID = "checkpoint-key-missing"
CATEGORY = "serving"
DEFAULT_SEVERITY = Severity.ERROR
OPTIONS: dict[str, Any] = {}
# A directory whose files the docstring examples describe (tests/test_rule_docs.py builds it).
EXAMPLE_FILES = {"checkpoint": {"w": ("DT_FLOAT", [2])}}
# The most missing keys named one by one (the rest are counted).
SHOWN = 3


def check(graph: GraphIndex, options: Mapping[str, Any]) -> Iterator[Issue]:
    """Yield one issue per meta graph naming the restored keys its checkpoint lacks."""
    files = graph.artifact.saved_model_files() if graph.artifact is not None else None
    if files is None or files.checkpoint is None or files.checkpoint.problem is not None:
        return
    entries = files.checkpoint.entries
    missing: list[str] = []
    for restored in restored_keys(graph):
        if restored.key not in entries and restored.key not in missing:
            missing.append(restored.key)
    if not missing:
        return
    shown = ", ".join(repr(key) for key in missing[:SHOWN])
    more = f" and {len(missing) - SHOWN} more" if len(missing) > SHOWN else ""
    yield Issue(
        None,
        f"The restore op reads {len(missing)} key{'s' if len(missing) > 1 else ''} that variables/variables.index "
        f"lacks ({shown}{more}): every loader fails at load with 'Key {missing[0]} not found in checkpoint'",
        at=at_saver("restore_op_name"),
    )
