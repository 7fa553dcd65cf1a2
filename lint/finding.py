"""Severity, the Issue a rule yields and what it can point at (a Place), and the frozen Finding the engine reports."""

from __future__ import annotations

import enum
from typing import Any

from tflint.records import record, replace


class Severity(enum.IntEnum):
    """How much a finding matters; ordered so that comparisons read naturally."""

    OFF = 0
    INFO = 1
    WARNING = 2
    ERROR = 3

    @classmethod
    def parse(cls, text: str) -> Severity:
        """Return the severity named by `text` (off, info, warning, error)."""
        try:
            return cls[text.strip().upper()]
        except KeyError:
            raise ValueError(f"unknown level {text!r} (expected off, info, warning or error)") from None

    def __str__(self) -> str:
        return self.name.lower()


# -- what an issue points at ------------------------------------------------------------------------
#
# A rule never computes where a finding is written: it says what the finding is about, and the engine
# (tflint.engine.place) finds that element in the file, for every format (text sources have lines and
# columns, binary sources and messages built in memory have none). A node, or one of its attrs, is named
# by `Issue.node` and `Issue.field`; a function by `Issue.function`; anything else by `Issue.at`, a Place:
# keys naming elements of the file, most precise first (the first one written in the source is used).

# One element of a graph's file: a kind (below), then what picks it out.
Key = tuple[Any, ...]
# Keys most precise first, as made by the at_* functions below (joined with `+`).
Place = tuple[Key, ...]

# The kinds of keys about the meta graph an issue's graph belongs to (a MetaGraphDef or one of a
# SavedModel's meta_graphs); when none of an issue's keys is written, it points at that meta graph.
META_KINDS = frozenset({"meta", "tags", "signature", "tensor", "dtype", "shape", "asset", "saver", "collection"})


def at_file() -> Place:
    """The file itself: its first line and column in text sources."""
    return (("file",),)


def at_field(name: str) -> Place:
    """A top-level field of the GraphDef, such as `versions` or `library`."""
    return (("field", name),)


def at_function(ordinal: int) -> Place:
    """Function number `ordinal` of the graph's library (the name is not enough: two may share it)."""
    return (("function", ordinal),)


def at_op_def(index: int) -> Place:
    """Entry `index` of the meta graph's stripped_op_list."""
    return (("op_def", index),)


def at_meta_graph() -> Place:
    """The meta graph itself."""
    return (("meta",),)


def at_tags() -> Place:
    """The meta graph's first tag."""
    return (("tags",),)


def at_signature(signature: str) -> Place:
    """The key of a SignatureDef."""
    return (("signature", signature),)


def at_signature_entry(signature: str, direction: str, key: str, part: str = "tensor") -> Place:
    """An input or output (`direction`) of a SignatureDef: its tensor name, or with `part` "dtype" or
    "shape" that field when written (else the tensor name)."""
    entry = ("tensor", signature, direction, key)
    return ((part, signature, direction, key), entry) if part != "tensor" else (entry,)


def at_asset(index: int) -> Place:
    """AssetFileDef number `index`: its filename."""
    return (("asset", index),)


def at_saver(field: str | None = None) -> Place:
    """The SaverDef, or one of its fields."""
    return (("saver", field),) if field is not None else (("saver",),)


def at_collection(key: str, number: int | None = None) -> Place:
    """A CollectionDef, or entry `number` of its node_list or bytes_list (else the collection's key)."""
    return (("collection", key, number), ("collection", key)) if number is not None else (("collection", key),)


@record(frozen=True)
class Issue:
    """What a rule reports: the subject, a message, and optionally the field.

    `node` is the `tflint.tf.node.Node` the issue is about (its position, name
    and enclosing function come from it); `field` names an attr key, so the
    location points at that attr entry when the source has positions.
    Issues about no node leave `node` as None and may name a `function`; `at`
    names any other element of the file (a Place: a signature entry, an asset,
    a SaverDef field, a collection entry, an OpDef, a GraphDef field, a
    function by ordinal, the file itself), and takes precedence over `node`
    when the source locates it. `position` is only for a (line, column) the
    rule was handed with what it checks (a parser's error, a suppression
    directive, a text's field use): rules never compute positions.
    `severity` lets a rule whose cases differ in gravity (a deprecated op vs a
    removed one) say so; it applies only while the user has not set the rule's
    level, so configuration always wins. `library` marks an issue about a
    function that TensorFlow checks when it adds the function library, called
    or not (name conflicts, gradients, argument types): the engine lowers the
    other issues inside a function nothing calls (see `uncalled-functions`).
    `where` is for rules comparing two versions of a model (`compat`), which
    have no graph index: the meta graph of the new version the issue is about,
    and a Place in it (a `tflint.tf.compat.Where`). `lesser` marks a case one level below the rule's own, whatever
    that is set to (error -> warning -> info): an unsafe op no signature
    reaches, beside the reachable ones; a number (2) puts it that many levels below, never
    under info. `properties` are machine-readable facts about the finding, as (key, value)
    pairs of JSON values (`unsafe-op`: its trigger, capability, target and path, and the
    `security-severity` score GitHub code scanning ranks by); report formats carry them.

    A frozen `@record` with `__slots__` and a written-out `__init__` (not `@dataclass`, whose
    generated code costs start-up time: see `tflint.records`).
    """

    __slots__ = (
        "node",
        "message",
        "field",
        "function",
        "position",
        "severity",
        "library",
        "where",
        "lesser",
        "at",
        "properties",
    )

    node: Any
    message: str
    field: str | None
    function: str | None
    position: tuple[int, int] | None
    severity: Severity | None
    library: bool
    where: Any
    lesser: int
    at: Place | None
    properties: tuple[tuple[str, Any], ...] | None

    def __init__(
        self,
        node: Any,
        message: str,
        field: str | None = None,
        function: str | None = None,
        position: tuple[int, int] | None = None,
        severity: Severity | None = None,
        library: bool = False,
        where: Any = None,
        lesser: int = 0,
        at: Place | None = None,
        properties: tuple[tuple[str, Any], ...] | None = None,
    ) -> None:
        _set = object.__setattr__
        _set(self, "node", node)
        _set(self, "message", message)
        _set(self, "field", field)
        _set(self, "function", function)
        _set(self, "position", position)
        _set(self, "severity", severity)
        _set(self, "library", library)
        _set(self, "where", where)
        _set(self, "lesser", lesser)
        _set(self, "at", at)
        _set(self, "properties", properties)


@record(frozen=True, hidden=("properties",))
class Finding:
    """One reported problem, with everything needed to show and key it (a frozen record, as Issue).

    `properties` (the Issue's, as a tuple of pairs) are extra facts for machines; they are not
    part of a finding's identity (equality, baselines, fingerprints).
    """

    __slots__ = ("rule", "severity", "message", "file", "line", "column", "node", "function", "graph", "properties")

    rule: str
    severity: Severity
    message: str
    file: str
    line: int | None
    column: int | None
    node: str | None
    function: str | None
    graph: str | None
    properties: tuple[tuple[str, Any], ...] | None

    def __init__(
        self,
        rule: str,
        severity: Severity,
        message: str,
        file: str,
        line: int | None = None,
        column: int | None = None,
        node: str | None = None,
        function: str | None = None,
        graph: str | None = None,
        properties: tuple[tuple[str, Any], ...] | None = None,
    ) -> None:
        _set = object.__setattr__
        _set(self, "rule", rule)
        _set(self, "severity", severity)
        _set(self, "message", message)
        _set(self, "file", file)
        _set(self, "line", line)
        _set(self, "column", column)
        _set(self, "node", node)
        _set(self, "function", function)
        _set(self, "graph", graph)
        _set(self, "properties", properties)

    def replace(self, **changes: Any) -> Finding:
        """A copy with some fields changed (as `dataclasses.replace`)."""
        return replace(self, **changes)

    def sort_key(self) -> tuple[Any, ...]:
        """Deterministic order: file, position (binary files have none), rule, node."""
        return (
            self.file,
            self.graph or "",
            self.line or 0,
            self.column or 0,
            self.function or "",
            self.node or "",
            self.rule,
            self.message,
        )

    def location(self) -> str:
        """`file:line:col`, or `file` plus the node for sources without lines."""
        if self.line is not None:
            return f"{self.file}:{self.line}:{self.column or 1}"
        return self.file

    def escaped(self) -> Finding:
        """This finding with every text field escaped for output (itself when nothing needs it)."""
        from tflint.escape import escape

        changes: dict[str, Any] = {}
        for name in ("rule", "message", "file", "node", "function", "graph"):
            value = getattr(self, name)
            if value is not None and (shown := escape(value)) is not value:
                changes[name] = shown
        if self.properties:
            shown_properties = tuple((key, _escape_value(value, escape)) for key, value in self.properties)
            if shown_properties != self.properties:
                changes["properties"] = shown_properties
        return self.replace(**changes) if changes else self

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready mapping with stable keys (and `properties`, only when the finding has some)."""
        mapping: dict[str, Any] = {
            "rule": self.rule,
            "severity": str(self.severity),
            "message": self.message,
            "file": self.file,
            "line": self.line,
            "column": self.column,
            "node": self.node,
            "function": self.function,
            "graph": self.graph,
        }
        if self.properties:
            mapping["properties"] = dict(self.properties)
        return mapping


def _escape_value(value: Any, escape: Any) -> Any:
    """A JSON value with each string in it escaped (lists and tuples element by element)."""
    if isinstance(value, str):
        return escape(value)
    if isinstance(value, (list, tuple)):
        return [_escape_value(item, escape) for item in value]
    return value
