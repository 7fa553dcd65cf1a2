"""A SavedModel has a meta graph with the tag set a model server loads, and no two meta graphs share a tag set.

Loaders pick a meta graph by its tag *set* (order and repeats do not
matter) and take the first that equals the requested one exactly: the C++
loader and TensorFlow Serving fail with `Could not find meta graph def
matching supplied tags: { serve }`, `tf.compat.v1.saved_model.load` with
`MetaGraphDef associated with tags 'serve' could not be found in
SavedModel` (both checked with TensorFlow 2.21). A SavedModel exported only
with `train`, or with `serve, gpu`, does not load in a server that asks for
`serve`. And when two meta graphs have the same tag set, every loader takes
the first: the later one can never be loaded.

Options: `tags` is the tag set the server asks for (default `[serve]`;
TensorFlow Serving's `--saved_model_tags`). Off by default (a SavedModel is
not always meant for serving); the `serving` preset turns it on as an
error. Only SavedModels are checked: a lone MetaGraphDef is never loaded by
tags. The missing-tag-set finding is reported once, on the first meta
graph; a duplicate on the later meta graph.

How to fix: export the meta graph with the tags the server expects
(`tf.saved_model.save` always uses `serve`; the TF1 Builder takes
`tags=[tf.saved_model.SERVING]`), or configure the server (and this rule's
`tags`) for the tags you export; give each meta graph its own tag set.

Okay:
  saved_model_schema_version: 1
  meta_graphs {
    meta_info_def { tags: "serve" }
    graph_def { node { name: "a" op: "NoOp" } }
  }
  meta_graphs {
    meta_info_def { tags: "train" }
    graph_def { node { name: "a" op: "NoOp" } }
  }
Fail:
  saved_model_schema_version: 1
  meta_graphs {
    meta_info_def { tags: "train" }   # missing-serving-tags
  }
  meta_graphs {
    meta_info_def { tags: "gpu" tags: "serve" }
  }
  meta_graphs {
    meta_info_def { tags: "train" tags: "train" }   # missing-serving-tags
  }
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from tflint.finding import Issue, Severity, at_tags
from tflint.tf.index import GraphIndex
from tflint.tf.serving import (
    is_saved_model,
    meta_graph_ordinal,
    meta_graphs,
    tag_set_text,
)

ID = "missing-serving-tags"
CATEGORY = "serving"
DEFAULT_SEVERITY = Severity.OFF
OPTIONS: dict[str, Any] = {"tags": ["serve"]}


def validate_options(options: Mapping[str, Any]) -> str | None:
    """Tags are non-empty strings."""
    if any(not tag for tag in options["tags"]):
        return "tags: a tag must not be empty"
    return None


def check(graph: GraphIndex, options: Mapping[str, Any]) -> Iterator[Issue]:
    """Report a missing tag set once per SavedModel, and each meta graph that repeats an earlier tag set."""
    if not is_saved_model(graph):
        return
    metas = meta_graphs(graph)
    ordinal = meta_graph_ordinal(graph) or 0
    wanted = frozenset(options["tags"])
    tag_sets = [frozenset(meta.meta_info_def.tags) for meta in metas]
    where = at_tags()
    if ordinal == 0 and wanted not in tag_sets:
        available = ", ".join(tag_set_text(tags) for tags in tag_sets) or "no meta graphs"
        yield Issue(
            None,
            f"No meta graph has the tag set {tag_set_text(wanted)} a model server loads; the SavedModel has "
            f"{available}",
            at=where,
        )
    mine = tag_sets[ordinal] if ordinal < len(tag_sets) else frozenset()
    for earlier in range(ordinal):
        if tag_sets[earlier] == mine:
            yield Issue(
                None,
                f"Meta graph #{ordinal} has the same tag set {tag_set_text(mine)} as meta graph #{earlier}; loaders "
                "take the first match, so this one can never be loaded",
                at=where,
            )
            break
