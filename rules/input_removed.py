"""An input of a signature in the old version is missing from the new one (removed or renamed).

A request names the inputs it sends by key. TensorFlow Serving refuses a
request naming a key the signature does not have ("input tensor alias not
found in signature"), so every client still sending the old key fails, even
when the new version would not need that input. An input renamed (one key
gone, one come, with the same dtype and shape) is reported once, as a
rename.

Inputs that TensorFlow Serving's Classify and Regress APIs look up (`inputs`)
are left to `api-keys-removed`.

How to fix: keep the old key (it may name the same tensor as the new one),
or move every client to the new key first.

Okay:
  meta_info_def { tags: "serve" }
  signature_def { key: "serving_default" value {
    inputs { key: "x" value { name: "x:0" dtype: DT_FLOAT } }
    method_name: "tensorflow/serving/predict" } }
  ---
  meta_info_def { tags: "serve" }
  signature_def { key: "serving_default" value {
    inputs { key: "x" value { name: "input_x:0" dtype: DT_FLOAT } }
    method_name: "tensorflow/serving/predict" } }
Fail:
  meta_info_def { tags: "serve" }
  signature_def { key: "serving_default" value {
    inputs { key: "x" value { name: "x:0" dtype: DT_FLOAT } }
    inputs { key: "y" value { name: "y:0" dtype: DT_INT32 } }
    method_name: "tensorflow/serving/predict" } }
  ---
  meta_info_def { tags: "serve" }
  signature_def { key: "serving_default" value {   # input-removed
    inputs { key: "x" value { name: "x:0" dtype: DT_FLOAT } }
    method_name: "tensorflow/serving/predict" } }
Fail:
  meta_info_def { tags: "serve" }
  signature_def { key: "serving_default" value {
    inputs { key: "x" value { name: "x:0" dtype: DT_FLOAT } }
    method_name: "tensorflow/serving/predict" } }
  ---
  meta_info_def { tags: "serve" }
  signature_def { key: "serving_default" value {
    inputs { key: "features" value { name: "x:0" dtype: DT_FLOAT } }   # input-removed
    method_name: "tensorflow/serving/predict" } }
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from tflint.finding import Issue, Severity
from tflint.tf.compat import VersionPair, at_signature, at_tensor, element, removed_keys, shown

ID = "input-removed"
CATEGORY = "compat"
DEFAULT_SEVERITY = Severity.ERROR
OPTIONS: dict[str, Any] = {}


def check(pair: VersionPair, options: Mapping[str, Any]) -> Iterator[Issue]:
    """Yield an issue for each input key of the old version's signature that the new one lacks."""
    old_name, new_name = shown(pair.old.name), shown(pair.new.name)
    for removal in removed_keys(pair, "inputs"):
        subject = element(removal.signature, "inputs", removal.key)
        target = removal.renamed_to
        if target is not None:
            yield Issue(
                removal.renamed_node,
                f"{subject} is renamed '{shown(target)}' in {new_name} (same dtype and shape): "
                f"requests sending '{shown(removal.key)}' are rejected (input tensor alias not found in signature)",
                where=at_tensor(removal.meta, removal.signature, "inputs", target),
            )
        else:
            yield Issue(
                None,
                f"{subject} is in {old_name} but not in {new_name}: "
                "requests sending it are rejected (input tensor alias not found in signature)",
                where=at_signature(removal.meta, removal.signature),
            )
