"""A meta graph tag set the old version has is missing from the new one.

A model server loads a SavedModel by tag set (`--saved_model_tags`,
`tf.saved_model.load(path, tags=...)`, `LoadSavedModel(..., tags)`): it
takes the meta graph whose tags are exactly that set. When the new version
has no meta graph with a tag set the old one had (`{serve, gpu}` dropped,
`{serve}` renamed `{serving}`), every server and client that loads it by
those tags fails before a single request: TensorFlow's loader refuses with
"MetaGraphDef associated with tags ... could not be found in SavedModel".

Reported at the new version's first meta graph; the finding names the old
version's meta graph.

How to fix: export the new version with the old tag set too
(`builder.add_meta_graph(tags, ...)`), or move every server to the new tags
before rolling it out.

Okay:
  meta_info_def { tags: "serve" }
  ---
  meta_info_def { tags: "serve" }
Fail:
  meta_info_def { tags: "serve" tags: "gpu" }
  ---
  meta_info_def { tags: "serve" }   # tag-set-removed
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from tflint.finding import Issue, Severity, at_tags
from tflint.tf.compat import VersionPair, Where, shown, tag_set

ID = "tag-set-removed"
CATEGORY = "compat"
DEFAULT_SEVERITY = Severity.ERROR
OPTIONS: dict[str, Any] = {}


def check(pair: VersionPair, options: Mapping[str, Any]) -> Iterator[Issue]:
    """Yield an issue for each tag set of the old version that the new one lacks."""
    first = min(pair.new.metas.values(), key=lambda meta: meta.ordinal, default=None)
    for tags in sorted(pair.old.metas, key=sorted):
        if tags in pair.new.metas:
            continue
        old = pair.old.metas[tags]
        yield Issue(
            None,
            f"meta graph {tag_set(tags)} is in {shown(pair.old.name)} but not in {shown(pair.new.name)}: "
            "servers and clients loading it by these tags fail (MetaGraphDef associated with tags "
            f"{tag_set(tags)} could not be found)",
            where=Where(first, at_tags(), label=old.label or f"meta graph {tag_set(tags)}"),
        )
