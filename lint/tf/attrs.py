"""Node attrs checked against their OpDef, once per graph: the shared core of the five attr rules.

TensorFlow validates a node's attrs in `ValidateNodeDef` (node_def_util.cc):
every attr key not starting with `_` must be in the OpDef (TF 2.x only logs
when it is not), each value must have the AttrDef's kind (`AttrValueHasType`),
respect its `minimum` and `allowed_values` (`ValidateAttrValue`), and every
OpDef attr without a default must be present. A value whose `placeholder` is
set is not validated (function bodies bind it at instantiation).

`missing-attr`, `unknown-attr`, `attr-type-mismatch`, `attr-minimum` and
`allowed-values` all read one `AttrReport`, computed on first use and kept
for the lifetime of the GraphIndex, so the graph's attrs are walked once
whichever of the rules run. Verdicts about a value are memoized per
(merged AttrDef, value key): a value key is the value's kind, plus only the
content the checks read (the DataType of a `type`, the string of a `string`
with allowed values, the int of an `int` with a minimum, element kinds and
counts of a list), so a 100k-node graph pays a dict lookup per attr.

Which OpDef: the graph's function library first (a call node is checked
against the FunctionDef's signature), then the registry layers (a
MetaGraphDef's `stripped_op_list`, user `--op-defs`, the bundled snapshot of
TensorFlow's registry). The registry layers describe the same op as seen by
different TensorFlow versions (the producer's, the user's, TensorFlow
2.21's), and TensorFlow's op-evolution rules only ever add attrs with
defaults, widen allowed values and lower minimums. So the layers are merged
per attr: an attr is known if any layer declares it, has a default if any
declaring layer gives one, allows a value if every declaring layer restricts
it and one of them allows it, and has the lowest minimum any declaring layer
sets. That accepts a graph valid for the version that wrote it or for
TensorFlow 2.21 (which validates with its own registry and ignores a
`stripped_op_list`), and rejects what no version accepts.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, cast

from tflint.finding import Issue
from tflint.tf.index import GraphIndex
from tflint.tf.node import Node
from tflint.tf.registry import OpRegistry, snapshot_info

# AttrValue / ListValue field of each attr element type, in the order AttrValueHasType checks them.
FIELD_OF_TYPE = {
    "string": "s",
    "int": "i",
    "float": "f",
    "bool": "b",
    "type": "type",
    "shape": "shape",
    "tensor": "tensor",
    "func": "func",
}
TYPE_OF_FIELD = {field: kind for kind, field in FIELD_OF_TYPE.items()}
CHECK_ORDER = tuple(FIELD_OF_TYPE.values())

# DataType numbers at and above this are reference types (T_REF = T + 100).
REF_OFFSET = 100


# -- DataType names ----------------------------------------------------------------------------


def _data_type_tables() -> tuple[dict[int, str], frozenset[int], frozenset[int]]:
    names = dict(snapshot_info().data_types)
    base = frozenset(names)
    refs = frozenset(number + REF_OFFSET for number in base)
    for number in base:
        names[number + REF_OFFSET] = f"{names[number]}_ref"
    return names, base, refs


_TYPE_NAMES, _BASE_TYPES, _REF_TYPES = _data_type_tables()


def type_name(number: int) -> str:
    """TensorFlow's name of a DataType number (`float`, `int32_ref`), or the number itself."""
    name = _TYPE_NAMES.get(number)
    if name is not None:
        return name
    return "DT_INVALID" if number == 0 else str(number)


def quote_string(value: bytes) -> str:
    """A string attr value the way TensorFlow prints it: double-quoted, C-escaped."""
    out = []
    for byte in value:
        if byte == 0x22:
            out.append('\\"')
        elif byte == 0x5C:
            out.append("\\\\")
        elif byte == 0x0A:
            out.append("\\n")
        elif byte == 0x09:
            out.append("\\t")
        elif byte == 0x0D:
            out.append("\\r")
        elif 0x20 <= byte < 0x7F:
            out.append(chr(byte))
        else:
            out.append(f"\\{byte:03o}")
    return '"' + "".join(out) + '"'


def _type_problem(number: int) -> str | None:
    """Why a DataType number cannot be an attr value (TF's D4-D6), or None when it can."""
    if number in _BASE_TYPES:
        return None
    if number in _REF_TYPES:
        return f"{type_name(number)}, a reference type (attrs name the base type, {type_name(number - REF_OFFSET)})"
    if number == 0:
        return "DT_INVALID"
    return f"{number}, which is not a DataType number TensorFlow defines"


# -- one attr of one op, merged over registry layers --------------------------------------------


class Verdict:
    """What is wrong with one attr value: at most one message per rule (None = fine)."""

    __slots__ = ("mismatch", "minimum", "allowed")

    def __init__(self, mismatch: str | None = None, minimum: str | None = None, allowed: str | None = None) -> None:
        self.mismatch = mismatch
        self.minimum = minimum
        self.allowed = allowed


# How the hot loop accepts a good value before the general path (see AttrSpec.mode).
_SLOW, _IN_SET, _TRUTHY, _AT_LEAST, _HAS_KIND, _SERIALIZED = range(6)
_UNSEEN: Any = object()


class AttrSpec:
    """What the OpDef(s) say about one attr, and the memo of verdicts on its values."""

    __slots__ = (
        "name",
        "type",
        "is_list",
        "field",
        "has_default",
        "minimum",
        "allowed",
        "required",
        "mode",
        "good",
        "serialized",
        "_memo",
        "_scalar_content",
        "_list_content",
    )

    def __init__(self, name: str, definitions: list[Any]) -> None:
        first = definitions[0]
        same = [attr for attr in definitions if attr.type == first.type]
        self.name = name
        self.type: str = first.type
        self.is_list = self.type.startswith("list(") and self.type.endswith(")")
        element = self.type[5:-1] if self.is_list else self.type
        # None for a type string TF does not know (opdef-wellformed reports it); no kind then matches.
        # Typed Any: the checks use it as a getattr name only in the modes where it is set.
        self.field: Any = FIELD_OF_TYPE.get(element)
        self.has_default = any(attr.HasField("default_value") for attr in definitions)
        self.required = False
        self.minimum: int | None = (
            min(attr.minimum for attr in same) if all(attr.has_minimum for attr in same) else None
        )
        if self.type != "int" and not self.is_list:
            self.minimum = None
        self.allowed: tuple[Any, ...] | None = None
        if self.type in ("type", "list(type)", "string", "list(string)") and all(
            attr.HasField("allowed_values") for attr in same
        ):
            merged: dict[Any, None] = {}
            for attr in same:
                for item in getattr(attr.allowed_values.list, cast(str, self.field)):
                    merged[item] = None
            self.allowed = tuple(merged)
        # Which value content the checks read (everything else is judged by kind alone).
        self._scalar_content = (
            self.field
            if not self.is_list and (self.type == "type" or self.minimum is not None or self.allowed is not None)
            else None
        )
        self._list_content = (
            self.field
            if self.is_list and self.field in ("type", "s") and (self.field == "type" or self.allowed is not None)
            else None
        )
        self._memo: dict[Any, Verdict | None] = {}
        self.serialized: dict[bytes, Verdict | None] = {}
        # The hot loop's shortcut: a value passing it is of the right kind and meets every constraint.
        # A oneof member reads as 0 / "" / False unless it is the one set, so a truthy read proves the kind.
        self.good: frozenset[Any] = frozenset()
        if self.field is None:
            self.mode = _SLOW
        elif self.is_list:
            self.mode = _SERIALIZED
        elif self.type == "type":
            self.mode = _IN_SET
            self.good = frozenset(number for number in _BASE_TYPES if self.allowed is None or number in self.allowed)
        elif self.allowed is not None:
            self.mode = _IN_SET
            self.good = frozenset(item for item in self.allowed if item)
        elif self.minimum is not None:
            self.mode = _AT_LEAST
        elif self.field in ("s", "i", "f", "b"):
            self.mode = _TRUTHY
        else:
            self.mode = _HAS_KIND

    def judge(self, value: Any, kind: str | None) -> Verdict | None:
        """The verdict on a non-placeholder value (memoized on the content the checks read)."""
        if kind == "list":
            key: Any = ("list", self._list_key(value.list))
        elif kind is not None and kind == self._scalar_content:
            key = (kind, getattr(value, kind))
        else:
            key = kind
        try:
            return self._memo[key]
        except KeyError:
            pass
        verdict = self._validate(value, kind)
        self._memo[key] = verdict
        return verdict

    def _list_key(self, listed: Any) -> tuple[Any, ...]:
        parts: list[tuple[str, Any]] = []
        for descriptor, items in listed.ListFields():
            name = descriptor.name
            if name == self._list_content:
                parts.append((name, tuple(items)))
            else:
                parts.append((name, len(items)))
        return tuple(parts)

    # The checks, in TensorFlow's order: kind (AttrValueHasType), minimum, allowed values.

    def _validate(self, value: Any, kind: str | None) -> Verdict | None:
        mismatch = self._kind_problem(value, kind)
        if mismatch is not None:
            return Verdict(mismatch=mismatch)
        minimum = self._minimum_problem(value, kind)
        allowed = self._allowed_problem(value, kind)
        if minimum is None and allowed is None:
            return None
        return Verdict(minimum=minimum, allowed=allowed)

    def _kind_problem(self, value: Any, kind: str | None) -> str | None:
        expected = self.type
        if kind == "list":
            present = [name for name in CHECK_ORDER if len(getattr(value.list, name))]
            if not present:
                if self.is_list:
                    return None
                return f"has an empty list where a {expected} value is needed"
            if not self.is_list:
                return f"holds a list({_kind_label(present)}) where a single {expected} is expected"
            if present != [self.field]:
                others = [name for name in present if name != self.field]
                if self.field in present:
                    return (
                        f"is a list mixing {_kind_label([self.field] + others)} values; a {expected} holds only "
                        f"{TYPE_OF_FIELD[self.field]} values"
                    )
                return f"holds a list({_kind_label(others)}) where a {expected} is expected"
            if self.field == "type":
                return _type_list_problem(value.list.type)
            return None
        if kind is None:
            if self.is_list:
                return None  # TF reads an AttrValue with nothing set as an empty list (GraphDef <= 4 tolerance)
            return f"has no value (a {expected} is expected)"
        if self.is_list:
            return f"holds a single {TYPE_OF_FIELD.get(kind, kind)} where a {expected} is expected"
        if kind != self.field:
            return f"holds {_article(TYPE_OF_FIELD.get(kind, kind))} where {_article(expected)} is expected"
        if kind == "type":
            problem = _type_problem(value.type)
            return f"is {problem}" if problem else None
        return None

    def _minimum_problem(self, value: Any, kind: str | None) -> str | None:
        if self.minimum is None:
            return None
        if not self.is_list:
            if value.i < self.minimum:
                return f"is {value.i}, below its minimum {self.minimum}"
            return None
        length = len(getattr(value.list, self.field)) if kind == "list" else 0
        if length < self.minimum:
            elements = "element" if length == 1 else "elements"
            return f"has {length} {elements}; it needs at least {self.minimum}"
        return None

    def _allowed_problem(self, value: Any, kind: str | None) -> str | None:
        if self.allowed is None:
            return None
        allowed = self.allowed
        if self.type == "type":
            if value.type in allowed:
                return None
            return f"is {type_name(value.type)}; allowed values are {', '.join(type_name(item) for item in allowed)}"
        if self.type == "string":
            if value.s in allowed:
                return None
            return f"is {quote_string(value.s)}; allowed values are {', '.join(quote_string(item) for item in allowed)}"
        items = getattr(value.list, self.field) if kind == "list" else ()
        bad = list(dict.fromkeys(item for item in items if item not in allowed))
        if not bad:
            return None
        show = type_name if self.field == "type" else quote_string
        return (
            f"contains {', '.join(show(item) for item in bad)}; allowed values are "
            f"{', '.join(show(item) for item in allowed)}"
        )


def _kind_label(fields: list[str]) -> str:
    return " and ".join(TYPE_OF_FIELD[name] for name in fields)


def _article(kind: str) -> str:
    return f"an {kind}" if kind[:1] in "aeiou" else f"a {kind}"


def _type_list_problem(types: Iterable[int]) -> str | None:
    problems = []
    for position, number in enumerate(types):
        problem = _type_problem(number)
        if problem is not None:
            problems.append(f"element {position} is {problem}")
    if not problems:
        return None
    more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
    return problems[0] + more


class OpAttrs:
    """The merged attr definitions of one op (or one function signature)."""

    __slots__ = ("name", "label", "attrs", "required", "is_function", "hints")

    def __init__(self, name: str, definitions: list[Any], is_function: bool) -> None:
        self.name = name
        self.is_function = is_function
        self.hints: dict[str, str] = {}  # did-you-mean suffixes for unknown attr keys, by key
        self.label = f"function {name}" if is_function else f"op {name}"
        by_name: dict[str, list[Any]] = {}
        for op_def in definitions:
            for attr in op_def.attr:
                by_name.setdefault(attr.name, []).append(attr)
        self.attrs: dict[str, AttrSpec] = {name: AttrSpec(name, attrs) for name, attrs in by_name.items()}
        # Attrs the primary definition declares and no layer gives a default (TF adds defaults at import).
        primary = [attr.name for attr in definitions[0].attr]
        self.required: tuple[str, ...] = tuple(
            dict.fromkeys(name for name in primary if not self.attrs[name].has_default)
        )
        for name in self.required:
            self.attrs[name].required = True


def _merged_ops(registry: OpRegistry) -> dict[str, OpAttrs | None]:
    """Merged op definitions by op name, filled on first use (OpRegistry.derived: one per registry)."""
    return {}


def op_attrs(graph: GraphIndex, op: str) -> OpAttrs | None:
    """The merged attr definitions `op` is checked against in `graph`, or None for an unknown op."""
    function = graph.function_by_name.get(op)
    if function is not None:
        return OpAttrs(op, [function.signature], True)
    registry = graph.registry
    cache = registry.derived(_merged_ops)
    try:
        return cache[op]
    except KeyError:
        pass
    definitions = [ops[op] for _, ops in registry.layers() if op in ops]
    found = OpAttrs(op, definitions, False) if definitions else None
    cache[op] = found
    return found


# -- the per-graph report ------------------------------------------------------------------------


class AttrReport:
    """Every attr issue of one graph, sorted into the rule that reports it."""

    __slots__ = ("missing", "unknown", "mismatch", "minimum", "allowed")

    def __init__(self) -> None:
        self.missing: list[Issue] = []
        self.unknown: list[Issue] = []
        self.mismatch: list[Issue] = []
        self.minimum: list[Issue] = []
        self.allowed: list[Issue] = []


def attr_report(graph: GraphIndex) -> AttrReport:
    """The attr issues of `graph`, computed on the first call and then shared."""
    return graph.derived(_build_report)


def _build_report(graph: GraphIndex) -> AttrReport:
    # Issues are a function of a node's op and attrs (and scope): each group of nodes sharing an
    # op and an attr dict is checked through its first node; the others only when it has issues.
    report = AttrReport()
    ops: dict[str, OpAttrs | None] = {}
    for scope in graph.scopes():
        in_function = scope.function is not None
        bindable = frozenset(attr.name for attr in scope.function.signature.attr) if in_function else frozenset()
        for group in scope.attr_groups():
            op = group[0].op
            try:
                spec = ops[op]
            except KeyError:
                spec = ops[op] = op_attrs(graph, op)
            if spec is None:
                continue
            if _check_node(report, group[0], spec, in_function, bindable, scope.name):
                for node in group[1:]:
                    _check_node(report, node, spec, in_function, bindable, scope.name)
    return report


def _check_node(
    report: AttrReport, node: Node, spec: OpAttrs, in_function: bool, bindable: frozenset[str], function: str | None
) -> bool:
    """Record the attr issues of one node; whether it had any.

    The hot loop of all five rules. Keys are iterated and values fetched one
    by one, and a good value is usually accepted by one field read and a set
    lookup (see AttrSpec.mode).
    """
    missing, unknown, mismatch = report.missing, report.unknown, report.mismatch
    in_set, truthy, at_least, has_kind, serial, unseen = _IN_SET, _TRUTHY, _AT_LEAST, _HAS_KIND, _SERIALIZED, _UNSEEN
    found = len(missing) + len(unknown) + len(mismatch) + len(report.minimum) + len(report.allowed)
    attrs = node.attr
    specs = spec.attrs
    required_seen = 0
    for key in attrs:
        if key[:1] == "_":
            continue
        attr = specs.get(key)
        if attr is None:
            unknown.append(Issue(node, _unknown_message(node, spec, key), key))
            continue
        if attr.required:
            required_seen += 1
        value = attrs[key]
        mode = attr.mode
        serialized = None
        if mode == in_set:
            if getattr(value, attr.field) in attr.good:
                continue
        elif mode == truthy:
            field = attr.field
            if getattr(value, field) or value.HasField(field):
                continue
        elif mode == at_least:
            number = value.i
            if number and number >= attr.minimum:
                continue
        elif mode == has_kind:
            if value.HasField(attr.field):
                continue
        elif mode == serial:
            serialized = value.SerializeToString()
            verdict = attr.serialized.get(serialized, unseen)
            if verdict is None:
                continue
            if verdict is not unseen:
                _record(report, node, spec, key, verdict)
                continue
        kind = value.WhichOneof("value")
        if kind == "placeholder":
            problem = _placeholder_problem(value.placeholder, in_function, bindable, function)
            if problem is not None:
                mismatch.append(Issue(node, f"{_subject(node, spec)}: attr '{key}' {problem}", key))
            continue
        if kind is None:
            if in_function:
                mismatch.append(
                    Issue(
                        node,
                        f"{_subject(node, spec)}: attr '{key}' has no value, which a function body cannot bind (a "
                        f"{attr.type} is expected)",
                        key,
                    )
                )
                continue
            if attr.has_default and not spec.is_function:
                continue  # TensorFlow's Python importer replaces an empty value by the default
            verdict = attr.judge(value, kind)
        else:
            verdict = attr.judge(value, kind)
            if serialized is not None:
                attr.serialized[serialized] = verdict
        if verdict is not None:
            _record(report, node, spec, key, verdict)
    if required_seen < len(spec.required):
        absent = [name for name in spec.required if name not in attrs]
        if absent:
            missing.append(Issue(node, _missing_message(node, spec, absent)))
    return found != len(missing) + len(unknown) + len(mismatch) + len(report.minimum) + len(report.allowed)


def _record(report: AttrReport, node: Node, spec: OpAttrs, key: str, verdict: Verdict) -> None:
    if verdict.mismatch is not None:
        report.mismatch.append(Issue(node, f"{_subject(node, spec)}: attr '{key}' {verdict.mismatch}", key))
    if verdict.minimum is not None:
        report.minimum.append(Issue(node, f"{_subject(node, spec)}: attr '{key}' {verdict.minimum}", key))
    if verdict.allowed is not None:
        report.allowed.append(Issue(node, f"{_subject(node, spec)}: attr '{key}' {verdict.allowed}", key))


def _subject(node: Node, spec: OpAttrs) -> str:
    return f"Node '{node.name}' ({spec.label})"


def _placeholder_problem(name: str, in_function: bool, bindable: frozenset[str], function: str | None) -> str | None:
    if not name:
        return "is an empty placeholder, which nothing can bind (a value is needed)"
    if not in_function:
        return f"is a placeholder (${name}), which only a function body can have; a value is needed"
    if name not in bindable:
        return f"is the placeholder ${name}, but function {function} has no attr '{name}' to bind it to"
    return None


def _missing_message(node: Node, spec: OpAttrs, absent: list[str]) -> str:
    described = ", ".join(f"'{name}' ({spec.attrs[name].type})" for name in absent)
    if len(absent) == 1:
        return f"{_subject(node, spec)} is missing attr {described}, which has no default"
    return f"{_subject(node, spec)} is missing attrs {described}, which have no default"


def _unknown_message(node: Node, spec: OpAttrs, key: str) -> str:
    hint = spec.hints.get(key)
    if hint is None:
        import difflib  # only for an unknown attr

        close = difflib.get_close_matches(key, sorted(spec.attrs), n=1, cutoff=0.75)
        hint = spec.hints[key] = f" (did you mean '{close[0]}'?)" if close else ""
    return f"{_subject(node, spec)} has attr '{key}', which {spec.label} does not define{hint}; TensorFlow ignores it"
