"""An asset file of the old version is missing from the new one, by name.

Assets (vocabularies, lookup tables) are files the loader feeds to the
graph from the SavedModel's `assets/` directory, by the names in
`asset_file_def`. The model itself keeps working with renamed assets, but
whatever outside it relies on those names does not: deployment scripts that
replace a vocabulary in place, clients that fetch it to map their own ids,
monitoring that diffs it between versions.

Reported as a **warning**: nothing fails inside the server. Compared per tag
set present in both versions (the `asset_file_def` field, or the TF1
`saved_model_assets` collection).

How to fix: keep the asset's file name stable across versions, or update
whatever reads it together with the model.

Okay:
  meta_info_def { tags: "serve" }
  asset_file_def { tensor_info { name: "Const:0" } filename: "vocab.txt" }
  ---
  meta_info_def { tags: "serve" }
  asset_file_def { tensor_info { name: "Const_1:0" } filename: "vocab.txt" }
Fail:
  meta_info_def { tags: "serve" }
  asset_file_def { tensor_info { name: "Const:0" } filename: "vocab.txt" }
  ---
  meta_info_def { tags: "serve" }   # asset-renamed
  asset_file_def { tensor_info { name: "Const:0" } filename: "vocab_v2.txt" }
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from tflint.finding import Issue, Severity
from tflint.tf.compat import VersionPair, Where, shown

ID = "asset-renamed"
CATEGORY = "compat"
DEFAULT_SEVERITY = Severity.WARNING
OPTIONS: dict[str, Any] = {}


def check(pair: VersionPair, options: Mapping[str, Any]) -> Iterator[Issue]:
    """Yield an issue for each asset file name of the old version that the new one lacks."""
    for old_meta, new_meta in pair.common_metas():
        came = [name for name in new_meta.assets if name not in old_meta.assets]
        for name in old_meta.assets:
            if name in new_meta.assets:
                continue
            instead = f" (it has {', '.join(repr(shown(other)) for other in came)})" if came else ""
            yield Issue(
                None,
                f"asset file '{shown(name)}' is in {shown(pair.old.name)} but not in {shown(pair.new.name)}"
                f"{instead}: whatever reads the asset by its name outside the model breaks",
                where=Where(new_meta),
            )
