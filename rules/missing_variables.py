"""A meta graph that restores variables comes with a `variables/` checkpoint, and its restore op exists.

A meta graph with a SaverDef restores its variables when it loads: the
loader feeds `variables/variables` to `saver_def.filename_tensor_name` and
runs `saver_def.restore_op_name`. Every TF2 SavedModel has one (even
without variables, to restore its object graph); TF1 SavedModels have one
when they hold variables. Checked with TensorFlow 2.21 on copies of real
SavedModels without their `variables/` directory: `tf.saved_model.load`
fails (`Unsuccessful TensorSliceReader constructor: Failed to find any
matching files for .../variables/variables`), `tf.compat.v1.saved_model.load`
fails (`The passed save_path is not a valid checkpoint`), and the C++ loader
logs that no checkpoint was restored and goes on, so TensorFlow Serving's
warm-up or first request fails on uninitialized variables (`Could not find
variable kernel`, checked on its C++ loader through the C API). With the
index but no data shard every loader fails at load.

The directory check needs the SavedModel *directory* (`tflint export/1/`)
and wants `variables/variables.index` and at least one
`variables/variables.data-*` shard; it is reported once, on the first meta
graph that restores. For any meta graph (directory or not), a restore op or
filename tensor that names nothing in the graph is reported too: the
loader's `Session::Run` of it fails.

How to fix: copy the whole export directory, `variables/` included (and
`assets/`); re-export if the checkpoint was lost.

Okay:
  graph_def {
    node { name: "save/Const" op: "Const" attr { key: "dtype" value { type: DT_STRING } }
      attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape { } string_val: "model" } } } }
    node { name: "save/restore_all" op: "NoOp" }
  }
  saver_def {
    filename_tensor_name: "save/Const:0"
    save_tensor_name: "save/control_dependency:0"
    restore_op_name: "save/restore_all"
  }
Fail:
  graph_def {
    node { name: "save/Const" op: "Const" attr { key: "dtype" value { type: DT_STRING } }
      attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape { } string_val: "model" } } } }
  }
  saver_def {
    filename_tensor_name: "save/Const:0"
    save_tensor_name: "save/control_dependency:0"
    restore_op_name: "save/restore_all"   # missing-variables
  }
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from tflint.finding import Issue, Severity, at_saver
from tflint.tf.index import GraphIndex
from tflint.tf.serving import meta_graphs, resolve_tensor, tag_set_text

ID = "missing-variables"
CATEGORY = "serving"
DEFAULT_SEVERITY = Severity.ERROR
OPTIONS: dict[str, Any] = {}


def check(graph: GraphIndex, options: Mapping[str, Any]) -> Iterator[Issue]:
    """Yield an issue for a dangling restore op or filename tensor, and for a missing checkpoint."""
    meta = graph.meta_graph
    if meta is None or not _restores(meta):
        return
    saver = meta.saver_def
    restore = resolve_tensor(graph, saver.restore_op_name, operation=True)
    if restore.problem is not None:
        yield Issue(
            None,
            f"The SaverDef's restore_op_name {restore.problem}; the loader cannot restore variables",
            at=at_saver("restore_op_name"),
        )
    if saver.filename_tensor_name:
        filename = resolve_tensor(graph, saver.filename_tensor_name)
        if filename.problem is not None:
            yield Issue(
                filename.node,
                f"The SaverDef's filename_tensor_name {filename.problem}; the loader cannot feed it the checkpoint "
                "path",
                at=at_saver("filename_tensor_name"),
            )
    listing = graph.artifact.directory_listing() if graph.artifact is not None else None
    if listing is None or listing.has_checkpoint:
        return
    restoring = [other for other in meta_graphs(graph) if _restores(other)]
    if restoring[0] is not meta:
        return  # reported once, on the first meta graph that restores
    # Named relative to the SavedModel directory, which the finding's file (saved_model.pb) is in: an
    # absolute path would make the message as long as the directory's path.
    if not listing.has_variables_dir:
        what = "variables/ does not exist"
    elif "variables.index" not in listing.variables:
        what = "variables/variables.index does not exist"
    else:
        what = "variables/ has no variables.data-* shard"
    if "variables.index" in listing.variables:
        when = "every loader fails at load"
    else:
        when = "TF Serving's requests fail; Python loaders fail"
    needed = ", ".join(tag_set_text(other.meta_info_def.tags) for other in restoring)
    yield Issue(
        None,
        f"The SavedModel restores variables (restore op '{saver.restore_op_name}', meta graphs {needed}) but {what}: "
        + when,
        at=at_saver("restore_op_name"),
    )


def _restores(meta: Any) -> bool:
    return meta.HasField("saver_def") and bool(meta.saver_def.restore_op_name)
