"""Every shape a node carries is a valid TensorFlow shape, and `_output_shapes` covers every output.

TensorFlow checks a shape proto when it reads it as a (partial) shape: a dim
below -1 (`Shape [2,-2] has dimensions with values below -1`), `unknown_rank`
set together with dims (`An unknown shape must not have any dimensions
set.`), more than 254 dims (`has too many dimensions`), or more than 2**63 - 1
elements (`is too large`) are rejected. This rule checks:

- attrs whose OpDef type is `shape` or `list(shape)` (Placeholder `shape`,
  queue `shapes`, ...), in the graph and in function bodies: shape functions
  read them at import, kernels when the graph runs;
- the shapes of tensors in `tensor` attrs (a Const's `value`); a shape that
  is valid but not fully defined (-1) is `tensor-content`'s finding;
- `_output_shapes`, although `_`-prefixed: when the graph is imported,
  TensorFlow reads it as a list of shapes for every node of the graph (not of
  function bodies), rejects an invalid entry for an existing output (`has an
  invalid _output_shapes attribute`), and rejects a list shorter than the
  node's outputs (`Node 'X' has 2 outputs but the _output_shapes attribute
  specifies shapes for 1 outputs`; an empty value counts as an empty list).

Warnings, where TensorFlow accepts the graph: more `_output_shapes` entries
than outputs (TensorFlow logs `Output shapes may be inaccurate`), invalid
entries it never reads (past the last output, or inside a function body),
and an `_output_shapes` of another kind than a list of shapes (ignored).

Whether `_output_shapes` agrees with the shapes TensorFlow infers (`has an
_output_shapes attribute inconsistent with the GraphDef`) is checked by
`shape-mismatch`.

How to fix: write -1 for an unknown dimension and `unknown_rank: true` with
no dims for an unknown shape; regenerate `_output_shapes` (or drop it).

Okay:
  node { name: "p" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "shape" value { shape { dim { size: -1 } dim { size: 3 } } } } }
  node { name: "q" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "shape" value { shape { unknown_rank: true } } } }
Fail:
  node { name: "p" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "shape" value { shape { dim { size: -5 } } } } }   # invalid-shape
  node { name: "a" op: "NoOp" }
  node { name: "i" op: "Identity" input: "p" attr { key: "T" value { type: DT_FLOAT } }
    attr { key: "_output_shapes" value { list { } } } }   # invalid-shape
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from tflint.finding import Issue, Severity
from tflint.runtime.memo import IdentityMemo
from tflint.tf.index import GraphIndex
from tflint.tf.node import Node
from tflint.tf.op_signatures import signatures
from tflint.tf.tensors import (
    OpPlan,
    OpPlans,
    ShapeFacts,
    ShapeMemo,
    tensor_values,
    typed_values,
)

ID = "invalid-shape"
CATEGORY = "tensor"
DEFAULT_SEVERITY = Severity.ERROR
OPTIONS: dict[str, Any] = {}
# Time on a large graph relative to other rules, for the parallel planner (rules/__init__.py).
COST = 5

OUTPUT_SHAPES = "_output_shapes"


def check(graph: GraphIndex, options: Mapping[str, Any]) -> Iterator[Issue]:
    """Yield an issue for each invalid shape attr, tensor shape and `_output_shapes` entry."""
    plans = OpPlans(graph)
    table = plans.table
    shapes = ShapeMemo()
    summaries = _OutputShapesMemo(shapes)
    for scope in graph.scopes():
        in_function = scope.function is not None
        # Scope.attr_group_issues, without a call and a generator per group: a node's issues are a
        # function of its op and attrs, so each group's first node is checked, the others when it has some.
        for group in scope.attr_groups():
            node = group[0]
            plan = table.get(node.op) or plans(node.op)
            issues = _node_issues(graph, node, plan, shapes, summaries, in_function)
            if issues:
                yield from issues
                for other in group[1:]:
                    yield from _node_issues(graph, other, plan, shapes, summaries, in_function)


def _node_issues(
    graph: GraphIndex, node: Node, plan: OpPlan, shapes: ShapeMemo, summaries: _OutputShapesMemo, in_function: bool
) -> list[Issue]:
    """The issues of one node: a function of its op and attrs alone (and of the scope it is in)."""
    issues: list[Issue] = []
    if plan.shapes:
        issues.extend(_shape_attrs(node, plan, shapes))
    if plan.tensors:
        for key, index, tensor in tensor_values(node, plan):
            facts = shapes.facts(tensor.tensor_shape)
            if facts.tensor_problem is not None:
                item = f" tensor #{index}" if index is not None else ""
                issues.append(
                    Issue(
                        node,
                        f"Node '{node.name}' (op {node.op}): attr '{key}'{item} holds a tensor of shape "
                        f"{facts.text}, which is invalid: {facts.tensor_problem}",
                        field=key,
                    )
                )
    value = node.attr.get(OUTPUT_SHAPES)
    if value is None:
        return issues
    summary = summaries.summary(value)
    if (
        summary.bad
        or summary.unreadable is not None
        or (not in_function and summary is not _SKIP and summary.count != plan.outputs)
    ):
        issues.extend(_output_shapes(graph, node, plan, summary, in_function))
    return issues


def _shape_attrs(node: Node, plan: OpPlan, shapes: ShapeMemo) -> Iterator[Issue]:
    for name, index, shape in typed_values(node, plan.shapes, "shape"):
        facts = shapes.facts(shape)
        if facts.problem is not None:
            item = f" entry #{index}" if index is not None else ""
            yield Issue(
                node,
                f"Node '{node.name}' (op {node.op}): attr '{name}'{item} is {facts.text}, "
                f"which is not a valid shape: {facts.problem}",
                field=name,
            )


class _Summary:
    """One `_output_shapes` value: how many shapes it lists and which are invalid, or why TF ignores it."""

    __slots__ = ("count", "bad", "unreadable")

    def __init__(self, count: int, bad: list[tuple[int, ShapeFacts]], unreadable: str | None = None) -> None:
        self.count = count
        self.bad = bad
        self.unreadable = unreadable


_SKIP = _Summary(0, [], None)  # a placeholder: bound when a function is instantiated


class _OutputShapesMemo:
    """Summaries per distinct `_output_shapes` value (most values repeat across nodes)."""

    def __init__(self, shapes: ShapeMemo) -> None:
        self._shapes = shapes
        self._by_value: IdentityMemo[_Summary] = IdentityMemo()

    def summary(self, value: Any) -> _Summary:
        """The summary of an AttrValue (readers share one object among equal values: keyed on identity)."""
        return self._by_value.get((), (value,), lambda: self._summarize(value))

    def _summarize(self, value: Any) -> _Summary:
        kind = value.WhichOneof("value")
        if kind == "placeholder":
            return _SKIP
        if kind is None:
            return _Summary(0, [])  # TensorFlow reads an AttrValue with nothing set as an empty list
        if kind == "list":
            listed = value.list
            fields = [field.name for field, _ in listed.ListFields()]
            if all(name == "shape" for name in fields):
                shapes = listed.shape
                bad = []
                for index, shape in enumerate(shapes):
                    facts = self._shapes.facts(shape)
                    if facts.problem is not None:
                        bad.append((index, facts))
                return _Summary(len(shapes), bad)
            what = "a list mixing shapes with other values" if "shape" in fields else "a list of non-shapes"
        else:
            what = f"a single {kind}"
        return _Summary(0, [], f"{what}, not a list of shapes; TensorFlow ignores it")


def _output_shapes(
    graph: GraphIndex, node: Node, plan: OpPlan, summary: _Summary, in_function: bool
) -> Iterator[Issue]:
    if summary is _SKIP:
        return
    where = f"Node '{node.name}' (op {node.op}): attr '{OUTPUT_SHAPES}'"
    if summary.unreadable is not None:
        yield Issue(node, f"{where} is {summary.unreadable}", field=OUTPUT_SHAPES, severity=Severity.WARNING)
        return
    outputs: int | None = None
    if not in_function:
        outputs = plan.outputs
        if outputs is None and plan.known:
            # One node's signature (a function of its op and attrs), not every node's: few nodes get here.
            signature = signatures(graph).resolved_alone(node)
            if signature is not None and signature.output_types is not None:
                outputs = len(signature.output_types)
    for index, facts in summary.bad:
        message = f"{where} entry #{index} is {facts.text}, which is not a valid shape: {facts.problem}"
        if in_function:
            yield Issue(
                node,
                message + " (TensorFlow does not check _output_shapes inside function bodies)",
                field=OUTPUT_SHAPES,
                severity=Severity.WARNING,
            )
        elif outputs is not None and index >= outputs:
            yield Issue(
                node,
                message + f" (TensorFlow does not read it: the node has {_outputs(outputs)})",
                field=OUTPUT_SHAPES,
                severity=Severity.WARNING,
            )
        else:
            yield Issue(
                node,
                message + " (TensorFlow rejects it at import)",
                field=OUTPUT_SHAPES,
            )
    if outputs is None:
        return
    count = summary.count
    if count < outputs:
        yield Issue(
            node,
            f"{where} lists {_shapes(count)} but the node has {_outputs(outputs)}; "
            "TensorFlow rejects the graph at import",
            field=OUTPUT_SHAPES,
        )
    elif count > outputs:
        yield Issue(
            node,
            f"{where} lists {_shapes(count)} but the node has {_outputs(outputs)}; TensorFlow ignores the "
            "extra entries (`Output shapes may be inaccurate`)",
            field=OUTPUT_SHAPES,
            severity=Severity.WARNING,
        )


def _shapes(count: int) -> str:
    return "1 shape" if count == 1 else f"{count} shapes"


def _outputs(count: int) -> str:
    return "1 output" if count == 1 else f"{count} outputs"
