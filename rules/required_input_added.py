"""A signature of the new version has a required input the old one did not have.

Clients of the old version do not send the new input. A signature input fed
by a `Placeholder` must be fed on every run, so their requests fail ("You
must feed a value for placeholder tensor ..."). An input fed by a
`PlaceholderWithDefault` is optional (its default is used when the request
leaves it out): adding one is reported by `api-added` instead. An input
whose op cannot be told (the node is not in the graph) counts as required.

How to fix: give the new input a default
(`tf.compat.v1.placeholder_with_default`), or export the new signature under
a new key and keep the old one.

Okay:
  meta_info_def { tags: "serve" }
  graph_def {
    node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
  }
  signature_def { key: "serving_default" value {
    inputs { key: "x" value { name: "x:0" dtype: DT_FLOAT } }
    method_name: "tensorflow/serving/predict" } }
  ---
  meta_info_def { tags: "serve" }
  graph_def {
    node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "scale" op: "PlaceholderWithDefault" input: "one"
      attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { } } } }
  }
  signature_def { key: "serving_default" value {
    inputs { key: "x" value { name: "x:0" dtype: DT_FLOAT } }
    inputs { key: "scale" value { name: "scale:0" dtype: DT_FLOAT } }
    method_name: "tensorflow/serving/predict" } }
Fail:
  meta_info_def { tags: "serve" }
  graph_def {
    node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
  }
  signature_def { key: "serving_default" value {
    inputs { key: "x" value { name: "x:0" dtype: DT_FLOAT } }
    method_name: "tensorflow/serving/predict" } }
  ---
  meta_info_def { tags: "serve" }
  graph_def {
    node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "scale" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
  }
  signature_def { key: "serving_default" value {
    inputs { key: "x" value { name: "x:0" dtype: DT_FLOAT } }
    inputs { key: "scale" value { name: "scale:0" dtype: DT_FLOAT } }   # required-input-added
    method_name: "tensorflow/serving/predict" } }
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from tflint.finding import Issue, Severity
from tflint.tf.compat import VersionPair, at_tensor, element, renamed, shown

ID = "required-input-added"
CATEGORY = "compat"
DEFAULT_SEVERITY = Severity.ERROR
OPTIONS: dict[str, Any] = {}


def check(pair: VersionPair, options: Mapping[str, Any]) -> Iterator[Issue]:
    """Yield an issue for each input the new version's signature requires that the old one did not have."""
    for meta, old, new in pair.common_signatures():
        renamed_to = set(renamed(old.inputs, new.inputs).values())  # input-removed reports those
        for key in sorted(set(new.inputs) - set(old.inputs) - renamed_to):
            spec = new.inputs[key]
            if spec.optional:
                continue
            fed_by = f"a {spec.node.op}" if spec.node is not None else "no default"
            yield Issue(
                spec.node,
                f"{element(new.key, 'inputs', key)} is new in {shown(pair.new.name)} and required ({fed_by}): "
                f"requests of {shown(pair.old.name)}'s clients do not send it and fail",
                where=at_tensor(meta, new.key, "inputs", key),
            )
