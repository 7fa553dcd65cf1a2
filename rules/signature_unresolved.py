"""Every SignatureDef input and output names a tensor that exists in the meta graph's graph.

A model server answers a request by feeding and fetching the tensor names
of a SignatureDef (`Session::Run`), so every TensorInfo `name` (and each
tensor of a sparse or composite TensorInfo) must be `node:index` with a
top-level node of that name and an index below its output count. In TF2
SavedModels signatures point at the outputs of a `StatefulPartitionedCall`
/ `PartitionedCall` node; its output count is the called function's, looked
up in the function library. The init-op signature (`__saved_model_init_op`)
names an op to run, which only has to exist.

TensorFlow does not check this when it writes or imports the graph. Checked
with TensorFlow 2.21 on broken copies of real SavedModels:
`tf.saved_model.load` fails on a TF1 SavedModel (`The name 'nope:0' refers
to a Tensor which does not exist`; `The operation, 'y', exists but only has
1 outputs`), `tf.compat.v1.saved_model.load` returns and the first
`Session.run` of the signature fails the same way, and TensorFlow Serving
fails every request to the signature. (`tf.saved_model.load` of a TF2
SavedModel rebuilds signatures from its object graph and does not notice,
which is how such a model reaches production.) Meta graphs without
signatures, and plain GraphDefs, are not checked.

Findings point at the TensorInfo's `name` in text files and name the
producing node when it exists; the meta graph (tags) is in the location.

How to fix: re-export the signature from the tensors the model really
computes (`tf.saved_model.save(..., signatures=...)`, or
`build_tensor_info(tensor)` in TF1), or correct the name.

Okay:
  graph_def {
    node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "y" op: "Identity" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
    node { name: "init" op: "NoOp" }
  }
  signature_def {
    key: "serving_default"
    value {
      inputs { key: "x" value { name: "x:0" dtype: DT_FLOAT } }
      outputs { key: "y" value { name: "y:0" dtype: DT_FLOAT } }
      method_name: "tensorflow/serving/predict"
    }
  }
  signature_def {
    key: "__saved_model_init_op"
    value { outputs { key: "__saved_model_init_op" value { name: "init" } } }
  }
Fail:
  graph_def {
    node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "y" op: "Identity" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
  }
  signature_def {
    key: "serving_default"
    value {
      inputs { key: "x" value { name: "input:0" dtype: DT_FLOAT } }   # signature-unresolved
      outputs { key: "y" value { name: "y:1" dtype: DT_FLOAT } }   # signature-unresolved
    }
  }
  signature_def {
    key: "__saved_model_init_op"
    value { outputs { key: "__saved_model_init_op" value { name: "init" } } }   # signature-unresolved
  }
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from tflint.finding import Issue, Severity, at_signature_entry
from tflint.tf.index import GraphIndex
from tflint.tf.serving import resolve_tensor, signature_tensors

ID = "signature-unresolved"
CATEGORY = "serving"
DEFAULT_SEVERITY = Severity.ERROR
OPTIONS: dict[str, Any] = {}


def check(graph: GraphIndex, options: Mapping[str, Any]) -> Iterator[Issue]:
    """Yield an issue for each signature tensor name that names no node or an output the node lacks."""
    if graph.meta_graph is None:
        return
    for item in signature_tensors(graph.meta_graph):
        resolved = resolve_tensor(graph, item.name, operation=item.is_op)
        if resolved.problem is None:
            continue
        subject = item.describe()
        if item.is_op:
            subject = f"Init op signature '{item.signature}'"
            problem = resolved.problem.replace("names '", "names op '", 1)
        else:
            subject = subject[0].upper() + subject[1:]
            problem = resolved.problem
        yield Issue(
            resolved.node, f"{subject} {problem}", at=at_signature_entry(item.signature, item.direction, item.key)
        )
