"""A signature of the old version is missing from the new one.

Clients call a served model by signature key (`signature_name` in a
TensorFlow Serving request, `model.signatures[key]`). A key the old version
served and the new one lacks, dropped or renamed (`predict` to
`serving_default`), fails every such request: TensorFlow Serving answers
"Serving signature key ... not found".

Signatures the loader runs itself (`__saved_model_init_op`) are not part of
the interface. Compared per tag set present in both versions.

How to fix: keep exporting the old key (it may point at the same function
as the new one), or move every client to the new key first.

Okay:
  meta_info_def { tags: "serve" }
  signature_def { key: "serving_default" value { method_name: "tensorflow/serving/predict" } }
  ---
  meta_info_def { tags: "serve" }
  signature_def { key: "serving_default" value { method_name: "tensorflow/serving/predict" } }
  signature_def { key: "embed" value { method_name: "tensorflow/serving/predict" } }
Fail:
  meta_info_def { tags: "serve" }
  signature_def { key: "serving_default" value { method_name: "tensorflow/serving/predict" } }
  signature_def { key: "embed" value { method_name: "tensorflow/serving/predict" } }
  ---
  meta_info_def { tags: "serve" }   # signature-removed
  signature_def { key: "serving_default" value { method_name: "tensorflow/serving/predict" } }
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from tflint.finding import Issue, Severity
from tflint.tf.compat import VersionPair, Where, element, shown

ID = "signature-removed"
CATEGORY = "compat"
DEFAULT_SEVERITY = Severity.ERROR
OPTIONS: dict[str, Any] = {}


def check(pair: VersionPair, options: Mapping[str, Any]) -> Iterator[Issue]:
    """Yield an issue for each signature key of the old version that the new one lacks."""
    for old_meta, new_meta in pair.common_metas():
        for key in sorted(set(old_meta.signatures) - set(new_meta.signatures)):
            yield Issue(
                None,
                f"{element(key)} is in {shown(pair.old.name)} but not in {shown(pair.new.name)}: "
                f"requests calling it are rejected (Serving signature key '{shown(key)}' not found)",
                where=Where(new_meta),
            )
