"""A SignatureDef's dtypes match the tensors it names, and what TensorFlow Serving's APIs feed and expect.

Each TensorInfo carries a `dtype` that clients and servers trust without
looking at the graph: TensorFlow Serving's REST API encodes the JSON of a
predict request into tensors of the signature's input dtypes, and its model
metadata (and `saved_model_cli show`) report them. TensorFlow's loaders
never compare them with the graph: with TensorFlow 2.21,
`tf.saved_model.load` and `tf.compat.v1.saved_model.load` accept a
signature declaring `DT_INT32` for a float placeholder, and a gRPC client
that sends float still works, but REST requests are encoded as int32
tensors, which the float placeholder refuses when the session runs.

Reported as an **error**: an *input* of a predict signature (or one with
another method name) whose declared dtype differs from the tensor it names
(`float_ref` and `float` count as equal).

Reported as a **warning** (the rule's levels, unless you configure one):

- a declared dtype that differs on an *output*, or on an input of a
  classify or regress signature: nothing fails, but every client reading
  the signature is told the wrong type (TensorFlow Serving's own
  `half_plus_three` test model declares its serialized-Example input as
  `DT_FLOAT`);
- a classify or regress signature whose tensors do not fit that API:
  TensorFlow Serving's Classify and Regress APIs feed serialized
  `tf.Example`s, so the `inputs` tensor must be a string, and reject
  `scores` or regress `outputs` that are not float (`Expected scores Tensor
  of DT_FLOAT`) and `classes` that are not strings (`Expected classes Tensor
  of DT_STRING`). The Predict API still runs such a signature: it accepts
  classify and regress signatures too (TensorFlow's own `half_plus_two`
  test models have a classify signature with a float input).

Init-op signatures, names that do not resolve (`signature-unresolved`) and
tensors whose type cannot be computed are skipped; TF2 call nodes take their
types from the called function.

How to fix: rebuild the TensorInfo from the tensor itself
(`tf.compat.v1.saved_model.build_tensor_info(t)`), or fix the dtype field.

Okay:
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
Fail:
  graph_def {
    node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "y" op: "Identity" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
  }
  signature_def {
    key: "serving_default"
    value {
      inputs { key: "x" value { name: "x:0" dtype: DT_INT32 } }   # signature-dtype
      outputs { key: "y" value { name: "y:0" dtype: DT_DOUBLE } }   # signature-dtype
      method_name: "tensorflow/serving/predict"
    }
  }
  signature_def {
    key: "regress"
    value {
      inputs { key: "inputs" value { name: "x:0" dtype: DT_STRING } }   # signature-dtype
      outputs { key: "outputs" value { name: "y:0" dtype: DT_FLOAT } }
      method_name: "tensorflow/serving/regress"
    }
  }
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from tflint.finding import Issue, Severity, at_signature_entry
from tflint.tf.index import GraphIndex
from tflint.tf.op_signatures import dtype_name
from tflint.tf.serving import (
    SignatureTensor,
    base_type,
    resolve_tensor,
    signature_tensors,
)

ID = "signature-dtype"
CATEGORY = "serving"
DEFAULT_SEVERITY = Severity.ERROR
OPTIONS: dict[str, Any] = {}

CLASSIFY = "tensorflow/serving/classify"
REGRESS = "tensorflow/serving/regress"
DT_FLOAT = 1
DT_STRING = 7

# What TensorFlow Serving's classify / regress APIs feed or require, by (method, direction, key).
_API_TYPES = {
    (CLASSIFY, "inputs", "inputs"): (DT_STRING, "the classify API feeds it serialized tf.Example strings"),
    (REGRESS, "inputs", "inputs"): (DT_STRING, "the regress API feeds it serialized tf.Example strings"),
    (CLASSIFY, "outputs", "classes"): (DT_STRING, "the classify API rejects classes that are not strings"),
    (CLASSIFY, "outputs", "scores"): (DT_FLOAT, "the classify API rejects scores that are not float"),
    (REGRESS, "outputs", "outputs"): (DT_FLOAT, "the regress API rejects outputs that are not float"),
}


def check(graph: GraphIndex, options: Mapping[str, Any]) -> Iterator[Issue]:
    """Yield an issue for each declared dtype that differs from the tensor's, and each API type misfit."""
    meta = graph.meta_graph
    if meta is None:
        return
    for item in signature_tensors(meta):
        if item.is_op or item.part.endswith(("indices", "dense_shape")):
            continue  # an op to run; sparse indices and shapes are int64 by construction
        resolved = resolve_tensor(graph, item.name)
        if resolved.problem is not None or resolved.types is None or resolved.node is None:
            continue
        actual = resolved.types[resolved.index]
        method = meta.signature_def[item.signature].method_name
        subject = item.describe()
        subject = subject[0].upper() + subject[1:]
        producer = f"'{item.name}' ({resolved.node.op})"
        required = _API_TYPES.get((method, item.direction, item.key)) if not item.part else None
        if required is not None and base_type(actual) != required[0]:
            where = at_signature_entry(item.signature, item.direction, item.key)
            yield Issue(
                resolved.node,
                f"{subject} is {producer}, a {dtype_name(base_type(actual))} tensor, but {required[1]}",
                at=where,
                severity=Severity.WARNING,
            )
            continue
        declared = item.info.dtype
        if base_type(declared) == base_type(actual):
            continue
        where = at_signature_entry(item.signature, item.direction, item.key, "dtype")
        stated = "declares no dtype (DT_INVALID)" if declared == 0 else f"declares dtype {dtype_name(declared)}"
        yield Issue(
            resolved.node,
            f"{subject} {stated}, but {producer} is {dtype_name(actual)}",
            at=where,
            severity=_severity(item, method),
        )


def _severity(item: SignatureTensor, method: str) -> Severity:
    """Inputs of predict-style signatures decide how REST requests are encoded; the rest only mislead."""
    if item.direction == "inputs" and method not in (CLASSIFY, REGRESS):
        return Severity.ERROR
    return Severity.WARNING
