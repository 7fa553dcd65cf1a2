"""Every data edge carries the DataType its consumer expects.

For each edge `src:i -> dst:j`, the producer's output type (from its OpDef or
function signature and attrs such as `T`, `dtype`, `N`, `Tout`) must suit the
consumer's input type (from its own attrs). TensorFlow's importer checks each
edge with `TypesCompatible(expected, actual)`: the types are equal, or the
producer gives the reference type `T_ref` of an expected `T` (reading a TF1 ref
variable). A ref input (`Assign`'s `ref`, `ScatterAdd`'s `ref`, ...) accepts
only `T_ref`. A mismatch is refused at import: `Input 0 of node while/Less was
passed resource from while/Merge:0 incompatible with expected int32.`

Inside function bodies an input may be a function argument (`arg`, `arg:i`)
or a body node's output (`node:out_arg`, `node:out_arg:i`, a whole output arg
feeding several values); TensorFlow checks those edges, with the same ref
rule, when it instantiates the function (`input input[0] expected type int32
!= float, the type of x[0]`), for a called function already at import. Types
set by the function's own attrs (placeholders such as `T: {placeholder: "T"}`,
args typed by a signature attr) are known only at a call and are skipped, as
are edges from or to unknown ops and nodes whose signature cannot be computed.

How to fix: change the attr that sets the consumer's type (`T`, `dtype`,
`Tin`, ...) or the producer's, or insert a `Cast`; feed ref inputs from a
variable's ref output.

Okay:
  node { name: "v" op: "VariableV2" attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "shape" value { shape {} } } }
  node { name: "a" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 1 } } } }
  node { name: "as" op: "Assign" input: "v" input: "a" attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "r" op: "Identity" input: "v" attr { key: "T" value { type: DT_FLOAT } } }
Fail:
  node { name: "a" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 1 } } } }
  node { name: "i" op: "Identity" input: "a" attr { key: "T" value { type: DT_INT32 } } }   # type-attr-consistency
  node { name: "as" op: "Assign" input: "a" input: "a"   # type-attr-consistency
    attr { key: "T" value { type: DT_FLOAT } } }
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from tflint.finding import Issue, Severity
from tflint.tf.index import REF_OFFSET, GraphIndex, Scope
from tflint.tf.node import Node
from tflint.tf.op_signatures import (
    Signature,
    Signatures,
    body_input,
    dtype_name,
    op_label,
    signatures,
    types_compatible,
)

ID = "type-attr-consistency"
CATEGORY = "schema"
DEFAULT_SEVERITY = Severity.ERROR
OPTIONS: dict[str, Any] = {}
# Time on a large graph relative to other rules, for the parallel planner (rules/__init__.py).
COST = 12


def check(graph: GraphIndex, options: Mapping[str, Any]) -> Iterator[Issue]:
    """Yield an issue per data edge whose producer type does not suit the consumer's input type."""
    cache = signatures(graph)
    table = cache.table()
    for scope in graph.scopes():
        if scope.function is not None:
            yield from _check_body(graph, cache, scope)
            continue
        by_name = scope.by_name
        for node in scope.nodes:
            signature = table[node]
            if signature.__class__ is not Signature:
                continue  # unknown op or broken signature: other rules' findings
            expected_types = signature.input_types
            if not expected_types:
                continue
            # TensorFlow connects the input at position i to input slot i.
            for slot, item in enumerate(node.inputs):
                if item.is_control:
                    continue
                if slot >= len(expected_types):
                    break  # too many inputs: input-count's finding
                producer = by_name.get(item.node)
                if producer is None:
                    continue  # unresolved-input's finding
                produced = table[producer]
                if produced.__class__ is not Signature or produced.output_types is None:
                    continue  # unknown outputs
                actual_types = produced.output_types
                index = item.index
                if index < 0 or index >= len(actual_types):
                    continue  # output-index-out-of-range's finding
                expected = expected_types[slot]
                actual = actual_types[index]
                if expected is None or actual is None or expected == actual or expected == actual - REF_OFFSET:
                    continue
                yield _issue(graph, node, signature, slot, item.raw, expected, actual, producer)


def _check_body(graph: GraphIndex, cache: Signatures, scope: Scope) -> Iterator[Issue]:
    """Edges inside a function body, where one input may supply several values."""
    for node in scope.nodes:
        signature = cache.resolved(node)
        if signature is None or signature.input_types is None:
            continue
        expected_types = signature.input_types
        slot = 0
        for item in node.inputs:
            if item.is_control:
                continue
            resolved = body_input(cache, scope, item)
            if resolved is None or resolved.error is not None or resolved.types is None:
                break  # later inputs' slots are unknown
            for actual in resolved.types:
                if slot >= len(expected_types):
                    break
                expected = expected_types[slot]
                if expected is not None and actual is not None and not types_compatible(expected, actual):
                    yield _issue(graph, node, signature, slot, item.raw, expected, actual, resolved.producer)
                slot += 1


def _issue(
    graph: GraphIndex,
    node: Node,
    signature: Signature,
    slot: int,
    raw: str,
    expected: int,
    actual: int,
    producer: Node | None,
) -> Issue:
    located = signature.input_arg_at(slot)
    arg_text = ""
    if located is not None:
        arg, element = located
        arg_text = (
            f" (input arg '{arg.name}'"
            + (f"[{element}]" if arg.types is not None and len(arg.types) > 1 else "")
            + (f", type from attr '{arg.type_attr}'" if arg.type_attr else "")
            + ")"
        )
    source = (
        f" from node '{producer.name}' ({op_label(graph, producer)})"
        if producer is not None
        else " (an argument of the function)"
    )
    why = "; a ref input needs a reference, e.g. a TF1 variable's output" if expected == actual + REF_OFFSET else ""
    return Issue(
        node,
        f"Node '{node.name}' ({op_label(graph, node)}): input {slot}{arg_text} expects {dtype_name(expected)} but "
        f"'{raw}'{source} is {dtype_name(actual)}{why}",
    )
