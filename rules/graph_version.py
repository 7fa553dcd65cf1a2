"""The graph's `versions` block lets the target TensorFlow import it.

Before anything else, TensorFlow's importer compares the GraphDef's
`versions` with its own GraphDef version (`CheckVersions`) and refuses the
graph when:

- `producer` is below the oldest producer it supports (0):
  `GraphDef producer version -1 below min producer 0 supported by
  TensorFlow 2.21.0.  Please regenerate your graph.`;
- `min_consumer` is above its own version: `GraphDef min consumer version
  C above current version V for TensorFlow X.  Please upgrade TensorFlow.`;
- its own version is listed in `bad_consumers`: `GraphDef disallows
  consumer version V.  Please upgrade TensorFlow: this version is likely
  buggy.`

The target version is option `target-version`; by default the GraphDef
version of the TensorFlow whose op registry tflint bundles (see `tflint
--version`). A graph without `versions` counts as producer 0 and passes.

Not reported: a producer far newer than the target. TensorFlow accepts
such a graph, and only when its import fails for another reason (and the
producer is more than 21 versions ahead) it adds a hint that the graph
comes from a newer TensorFlow. Likewise `min_consumer` below 12 in a graph
with functions is silently raised to 12.

How to fix: re-export the graph with the TensorFlow you deploy, or deploy a
TensorFlow at least as new as `min_consumer` and not in `bad_consumers`.

Okay:
  node { name: "a" op: "NoOp" }
  versions { producer: 1700 min_consumer: 12 }
Fail:
  node { name: "a" op: "NoOp" }
  versions { producer: -1 }   # graph-version
Fail:
  node { name: "a" op: "NoOp" }
  versions { producer: 27 min_consumer: 100000 }   # graph-version
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from tflint.finding import Issue, Severity, at_field
from tflint.tf.index import GraphIndex
from tflint.tf.registry import snapshot_info

ID = "graph-version"
CATEGORY = "version"
DEFAULT_SEVERITY = Severity.ERROR
OPTIONS: dict[str, Any] = {"target-version": snapshot_info().graph_def_version}


def validate_options(options: Mapping[str, Any]) -> str | None:
    """The target must be a GraphDef version TensorFlow could have (at least its minimum producer)."""
    minimum = snapshot_info().min_producer
    if options["target-version"] < minimum:
        return f"target-version: {options['target-version']} is below the minimum GraphDef version {minimum}"
    return None


def check(graph: GraphIndex, options: Mapping[str, Any]) -> Iterator[Issue]:
    """Yield one issue per versions constraint the target TensorFlow would refuse."""
    versions = graph.versions
    if versions is None:
        return
    target = options["target-version"]
    info = snapshot_info()
    problems = []
    if versions.producer < info.min_producer:
        problems.append(
            f"producer version {versions.producer} is below the oldest producer TensorFlow supports "
            f"({info.min_producer}); regenerate the graph"
        )
    if versions.min_consumer > target:
        problems.append(
            f"min_consumer {versions.min_consumer} is above the target GraphDef version {target}; the graph needs a "
            "newer TensorFlow"
        )
    if target in versions.bad_consumers:
        problems.append(
            f"bad_consumers lists the target GraphDef version {target}; the graph refuses that TensorFlow as buggy"
        )
    if not problems:
        return
    where = at_field("versions")
    for problem in problems:
        yield Issue(None, f"GraphDef versions: {problem}", at=where)
