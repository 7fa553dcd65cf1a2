"""Each warm-up request runs on the model: its signature, input names, dtypes and shapes are what the graph takes.

TF Serving runs every record of `assets.extra/tf_serving_warmup_requests`
when it loads the model and refuses the model when one fails. It compares
neither dtypes nor shapes with the SignatureDef: it checks the signature
name (default `serving_default`), the input count and names (Predict), the
method name (Classify, Regress), then feeds the request's tensors and runs
the graph. So the request is judged the way running it goes: its dtypes
against the tensors they are fed to, and its concrete shapes through the
shape inference of the signature's graph (functions included); a shape the
graph accepts passes even where the signature declares another. Checked
with TensorFlow 2.21 (TF Serving's warm-up emulated on the C++ loader's
session) on valid warm-up files and ones with a wrong signature (`Serving
signature key "nope" not found.`), input name (`input tensor alias not
found in signature: x_typo`), dtype (`Expects arg[0] to be float but int32
is provided`), shape (`Matrix size-incompatible: In[0]: [1,4], In[1]:
[3,4]`), and a classify request on a predict signature: each refuses the
model at load. A string tensor of rank 2 fed to a `[None]` lookup runs
fine, and passes. A request's tensor is built the way TF Serving builds it
(C++ `Tensor::FromProto`), which refuses it (`tensor parsing error: x`) for
a dtype it has no tensor for (none, a reference type, an unknown number),
more than 254 dimensions, a negative dimension, an element count past
int64, or a `tensor_content` of another size than the elements need. It
accepts a typed `float_val`, `int_val`, `string_val`, ... list of any
count (a short one is padded with its last value, a long one's surplus is
dropped, a list in another dtype's field reads as zeros), so those pass
here too, although Python's `tf.make_ndarray` refuses a long list. A tensor
too large for the server's memory also fails; that depends on the server
and is not judged. One finding per request (at most 20).

Needs the SavedModel *directory*; reported on the meta graph TF Serving
loads (tags `{ serve }`). Records that cannot be read are `warmup-record`'s.

How to fix: regenerate the warm-up requests from the exported signature
(`saved_model_cli show` lists its inputs).

Okay (directory):
  graph_def {
    node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "y" op: "Identity" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
  }
  signature_def {
    key: "serving_default"
    value {
      inputs { key: "x" value { name: "x:0" dtype: DT_FLOAT } }
      outputs { key: "y" value { name: "y:0" dtype: DT_FLOAT } }
      method_name: "tensorflow/serving/predict"
    }
  }
Fail (directory):
  graph_def {
    node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "y" op: "Identity" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
  }
  signature_def {
    key: "serving_default"   # warmup-request
    value {
      inputs { key: "x" value { name: "x:0" dtype: DT_FLOAT } }
      outputs { key: "y" value { name: "y:0" dtype: DT_FLOAT } }
      method_name: "tensorflow/serving/predict"
    }
  }
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from tflint.finding import Issue, Severity, at_signature, at_tags
from tflint.rules.warmup_record import is_served
from tflint.tf.index import GraphIndex
from tflint.tf.warmup import WARMUP_FILE, judge_request

ID = "warmup-request"
CATEGORY = "serving"
DEFAULT_SEVERITY = Severity.ERROR
OPTIONS: dict[str, Any] = {}
# The Okay example's request sends float, the Fail example's int32.
EXAMPLE_FILES = {
    "warmup": [{"signature": "", "inputs": {"x": ("DT_FLOAT", [1, 2])}}],
    "Fail": {"warmup": [{"signature": "", "inputs": {"x": ("DT_INT32", [1, 2])}}]},
}
MAX_REPORTED = 20


def check(graph: GraphIndex, options: Mapping[str, Any]) -> Iterator[Issue]:
    """Yield an issue per warm-up request TF Serving would refuse (its API checks, or running it)."""
    files = graph.artifact.saved_model_files() if graph.artifact is not None else None
    if files is None or files.warmup is None or not is_served(graph):
        return
    reported = 0
    for request in files.warmup.requests:
        refusal = judge_request(graph, request.kind, request.signature_name, request.inputs, request.tasks)
        if refusal is None:
            continue
        reported += 1
        if reported > MAX_REPORTED:
            return
        signature = request.signature_name or "serving_default"
        yield Issue(
            None,
            f"{WARMUP_FILE} record {request.number} ({request.kind} on '{signature}'): {refusal.text()}; "
            "the model never serves (warm-up runs at load)",
            at=at_signature(signature) + at_tags(),
        )
