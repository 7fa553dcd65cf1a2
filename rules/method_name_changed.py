"""A signature's `method_name` changed between versions.

The method name says which TensorFlow Serving API may call the signature:
the Classify API runs only `tensorflow/serving/classify` signatures and the
Regress API only `tensorflow/serving/regress` ones (both refuse any other,
"Expected classification signature method_name to be ..."), while the
Predict API runs a signature of any method.

Reported as an **error** when the old method was classify or regress: the
clients of that API are refused by the new version. Reported as a
**warning** otherwise (the rule's levels, unless you configure one): Predict
clients still work, but tools that pick signatures by method (MultiInference,
model metadata readers) see another kind of signature.

How to fix: keep the old method name under the old key, and export the new
kind of signature under a new key.

Okay:
  meta_info_def { tags: "serve" }
  signature_def { key: "serving_default" value { method_name: "tensorflow/serving/regress" } }
  ---
  meta_info_def { tags: "serve" }
  signature_def { key: "serving_default" value { method_name: "tensorflow/serving/regress" } }
Fail:
  meta_info_def { tags: "serve" }
  signature_def { key: "serving_default" value { method_name: "tensorflow/serving/regress" } }
  ---
  meta_info_def { tags: "serve" }
  signature_def { key: "serving_default" value { method_name: "tensorflow/serving/predict" } }   # method-name-changed
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from tflint.finding import Issue, Severity
from tflint.tf.compat import CLASSIFY, REGRESS, VersionPair, at_signature, change, element, shown

ID = "method-name-changed"
CATEGORY = "compat"
DEFAULT_SEVERITY = Severity.ERROR
OPTIONS: dict[str, Any] = {}


def check(pair: VersionPair, options: Mapping[str, Any]) -> Iterator[Issue]:
    """Yield an issue for each signature whose method name differs between the versions."""
    for meta, old, new in pair.common_signatures():
        if old.method_name == new.method_name:
            continue
        values = change(pair, f"'{shown(old.method_name)}'", f"'{shown(new.method_name)}'")
        if old.method_name in (CLASSIFY, REGRESS):
            api = "Classify" if old.method_name == CLASSIFY else "Regress"
            consequence = f"TensorFlow Serving's {api} API refuses it now"
            severity = Severity.ERROR
        else:
            consequence = "Predict clients still work; tools that pick signatures by method see another kind"
            severity = Severity.WARNING
        yield Issue(
            None,
            f"{element(old.key)}: method_name {values}: {consequence}",
            where=at_signature(meta, old.key),
            severity=severity,
        )
