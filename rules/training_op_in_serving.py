"""A serving graph runs no optimizer updates or gradient computations.

Training ops in what a model server runs are a sign that the training graph
was exported instead of an inference graph: optimizer ops (`ApplyAdam`,
`ResourceApplyGradientDescent`, `SparseApplyFtrl`, ... every
`[Resource][Sparse]Apply*` op, and gradient accumulators) change the model's
variables on every request they run in, and gradient ops (`ReluGrad`,
`BiasAddGrad`, `Conv2DBackpropFilter`, `BroadcastGradientArgs`,
`SymbolicGradient`, ... ops TensorFlow only emits when differentiating)
waste time and memory. TensorFlow accepts them; this is a warning.
`Conv2DBackpropInput` and friends are not reported: transposed
convolutions use them for inference.

What runs is decided as in `unsafe-op`: in a meta graph with signatures or
an init op, the nodes upstream of them and the functions those call (so a
training op that sits in the graph but is reachable from no signature is
not reported here; see `dead-node`); elsewhere every node. A training
graph holds hundreds of these, so there is one finding per kind (optimizer
updates, gradient ops) and graph or function body, on the first node, with
the count and the ops. Off by default; the `serving` preset makes it a
warning.

How to fix: export from an inference function (`tf.saved_model.save` with
`signatures=` a `tf.function` that only calls the model; in TF1 build the
serving graph without the optimizer, or use `train_op` only in training).

Okay:
  node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
  node { name: "y" op: "Relu" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "stop" op: "StopGradient" input: "y" attr { key: "T" value { type: DT_FLOAT } } }
Fail:
  node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
  node { name: "y" op: "Relu" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "dy" op: "ReluGrad" input: "x" input: "y"   # training-op-in-serving
    attr { key: "T" value { type: DT_FLOAT } } }
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from tflint.finding import Issue, Severity
from tflint.runtime.patterns import lazy
from tflint.tf.index import GraphIndex
from tflint.tf.node import Node
from tflint.tf.serving import served

ID = "training-op-in-serving"
CATEGORY = "serving"
DEFAULT_SEVERITY = Severity.OFF
OPTIONS: dict[str, Any] = {}

_OPTIMIZER = lazy(
    r"^(?:Resource)?(?:Sparse)?Apply[A-Z]|(?:Accumulator|ResourceAccumulator|SparseAccumulator)(?:Apply|Take)Gradient$"
)
_GRADIENT = lazy(
    r"Grad(?:Grad)?(?:V\d+)?$|Grad(?:Grad)?WithArgmax$|^CropAndResizeGrad|^IgammaGradA$|GradEx$"
    r"|BackpropFilter(?:V\d+)?$|^CudnnRNNBackprop|^BroadcastGradientArgs$|Gradient$"
)
# Ops with "Grad" in their names that are not gradients.
_NOT_GRADIENT = frozenset({"StopGradient", "PreventGradient", "DebugGradientIdentity", "DebugGradientRefIdentity"})

OPTIMIZER = "optimizer update"
GRADIENT = "gradient op"
_WHY = {
    OPTIMIZER: "it changes the model's variables",
    GRADIENT: "inference never needs it",
}


def kind_of(op: str) -> str | None:
    """OPTIMIZER or GRADIENT for a training op, None for any other op."""
    if _OPTIMIZER.search(op):
        return OPTIMIZER
    if op not in _NOT_GRADIENT and _GRADIENT.search(op):
        return GRADIENT
    return None


def check(graph: GraphIndex, options: Mapping[str, Any]) -> Iterator[Issue]:
    """Yield one issue per scope and kind (optimizer, gradient), on the first such node the server may run."""
    reach = served(graph)
    kinds: dict[str, str | None] = {}
    for scope in graph.scopes():
        if reach is not None and scope.function is not None and scope.name not in reach.functions:
            continue
        found: dict[str, list[Node]] = {}
        for node in scope.nodes:
            kind = kinds.get(node.op, "")
            if kind == "":
                kind = kinds[node.op] = kind_of(node.op)
            if kind is None:
                continue
            if reach is not None and node.function is None and node.name not in reach.nodes:
                continue
            found.setdefault(kind, []).append(node)
        for kind, nodes in found.items():
            first = nodes[0]
            summary = ""
            if len(nodes) > 1:
                others = sorted({node.op for node in nodes} - {first.op})
                also = ""
                if others:
                    more = len(others) - 1
                    also = f", also {others[0]}" + (f" and {more} more op{'s' if more > 1 else ''}" if more else "")
                summary = f" ({len(nodes)} {kind}s here{also})"
            article = "an" if kind == OPTIMIZER else "a"
            yield Issue(first, f"Node '{first.name}' runs {first.op}, {article} {kind}: {_WHY[kind]}{summary}")
