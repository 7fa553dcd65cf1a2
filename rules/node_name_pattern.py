"""Node names follow the team's naming conventions (regular expressions from the config).

TensorFlow accepts any name its grammar allows (see `node-name-syntax`); this
opt-in rule enforces a project's own conventions on top of that. Options:

- `pattern`: a regular expression every node name must match (searched, so
  anchor it with `^...$` to constrain the whole name); unset means none.
- `op-patterns`: a mapping from op name to a regular expression that the
  names of nodes running that op must match, e.g.
  `{Placeholder: '^inputs/', VarHandleOp: '^(model|optimizer)/'}`.
- `forbid`: regular expressions no node name may match. The default,
  `['//|/$']`, forbids empty name-scope parts (`a//b`, `a/`), which
  TensorFlow's own name scopes never produce; set it to `[]` to drop it.
- `include-functions`: also check nodes inside function bodies (default true;
  TensorFlow names those itself when it traces a function).

Patterns use the `regex` package (Python `re` syntax plus extras) and are
compiled once per run; an invalid pattern is a configuration error. Each
search runs with a time limit (which costs a few microseconds per name and
pattern: prefer one alternation to many patterns). A pattern that takes
longer than half a second on one name (catastrophic backtracking) is
reported once, on that node, and not applied to the remaining nodes, instead
of hanging the run.

How to fix: rename the node, or adjust the pattern in `.tflint.yaml`:

    rules:
      node-name-pattern:
        level: warning
        pattern: '^[a-z0-9_/]+$'

Okay:
  node { name: "model/dense/MatMul" op: "NoOp" }
Fail:
  node { name: "model/dense/MatMul" op: "NoOp" }
  node { name: "model//dense/BiasAdd" op: "NoOp" }   # node-name-pattern
  node { name: "model/" op: "NoOp" }   # node-name-pattern
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Mapping
from typing import Any

from tflint.escape import quote
from tflint.finding import Issue, Severity
from tflint.runtime import user_regex
from tflint.tf.index import GraphIndex

ID = "node-name-pattern"
CATEGORY = "structure"
DEFAULT_SEVERITY = Severity.OFF
OPTIONS: dict[str, Any] = {
    "pattern": None,
    "op-patterns": {},
    "forbid": ["//|/$"],
    "include-functions": True,
}

# Seconds one pattern may run against one name before it is reported, not waited on.
TIMEOUT_SECONDS = 0.5


class _Patterns:
    """The compiled patterns of one configuration."""

    __slots__ = ("pattern", "op_patterns", "forbid")

    def __init__(self, pattern: Any, op_patterns: dict[str, Any], forbid: tuple[Any, ...]) -> None:
        self.pattern = pattern
        self.op_patterns = op_patterns
        self.forbid = forbid


def validate_options(options: Mapping[str, Any]) -> str | None:
    """Compile every pattern once; say which one is invalid."""
    op_patterns = options.get("op-patterns") or {}
    for op, pattern in op_patterns.items():
        if not isinstance(op, str) or not isinstance(pattern, str):
            return (
                f"op-patterns: expected a mapping of op name to regular expression, got {quote(op)}: {quote(pattern)}"
            )
    try:
        _compile_options(options)
    except _InvalidPattern as error:
        return str(error)
    return None


class _InvalidPattern(ValueError):
    pass


def _compile_options(options: Mapping[str, Any]) -> _Patterns:
    op_patterns = options.get("op-patterns") or {}
    return _compile(options.get("pattern"), tuple(sorted(op_patterns.items())), tuple(options.get("forbid") or ()))


@functools.lru_cache(maxsize=16)
def _compile(pattern: str | None, op_patterns: tuple[tuple[str, str], ...], forbid: tuple[str, ...]) -> _Patterns:
    return _Patterns(
        _compile_one(pattern, "pattern") if pattern else None,
        {op: _compile_one(text, f"op-patterns.{op}") for op, text in op_patterns},
        tuple(_compile_one(text, "forbid") for text in forbid),
    )


def _compile_one(text: str, where: str) -> Any:
    try:
        return user_regex.compile(text)
    except ValueError as error:
        raise _InvalidPattern(f"{where}: invalid regular expression {quote(text)}: {error}") from None


def check(graph: GraphIndex, options: Mapping[str, Any]) -> Iterator[Issue]:
    """Yield an issue for each node name that breaks a configured convention."""
    patterns = _compile_options(options)
    if patterns.pattern is None and not patterns.op_patterns and not patterns.forbid:
        return
    timed_out: set[Any] = set()
    include_functions = options.get("include-functions", True)
    for scope in graph.scopes():
        if scope.function is not None and not include_functions:
            continue
        for node in scope.nodes:
            name = node.name
            if patterns.pattern is not None and patterns.pattern not in timed_out:
                found = _search(patterns.pattern, name, node, timed_out)
                if isinstance(found, Issue):
                    yield found
                elif not found:
                    yield Issue(
                        node,
                        f"Node '{name}' (op {node.op}): name does not match the required pattern "
                        f"{patterns.pattern.pattern!r}",
                    )
            op_pattern = patterns.op_patterns.get(node.op)
            if op_pattern is not None and op_pattern not in timed_out:
                found = _search(op_pattern, name, node, timed_out)
                if isinstance(found, Issue):
                    yield found
                elif not found:
                    yield Issue(
                        node,
                        f"Node '{name}' (op {node.op}): name does not match the pattern for {node.op} nodes "
                        f"{op_pattern.pattern!r}",
                    )
            for forbidden in patterns.forbid:
                if forbidden in timed_out:
                    continue
                found = _search(forbidden, name, node, timed_out)
                if isinstance(found, Issue):
                    yield found
                elif found:
                    yield Issue(
                        node,
                        f"Node '{name}' (op {node.op}): name matches the forbidden pattern {forbidden.pattern!r} (at "
                        f"{found.group(0)!r})",
                    )


def _search(pattern: Any, name: str, node: Any, timed_out: set[Any]) -> Any:
    """The match (or None), or an Issue when the pattern ran out of time on this name."""
    try:
        return user_regex.search(pattern, name, TIMEOUT_SECONDS)
    except user_regex.BudgetSpent:
        timed_out.add(pattern)
        return Issue(
            node,
            f"Node '{node.name}': pattern {pattern.pattern!r} ran out of the time for user patterns on this file "
            "(catastrophic backtracking?); it is not applied to the remaining nodes",
        )
    except TimeoutError:
        timed_out.add(pattern)
        return Issue(
            node,
            f"Node '{node.name}': pattern {pattern.pattern!r} took more than {TIMEOUT_SECONDS} s on this name "
            "(catastrophic backtracking?); it is not applied to the remaining nodes",
        )
