"""Every data input names an output its producer really has.

A node's outputs come from its op's OpDef and attrs (an output arg with a
`number_attr` has N values, one with a `type_list_attr` one per listed type)
or, for a call to a library function, from the function's signature.
TensorFlow's importer refuses an input `x:i` when `i` is not below that count
(`Node 'merge': Connecting to invalid output 1 of source node const2 which has 1
outputs.`). An index written past 2^31 wraps around in TensorFlow's 32-bit
parser and becomes negative: `x:4294967295` (output -1) and `x:2147483648`
crash TensorFlow 2.21 at import (segmentation fault), and other negative
indexes make it read a garbage type. Every negative index is reported.

Inside a function body outputs are named, not numbered: `node:out_arg` (the
whole output arg) or `node:out_arg:i` (one element of it), and the function's
own inputs are `arg` or `arg:i`. TensorFlow checks those names when it
instantiates the function (`input x:y is not found`), so this rule reports an
output arg the producer's op does not have, an element index past the arg's
length, a function argument indexed past its length, and a bare `node` whose
op has outputs. Malformed spellings (`node:0`, `arg:out_arg`) are
`input-syntax`'s findings. Lengths that depend on the function's own attrs
are not checked.

How to fix: point the input at an existing output (count from 0), or correct
the producer's attrs (`num`, `N`, `Tout`, ...) so that it has the output.

Okay:
  node { name: "a" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } } float_val: 1
      float_val: 2 } } } }
  node { name: "u" op: "Unpack" input: "a" attr { key: "num" value { i: 2 } }
    attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "s" op: "AddN" input: "u:1" input: "u" attr { key: "N" value { i: 2 } }
    attr { key: "T" value { type: DT_FLOAT } } }
Fail:
  node { name: "a" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } } float_val: 1
      float_val: 2 } } } }
  node { name: "u" op: "Unpack" input: "a" attr { key: "num" value { i: 2 } }
    attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "s" op: "AddN" input: "u:2" input: "a:1"   # output-index-out-of-range, output-index-out-of-range
    attr { key: "N" value { i: 2 } } attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "w" op: "Identity" input: "a:4294967295"   # output-index-out-of-range
    attr { key: "T" value { type: DT_FLOAT } } }
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, cast

from tflint.finding import Issue, Severity
from tflint.tf.index import GraphIndex, Scope
from tflint.tf.node import Input, Node
from tflint.tf.op_signatures import Signatures, body_input, op_label, signatures

ID = "output-index-out-of-range"
CATEGORY = "structure"
DEFAULT_SEVERITY = Severity.ERROR
OPTIONS: dict[str, Any] = {}
# Time on a large graph relative to other rules, for the parallel planner (rules/__init__.py).
COST = 5

# TensorFlow adds a hint for these ops, whose intermediate outputs may be pruned away.
_FUNCTIONAL_OPS = frozenset({"If", "StatelessIf", "While", "StatelessWhile"})


def check(graph: GraphIndex, options: Mapping[str, Any]) -> Iterator[Issue]:
    """Yield an issue per data input whose output index (or output arg name) its producer lacks."""
    cache = signatures(graph)
    for scope in graph.scopes():
        if scope.function is not None:
            for node in scope.nodes:
                for item in node.inputs:
                    if item.is_control:
                        continue
                    resolved = body_input(cache, scope, item)
                    if resolved is not None and resolved.error is not None:
                        yield Issue(node, f"Node '{node.name}': input '{item.raw}' names no output: {resolved.error}")
            continue
        by_name = scope.by_name
        bad = {item.raw for item in _suspects(cache, scope) if _index_error(cache, by_name, item)}
        for node in scope.nodes_reading(bad):
            for item in node.inputs:
                if item.raw not in bad:
                    continue
                index = item.index
                if index < 0:
                    yield Issue(
                        node,
                        f"Node '{node.name}': input '{item.raw}' asks for output {index} of node '{item.node}': the "
                        "index overflows TensorFlow's 32-bit parser and wraps around to a negative number",
                    )
                else:
                    producer = by_name[item.node]
                    count = len(cast(tuple[Any, ...], _output_types(cache, producer)))
                    yield Issue(
                        node,
                        f"Node '{node.name}': input '{item.raw}' asks for output {index} of node '{producer.name}', "
                        f"which has {_outputs(count)} ({op_label(graph, producer)}){_hint(producer)}",
                    )


def _suspects(cache: Signatures, scope: Scope) -> list[Input]:
    """The distinct inputs that may ask for an output their producer lacks.

    An input that is just a node's name asks for output 0, which only a node
    without outputs lacks; every other input is a suspect.
    """
    suspects = scope.inputs_to_resolve()
    table = scope.inputs_by_raw
    suspects.extend(table[name] for name in _without_outputs(cache, scope) & table.keys())
    return suspects


def _without_outputs(cache: Signatures, scope: Scope) -> set[str]:
    """Names of the scope's nodes (those inputs resolve to) that have no outputs."""
    names: set[str] = set()
    by_name = scope.by_name
    for op, nodes in scope.by_op().items():
        schema = cache.graph.schema_for(op)
        if schema is None:
            continue
        outputs = schema.outputs
        if outputs and not any(arg.number_attr or arg.type_list_attr for arg in outputs):
            continue  # a fixed number of outputs, at least one
        names.update(node.name for node in nodes if _output_types(cache, node) == () and by_name[node.name] is node)
    return names


def _index_error(cache: Signatures, by_name: Mapping[str, Node], item: Input) -> bool:
    if item.is_control:
        return False
    producer = by_name.get(item.node)
    if producer is None:
        return False  # unresolved-input's finding
    if item.index < 0:
        return True
    types = _output_types(cache, producer)
    return types is not None and item.index >= len(types)


def _output_types(cache: Signatures, node: Node) -> tuple[int | None, ...] | None:
    """The node's flattened output types, None when they cannot be known."""
    signature = cache.resolved(node)
    return signature.output_types if signature is not None else None


def _outputs(count: int) -> str:
    return "1 output" if count == 1 else f"{count} outputs"


def _hint(producer: Node) -> str:
    if producer.op in _FUNCTIONAL_OPS:
        return (
            "; if the graph relies on intermediate outputs, build it with "
            "tf.compat.v1.experimental.output_all_intermediates(True)"
        )
    return ""
