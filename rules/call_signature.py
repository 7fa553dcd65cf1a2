"""A function call's input and output types are the called function's.

`PartitionedCall` and `StatefulPartitionedCall` carry their own `Tin` and
`Tout`, which the inputs are checked against; `If` / `StatelessIf`, `Case` /
`StatelessCase` and `While` / `StatelessWhile` likewise (`Tin`, `Tout`, `T`).
Nothing at import compares those lists with the signature of the function
the node names (`f`, `then_branch`, `else_branch`, `branches`, `cond`,
`body`): TensorFlow 2.21 imports such a graph, then fails when it
instantiates the function to run the call (`InvalidArgumentError` from the
session: an argument count or dtype that does not match). This rule
reports, for each called function whose signature has fixed types:

- a call passing more or fewer arguments than the function takes, or of
  other dtypes (`Tin`; for a `While`, `T` against the body's and the cond's
  inputs);
- a call expecting other results than the function returns (`Tout`; a
  `While` body returns `T`; an `If` or `Case` cond is not passed on).

Functions that take polymorphic arguments (`type_attr`, `number_attr`) and
functions the library lacks (`unknown-function`'s finding) are not checked.

How to fix: regenerate the call with the function's signature, or call the
function the call was written for.

Okay:
  node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
  node {
    name: "call" op: "PartitionedCall" input: "x"
    attr { key: "Tin" value { list { type: DT_FLOAT } } }
    attr { key: "Tout" value { list { type: DT_FLOAT } } }
    attr { key: "f" value { func { name: "f" } } }
  }
  library {
    function {
      signature { name: "f" input_arg { name: "a" type: DT_FLOAT } output_arg { name: "y" type: DT_FLOAT } }
      ret { key: "y" value: "a" }
    }
  }
Fail:
  node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
  node {
    name: "call" op: "PartitionedCall" input: "x" input: "x"
    attr { key: "Tin" value { list { type: DT_FLOAT type: DT_FLOAT } } }
    attr { key: "Tout" value { list { type: DT_FLOAT } } }
    attr { key: "f" value { func { name: "f" } } }   # call-signature
  }
  library {
    function {
      signature { name: "f" input_arg { name: "a" type: DT_FLOAT } output_arg { name: "y" type: DT_FLOAT } }
      ret { key: "y" value: "a" }
    }
  }
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from tflint.finding import Issue, Severity
from tflint.tf.attrs import type_name
from tflint.tf.index import GraphIndex
from tflint.tf.node import Node

ID = "call-signature"
CATEGORY = "function"
DEFAULT_SEVERITY = Severity.ERROR
OPTIONS: dict[str, Any] = {}

# op -> (function attrs, attr of the argument types, attr of the result types). An If's or Case's
# condition / branch index is not in its Tin: it is not passed on.
_CALLS = {
    "PartitionedCall": (("f",), "Tin", "Tout"),
    "StatefulPartitionedCall": (("f",), "Tin", "Tout"),
    "If": (("then_branch", "else_branch"), "Tin", "Tout"),
    "StatelessIf": (("then_branch", "else_branch"), "Tin", "Tout"),
    "Case": (("branches",), "Tin", "Tout"),
    "StatelessCase": (("branches",), "Tin", "Tout"),
    "While": (("body",), "T", "T"),
    "StatelessWhile": (("body",), "T", "T"),
}
_WHILE_COND = ("cond",)
_VERDICT = "TensorFlow imports the graph but fails when it runs the call"


def check(graph: GraphIndex, options: Mapping[str, Any]) -> Iterator[Issue]:
    """Yield an issue per call whose argument or result types are not the called function's."""
    library = graph.function_by_name
    if not library:
        return
    for scope in graph.scopes():
        for node in scope.nodes:
            spec = _CALLS.get(node.op)
            if spec is None:
                continue
            func_attrs, args_attr, results_attr = spec
            args = _types(node, args_attr)
            results = _types(node, results_attr)
            for key, name in _called(node, func_attrs):
                signature = _signature(library.get(name))
                if signature is None:
                    continue
                inputs, outputs = signature
                if args is not None and inputs != args:
                    yield Issue(node, _message(node, key, name, args_attr, args, "takes", inputs), field=key)
                elif results is not None and outputs != results:
                    yield Issue(node, _message(node, key, name, results_attr, results, "returns", outputs), field=key)
            if node.op in ("While", "StatelessWhile") and args is not None:
                for key, name in _called(node, _WHILE_COND):
                    signature = _signature(library.get(name))
                    if signature is not None and signature[0] != args:
                        yield Issue(node, _message(node, key, name, args_attr, args, "takes", signature[0]), field=key)


def _types(node: Node, key: str) -> tuple[int, ...] | None:
    value = node.attr.get(key)
    if value is None or value.WhichOneof("value") not in ("list", None):
        return None
    return tuple(value.list.type)


def _called(node: Node, keys: tuple[str, ...]) -> Iterator[tuple[str, str]]:
    for key in keys:
        value = node.attr.get(key)
        if value is None:
            continue
        kind = value.WhichOneof("value")
        if kind == "func":
            yield key, value.func.name
        elif kind == "list":
            for function in value.list.func:
                yield key, function.name


def _signature(function: Any) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """(input types, output types) of a library function whose arguments all have a fixed type."""
    if function is None:
        return None
    signature = function.signature
    args = list(signature.input_arg) + list(signature.output_arg)
    if any(arg.type_attr or arg.number_attr or arg.type_list_attr or not arg.type for arg in args):
        return None
    return tuple(arg.type for arg in signature.input_arg), tuple(arg.type for arg in signature.output_arg)


def _names(types: tuple[int, ...]) -> str:
    return "[" + ", ".join(type_name(dtype) for dtype in types) + "]"


def _message(
    node: Node, key: str, name: str, attr: str, given: tuple[int, ...], verb: str, wanted: tuple[int, ...]
) -> str:
    return (
        f"Node '{node.name}' ({node.op}) calls '{name}' ({key}) with {attr} {_names(given)}, "
        f"but '{name}' {verb} {_names(wanted)}; {_VERDICT}"
    )
