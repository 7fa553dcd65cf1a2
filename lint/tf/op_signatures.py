"""DataTypes along a graph's edges: each node's resolved input/output signature, and data-input lookup.

TensorFlow computes a node's signature from its OpDef (or a function's
signature) and its attrs (`InOutTypesForNode` / `AddArgToSig`): an arg with a
`number_attr` repeats one type N times, a `type_list_attr` contributes the
listed types, a `type_attr` or fixed `type` one value, and `is_ref` turns every
type into its reference type (T + 100). This module does the same, with two
differences that suit a linter:

- Inside function bodies attrs are often placeholders bound only when the
  function is instantiated; a type that depends on one is `None` (unknown) and
  a length that depends on one makes the whole direction's length unknown.
  Rules skip anything unknown; they never guess.
- A value TensorFlow would reject elsewhere (a `type` attr holding an invalid
  or reference DataType) resolves to an unknown type rather than a bogus one,
  so one bad attr is reported once, by the attr rules.
- An attr present but empty (`T {}`) takes the OpDef default when there is
  one, as Python's `import_graph_def` does before handing the graph to C++.

(`GraphIndex.signature` gives the strict all-or-nothing answer; these rules
need the partial one, per-arg ranges for function bodies, and the reason a
signature fails.)

Signatures are memoized per (op, values of the attrs the signature reads) and
per node, once per GraphIndex, so the rules that need them (input-count,
output-index-out-of-range, type-attr-consistency) share one computation.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, cast

from tflint.records import record
from tflint.tf.index import REF_OFFSET, GraphIndex, Scope
from tflint.tf.node import Input, Node
from tflint.tf.registry import OpSchema, snapshot_info

# The longest repeated arg (a `number_attr`'s N) whose types are spelled out, unless the graph
# has a node with more inputs. The attr is a few bytes in the file; N types are N slots of
# memory and N steps of every rule that reads them, so a bigger claim is a finding
# (input-count's warning), not work.
MAX_ARG_LENGTH = 1 << 16

# TensorFlow keeps output counts in an int32 (`Number of outputs is too big`).
INT32_MAX = (1 << 31) - 1
INT32_MIN = -(1 << 31)


def dtype_name(value: int | None) -> str:
    """TensorFlow's name for a DataType number (`float`, `int32_ref`, ...)."""
    if value is None:
        return "unknown"
    names = snapshot_info().data_types
    if value > REF_OFFSET and value - REF_OFFSET in names:
        return f"{names[value - REF_OFFSET]}_ref"
    return names.get(value, f"DataType {value}")


def op_label(graph: GraphIndex, node: Node) -> str:
    """`op Merge`, or `a call to function f` for a node whose op is a library function."""
    if node.op in graph.function_by_name:
        return f"a call to function {node.op}"
    return f"op {node.op}"


def types_compatible(expected: int, actual: int) -> bool:
    """TensorFlow's `TypesCompatible`: a non-ref input takes T or T_ref, a ref input only T_ref."""
    return expected == actual or (actual > REF_OFFSET and expected == actual - REF_OFFSET)


@record(frozen=True)
class Arg:
    """One input or output arg of a resolved signature.

    `types` holds one DataType per value (None for a type that depends on an
    unbound placeholder); `types` itself is None when the arg's length is
    unknown. `length_attr` / `type_attr` name the attrs that set them.
    """

    __slots__ = ("name", "types", "length_attr", "type_attr", "is_ref")

    name: str
    types: tuple[int | None, ...] | None
    length_attr: str | None
    type_attr: str | None
    is_ref: bool

    def __init__(
        self,
        name: str,
        types: tuple[int | None, ...] | None,
        length_attr: str | None,
        type_attr: str | None,
        is_ref: bool,
    ) -> None:
        _set = object.__setattr__
        _set(self, "name", name)
        _set(self, "types", types)
        _set(self, "length_attr", length_attr)
        _set(self, "type_attr", type_attr)
        _set(self, "is_ref", is_ref)


@record(frozen=True)
class Signature:
    """A node's resolved signature: its args, and the flattened types when every length is known."""

    __slots__ = ("inputs", "outputs", "input_types", "output_types")

    inputs: tuple[Arg, ...]
    outputs: tuple[Arg, ...]
    input_types: tuple[int | None, ...] | None
    output_types: tuple[int | None, ...] | None

    def __init__(
        self,
        inputs: tuple[Arg, ...],
        outputs: tuple[Arg, ...],
        input_types: tuple[int | None, ...] | None,
        output_types: tuple[int | None, ...] | None,
    ) -> None:
        _set = object.__setattr__
        _set(self, "inputs", inputs)
        _set(self, "outputs", outputs)
        _set(self, "input_types", input_types)
        _set(self, "output_types", output_types)

    def output_arg(self, name: str) -> Arg | None:
        """The output arg called `name` (function bodies address outputs by arg name)."""
        for arg in self.outputs:
            if arg.name == name:
                return arg
        return None

    def input_arg_at(self, slot: int) -> tuple[Arg, int] | None:
        """The input arg holding flattened input `slot`, and the element index inside it."""
        start = 0
        for arg in self.inputs:
            if arg.types is None:
                return None
            if slot < start + len(arg.types):
                return arg, slot - start
            start += len(arg.types)
        return None


@record(frozen=True)
class SignatureProblem:
    """Why a node's signature cannot be computed (TensorFlow's `InOutTypesForNode` fails).

    `kind` is one of missing, ill-typed, negative, too-big, ref-of-ref,
    untyped-arg, beyond-bound (a length past MAX_ARG_LENGTH: TensorFlow may accept
    it). `declared` tells whether the attr is declared by the op's
    definition (a missing declared attr is `missing-attr`'s finding).
    """

    __slots__ = ("kind", "attr", "message", "declared")

    kind: str
    attr: str | None
    message: str
    declared: bool

    def __init__(self, kind: str, attr: str | None, message: str, declared: bool = True) -> None:
        _set = object.__setattr__
        _set(self, "kind", kind)
        _set(self, "attr", attr)
        _set(self, "message", message)
        _set(self, "declared", declared)


# -- per-graph cache ---------------------------------------------------------


def signatures(graph: GraphIndex) -> Signatures:
    """The shared signature cache of `graph` (built on first use)."""
    return graph.derived(Signatures)


class _Plan:
    """What one op's signature depends on: its schema and the attrs its args read."""

    __slots__ = ("schema", "attr_names", "defaults", "memo")

    def __init__(self, schema: OpSchema, graph: GraphIndex) -> None:
        self.schema = schema
        names: list[str] = []
        for arg in schema.inputs + schema.outputs:
            for name in (arg.number_attr, arg.type_attr, arg.type_list_attr):
                if name and name not in names:
                    names.append(name)
        self.attr_names = tuple(names)
        defaults: dict[str, int | tuple[Any, ...]] = {}
        for name in names:
            default = graph.attr_default(schema, name)
            defaults[name] = _MISSING if default is None else _value_key(default)
        self.defaults = defaults
        self.memo: dict[int | tuple[Any, ...], Signature | SignatureProblem] = {}


def _kind(key: int | tuple[Any, ...]) -> str:
    """The AttrValue kind of a `_value_key` summary."""
    return "type" if isinstance(key, int) else key[0]


_MISSING = ("missing",)
_EMPTY = ("empty",)
_UNSEEN: Any = object()


def _value_key(value: Any) -> int | tuple[Any, ...]:
    """A hashable summary of an AttrValue, enough to resolve a signature from it.

    A DataType is summarized as the bare int (the common case, kept cheap);
    anything else as a tuple that starts with the AttrValue's kind.
    """
    dtype: int = value.type
    if dtype:
        return dtype
    kind = value.WhichOneof("value")
    if kind == "type":
        return dtype
    if kind == "i":
        return ("i", value.i)
    if kind == "list":
        types = tuple(value.list.type)
        # A list holding only other kinds (`list { s: "x" }`) is not a list of types.
        return ("list", types, bool(types) or not value.list.ListFields())
    return (kind,) if kind else _EMPTY


class Signatures:
    """Resolved signatures of every node of one GraphIndex, computed once and memoized."""

    def __init__(self, graph: GraphIndex) -> None:
        self.graph = graph
        self._plans: dict[str, _Plan | None] = {}
        self._table: dict[Node, Signature | SignatureProblem | None] | None = None
        self._function_args: dict[int, dict[str, Arg]] = {}
        self._limit: int | None = None

    def table(self) -> dict[Node, Signature | SignatureProblem | None]:
        """Every node's signature, the problem that prevents computing it, or None for an unknown op."""
        if self._table is None:
            resolve = self._resolve
            # A signature is a function of op and attrs: nodes sharing an attr dict share it.
            table: dict[Node, Signature | SignatureProblem | None] = {}
            for scope in self.graph.scopes():
                for group in scope.attr_groups():
                    signature = resolve(group[0])
                    for node in group:  # most groups hold a node or two: a temporary dict each cost twice as much
                        table[node] = signature
            self._table = table
        return self._table

    def of(self, node: Node) -> Signature | SignatureProblem | None:
        """`node`'s signature, the problem that prevents computing it, or None for an unknown op."""
        return self.table()[node]

    def resolved(self, node: Node) -> Signature | None:
        """`node`'s signature when it can be computed, else None."""
        result = self.table()[node]
        return result if isinstance(result, Signature) else None

    def resolved_alone(self, node: Node) -> Signature | None:
        """`resolved(node)` without building every node's signature first (for the few nodes of a function body)."""
        result = self._table[node] if self._table is not None else self._resolve(node)
        return result if isinstance(result, Signature) else None

    def _resolve(self, node: Node) -> Signature | SignatureProblem | None:
        plan = cast("_Plan | None", self._plans.get(node.op, _UNSEEN))  # _UNSEEN: not looked up yet
        if plan is _UNSEEN:
            schema = self.graph.schema_for(node.op) if node.op else None
            plan = _Plan(schema, self.graph) if schema is not None else None
            self._plans[node.op] = plan
        if plan is None:
            return None
        # The memo key: one summary per attr the signature reads (bare when there is one).
        names = plan.attr_names
        get = node.attr.get
        key: int | tuple[Any, ...]
        if len(names) == 1:
            key = self._summary(get(names[0]), plan.defaults[names[0]])
        elif names:
            key = tuple([self._summary(get(name), plan.defaults[name]) for name in names])
        else:
            key = ()
        try:
            return plan.memo[key]
        except KeyError:
            pass
        values = {names[0]: key} if len(names) == 1 else dict(zip(names, cast("tuple[Any, ...]", key)))
        result = _build(plan.schema, values, self._length_limit)
        plan.memo[key] = result
        return result

    def _length_limit(self) -> int:
        """The longest repeated arg spelled out: MAX_ARG_LENGTH, or the graph's largest fan-in if larger.

        A length the input itself spells out (100k real inputs to an AddN) costs what the input
        costs; only a claim beyond both is refused. Computed when a length first exceeds the bound.
        """
        if self._limit is None:
            fan_in = max((len(node.raw_inputs) for node in self.graph.all_nodes()), default=0)
            self._limit = max(MAX_ARG_LENGTH, fan_in)
        return self._limit

    @staticmethod
    def _summary(value: Any, default: int | tuple[Any, ...]) -> int | tuple[Any, ...]:
        if value is None:
            return default
        dtype: int = value.type
        if dtype:
            return dtype  # the common case, kept cheap
        part = _value_key(value)
        if part is _EMPTY and default is not _MISSING:
            return default  # Python's importer fills an empty AttrValue with the default
        return part

    def function_args(self, scope: Scope) -> dict[str, Arg]:
        """The input args of the function whose body `scope` is, by name.

        Their types come from the signature alone: a fixed `type` is known, a
        type or length set by one of the function's own attrs is not (those
        attrs are bound only by a call).
        """
        cached = self._function_args.get(id(scope))
        if cached is None:
            cached = {}
            if scope.function is not None:
                for arg_def in scope.function.signature.input_arg:
                    cached.setdefault(arg_def.name, _unbound_arg(arg_def))
            self._function_args[id(scope)] = cached
        return cached


def _unbound_arg(arg_def: Any) -> Arg:
    if arg_def.number_attr or arg_def.type_list_attr:
        return Arg(
            arg_def.name, None, arg_def.number_attr or arg_def.type_list_attr, arg_def.type_attr or None, arg_def.is_ref
        )
    if arg_def.type_attr or not arg_def.type:
        return Arg(arg_def.name, (None,), None, arg_def.type_attr or None, arg_def.is_ref)
    value = arg_def.type + REF_OFFSET if arg_def.is_ref and arg_def.type < REF_OFFSET else arg_def.type
    return Arg(arg_def.name, (value,), None, None, arg_def.is_ref)


class _Unresolvable(Exception):
    def __init__(self, problem: SignatureProblem) -> None:
        super().__init__(problem.message)
        self.problem = problem


def _build(
    schema: OpSchema,
    values: Mapping[str, int | tuple[Any, ...]],
    length_limit: Callable[[], int] = lambda: MAX_ARG_LENGTH,
) -> Signature | SignatureProblem:
    try:
        inputs = tuple(_arg(schema, arg, values, "input", length_limit) for arg in schema.inputs)
        outputs = tuple(_arg(schema, arg, values, "output", length_limit) for arg in schema.outputs)
    except _Unresolvable as error:
        return error.problem
    return Signature(inputs, outputs, _flatten(inputs), _flatten(outputs))


def _flatten(args: tuple[Arg, ...]) -> tuple[int | None, ...] | None:
    flat: list[int | None] = []
    for arg in args:
        if arg.types is None:
            return None
        flat.extend(arg.types)
    return tuple(flat)


_KIND_NAMES = {
    "s": "a string",
    "i": "an int",
    "f": "a float",
    "b": "a bool",
    "type": "a type",
    "shape": "a shape",
    "tensor": "a tensor",
    "func": "a function",
    "list": "a list",
    "empty": "empty",
    "placeholder": "a placeholder",
}


def _describe(key: int | tuple[Any, ...]) -> str:
    kind = _kind(key)
    if kind == "list" and not key[2]:  # type: ignore[index]
        return "a list of non-types"
    return _KIND_NAMES.get(kind, kind)


def _valid_type(value: int) -> bool:
    return value in snapshot_info().data_types


def _arg(
    schema: OpSchema,
    arg: Any,
    values: Mapping[str, int | tuple[Any, ...]],
    direction: str,
    length_limit: Callable[[], int] = lambda: MAX_ARG_LENGTH,
) -> Arg:
    what = f"{direction} arg '{arg.name}'"
    if arg.number_attr:
        name = arg.number_attr
        key = _present(schema, values, name, f"the length of {what}")
        kind = _kind(key)
        if kind == "placeholder":
            return Arg(arg.name, None, name, arg.type_attr or None, arg.is_ref)
        if kind != "i":
            raise _Unresolvable(
                SignatureProblem(
                    "ill-typed", name, f"attr '{name}' (the length of {what}) must be an int but is {_describe(key)}"
                )
            )
        count = key[1]  # type: ignore[index]
        if count > INT32_MAX or count < INT32_MIN:
            raise _Unresolvable(
                SignatureProblem(
                    "too-big", name, f"attr '{name}' (the length of {what}) is {count}, too big for an int32"
                )
            )
        if count < 0:
            raise _Unresolvable(
                SignatureProblem(
                    "negative", name, f"attr '{name}' (the length of {what}) is {count}; a length cannot be negative"
                )
            )
        if count > MAX_ARG_LENGTH and count > length_limit():
            raise _Unresolvable(
                SignatureProblem(
                    "beyond-bound",
                    name,
                    f"attr '{name}' (the length of {what}) is {count:,}, more than tflint checks"
                    f" ({length_limit():,}): its inputs and outputs are not checked",
                )
            )
        if arg.type_attr:
            # Read with a typed lookup: a value of another kind is an error here.
            element = _element_type(schema, arg, values, what, strict=True)
        elif arg.type:
            element = arg.type
        else:
            raise _Unresolvable(
                SignatureProblem("untyped-arg", None, f"{what} has a number_attr but neither type nor type_attr")
            )
        types: tuple[int | None, ...] = (element,) * count
        length_attr: str | None = name
    elif arg.type_attr:
        types = (_element_type(schema, arg, values, what, strict=False),)
        length_attr = None
    elif arg.type_list_attr:
        name = arg.type_list_attr
        key = _present(schema, values, name, f"the types of {what}")
        kind = _kind(key)
        if kind == "placeholder":
            return Arg(arg.name, None, name, None, arg.is_ref)
        if kind == "empty":
            types = ()  # TensorFlow reads an AttrValue with nothing set as an empty list
        elif kind == "list" and key[2]:  # type: ignore[index]
            types = tuple(value if _valid_type(value) else None for value in key[1])  # type: ignore[index]
        else:
            raise _Unresolvable(
                SignatureProblem(
                    "ill-typed",
                    name,
                    f"attr '{name}' (the types of {what}) must be a list of types but is {_describe(key)}",
                )
            )
        length_attr = name
    elif arg.type:
        types = (arg.type,)
        length_attr = None
    else:
        raise _Unresolvable(
            SignatureProblem(
                "untyped-arg",
                None,
                f"{what} of {'function' if schema.is_function else 'op'} '{schema.name}' has no type, type_attr or "
                "type_list_attr",
            )
        )
    if arg.is_ref:
        if any(value is not None and value > REF_OFFSET for value in types):
            raise _Unresolvable(
                SignatureProblem("ref-of-ref", None, f"{what} asks for a reference to a reference type")
            )
        types = tuple(None if value is None else value + REF_OFFSET for value in types)
    return Arg(arg.name, types, length_attr, arg.type_attr or arg.type_list_attr or None, arg.is_ref)


def _present(
    schema: OpSchema, values: Mapping[str, int | tuple[Any, ...]], name: str, role: str
) -> int | tuple[Any, ...]:
    """The summary of attr `name`, which plays `role`; a problem when the node lacks it."""
    key = values[name]
    if key is _MISSING:
        raise _Unresolvable(
            SignatureProblem("missing", name, f"attr '{name}' ({role}) is missing", name in schema.attrs)
        )
    return key


def _element_type(
    schema: OpSchema, arg: Any, values: Mapping[str, int | tuple[Any, ...]], what: str, *, strict: bool
) -> int | None:
    name = arg.type_attr
    key = _present(schema, values, name, f"the type of {what}")
    if isinstance(key, int):
        # Invalid or reference DataTypes in a type attr are attr-type-mismatch's findings.
        return key if _valid_type(key) else None
    if key[0] == "placeholder":
        return None
    if strict:
        raise _Unresolvable(
            SignatureProblem(
                "ill-typed", name, f"attr '{name}' (the type of {what}) must be a type but is {_describe(key)}"
            )
        )
    # TensorFlow reads a lone type_attr without a kind check (DT_INVALID); attr-type-mismatch reports it.
    return None


# -- data inputs inside function bodies --------------------------------------


@record(frozen=True)
class BodyInput:
    """What one data input of a function-body node refers to.

    `types` are the values it supplies (a whole arg range for `arg` or
    `node:out_arg`, one value for `arg:i` / `node:out_arg:i`), None when that
    cannot be known. `error` says why the reference names no output at all
    (None also when the spelling itself is malformed: `input-syntax` reports
    `node:0` and `arg:out_arg`).
    """

    __slots__ = ("producer", "types", "error")

    producer: Node | None
    types: tuple[int | None, ...] | None
    error: str | None

    def __init__(self, producer: Node | None, types: tuple[int | None, ...] | None, error: str | None = None) -> None:
        _set = object.__setattr__
        _set(self, "producer", producer)
        _set(self, "types", types)
        _set(self, "error", error)


def body_input(cache: Signatures, scope: Scope, item: Input) -> BodyInput | None:
    """Resolve a data input of a function-body node the way `InstantiateFunction` does.

    Returns None when the name matches no node and no function arg (that is
    `unresolved-input`'s finding).
    """
    raw = item.raw
    name = item.node
    if item.output_arg is None:
        args = cache.function_args(scope)
        arg = args.get(name)
        whole = ":" not in raw
        if arg is not None:
            if whole:
                return BodyInput(None, arg.types)
            if arg.types is None:
                return BodyInput(None, (None,))
            if item.index >= len(arg.types):
                return BodyInput(
                    None,
                    None,
                    f"function argument '{name}' has {_values(len(arg.types))}, so it has no element {item.index}",
                )
            return BodyInput(None, (arg.types[item.index],))
        producer = scope.by_name.get(name)
        if producer is None:
            return None
        signature = cache.resolved(producer)
        if signature is None:
            return BodyInput(producer, None)
        if not whole:
            return BodyInput(producer, None)  # `node:0`: a malformed reference, input-syntax's finding
        if not signature.outputs:
            return BodyInput(producer, ())  # a node without outputs is referable by name alone
        return BodyInput(
            producer,
            None,
            f"it names node '{name}' without an output arg; inside a function body an output is written "
            f"'{name}:<output arg>:<index>' ({_output_args(producer, signature)})",
        )
    producer = scope.by_name.get(name)
    if producer is None:
        if name in scope.arg_names:
            return BodyInput(None, None)  # `arg:out_arg`: a malformed reference, input-syntax's finding
        return None
    signature = cache.resolved(producer)
    if signature is None:
        return BodyInput(producer, None)
    arg = signature.output_arg(item.output_arg)
    if arg is None:
        return BodyInput(
            producer, None, f"node '{name}' has no output arg '{item.output_arg}' ({_output_args(producer, signature)})"
        )
    if raw.count(":") < 2:
        return BodyInput(producer, arg.types)
    if item.index < 0:
        return BodyInput(producer, None)  # malformed element index: input-syntax's finding
    if arg.types is None:
        return BodyInput(producer, (None,))
    if item.index >= len(arg.types):
        return BodyInput(
            producer,
            None,
            f"output arg '{item.output_arg}' of node '{name}' has {_values(len(arg.types))}, so it has no element "
            f"{item.index}",
        )
    return BodyInput(producer, (arg.types[item.index],))


def _values(count: int) -> str:
    return "1 value" if count == 1 else f"{count} values"


def _output_args(producer: Node, signature: Signature) -> str:
    if not signature.outputs:
        return f"op {producer.op} has no outputs"
    names = ", ".join(f"'{arg.name}'" for arg in signature.outputs)
    return f"op {producer.op} has output args {names}"
