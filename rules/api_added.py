"""What the new version adds to the interface: tag sets, signatures, outputs, optional inputs.

Additions break no client of the old version: a new tag set or signature
is not called by them, a new output is one more entry in the response, and
a new input fed by a `PlaceholderWithDefault` may be left out. Reported as
**info**, so that a review sees the whole change of the interface (required
new inputs are `required-input-added`; shapes that accept more are
`shape-changed`, also as info).

Okay:
  meta_info_def { tags: "serve" }
  signature_def { key: "serving_default" value { method_name: "tensorflow/serving/predict" } }
  ---
  meta_info_def { tags: "serve" }
  signature_def { key: "serving_default" value { method_name: "tensorflow/serving/predict" } }
Fail:
  meta_info_def { tags: "serve" }
  signature_def { key: "serving_default" value {
    outputs { key: "y" value { name: "y:0" dtype: DT_FLOAT } }
    method_name: "tensorflow/serving/predict" } }
  ---
  meta_info_def { tags: "serve" }
  signature_def { key: "serving_default" value {
    outputs { key: "y" value { name: "y:0" dtype: DT_FLOAT } }
    outputs { key: "z" value { name: "z:0" dtype: DT_FLOAT } }   # api-added
    method_name: "tensorflow/serving/predict" } }
  signature_def { key: "embed" value { method_name: "tensorflow/serving/predict" } }   # api-added
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from tflint.finding import Issue, Severity
from tflint.tf.compat import VersionPair, Where, at_signature, at_tensor, element, renamed, shown, tag_set

ID = "api-added"
CATEGORY = "compat"
DEFAULT_SEVERITY = Severity.INFO
OPTIONS: dict[str, Any] = {}


def check(pair: VersionPair, options: Mapping[str, Any]) -> Iterator[Issue]:
    """Yield an issue for each tag set, signature, output and optional input the new version adds."""
    new_name = shown(pair.new.name)
    for tags in sorted(pair.new.metas, key=sorted):
        if tags not in pair.old.metas:
            yield Issue(None, f"meta graph {tag_set(tags)} is new in {new_name}", where=Where(pair.new.metas[tags]))
    for old_meta, new_meta in pair.common_metas():
        for key in sorted(set(new_meta.signatures) - set(old_meta.signatures)):
            yield Issue(None, f"{element(key)} is new in {new_name}", where=at_signature(new_meta, key))
    for meta, old, new in pair.common_signatures():
        renamed_outputs = set(renamed(old.outputs, new.outputs).values())
        for key in sorted(set(new.outputs) - set(old.outputs) - renamed_outputs):
            yield Issue(
                new.outputs[key].node,
                f"{element(new.key, 'outputs', key)} is new in {new_name}",
                where=at_tensor(meta, new.key, "outputs", key),
            )
        renamed_inputs = set(renamed(old.inputs, new.inputs).values())
        for key in sorted(set(new.inputs) - set(old.inputs) - renamed_inputs):
            spec = new.inputs[key]
            if spec.optional:
                yield Issue(
                    spec.node,
                    f"{element(new.key, 'inputs', key)} is new in {new_name} and optional "
                    f"(a {spec.node.op}: requests may leave it out)",
                    where=at_tensor(meta, new.key, "inputs", key),
                )
