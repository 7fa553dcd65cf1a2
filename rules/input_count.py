"""Every node has exactly as many data inputs as its op's signature expects.

TensorFlow computes a node's input signature from its OpDef (or, for a call to
a library function, the function's signature) and its attrs: an arg with a
`number_attr` takes N inputs of one type, a `type_list_attr` arg one input per
listed type, any other arg one input. At import `ValidateNodeDef` then counts
the node's non-`^` inputs and refuses a mismatch (`NodeDef expected inputs
'float, float, float' do not match 2 inputs specified`). Some paths skip that
check (a graph handed to a session without `import_graph_def`), and a `Merge`
whose `N` disagrees with its inputs is then reported to crash TensorFlow
with a CHECK failure, so this is an error whatever the entry point.

Inside a function body an input may stand for several values (`arg` is a whole
argument, `node:out_arg` a whole output arg), so the values are counted, and
each input must fit in the arg it fills, as TensorFlow does when it
instantiates the function (`Attempt to access beyond input size`, `Input x too
long for a`, `Expected input[2] == 'x' to be a control input`). Counts that
depend on the function's own attrs (placeholders) are not checked.

The same rule reports nodes whose signature cannot be computed at all, the way
`InOutTypesForNode` fails: a `number_attr` or `type_list_attr` (or the type of
a repeated arg) of the wrong kind, a negative length (`Value for
number_attr() -1 < 0`) or one that does not fit an int32 (`Number of outputs is
too big`). Those findings point at the attr. A length beyond 65,536 is
not spelled out (a few bytes of attr would otherwise cost gigabytes): the node
is reported as a warning, its inputs and outputs not checked. A value of the wrong kind or
below the attr's minimum is also a finding of `attr-type-mismatch` or
`attr-minimum` (about the value); this one says what it costs (no input or
output count at all). An attr that is simply absent is left to
`missing-attr`, which reports that root cause once; only an attr the op's
definition does not even declare is reported here. The count is still
checked when it does not depend on the absent attr (a missing `T` leaves
`Add` expecting two inputs), so one run reports both.

How to fix: make the inputs match the attrs (add or remove inputs, or correct
`N`, `T`, `Tin`, ...), and give length attrs a non-negative int.

Okay:
  node { name: "a" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 1 } } } }
  node { name: "s" op: "AddN" input: "a" input: "a:0" input: "^a" attr { key: "N" value { i: 2 } }
    attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "n" op: "IdentityN" input: "a" input: "s"
    attr { key: "T" value { list { type: DT_FLOAT type: DT_FLOAT } } } }
Fail:
  node { name: "a" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 1 } } } }
  node { name: "m" op: "Merge" input: "a" input: "a" attr { key: "N" value { i: 3 } }   # input-count
    attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "i" op: "Identity" attr { key: "T" value { type: DT_FLOAT } } }   # input-count
  node { name: "u" op: "Unpack" input: "a" attr { key: "num" value { i: 4294967296 } }   # input-count
    attr { key: "T" value { type: DT_FLOAT } } }
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from tflint.finding import Issue, Severity
from tflint.tf.index import GraphIndex
from tflint.tf.node import Node
from tflint.tf.op_signatures import (
    BodyInput,
    Signature,
    SignatureProblem,
    body_input,
    dtype_name,
    op_label,
    signatures,
)

ID = "input-count"
CATEGORY = "schema"
DEFAULT_SEVERITY = Severity.ERROR
OPTIONS: dict[str, Any] = {}
# Time on a large graph relative to other rules, for the parallel planner (rules/__init__.py).
COST = 4

# Longest expected-type list spelled out in a message.
_SHOWN_TYPES = 8


def check(graph: GraphIndex, options: Mapping[str, Any]) -> Iterator[Issue]:
    """Yield an issue per node whose data inputs do not fill its signature, or whose signature is broken."""
    cache = signatures(graph)
    table = cache.table()
    for scope in graph.scopes():
        in_function = scope.function is not None
        # Nodes sharing an attr dict share a signature (Signatures.table).
        for group in scope.attr_groups():
            result = table[group[0]]
            if result is None:
                continue  # unknown op: unknown-op's finding
            if isinstance(result, SignatureProblem):
                if result.kind == "missing" and result.declared:
                    # missing-attr reports the absent attr; a count that does not depend on it is still checked.
                    if not in_function:
                        yield from _count_without_types(graph, group)
                    continue
                # Beyond tflint's bound TensorFlow may still accept the node: a warning, not an error.
                severity = Severity.WARNING if result.kind == "beyond-bound" else None
                for node in group:
                    yield Issue(
                        node,
                        f"Node '{node.name}' ({op_label(graph, node)}): its signature cannot be computed: "
                        f"{result.message}",
                        field=result.attr,
                        severity=severity,
                    )
                continue
            if result.input_types is None:
                continue  # a length set by a placeholder: known only when the function is called
            if in_function:
                for node in group:
                    message = _body_mismatch(
                        node, result, [body_input(cache, scope, item) for item in node.inputs if not item.is_control]
                    )
                    if message is not None:
                        yield Issue(node, f"Node '{node.name}' ({op_label(graph, node)}): {message}")
                continue
            expected = len(result.input_types)
            for node in group:
                raw_inputs = node.raw_inputs
                count = len(raw_inputs)
                if count and "^" in "".join(raw_inputs):
                    count -= sum(
                        1 for raw in raw_inputs if raw.startswith("^")
                    )  # ValidateNodeDef counts every input that is not `^name`
                if count != expected:
                    yield Issue(
                        node,
                        f"Node '{node.name}' ({op_label(graph, node)}) has {_inputs(count)} but its signature "
                        f"expects {expected}{_expectation(result)}",
                    )


def _count_without_types(graph: GraphIndex, group: list[Node]) -> Iterator[Issue]:
    """Input-count issues of nodes whose types are unknown (a type attr is missing) but whose count is not.

    An arg takes one input, `number_attr` inputs, or one per type of its `type_list_attr`; when an attr
    setting a count is absent too, nothing is said.
    """
    node = group[0]
    schema = graph.schema_for(node.op)
    if schema is None:
        return
    expected = 0
    for arg in schema.inputs:
        if arg.number_attr or arg.type_list_attr:
            value = node.attr.get(arg.number_attr or arg.type_list_attr)
            if value is None:
                return
            kind = value.WhichOneof("value")
            if arg.number_attr and kind == "i" and 0 <= value.i < 1 << 31:
                expected += value.i
            elif arg.type_list_attr and kind == "list":
                expected += len(value.list.type)
            else:
                return  # a count of the wrong kind: the signature problem is another finding's
        else:
            expected += 1
    for node in group:
        count = sum(1 for raw in node.raw_inputs if not raw.startswith("^"))
        if count != expected:
            yield Issue(
                node, f"Node '{node.name}' ({op_label(graph, node)}) has {_inputs(count)} but its op expects {expected}"
            )


def _inputs(count: int) -> str:
    return "1 data input" if count == 1 else f"{count} data inputs"


def _expectation(signature: Signature) -> str:
    """` (float, float, float; attr 'N' is 3)`: the expected types and the attrs that set the count."""
    types = signature.input_types or ()
    if not types:
        shown = ""
    elif len(types) <= _SHOWN_TYPES:
        shown = ", ".join(dtype_name(value) for value in types)
    else:
        shown = ", ".join(dtype_name(value) for value in types[:_SHOWN_TYPES]) + ", ..."
    setters = []
    for arg in signature.inputs:
        if arg.length_attr and arg.types is not None:
            if arg.type_attr == arg.length_attr:  # a type_list_attr sets both
                setters.append(
                    f"attr '{arg.length_attr}' lists {len(arg.types)} type{'s' if len(arg.types) != 1 else ''}"
                )
            else:
                setters.append(f"attr '{arg.length_attr}' is {len(arg.types)}")
    detail = "; ".join(part for part in [shown, ", ".join(dict.fromkeys(setters))] if part)
    return f" ({detail})" if detail else ""


def _body_mismatch(node: Node, signature: Signature, items: list[BodyInput | None]) -> str | None:
    """Match function-body inputs to args like `InstantiateNode`; the first mismatch, if any."""
    sizes = []
    for item in items:
        if item is None or item.error is not None or item.types is None:
            return None  # an unresolved or unknown-sized input: other rules, or unknowable
        sizes.append(len(item.types))
    supplied = sum(sizes)
    expected = len(signature.input_types or ())
    raws = [raw for raw in node.raw_inputs if not raw.startswith("^")]
    position = 0
    for arg in signature.inputs:
        need = len(arg.types or ())
        filled = 0
        while filled < need:
            if position >= len(sizes):
                return (
                    f"its data inputs supply {_values(supplied)} but its signature expects "
                    f"{expected}{_expectation(signature)}"
                )
            if sizes[position] > need - filled:
                return (
                    f"input '{raws[position]}' supplies {_values(sizes[position])} but only {need - filled} "
                    f"{'remains' if need - filled == 1 else 'remain'} for input arg "
                    f"'{arg.name}'{_expectation(signature)}"
                )
            filled += sizes[position]
            position += 1
    if position < len(sizes):
        return (
            f"its data inputs supply {_values(supplied)} but its signature expects "
            f"{expected}{_expectation(signature)}; '{raws[position]}' and later data inputs are left over"
        )
    return None


def _values(count: int) -> str:
    return "1 value" if count == 1 else f"{count} values"
