"""A MetaGraphDef's saved collections are ones `import_meta_graph` can build a Saver from (`target-tf`).

Loading a MetaGraphDef the TF1 way (`tf.compat.v1.train.import_meta_graph`,
the TF1 SavedModel loader) imports the graph, restores its collections, and,
when the MetaGraphDef has no `saver_def`, builds a default `Saver()` over the
`variables` and `saveable_objects` collections. An entry naming an op rather
than a tensor (TF 1.x writes a `MutableHashTable`'s op name into
`saveable_objects`) fails it: `TypeError: can't convert Operation 'dense' to
Tensor`; so does a tensor of an op that is not a variable (`Variable to save
is not a Variable`). Measured on every bundled release, TF 1.15 to 2.21: the
graph itself imports, the load fails. The rule runs only when targets are
set (see `target-op-missing`): a target run judges what that release's loader
does; a run without one judges the graph as `import_graph_def` does.

How to fix: export the MetaGraphDef with its Saver (`saver_def`), or load
the graph with `import_graph_def`.

Okay:
  graph_def { node { name: "v" op: "VariableV2" attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "shape" value { shape { } } } } }
  collection_def { key: "saveable_objects" value { node_list { value: "v:0" } } }
Fail:
  collection_def { key: "saveable_objects" value { node_list { value: "t" } } }
  graph_def { node { name: "t" op: "MutableHashTableV2"   # target-saver
    attr { key: "key_dtype" value { type: DT_STRING } } attr { key: "value_dtype" value { type: DT_INT64 } } } }
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from tflint.finding import Issue, Severity
from tflint.tf.index import GraphIndex

ID = "target-saver"
CATEGORY = "version"
DEFAULT_SEVERITY = Severity.ERROR
OPTIONS: dict[str, Any] = {}
# The docstring examples run with this configuration.
EXAMPLE_CONFIG = {"target-tf": "2.4"}


def check(graph: GraphIndex, options: Mapping[str, Any]) -> Iterator[Issue]:
    """Yield one issue per saved-collection entry a target release's default Saver refuses."""
    if not graph.registry.targets:
        return
    from tflint.tf.target import SAVER, target_issues

    yield from target_issues(graph, (SAVER,))
