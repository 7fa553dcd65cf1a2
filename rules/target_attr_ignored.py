"""No attr that a targeted TensorFlow release would silently drop changes what a node computes.

From TF 2.5 on, an importer meeting an attr its OpDef lacks logs `NodeDef
mentions attribute X which is not in the op definition ... Unknown
attributes will be ignored` and imports the node without it. That is
harmless when the value is the newer OpDef's default (the older op behaves
like the default), and not otherwise: `MatMul` with `grad_a: true`,
`GatherNd` with a `bad_indices_policy`, `MapDataset` with
`force_synchronous: true` import fine and run as if the attr were not
there. Only such non-default values are reported. Releases up to TF 2.4
refuse the graph instead (`target-attr`). The rule runs only when targets are
set (see `target-op-missing`).

How to fix: run the graph on a TensorFlow that knows the attr, or check that
the older behaviour is acceptable and suppress the finding.

Okay:
  node { name: "m" op: "TPUReplicateMetadata" attr { key: "num_replicas" value { i: 1 } }
    attr { key: "use_shardy_partitioner" value { b: false } } }
Fail:
  node { name: "m" op: "TPUReplicateMetadata" attr { key: "num_replicas" value { i: 1 } }
    attr { key: "use_shardy_partitioner" value { b: true } } }   # target-attr-ignored
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from tflint.finding import Issue, Severity
from tflint.tf.index import GraphIndex

ID = "target-attr-ignored"
CATEGORY = "version"
DEFAULT_SEVERITY = Severity.WARNING
OPTIONS: dict[str, Any] = {}
# The docstring examples run with this configuration.
EXAMPLE_CONFIG = {"target-tf": "2.15"}


def check(graph: GraphIndex, options: Mapping[str, Any]) -> Iterator[Issue]:
    """Yield one issue per non-default attr a target release imports without."""
    if not graph.registry.targets:
        return
    from tflint.tf.target import ATTR_IGNORED, target_issues

    yield from target_issues(graph, (ATTR_IGNORED,))
