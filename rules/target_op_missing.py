"""Every op of the graph is registered in the TensorFlow releases it targets (`target-tf`).

An older TensorFlow refuses a graph using an op it does not register:
`Op type not registered 'Conv' in binary running on ...`. New ops appear in
almost every release (`Conv` in 2.12, `DisableCopyOnRead` — in every TF2
SavedModel with variables written from 2.9 on — in 2.9, `XlaCallModule`,
`StatelessRandomGetKeyCounter`, ...); a graph written by a new TensorFlow
uses them whenever its writer does. The message says in which release the op
appeared, and names the targets that lack it. Calls to a function of the
graph's library are not ops; ops unknown to the newest bundled TensorFlow
too are `unknown-op`'s findings. Function bodies are checked too: loading a
SavedModel builds them.

The rule runs only when targets are set: `target-tf: 2.4` (or a list) in
`.tflint.yaml`, `--target-tf 2.4,2.11`, or `target_tf=` in the API.

How to fix: run the graph on a TensorFlow at least as new as the release
named, or re-export it with that older TensorFlow.

Okay:
  node { name: "a" op: "NoOp" }
Fail:
  node { name: "a" op: "StatelessRandomGetAlg" }   # target-op-missing
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from tflint.finding import Issue, Severity
from tflint.tf.index import GraphIndex

ID = "target-op-missing"
CATEGORY = "version"
DEFAULT_SEVERITY = Severity.ERROR
OPTIONS: dict[str, Any] = {}
# The docstring examples run with this configuration.
EXAMPLE_CONFIG = {"target-tf": "1.15"}


def check(graph: GraphIndex, options: Mapping[str, Any]) -> Iterator[Issue]:
    """Yield one issue per node whose op some target release does not register."""
    if not graph.registry.targets:
        return
    from tflint.tf.target import OP_MISSING, target_issues

    yield from target_issues(graph, (OP_MISSING,))
