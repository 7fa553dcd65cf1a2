"""TF Serving's warm-up file (`assets.extra/tf_serving_warmup_requests`) reads as TFRecords of PredictionLogs.

TF Serving reads the warm-up file when it loads the model, with
TensorFlow's TFRecord reader (each record's length and data carry a masked
CRC-32C), parses each record as a `PredictionLog`, and refuses the model at
the first record it cannot read or parse, or past 1000 records. Checked
with TensorFlow 2.21 (TF Serving's warm-up emulated on the C++ loader's
session): a flipped CRC byte gives `corrupted record at 12. Please verify
your warmup data is in TFRecord format.`, a cut file `truncated record at
0`, and bytes that are no PredictionLog `Failed to parse warmup record`;
the model never serves. An empty file is fine (no requests). Python
loaders do not read the file at all.

tflint reads warm-up files of up to 64 MB; a larger one is reported as not
read (`warmup-record`, a warning), never passed silently. The records' data
is checksummed up to 16 MB (the framing of every record is checked): a
damaged byte past that in a big file of images is not seen. Needs the
SavedModel *directory*; reported on the tags of the meta graph TF Serving
loads (`{ serve }`).

How to fix: write the file with `tf.io.TFRecordWriter`, one
`PredictionLog.SerializeToString()` per record, at most 1000 records.

Okay (directory):
  meta_info_def { tags: "serve" }
  graph_def { node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } } }
  signature_def { key: "serving_default" value { method_name: "tensorflow/serving/predict" } }
Fail (directory):
  meta_info_def { tags: "serve" }   # warmup-record
  graph_def { node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } } }
  signature_def { key: "serving_default" value { method_name: "tensorflow/serving/predict" } }
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from tflint.finding import Issue, Severity, at_tags
from tflint.tf.index import GraphIndex
from tflint.tf.serving import meta_graphs
from tflint.tf.warmup import WARMUP_FILE

ID = "warmup-record"
CATEGORY = "serving"
DEFAULT_SEVERITY = Severity.ERROR
OPTIONS: dict[str, Any] = {}
EXAMPLE_FILES = {"warmup": [{"signature": "", "inputs": {}}], "Fail": {"flip": WARMUP_FILE}}
SERVING_TAGS = frozenset({"serve"})


def check(graph: GraphIndex, options: Mapping[str, Any]) -> Iterator[Issue]:
    """Yield one issue when the warm-up file cannot be read the way TF Serving reads it."""
    files = graph.artifact.saved_model_files() if graph.artifact is not None else None
    problem = files.warmup.problem if files is not None and files.warmup is not None else None
    if problem is None or not is_served(graph):
        return
    unread = problem.startswith("tflint could not read")
    yield Issue(
        None,
        f"{WARMUP_FILE}: {problem}"
        + ("; its requests are not checked" if unread else "; TF Serving refuses the model at load (warm-up)"),
        at=at_tags(),
        lesser=unread,
    )


def is_served(graph: GraphIndex) -> bool:
    """Whether this meta graph is the one TF Serving loads: tagged exactly { serve }, else the first with serve."""
    meta = graph.meta_graph
    if meta is None:
        return False
    metas = meta_graphs(graph)
    exact = [other for other in metas if set(other.meta_info_def.tags) == SERVING_TAGS]
    chosen = exact or [other for other in metas if "serve" in other.meta_info_def.tags] or metas[:1]
    return chosen[0] is meta
