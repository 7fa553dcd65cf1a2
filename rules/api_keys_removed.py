"""A classify or regress signature lost a key TensorFlow Serving's Classify or Regress API needs.

The Classify and Regress APIs do not name tensors: they feed serialized
`tf.Example`s to the input `inputs`, and read the outputs `classes` and/or
`scores` (classify) or `outputs` (regress). A new version whose signature no
longer has such a key that the old one had fails every call of that API
(the server finds no tensor to feed, or no result to return), even if the
same tensor is there under another key.

Compared for signatures whose method is classify or regress in both
versions; `input-removed` and `output-removed` report the other keys.

How to fix: keep the API's keys (`tf.compat.v1.saved_model.classification_signature_def`
and `regression_signature_def` build them), and add other outputs beside them.

Okay:
  meta_info_def { tags: "serve" }
  signature_def { key: "serving_default" value {
    inputs { key: "inputs" value { name: "x:0" dtype: DT_STRING } }
    outputs { key: "outputs" value { name: "y:0" dtype: DT_FLOAT } }
    method_name: "tensorflow/serving/regress" } }
  ---
  meta_info_def { tags: "serve" }
  signature_def { key: "serving_default" value {
    inputs { key: "inputs" value { name: "x:0" dtype: DT_STRING } }
    outputs { key: "outputs" value { name: "y:0" dtype: DT_FLOAT } }
    method_name: "tensorflow/serving/regress" } }
Fail:
  meta_info_def { tags: "serve" }
  signature_def { key: "serving_default" value {
    inputs { key: "inputs" value { name: "x:0" dtype: DT_STRING } }
    outputs { key: "outputs" value { name: "y:0" dtype: DT_FLOAT } }
    method_name: "tensorflow/serving/regress" } }
  ---
  meta_info_def { tags: "serve" }
  signature_def { key: "serving_default" value {   # api-keys-removed
    inputs { key: "inputs" value { name: "x:0" dtype: DT_STRING } }
    outputs { key: "prediction" value { name: "y:0" dtype: DT_FLOAT } }
    method_name: "tensorflow/serving/regress" } }
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from tflint.finding import Issue, Severity
from tflint.tf.compat import CLASSIFY, VersionPair, api_keys, at_signature, element, shown

ID = "api-keys-removed"
CATEGORY = "compat"
DEFAULT_SEVERITY = Severity.ERROR
OPTIONS: dict[str, Any] = {}


def check(pair: VersionPair, options: Mapping[str, Any]) -> Iterator[Issue]:
    """Yield an issue for each Classify/Regress API key the old signature had and the new one lacks."""
    for meta, old, new in pair.common_signatures():
        if old.method_name != new.method_name:
            continue
        api = "Classify" if new.method_name == CLASSIFY else "Regress"
        for direction in ("inputs", "outputs"):
            before, after = getattr(old, direction), getattr(new, direction)
            for key in api_keys(new, direction):
                if key in before and key not in after:
                    others = ", ".join(f"'{shown(other)}'" for other in sorted(set(after) - set(before)))
                    now = f" (it has {others} instead)" if others else ""
                    yield Issue(
                        None,
                        f"{element(old.key, direction, key)} is in {shown(pair.old.name)} but not in "
                        f"{shown(pair.new.name)}{now}: TensorFlow Serving's {api} API needs it, "
                        f"so every {api} call fails",
                        where=at_signature(meta, old.key),
                    )
