"""Every FunctionDef's signature is instantiable: outputs bound by `ret` / `control_ret`, args well named and typed.

TensorFlow checks a function body only when the function is instantiated
(its first call, or `tf.saved_model.load`), and then fails with:

- `Return y missing.`: an output arg of the signature has no `ret` entry;
- `Return y -> n:z is not found.`: the `ret` value is not an input arg
  (`x`, `x:0`) nor a body node output written `node:out_arg` or
  `node:out_arg:i` (with `out_arg` the name of one of the op's output args
  and `i` a plain index within its range; `node:0` and plain `node` do not
  work);
- `Invalid ret types y : float vs. int32`: the value's type differs from
  the output arg's fixed type (checked when both types are known before the
  call binds the function's attrs);
- `Duplicated arg name: x`: two input args share a name; and `Duplicated
  ret name: x` when a body node with no outputs is named like an input arg;
- `Node 'x' is not unique`: the instantiated body gets a node per input arg
  (named like the arg) and per output arg (`y_RetVal`), so a body node with
  one of those names clashes, and so do two output args with one name;
- `TypeError: Cannot convert the argument `type_value`: 0 to a TensorFlow
  DType` from `tf.import_graph_def` (its `function.from_library`), when an
  input arg has no fixed `type` (its type comes from a `type_attr` or
  `type_list_attr`): Python's importer cannot take polymorphic library
  functions, though C++ loaders can;
- a `control_output` of the signature that `control_ret` does not map to
  an existing body node (`tf.saved_model.load` fails to find the operation).

`ret` keys that name no output arg, and `control_ret` keys that are not in
`signature.control_output`, are ignored by TensorFlow (verified), so they
are not reported. The finding names the function.

How to fix: bind each output arg in `ret` to `node:out_arg:index` (or an
input arg), and each control output in `control_ret` to a body node.

Okay:
  library { function {
    signature { name: "f" input_arg { name: "x" type: DT_FLOAT } output_arg { name: "y" type: DT_FLOAT }
      output_arg { name: "z" type: DT_FLOAT } }
    node_def { name: "n" op: "Neg" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
    ret { key: "y" value: "n:y:0" }
    ret { key: "z" value: "x" }
  } }
Fail:
  library { function {
    signature { name: "f" input_arg { name: "x" type: DT_FLOAT }   # function-ret
      output_arg { name: "y" type: DT_FLOAT } }
    node_def { name: "n" op: "Neg" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
    ret { key: "y" value: "n:0" }
  } }
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, cast

from tflint.finding import Issue, Severity, at_function
from tflint.tf.index import REF_OFFSET, GraphIndex, Scope
from tflint.tf.op_signatures import signatures

ID = "function-ret"
CATEGORY = "function"
DEFAULT_SEVERITY = Severity.ERROR
OPTIONS: dict[str, Any] = {}


def check(graph: GraphIndex, options: Mapping[str, Any]) -> Iterator[Issue]:
    """Yield issues for unbound or dangling outputs and clashing arg names, per function."""
    type_names = _type_names()
    for scope in graph.function_scopes:
        where = at_function(cast(int, scope.function_ordinal))
        for message in _problems(graph, scope, type_names):
            yield Issue(
                None,
                f"Function '{scope.name}': {message}",
                function=scope.name,
                at=where,
                # tf.import_graph_def converts every library function's input types, called or not.
                library=isinstance(message, _LibraryProblem),
            )


class _LibraryProblem(str):
    """A problem TensorFlow finds in every function of the library, whether or not it is called."""


def _problems(graph: GraphIndex, scope: Scope, type_names: dict[int, str]) -> Iterator[str]:
    function = scope.function
    signature = function.signature
    seen: dict[str, Any] = {}
    for arg in signature.input_arg:
        if arg.name in seen:
            yield f"input arg '{arg.name}' is declared twice (TensorFlow: Duplicated arg name)"
        seen.setdefault(arg.name, arg)
        if not arg.type:
            attr = arg.type_attr or arg.type_list_attr
            source = f"its type comes from attr '{attr}'" if attr else "it names no type at all"
            yield _LibraryProblem(
                f"input arg '{arg.name}' has no fixed type ({source}): tf.import_graph_def "
                "cannot import such a library function (a TypeError), though C++ loaders can"
            )
    for node in scope.nodes:
        arg = seen.get(node.name)
        if arg is None:
            continue
        if _has_no_output_args(graph, node.op):
            yield (
                f"body node '{node.name}' has no outputs and the name of an input arg (TensorFlow: Duplicated ret name)"
            )
        elif _fixed_count(arg) == 1:
            yield (
                f"body node '{node.name}' is named like input arg '{node.name}', whose node has that name "
                f"(Node '{node.name}' is not unique)"
            )
    single_outputs = {f"{arg.name}_RetVal" for arg in signature.output_arg if _fixed_count(arg) == 1}
    for node in scope.nodes:
        if node.name in single_outputs:
            yield (
                f"body node '{node.name}' has the name TensorFlow gives the node of output arg "
                f"'{node.name[: -len('_RetVal')]}' (Node '{node.name}' is not unique)"
            )
    outputs: set[str] = set()
    for arg in signature.output_arg:
        if arg.name in outputs:
            yield f"output arg '{arg.name}' is declared twice (TensorFlow makes two nodes '{arg.name}_RetVal')"
            continue
        outputs.add(arg.name)
        if arg.name not in function.ret:
            yield f"output arg '{arg.name}' has no 'ret' entry (TensorFlow: Return {arg.name} missing)"
            continue
        value = function.ret[arg.name]
        resolved = _resolve(graph, scope, value)
        if isinstance(resolved, str):
            yield f"'ret' maps output arg '{arg.name}' to \"{value}\", {resolved}"
            continue
        expected = _fixed_types(arg)
        if expected is not None and resolved is not None and expected != resolved:
            shown = ", ".join(type_names.get(t, str(t)) for t in resolved) or "no tensor"
            yield (
                f"output arg '{arg.name}' is {', '.join(type_names.get(t, str(t)) for t in expected)} but its 'ret' "
                f'value "{value}" is {shown}'
            )
    for name in dict.fromkeys(signature.control_output):
        if name not in function.control_ret:
            yield f"control output '{name}' has no 'control_ret' entry"
        elif function.control_ret[name] not in scope.by_name and function.control_ret[name] not in scope.arg_names:
            yield (
                f"'control_ret' maps control output '{name}' to \"{function.control_ret[name]}\", which is not a body "
                "node"
            )


def _resolve(graph: GraphIndex, scope: Scope, value: str) -> list[int] | None | str:
    """The element types `value` names in TensorFlow's instantiation index, None if unknown, or why it names nothing."""
    parts = value.split(":")
    name = parts[0]
    if len(parts) <= 2 and name in scope.arg_names:
        arg = next(arg for arg in scope.function.signature.input_arg if arg.name == name)
        types = _fixed_types(arg)
        if len(parts) == 1:
            return types
        if not _is_index(parts[1]) or (types is not None and int(parts[1]) >= len(types)):
            return f"which is not an element of input arg '{name}'"
        return None if types is None else [types[int(parts[1])]]
    node = scope.by_name.get(name)
    if node is None:
        return "which names no input arg and no body node"
    schema = graph.schema_for(node.op)
    if schema is None:
        return None  # unknown-op reports the node
    if len(parts) == 1:
        if not schema.outputs:
            return []  # indexed under the bare name, with no tensors: a type mismatch
        return (
            f"but node outputs read '{name}:<output arg>:<index>' "
            f"({node.op}'s: {', '.join(a.name for a in schema.outputs)})"
        )
    output = next((arg for arg in schema.outputs if arg.name == parts[1]), None)
    if output is None or len(parts) > 3:
        names = ", ".join(arg.name for arg in schema.outputs) or "none"
        hint = f"; output arg names of {node.op}: {names}" if output is None else ""
        return f"which is not an output of node '{name}'{hint}"
    signature = signatures(graph).resolved(node)
    resolved = signature.output_arg(output.name) if signature is not None else None
    types = None
    if resolved is not None and resolved.types is not None and all(resolved.types):
        # Base types: a ref output feeds a plain return value (and unset or
        # placeholder types are known only at the call, so they stay None).
        types = [t - REF_OFFSET if t > REF_OFFSET else t for t in cast(tuple[int, ...], resolved.types)]
    if len(parts) == 2:
        return types
    if not _is_index(parts[2]) or (types is not None and int(parts[2]) >= len(types)):
        count = f" ({len(types)} element{'s' if len(types) != 1 else ''})" if types is not None else ""
        return f"which is not an element of output '{parts[1]}' of node '{name}'{count}"
    return None if types is None else [types[int(parts[2])]]


def _is_index(text: str) -> bool:
    """TensorFlow looks the name up as written; its index keys are plain decimals (`0`, `12`, never `01`)."""
    return text.isascii() and text.isdigit() and str(int(text)) == text


def _fixed_types(arg: Any) -> list[int] | None:
    """An arg's element types when they do not depend on the call's attrs."""
    if arg.type and not arg.number_attr and not arg.type_list_attr and not arg.type_attr:
        return [arg.type]
    return None


def _fixed_count(arg: Any) -> int | None:
    """How many tensors an arg stands for when that does not depend on the call (one, unless a list)."""
    return None if arg.number_attr or arg.type_list_attr else 1


def _has_no_output_args(graph: GraphIndex, op: str) -> bool:
    schema = graph.schema_for(op)
    return schema is not None and not schema.outputs


def _type_names() -> dict[int, str]:
    from tflint.tf.registry import snapshot_info

    return snapshot_info().data_types
