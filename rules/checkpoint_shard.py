"""Every data shard the restored checkpoint entries live in exists, and holds each entry whole.

A checkpoint's values are in `variables/variables.data-NNNNN-of-MMMMM`; the
index says, for each key, which shard and where (offset and size). Only
the shards' sizes are read for this check, never their bytes. Checked with
TensorFlow 2.21 on SavedModels with a shard deleted or truncated: every
loader fails at load (`.../variables.data-00000-of-00001; No such file or
directory`, `Read less bytes than requested`), the sharded ones too.

Reported as an **error** for the entries the restore op reads; an entry
nothing restores, in a missing or short shard, is a **warning**: no loader
reads it, but the checkpoint is damaged. So is a shard the header counts
that is missing while no entry is in it (TensorFlow opens a shard only to
read an entry). Needs the SavedModel *directory*.

How to fix: copy `variables/` again from the export, every shard of it.

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
      attr { key: "dtypes" value { list { type: DT_FLOAT } } } }
    node { name: "save/restore_all" op: "NoOp" input: "^save/RestoreV2" }
  }
  saver_def {
    filename_tensor_name: "save/Const:0" save_tensor_name: "save/Const:0"
    restore_op_name: "save/restore_all"   # checkpoint-shard
  }
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from typing import Any

from tflint.finding import Issue, Severity, at_saver
from tflint.tf.checkpoint import restored_keys, shard_name
from tflint.tf.index import GraphIndex

ID = "checkpoint-shard"
CATEGORY = "serving"
DEFAULT_SEVERITY = Severity.ERROR
OPTIONS: dict[str, Any] = {}
# The shards a header counts are compared with the directory up to this many (a header may say 2**31).
MAX_SHARDS_LISTED = 100_000
EXAMPLE_FILES = {
    "checkpoint": {"w": ("DT_FLOAT", [2])},
    "Fail": {"truncate": "variables/variables.data-00000-of-00001"},
}


def check(graph: GraphIndex, options: Mapping[str, Any]) -> Iterator[Issue]:
    """Yield an issue per shard that is missing or too short for the entries in it (restored ones first)."""
    files = graph.artifact.saved_model_files() if graph.artifact is not None else None
    if files is None or files.checkpoint is None or files.checkpoint.problem is not None:
        return
    index = files.checkpoint
    header = index.header
    if header is None or header.num_shards < 1:
        return
    restored = {item.key for item in restored_keys(graph)}
    if not restored:
        return
    sizes = files.listing.variable_sizes
    if not any(name.startswith("variables.data-") for name in sizes):
        return  # no data shard at all: missing-variables' finding
    where = at_saver("restore_op_name")
    # Per shard: the entries past its end (or all of them when it is missing), restored ones first.
    short: dict[int, list[Any]] = {}
    for entry in index.entries.values():
        if entry.size <= 0 and entry.shard_id == 0:
            continue  # nothing to read (an empty tensor)
        name = os.path.basename(shard_name("variables", entry.shard_id, header.num_shards))
        size = sizes.get(name)
        if not 0 <= entry.shard_id < header.num_shards or size is None or entry.offset + entry.size > size:
            short.setdefault(entry.shard_id, []).append(entry)
    for shard_id, entries in sorted(short.items()):
        name = shard_name("variables/variables", shard_id, header.num_shards)
        read = [entry for entry in entries if entry.key in restored]
        keys = read or entries
        size = sizes.get(os.path.basename(name))
        if not 0 <= shard_id < header.num_shards:
            what = f"shard {shard_id}, which the header's {header.num_shards} shards do not include"
        elif size is None:
            what = f"{name}, which does not exist"
        else:
            end = max(entry.offset + entry.size for entry in keys)
            what = f"{name}, which is {size:,} bytes; they need {end:,}"
        first = keys[0].key
        more = f" and {len(keys) - 1} more" if len(keys) > 1 else ""
        if read:
            yield Issue(
                None,
                f"Checkpoint key '{first}'{more} that the restore op reads {'are' if more else 'is'} in {what}: "
                "every loader fails at load ('No such file or directory' / 'Read less bytes than requested')",
                at=where,
            )
        else:
            yield Issue(
                None,
                f"Checkpoint key '{first}'{more}, which nothing restores, {'are' if more else 'is'} in {what}: "
                "the checkpoint is damaged, though no loader reads these",
                at=where,
                lesser=True,
            )
    # Shards the header counts that no entry is in: TensorFlow opens a shard only for an entry it
    # reads, so a missing one fails nothing, but the export is incomplete.
    empty = [
        shard_id
        for shard_id in range(min(header.num_shards, MAX_SHARDS_LISTED))
        if shard_id not in short and shard_name("variables", shard_id, header.num_shards) not in sizes
    ]
    if empty:
        first = shard_name("variables/variables", empty[0], header.num_shards)
        more = f" and {len(empty) - 1:,} more do" if len(empty) > 1 else " does"
        yield Issue(
            None,
            f"The index's header counts {header.num_shards:,} data shards but {first}{more} not exist; no entry is "
            "in them, so loaders do not open them",
            at=where,
            lesser=True,
        )
