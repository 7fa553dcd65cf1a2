"""The GraphDef `versions` are ones the targeted TensorFlow releases accept (`target-tf`).

Each release checks a graph's `versions` against its own GraphDef version
range (`CheckVersions`): it refuses a `producer` below its minimum producer,
a `min_consumer` above its own GraphDef version (TF 1.15 is version 134,
2.4 is 561, 2.21 is 2474), and a graph whose `bad_consumers` lists its
version. A `producer` newer than the release is not an error. `graph-version`
checks the same against the newest bundled TensorFlow; this rule checks each
target. It runs only when targets are set (see `target-op-missing`).

How to fix: re-export the graph with the older TensorFlow, or run it on a
newer one.

Okay:
  node { name: "a" op: "NoOp" }
  versions { producer: 2474 min_consumer: 12 }
Fail:
  node { name: "a" op: "NoOp" }
  versions { producer: 2474 min_consumer: 900 }   # target-graph-version
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from tflint.finding import Issue, Severity
from tflint.tf.index import GraphIndex

ID = "target-graph-version"
CATEGORY = "version"
DEFAULT_SEVERITY = Severity.ERROR
OPTIONS: dict[str, Any] = {}
# The docstring examples run with this configuration.
EXAMPLE_CONFIG = {"target-tf": "2.4"}


def check(graph: GraphIndex, options: Mapping[str, Any]) -> Iterator[Issue]:
    """Yield one issue per versions constraint a target release refuses."""
    if not graph.registry.targets:
        return
    from tflint.tf.target import VERSIONS, target_issues

    yield from target_issues(graph, (VERSIONS,))
