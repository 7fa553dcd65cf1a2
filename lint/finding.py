"""Severity, the Issue a rule yields, and the frozen Finding the engine reports."""

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


@record(frozen=True)
class Issue:
    """What a rule reports: the subject, a message, and optionally the field.

    `node` is the `tflint.tf.index.Node` the issue is about (its position, name
    and enclosing function come from it); `field` names an attr key, so the
    location points at that attr entry when the source has positions.
    Issues about no node (a function, the version block, an OpDef) leave
    `node` as None and may give `function` and/or an explicit `position`.
    `severity` lets a rule whose cases differ in gravity (a deprecated op vs a
    removed one) say so; it applies only while the user has not set the rule's
    level, so configuration always wins. `library` marks an issue about a
    function that TensorFlow checks when it adds the function library, called
    or not (name conflicts, gradients, argument types): the engine lowers the
    other issues inside a function nothing calls (see `uncalled-functions`).
    `where` is for rules comparing two versions of a model (`compat`), which
    have no graph index: the element of the new version the issue is about (a
    `tflint.tf.compat.Where`), which the engine turns into the meta graph and
    the position. `lesser` marks a case one level below the rule's own, whatever
    that is set to (error -> warning -> info): an unsafe op no signature
    reaches, beside the reachable ones; a number (2) puts it that many levels below, never
    under info. `properties` are machine-readable facts about the finding, as (key, value)
    pairs of JSON values (`unsafe-op`: its trigger, capability, target and path, and the
    `security-severity` score GitHub code scanning ranks by); report formats carry them.

    A frozen value with `__slots__`, written out rather than made by `@dataclass` (whose generated
    code costs start-up time; see `tflint.records`, which this floor module cannot import).
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
