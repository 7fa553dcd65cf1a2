"""Every node's op is a registered TensorFlow op or a function of the graph's library.

TensorFlow looks an op up in the graph's function library first, then in its
op registry, and refuses the graph when neither has it (`Op type not
registered 'X'`). tflint checks against a snapshot of TensorFlow's complete
registry (see `tflint --version`), a MetaGraphDef's own `stripped_op_list`,
and OpLists given with `--op-defs` or `op-defs:` in the config (for custom-op
libraries). Op names are case-sensitive; the message suggests the closest
known name. Nodes with an empty op are reported by `empty-op` instead.
With targets (`--target-tf`), an op that a targeted release registers
though the newest does not (`TRTEngineOp`, in the GPU `tensorflow` wheels
2.1 to 2.11; not in the `tensorflow-cpu` wheels) is left to
`target-op-missing`, which judges it per target.

How to fix: correct the op name, or load the OpDefs of the custom-op library
the graph needs with `--op-defs ops.pbtxt`.

Okay:
  node { name: "a" op: "NoOp" }
Fail:
  node { name: "a" op: "matmul" }   # unknown-op
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from tflint.errors import Suggestions
from tflint.finding import Issue, Severity
from tflint.tf.index import GraphIndex

ID = "unknown-op"
CATEGORY = "schema"
DEFAULT_SEVERITY = Severity.ERROR
OPTIONS: dict[str, Any] = {}


def check(graph: GraphIndex, options: Mapping[str, Any]) -> Iterator[Issue]:
    """Yield an issue for each node whose op resolves to no OpDef and no function."""
    targets = graph.registry.targets
    for scope in graph.scopes():
        for op, nodes in scope.by_op().items():
            if not op or graph.schema_for(op) is not None:
                continue
            if any(op in target.ops for target in targets):
                continue  # an op of older releases only: target-op-missing judges it for each target
            suggestion = _suggest(op, graph)
            for node in nodes:
                yield Issue(node, f"Node '{node.name}' uses op '{op}', which is not registered{suggestion}")


def _suggest(op: str, graph: GraphIndex) -> str:
    """A did-you-mean hint: a case-insensitive match first, then close spellings (bounded: errors.Suggestions)."""
    public, everything = graph.derived(_suggestions)
    return (everything if op.startswith("_") else public).hint(op)


def _suggestions(graph: GraphIndex) -> tuple[Suggestions, Suggestions]:
    """Suggestions among the op and function names not starting with `_`, and among all of them (once a graph).

    Never one of the ops TensorFlow registers only for its own tests (`Foo3` for `Foo`).
    """
    from tflint.tf.registry import test_only_ops

    hidden = test_only_ops()
    names = [name for name in graph.registry.names() if name not in hidden] + list(graph.function_by_name)
    public = Suggestions([name for name in names if not name.startswith("_")], cutoff=0.75)
    return public, Suggestions(names, cutoff=0.75)
