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
from tflint.tf.compat import VersionPair, at_signature, at_tensor, element, removed_keys, shown

ID = "output-removed"
CATEGORY = "compat"
DEFAULT_SEVERITY = Severity.ERROR
OPTIONS: dict[str, Any] = {}


def check(pair: VersionPair, options: Mapping[str, Any]) -> Iterator[Issue]:
    """Yield an issue for each output key of the old version's signature that the new one lacks."""
    old_name, new_name = shown(pair.old.name), shown(pair.new.name)
    for removal in removed_keys(pair, "outputs"):
        subject = element(removal.signature, "outputs", removal.key)
        target = removal.renamed_to
        if target is not None:
            yield Issue(
                removal.renamed_node,
                f"{subject} is renamed '{shown(target)}' in {new_name} (same dtype and shape): "
                f"clients reading '{shown(removal.key)}' break",
                where=at_tensor(removal.meta, removal.signature, "outputs", target),
            )
        else:
            yield Issue(
                None,
                f"{subject} is in {old_name} but not in {new_name}: clients reading it break, "
                "requests asking for it are rejected (output tensor alias not found in signature)",
                where=at_signature(removal.meta, removal.signature),
            )
