"""An input or output of a signature changed its dtype (or its encoding) between versions.

Clients build request tensors of the declared input dtypes (TensorFlow
Serving's REST API encodes JSON by them) and decode outputs by the declared
output dtypes. An input whose dtype changed refuses what old clients send
("Expects arg[0] to be double but float is provided"); an output whose dtype
changed hands old clients values of another type. A tensor that turned from
dense to sparse or composite (or back) is read and fed differently too.

How to fix: cast inside the model (`tf.cast` the new input to what the
graph needs; cast the output back), or export the change under a new key.

Okay:
  meta_info_def { tags: "serve" }
  signature_def { key: "serving_default" value {
    inputs { key: "x" value { name: "x:0" dtype: DT_FLOAT } }
    method_name: "tensorflow/serving/predict" } }
  ---
  meta_info_def { tags: "serve" }
  signature_def { key: "serving_default" value {
    inputs { key: "x" value { name: "serving_default_x:0" dtype: DT_FLOAT } }
    method_name: "tensorflow/serving/predict" } }
Fail:
  meta_info_def { tags: "serve" }
  signature_def { key: "serving_default" value {
    inputs { key: "x" value { name: "x:0" dtype: DT_FLOAT } }
    outputs { key: "y" value { name: "y:0" dtype: DT_FLOAT } }
    method_name: "tensorflow/serving/predict" } }
  ---
  meta_info_def { tags: "serve" }
  signature_def { key: "serving_default" value {
    inputs { key: "x" value { name: "x:0" dtype: DT_DOUBLE } }   # dtype-changed
    outputs { key: "y" value { name: "y:0" dtype: DT_INT32 } }   # dtype-changed
    method_name: "tensorflow/serving/predict" } }
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from tflint.finding import Issue, Severity
from tflint.tf.compat import VersionPair, at_tensor, change, element
from tflint.tf.op_signatures import dtype_name

ID = "dtype-changed"
CATEGORY = "compat"
DEFAULT_SEVERITY = Severity.ERROR
OPTIONS: dict[str, Any] = {}

_ENCODINGS = {"name": "dense", "coo_sparse": "sparse (COO)", "composite_tensor": "composite"}


def check(pair: VersionPair, options: Mapping[str, Any]) -> Iterator[Issue]:
    """Yield an issue for each input or output, present in both versions, whose dtype or encoding differs."""
    for meta, old, new in pair.common_signatures():
        for direction in ("inputs", "outputs"):
            before, after = getattr(old, direction), getattr(new, direction)
            for key in sorted(set(before) & set(after)):
                was, now = before[key], after[key]
                subject = element(old.key, direction, key)
                if was.encoding != now.encoding:
                    values = change(pair, _ENCODINGS[was.encoding], _ENCODINGS[now.encoding])
                    yield Issue(
                        now.node,
                        f"{subject}: encoding {values}: clients {_verb(direction)} it the old way break",
                        where=at_tensor(meta, old.key, direction, key),
                    )
                elif was.dtype != now.dtype:
                    values = change(pair, dtype_name(was.dtype), dtype_name(now.dtype))
                    if direction == "inputs":
                        consequence = f"requests sending {dtype_name(was.dtype)} are rejected"
                    else:
                        consequence = f"clients reading {dtype_name(was.dtype)} get {dtype_name(now.dtype)}"
                    yield Issue(
                        now.node,
                        f"{subject}: dtype {values}: {consequence}",
                        where=at_tensor(meta, old.key, direction, key, "dtype"),
                    )


def _verb(direction: str) -> str:
    return "feeding" if direction == "inputs" else "reading"
