"""An input or output of a signature changed its declared shape in a way its clients notice.

A signature's shapes are part of its contract. TF2's signature functions
(`tf.saved_model.load(path).signatures[key]`) refuse a request whose tensor
does not fit them ("Can not cast TensorSpec(shape=(2, 8, 8, 3)) to
TensorSpec(shape=(1, 8, 8, 3))"), clients and tools build requests from them
(TensorFlow Serving's model metadata, `saved_model_cli`), and a graph traced
for a pinned size (reshapes, XLA or TPU compilation) fails on any other.
(TensorFlow Serving's `Session::Run` feeds whatever arrives, so a graph that
happens to work on other sizes keeps serving them there.) An input that pins
a dimension the old version left open (`[-1,224,224,3]` to `[1,224,224,3]`:
the batch fixed at 1), changes a known size or its rank no longer accepts
what old clients send. For outputs it is the other way round: old clients
read what the old shape promised.

Reported as an **error** when requests of old clients are rejected (an
input's rank, a known size, an open dimension pinned) or outputs no longer
have the promised rank or sizes; as a **warning** when an output promises
less than before (a known size or rank now open: clients relying on it may
break); as **info** when the new shape accepts more (an input dimension or
rank opened) or promises more (an output dimension now known). The rule's
levels, unless you configure one.

How to fix: keep the open dimension open (`None` in the `TensorSpec` of
the `@tf.function` signature), and reshape inside the model; export other
shapes under a new key.

Okay:
  meta_info_def { tags: "serve" }
  signature_def { key: "serving_default" value {
    inputs { key: "image" value { name: "image:0" dtype: DT_FLOAT tensor_shape {
      dim { size: -1 } dim { size: 224 } dim { size: 224 } dim { size: 3 } } } }
    method_name: "tensorflow/serving/predict" } }
  ---
  meta_info_def { tags: "serve" }
  signature_def { key: "serving_default" value {
    inputs { key: "image" value { name: "image:0" dtype: DT_FLOAT tensor_shape {
      dim { size: -1 } dim { size: 224 } dim { size: 224 } dim { size: 3 } } } }
    method_name: "tensorflow/serving/predict" } }
Fail:
  meta_info_def { tags: "serve" }
  signature_def { key: "serving_default" value {
    inputs { key: "image" value { name: "image:0" dtype: DT_FLOAT tensor_shape {
      dim { size: -1 } dim { size: 224 } dim { size: 224 } dim { size: 3 } } } }
    method_name: "tensorflow/serving/predict" } }
  ---
  meta_info_def { tags: "serve" }
  signature_def { key: "serving_default" value {
    inputs { key: "image" value { name: "image:0" dtype: DT_FLOAT tensor_shape {   # shape-changed
      dim { size: 1 } dim { size: 224 } dim { size: 224 } dim { size: 3 } } } }
    method_name: "tensorflow/serving/predict" } }
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from tflint.finding import Issue, Severity
from tflint.tf.compat import (
    VersionPair,
    at_tensor,
    change,
    element,
    input_shape_change,
    output_shape_change,
    shape_text,
)

ID = "shape-changed"
CATEGORY = "compat"
DEFAULT_SEVERITY = Severity.ERROR
OPTIONS: dict[str, Any] = {}

_SEVERITY = {"breaking": Severity.ERROR, "risky": Severity.WARNING, "relaxed": Severity.INFO}


def check(pair: VersionPair, options: Mapping[str, Any]) -> Iterator[Issue]:
    """Yield an issue for each input or output, dense in both versions, whose declared shape changed."""
    for meta, old, new in pair.common_signatures():
        for direction in ("inputs", "outputs"):
            compare = input_shape_change if direction == "inputs" else output_shape_change
            before, after = getattr(old, direction), getattr(new, direction)
            for key in sorted(set(before) & set(after)):
                was, now = before[key], after[key]
                if was.encoding != now.encoding:
                    continue  # dtype-changed reports it
                found = compare(was.shape, now.shape)
                if found is None:
                    continue
                values = change(pair, shape_text(was.shape), shape_text(now.shape))
                yield Issue(
                    now.node,
                    f"{element(old.key, direction, key)}: shape {values}: {'; '.join(found.reasons)}",
                    where=at_tensor(meta, old.key, direction, key, "shape"),
                    severity=_SEVERITY[found.kind],
                )
