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
    reaches, beside the reachable ones.

    A frozen value with `__slots__`, written out rather than made by `@dataclass` (whose generated
    code costs start-up time; see `tflint.records`, which this floor module cannot import).
    """

    __slots__ = ("node", "message", "field", "function", "position", "severity", "library", "where", "lesser")

    node: Any
    message: str
    field: str | None
    function: str | None
    position: tuple[int, int] | None
    severity: Severity | None
    library: bool
    where: Any
    lesser: bool

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
        lesser: bool = False,
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


@record(frozen=True)
class Finding:
    """One reported problem, with everything needed to show and key it (a frozen record, as Issue)."""

    __slots__ = ("rule", "severity", "message", "file", "line", "column", "node", "function", "graph")

    rule: str
    severity: Severity
    message: str
    file: str
    line: int | None
    column: int | None
    node: str | None
    function: str | None
    graph: str | None

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
        return self.replace(**changes) if changes else self

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready mapping with stable keys."""
        return {
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
