"""Every OpDef supplied with the graph or by the user is well formed (TensorFlow's `ValidateOpDef`).

TensorFlow runs `ValidateOpDef` when an op is registered, so a custom-op
library whose OpDef breaks these rules does not load. tflint checks the
OpDefs it did not take from TensorFlow itself, with the same checks:

- the op name is CamelCase: `[A-Z][A-Za-z0-9_]*`, `>`-separated parts each
  starting with a capital (`Invalid name: foo (Did you use CamelCase?)`); a
  name starting with `_` skips this check only (TensorFlow still runs the
  others);
- attr and arg names are unique across attrs, inputs and outputs
  (`Duplicate name: x`), and no attr is named like a DataType (`float`,
  `float32`, `int64_ref`, ...);
- an attr's type is one of the 16 attr types (`string`, `int`, `float`,
  `bool`, `type`, `shape`, `tensor`, `func`, and `list(...)` of each);
  `minimum` is only set on `int` and list attrs, is at least 0 on lists, and
  is 0 when `has_minimum` is false; `allowed_values` is a list of the attr's
  element kind; `default_value` has the attr's kind and respects its minimum
  and allowed values;
- each input and output arg has exactly one of `type`, `type_attr`,
  `type_list_attr` (with `number_attr`: exactly one of `type`, `type_attr`);
  `number_attr` names an `int` attr with a minimum of at least 0,
  `type_attr` a `type` attr, `type_list_attr` a `list(type)` attr, and a fixed
  `type` is not a reference type (`is_ref` says that).

Which OpDefs, and how loud:
- a MetaGraphDef's `stripped_op_list`: every OpDef in it, as warnings
  (TensorFlow never validates that list; it only uses it to strip default
  attrs when importing);
- OpDefs from `--op-defs` files (or `op-defs:` in the config, or OpLists
  passed to the API): the ones the graph uses, as errors, each naming the
  file and a node using the op. A broken custom op is reported with the
  graphs that need it, once per graph, not with every file of a run (rules
  keep no state between graphs); an OpDef no graph uses is not reported;
- TensorFlow's own registry bundled with tflint is trusted and skipped.
OpDefs have no node: a finding points at the OpDef in a text MetaGraphDef or
SavedModel, and carries only the file otherwise.

How to fix: correct the OpDef (usually the `REGISTER_OP` call it was exported
from) and export the OpList again.

Okay:
  meta_info_def {
    stripped_op_list {
      op { name: "NoOp" }
      op { name: "Identity" input_arg { name: "input" type_attr: "T" } output_arg { name: "output" type_attr: "T" }
        attr { name: "T" type: "type" } }
      op { name: "_Internal>Op" attr { name: "N" type: "int" has_minimum: true minimum: 1 default_value { i: 2 } } }
    }
  }
  graph_def { node { name: "a" op: "NoOp" } }
Fail:
  meta_info_def {
    stripped_op_list {
      op { name: "NoOp" }
      op { name: "lowercase" attr { name: "float" type: "int" } }   # opdef-wellformed, opdef-wellformed
    }
  }
  graph_def { node { name: "a" op: "NoOp" } }
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from tflint import protos
from tflint.finding import Issue, Severity, at_op_def
from tflint.tf.attrs import AttrSpec, type_name
from tflint.tf.index import REF_OFFSET, GraphIndex
from tflint.tf.registry import snapshot_info

ID = "opdef-wellformed"
CATEGORY = "opdef"
DEFAULT_SEVERITY = Severity.ERROR
OPTIONS: dict[str, Any] = {}

BUNDLED = "tensorflow"
STRIPPED = "stripped_op_list"
FUNCTION_LIBRARY = "function library"

# IsValidOpName: ASCII only, a capital after every '>'.
_OP_NAME = re.compile(r"[A-Z][A-Za-z0-9_]*(?:>[A-Z][A-Za-z0-9_]*)*")
_ELEMENT_TYPES = ("string", "int", "float", "bool", "type", "shape", "tensor", "func")
_LIST_TYPES = frozenset(f"list({kind})" for kind in _ELEMENT_TYPES)


def _data_type_names() -> frozenset[str]:
    """Every string TensorFlow's `DataTypeFromString` accepts (names, aliases, `_ref` forms)."""
    names = set(snapshot_info().data_types.values()) | {"float32", "float64", "float16"}
    return frozenset(names | {f"{name}_ref" for name in names})


def check(graph: GraphIndex, options: Mapping[str, Any]) -> Iterator[Issue]:
    """Yield an issue per problem of the stripped_op_list's OpDefs and of the user OpDefs the graph uses."""
    dtype_names = _data_type_names()
    meta = graph.meta_graph
    if meta is not None and meta.HasField("meta_info_def") and meta.meta_info_def.HasField("stripped_op_list"):
        for index, op_def in enumerate(meta.meta_info_def.stripped_op_list.op):
            problems = opdef_problems(op_def, dtype_names)
            if not problems:
                continue
            place = at_op_def(index)
            for problem in problems:
                yield Issue(
                    None,
                    f"OpDef '{op_def.name}' in the graph's stripped_op_list: {problem}",
                    at=place,
                    severity=Severity.WARNING,
                )
    seen: set[str] = set()
    for scope in graph.scopes():
        for node in scope.nodes:
            op = node.op
            if op in seen:
                continue
            seen.add(op)
            schema = graph.schema_for(op) if op else None
            if schema is None or schema.source in (BUNDLED, STRIPPED, FUNCTION_LIBRARY):
                continue
            origin = f"from {schema.source}" if schema.source != "op_defs" else "from the OpLists passed as op_defs"
            where = f" in function {node.function}" if node.function else ""
            for problem in opdef_problems(schema.op_def, dtype_names):
                yield Issue(None, f"OpDef '{op}' {origin} (used by node '{node.name}'{where}): {problem}")


def opdef_problems(op_def: Any, dtype_names: frozenset[str]) -> list[str]:
    """Every reason TensorFlow's `ValidateOpDef` rejects `op_def` (TensorFlow stops at the first)."""
    problems: list[str] = []
    name = op_def.name
    if not name.startswith("_") and not _OP_NAME.fullmatch(name):
        problems.append(
            f"the op name {name!r} is not CamelCase (each '>'-separated part must start with A-Z, then "
            "letters, digits or '_'; TensorFlow: `Invalid name`)"
        )
    names: set[str] = set()
    attrs_by_name: dict[str, Any] = {}
    for attr in op_def.attr:
        if attr.name in names:
            problems.append(f"attr '{attr.name}' is declared twice (TensorFlow: `Duplicate name: {attr.name}`)")
        names.add(attr.name)
        attrs_by_name.setdefault(attr.name, attr)
        problems.extend(_attr_problems(attr, dtype_names))
    for direction, args in (("input", op_def.input_arg), ("output", op_def.output_arg)):
        for arg in args:
            problems.extend(_arg_problems(arg, direction, names, attrs_by_name))
    return problems


def _type_string_problem(text: str) -> str | None:
    """Why `text` is not an attr type, following TensorFlow's prefix parser, or None."""
    rest = text[5:] if text.startswith("list(") else text
    element = next((kind for kind in _ELEMENT_TYPES if rest.startswith(kind)), None)
    if element is None:
        return (
            f"has type {text!r}, which is not an attr type (the 16 types are {', '.join(_ELEMENT_TYPES)} and "
            "list(...) of each)"
        )
    rest = rest[len(element) :]
    if text.startswith("list("):
        if not rest.startswith(")"):
            return f"has type {text!r}: 'list(' is missing its ')'"
        rest = rest[1:]
    if rest:
        return f"has type {text!r}, with {rest!r} left over after '{text[: len(text) - len(rest)]}'"
    return None


def _attr_problems(attr: Any, dtype_names: frozenset[str]) -> list[str]:
    problems: list[str] = []
    subject = f"attr '{attr.name}'"
    if attr.name in dtype_names:
        problems.append(
            f"{subject} is named like a DataType, which TensorFlow forbids (`Attr can't have name {attr.name} "
            "that matches a data type`)"
        )
    type_problem = _type_string_problem(attr.type)
    if type_problem is not None:
        problems.append(f"{subject} {type_problem}")
        return problems  # the remaining checks depend on the type
    is_list = attr.type in _LIST_TYPES
    minimum_ok = True
    if attr.has_minimum:
        if attr.type != "int" and not is_list:
            problems.append(f"{subject} of type {attr.type} has a minimum; only int and list attrs can have one")
            minimum_ok = False
        elif is_list and attr.minimum < 0:
            problems.append(
                f"{subject} of type {attr.type} has minimum {attr.minimum}; a list's minimum length cannot be negative"
            )
            minimum_ok = False
    elif attr.minimum != 0:
        problems.append(f"{subject} has minimum {attr.minimum} but has_minimum is false (the minimum must then be 0)")
    allowed_ok = True
    if attr.HasField("allowed_values"):
        list_type = attr.type if is_list else f"list({attr.type})"
        kind = attr.allowed_values.WhichOneof("value")
        mismatch = _kind_problem(attr.allowed_values, kind, list_type)
        if mismatch is not None:
            problems.append(f"{subject}: allowed_values {mismatch}")
            allowed_ok = False
    if attr.HasField("default_value") and minimum_ok and allowed_ok:
        problem = _default_problem(attr, is_list)
        if problem is not None:
            problems.append(f"{subject}: default_value {problem}")
    return problems


def _kind_problem(value: Any, kind: str | None, type_text: str) -> str | None:
    """`AttrValueHasType`, from the attr rules' shared logic (a placeholder is never a value here)."""
    if kind == "placeholder":
        return "is a placeholder, not a value"
    definition = protos.OpDef.AttrDef(name="value", type=type_text)
    verdict = AttrSpec("value", [definition]).judge(value, kind)
    return None if verdict is None else verdict.mismatch


def _default_problem(attr: Any, is_list: bool) -> str | None:
    """`ValidateAttrValue(default_value, attr)`: kind, then minimum, then allowed values."""
    value = attr.default_value
    kind = value.WhichOneof("value")
    if kind == "placeholder":
        return "is a placeholder, not a value"
    verdict = AttrSpec(attr.name, [attr]).judge(value, kind)
    if verdict is not None and verdict.mismatch is not None:
        return verdict.mismatch
    if verdict is not None and verdict.minimum is not None:
        return verdict.minimum
    if attr.HasField("allowed_values") and attr.type not in ("type", "list(type)", "string", "list(string)"):
        return (
            f"cannot be checked: TensorFlow supports allowed_values only on type and string attrs, not {attr.type} "
            "(`Support for allowed_values not implemented`)"
        )
    if verdict is not None and verdict.allowed is not None:
        return verdict.allowed
    return None


def _arg_problems(arg: Any, direction: str, names: set[str], attrs: dict[str, Any]) -> list[str]:
    problems: list[str] = []
    subject = f"{direction} '{arg.name}'"
    if arg.name in names:
        problems.append(f"{subject} reuses the name of another attr or arg (TensorFlow: `Duplicate name: {arg.name}`)")
    names.add(arg.name)
    fixed, by_attr, by_list = arg.type != 0, bool(arg.type_attr), bool(arg.type_list_attr)
    if not (fixed or by_attr or by_list):
        problems.append(f"{subject} has no type: set one of type, type_attr, type_list_attr")
        return problems
    if arg.number_attr:
        attr = attrs.get(arg.number_attr)
        if attr is None:
            problems.append(
                f"{subject} takes its length from attr '{arg.number_attr}' (number_attr), which the OpDef does not "
                "declare"
            )
        elif attr.type != "int":
            problems.append(
                f"{subject} takes its length from attr '{arg.number_attr}', which has type {attr.type}; it must be an "
                "int"
            )
        elif not attr.has_minimum:
            problems.append(
                f"{subject} takes its length from attr '{arg.number_attr}', which has no minimum; a length attr needs "
                "one (>= 0)"
            )
        elif attr.minimum < 0:
            problems.append(
                f"{subject} takes its length from attr '{arg.number_attr}', whose minimum {attr.minimum} is negative"
            )
        if by_list:
            problems.append(f"{subject} has both number_attr and type_list_attr")
        elif fixed and by_attr:
            problems.append(f"{subject} has both type and type_attr; with number_attr exactly one of them is set")
    elif fixed + by_attr + by_list != 1:
        set_fields = [
            field
            for field, present in (("type", fixed), ("type_attr", by_attr), ("type_list_attr", by_list))
            if present
        ]
        problems.append(
            f"{subject} sets {' and '.join(set_fields)}; exactly one of type, type_attr, type_list_attr must be set"
        )
    if by_attr or by_list:
        # TensorFlow follows type_attr when both are set.
        field, name, what, expected = (
            ("type_attr", arg.type_attr, "type", "type")
            if by_attr
            else ("type_list_attr", arg.type_list_attr, "types", "list(type)")
        )
        attr = attrs.get(name)
        if attr is None:
            problems.append(
                f"{subject} takes its {what} from attr '{name}' ({field}), which the OpDef does not declare"
            )
        elif attr.type != expected:
            problems.append(
                f"{subject} takes its {what} from attr '{name}', which has type {attr.type}; it must be a {expected}"
            )
    elif arg.type > REF_OFFSET:
        problems.append(
            f"{subject} has the reference type {type_name(arg.type)}; a ref arg sets is_ref with the base type "
            "(TensorFlow: `Illegal use of ref type`)"
        )
    return problems
