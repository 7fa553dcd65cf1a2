"""An output of a signature in the old version is missing from the new one (removed or renamed).

A request may name the outputs it wants (`output_filter` in TensorFlow
Serving's Predict API: "output tensor alias not found in signature"), and a
client reads the outputs of the response by key: an output the new version
no longer returns breaks both. An output renamed (one key gone, one come,
with the same dtype and shape) is reported once, as a rename.

Outputs that TensorFlow Serving's Classify and Regress APIs look up
(`classes`, `scores`, `outputs`) are left to `api-keys-removed`.

How to fix: keep returning the old key (it may name the same tensor as a
new one), or move every client off it first.

Okay:
  meta_info_def { tags: "serve" }
  signature_def { key: "serving_default" value {
    outputs { key: "y" value { name: "y:0" dtype: DT_FLOAT } }
    method_name: "tensorflow/serving/predict" } }
  ---
  meta_info_def { tags: "serve" }
  signature_def { key: "serving_default" value {
    outputs { key: "y" value { name: "y:0" dtype: DT_FLOAT } }
    outputs { key: "z" value { name: "z:0" dtype: DT_FLOAT } }
    method_name: "tensorflow/serving/predict" } }
Fail:
  meta_info_def { tags: "serve" }
  signature_def { key: "serving_default" value {
    outputs { key: "y" value { name: "y:0" dtype: DT_FLOAT } }
    outputs { key: "z" value { name: "z:0" dtype: DT_INT64 } }
    method_name: "tensorflow/serving/predict" } }
  ---
  meta_info_def { tags: "serve" }
  signature_def { key: "serving_default" value {   # output-removed
    outputs { key: "y" value { name: "y:0" dtype: DT_FLOAT } }
    method_name: "tensorflow/serving/predict" } }
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from tflint.finding import Issue, Severity
from tflint.tf.compat import VersionPair, api_keys, at_signature, at_tensor, element, renamed, shown

ID = "output-removed"
CATEGORY = "compat"
DEFAULT_SEVERITY = Severity.ERROR
OPTIONS: dict[str, Any] = {}


def check(pair: VersionPair, options: Mapping[str, Any]) -> Iterator[Issue]:
    """Yield an issue for each output key of the old version's signature that the new one lacks."""
    old_name, new_name = shown(pair.old.name), shown(pair.new.name)
    for meta, old, new in pair.common_signatures():
        renames = renamed(old.outputs, new.outputs)
        covered = api_keys(new, "outputs") if new.method_name == old.method_name else ()
        for key in sorted(set(old.outputs) - set(new.outputs)):
            if key in covered:
                continue
            subject = element(old.key, "outputs", key)
            if key in renames:
                target = renames[key]
                yield Issue(
                    new.outputs[target].node,
                    f"{subject} is renamed '{shown(target)}' in {new_name} (same dtype and shape): "
                    f"clients reading '{shown(key)}' break",
                    where=at_tensor(meta, old.key, "outputs", target),
                )
            else:
                yield Issue(
                    None,
                    f"{subject} is in {old_name} but not in {new_name}: clients reading it break, "
                    "requests asking for it are rejected (output tensor alias not found in signature)",
                    where=at_signature(meta, old.key),
                )
