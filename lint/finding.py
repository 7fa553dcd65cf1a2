"""Severity, the Issue a rule yields, and the frozen Finding the engine reports."""

from __future__ import annotations

import enum
from typing import Any


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
    code costs start-up time; see `tflint.runtime.records`, which this floor module cannot import).
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

    def _values(self) -> tuple[Any, ...]:
        return (
            self.node,
            self.message,
            self.field,
            self.function,
            self.position,
            self.severity,
            self.library,
            self.where,
            self.lesser,
        )

    def __repr__(self) -> str:
        return _repr(self, self.__slots__, self._values())

    def __eq__(self, other: object) -> bool:
        if other.__class__ is self.__class__:
            return self._values() == other._values()
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._values())

    def __setattr__(self, name: str, value: Any) -> None:
        _refuse(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        _refuse(f"cannot delete field {name!r}")

    def __reduce__(self) -> tuple[Any, ...]:
        return (self.__class__, self._values())


class Finding:
    """One reported problem, with everything needed to show and key it (a frozen value, as Issue)."""

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

    def _values(self) -> tuple[Any, ...]:
        return (
            self.rule,
            self.severity,
            self.message,
            self.file,
            self.line,
            self.column,
            self.node,
            self.function,
            self.graph,
        )

    def __repr__(self) -> str:
        return _repr(self, self.__slots__, self._values())

    def __eq__(self, other: object) -> bool:
        if other.__class__ is self.__class__:
            return self._values() == other._values()
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._values())

    def __setattr__(self, name: str, value: Any) -> None:
        _refuse(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        _refuse(f"cannot delete field {name!r}")

    def __reduce__(self) -> tuple[Any, ...]:
        return (self.__class__, self._values())

    def replace(self, **changes: Any) -> Finding:
        """A copy with some fields changed (as `dataclasses.replace`)."""
        fields = dict(zip(self.__slots__, self._values()))
        fields.update(changes)
        return Finding(**fields)

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


def _repr(value: object, names: tuple[str, ...], values: tuple[Any, ...]) -> str:
    shown = ", ".join(f"{name}={field!r}" for name, field in zip(names, values))
    return f"{value.__class__.__qualname__}({shown})"


def _refuse(message: str) -> None:
    from dataclasses import FrozenInstanceError  # only on this error path: the module costs start-up time

    raise FrozenInstanceError(message)
