"""The graph has no nodes and no functions: an empty file, or one with only comments or versions.

TensorFlow imports an empty GraphDef or MetaGraphDef without complaint
(`tf.graph_util.import_graph_def` returns nothing, `import_meta_graph`
returns None; verified with TensorFlow 2.21 for 0 bytes, an empty or
comment-only text, and a graph holding only `versions`). So this is not an
error: but a graph that computes nothing is almost always a mistake, such as
an export that wrote no nodes, a truncated copy or the wrong file. Version
checks still apply (`graph-version`), and so do the import arguments: any
`return_elements` or `input_map` key is missing from an empty graph
(`import-contract`).

A SavedModel file that is empty is different: it has no meta graph to
load, and is an `invalid-graph` error.

How to fix: export the graph again (`tf.io.write_graph`,
`tf.compat.v1.graph_util.convert_variables_to_constants`), or lint the file
you meant to.

Okay:
  node { name: "a" op: "NoOp" }
Fail:
  # an export that wrote no nodes   # empty-graph
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from tflint.finding import Issue, Severity, at_file
from tflint.tf.index import GraphIndex

ID = "empty-graph"
CATEGORY = "input"
DEFAULT_SEVERITY = Severity.WARNING
OPTIONS: dict[str, Any] = {}


def check(graph: GraphIndex, options: Mapping[str, Any]) -> Iterator[Issue]:
    """Yield one issue when the graph has neither nodes nor library functions."""
    if not graph.nodes and not graph.functions:
        # Text sources point at the top of the file, where a `file-ignore` directive would go.
        yield Issue(
            None,
            "The graph is empty (no nodes, no functions): TensorFlow imports it, but it computes nothing",
            at=at_file(),
        )
