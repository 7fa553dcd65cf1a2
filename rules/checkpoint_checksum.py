"""Every restored checkpoint entry's bytes match the CRC-32C the index records (`--verify-checksums`).

TensorFlow computes the CRC-32C of each tensor it restores and compares it
with the one in the index: a flipped bit in a data shard fails every loader
at load (checked with TensorFlow 2.21: `TensorBundle at .../variables shard
0 (48 bytes): Checksum does not match: stored 1577032937 vs. calculated on
the restored bytes 2420422798`). String tensors are checksummed as
TensorFlow does it: over each element's length as a 4-byte number (not the
varints stored), then the stored length checksum and the bytes. Variant
tensors (a `tf.data` iterator's state, a TensorList variable) too: over
each element's length as an 8-byte number, its bytes, and the running
checksum stored after it; an element whose stored checksum or length is
wrong is reported with TensorFlow's words (`The checksum after Variant 0
does not match`). Checked with TF 2.21 on a checkpoint it wrote: every byte
flipped in a variant entry fails its restore, and is reported.

Off by default: it reads every byte of the data shards (the other
checkpoint rules read only the index and the shards' sizes). Turn it on
with `--verify-checksums` (or the rule's level); a long read shows a
progress line on a terminal, and bench/crc32c.py measures the throughput of
the pure-Python CRC (tens of MB/s). Reported as an **error** for entries the
restore op reads, a **warning** for the others. Needs the SavedModel
*directory*.

How to fix: copy `variables/` again from the export (the bytes were damaged
in storage or transfer), or re-export the model.

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
    restore_op_name: "save/restore_all"   # checkpoint-checksum
  }
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from tflint.finding import Issue, Severity, at_saver
from tflint.tf.checkpoint import restored_keys
from tflint.tf.index import GraphIndex

ID = "checkpoint-checksum"
CATEGORY = "serving"
DEFAULT_SEVERITY = Severity.OFF
# Off for its cost (every shard byte is read), not its gravity: selected, it is an error.
SELECTED_SEVERITY = Severity.ERROR
OPTIONS: dict[str, Any] = {}
EXAMPLE_FILES = {"checkpoint": {"w": ("DT_FLOAT", [2])}, "Fail": {"flip": "variables/variables.data-00000-of-00001"}}
# What the planner knows: it reads the data shards.
COST = 10


def check(graph: GraphIndex, options: Mapping[str, Any]) -> Iterator[Issue]:
    """Yield an issue per entry whose bytes do not have the recorded CRC-32C (reads every shard byte, once)."""
    restored = {item.key for item in restored_keys(graph)}
    if not restored:
        return
    results = graph.artifact.checkpoint_checksums() if graph.artifact is not None else None
    if results is None:
        return
    where = at_saver("restore_op_name")
    for result in results:
        if result.matches or (result.problem is not None and not result.damaged):
            continue  # a short or missing shard is checkpoint-shard's finding
        entry = result.entry
        read = entry.key in restored
        what = result.problem or (
            f"Checksum does not match: stored {entry.crc32c} vs. calculated on the restored bytes {result.actual}"
        )
        yield Issue(
            None,
            f"Checkpoint key '{entry.key}' ({entry.size:,} bytes in shard {entry.shard_id}): {what}"
            + ("; every loader fails at load" if read else "; nothing restores it"),
            at=where,
            lesser=not read,
        )
