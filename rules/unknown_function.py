"""Every function a node's `func` attr names, and every GradientDef, exists in the function library.

Ops such as `PartitionedCall`, `StatefulPartitionedCall`, `If`, `While`,
`Case`, `MapDataset` or `BatchFunction` take the functions they run as `func`
/ `list(func)` attrs (a NameAttrList: a name plus attrs). TensorFlow does not
check these names at import; it fails when the node first runs, e.g.
`Failed to find function "f" in function library`, `Function f is not
defined.` or `Could not find required function definition f`. The name must
be a function of the graph's library: naming an op does not work either
(verified with TensorFlow 2.21 for PartitionedCall, StatefulPartitionedCall,
If, StatelessIf and MapDataset). The one exception is `SymbolicGradient`,
whose `f` may name an op (TensorFlow then uses the op's registered
gradient). Only attrs the op (or the called function's signature) declares
as `func` / `list(func)` are checked, in function bodies too; a NameAttrList's
own attrs are checked when the function it names declares them as funcs.
A node whose op names no op and no function is `unknown-op`'s finding.

GradientDefs are checked as `tf.import_graph_def` does when the library has
functions: both `function_name` and `gradient_func` must be library
functions, else `FunctionDefLibrary missing 'g' FunctionDef`.

How to fix: add the missing FunctionDef to the library (export the graph
with its functions), or correct the name.

Okay:
  library { function { signature { name: "f" } } }
  node { name: "call" op: "PartitionedCall" attr { key: "Tin" value { list { } } }
    attr { key: "Tout" value { list { } } } attr { key: "f" value { func { name: "f" } } } }
Fail:
  node { name: "call" op: "PartitionedCall" attr { key: "Tin" value { list { } } }
    attr { key: "Tout" value { list { } } } attr { key: "f" value { func { name: "g" } } } }   # unknown-function
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from tflint.errors import Suggestions
from tflint.finding import Issue, Severity
from tflint.tf.functions import registered_op
from tflint.tf.index import GraphIndex
from tflint.tf.node import Node

ID = "unknown-function"
CATEGORY = "function"
DEFAULT_SEVERITY = Severity.ERROR
OPTIONS: dict[str, Any] = {}

_FUNC_TYPES = ("func", "list(func)")

# Ops whose func attr may name an op instead of a function (TF instantiates its gradient).
_OP_NAMES_ALLOWED = {("SymbolicGradient", "f")}


def check(graph: GraphIndex, options: Mapping[str, Any]) -> Iterator[Issue]:
    """Yield an issue per func attr value naming no library function, and per broken GradientDef."""
    func_attrs: dict[str, tuple[str, ...]] = {}
    verdicts: dict[tuple[str, str, str], str | None] = {}
    library = graph.function_by_name
    for scope in graph.scopes():
        for node in scope.nodes:
            op = node.op
            names = func_attrs.get(op)
            if names is None:
                names = func_attrs[op] = _declared_func_attrs(graph, op)
            if not names:
                continue
            attrs = node.attr
            for name in names:
                value = attrs.get(name)
                # The common case, one func naming a library function without func attrs of its own.
                if value is None or (
                    value.WhichOneof("value") == "func"
                    and value.func.name in library
                    and not _nested(graph, value.func.name, func_attrs)
                ):
                    continue
                yield from _check_value(graph, node, name, value, func_attrs, verdicts)
    if graph.functions:
        yield from _check_gradients(graph)


def _nested(graph: GraphIndex, function: str, func_attrs: dict[str, tuple[str, ...]]) -> tuple[str, ...]:
    nested = func_attrs.get(function)
    if nested is None:
        nested = func_attrs[function] = _declared_func_attrs(graph, function)
    return nested


def _declared_func_attrs(graph: GraphIndex, op: str) -> tuple[str, ...]:
    """The attr names an op or function declares as `func` / `list(func)`."""
    schema = graph.schema_for(op)
    if schema is None:
        return ()
    return tuple(name for name, attr in schema.attrs.items() if attr.type in _FUNC_TYPES)


def _check_value(
    graph: GraphIndex, node: Node, field: str, value: Any, func_attrs: dict[Any, Any], verdicts: dict[Any, Any]
) -> Iterator[Issue]:
    """Check one declared func attr value, and the func attrs nested in it that its callee declares."""
    pending = [(field, value, node.op)]
    while pending:
        path, value, owner = pending.pop()
        kind = value.WhichOneof("value")
        if kind == "func":
            called = (value.func,)
        elif kind == "list":
            called = value.list.func
        else:
            continue  # a placeholder (bound when the function is called) or a kind mismatch
        for function in called:
            name = function.name
            if name in graph.function_by_name:
                nested = _nested(graph, name, func_attrs)
                pending.extend((f"{path}.{key}", function.attr[key], name) for key in nested if key in function.attr)
                continue
            key = (owner, path, name)
            if key not in verdicts:
                allowed = (owner, path) in _OP_NAMES_ALLOWED and registered_op(graph, name) is not None
                verdicts[key] = None if allowed else _problem(graph, name)
            problem = verdicts[key]
            if problem is not None:
                yield Issue(node, f"Node '{node.name}' (op {node.op}): attr '{path}' {problem}", field=field)


def _problem(graph: GraphIndex, name: str) -> str:
    if not name:
        return "names no function (the name is empty)"
    message = f"names function '{_shown(name)}', which is not in the graph's function library"
    if registered_op(graph, name) is not None:
        return f"{message} ('{_shown(name)}' is an op, and TensorFlow runs only library functions here)"
    close = graph.derived(_suggestions).closest(name)
    return f"{message} (did you mean '{_shown(close)}'?)" if close is not None else message


def _suggestions(graph: GraphIndex) -> Suggestions:
    """Close spellings among the library's functions, computed once a graph and bounded (errors.Suggestions)."""
    return Suggestions(graph.function_by_name, cutoff=0.8)


def _check_gradients(graph: GraphIndex) -> Iterator[Issue]:
    for gradient in graph.gradients:
        for role, name in (("function", gradient.function_name), ("gradient function", gradient.gradient_func)):
            if name not in graph.function_by_name:
                yield Issue(
                    None,
                    f"GradientDef '{_shown(gradient.function_name)}' -> '{_shown(gradient.gradient_func)}' "
                    f"names {role} "
                    f"'{_shown(name)}', which is not in the graph's function library",
                    function=gradient.function_name if gradient.function_name in graph.function_by_name else None,
                    library=True,  # tf.import_graph_def checks GradientDefs whether or not a function runs
                )


def _shown(name: str) -> str:
    """A name fit for a one-line message: control and non-ASCII characters escaped."""
    return name.encode("unicode_escape").decode("ascii").replace("'", "\\'")
