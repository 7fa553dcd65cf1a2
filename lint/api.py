"""The Python API: lint a file or an in-memory graph, or validate before serving."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from tflint.config import Config, ConfigError, config_from_mapping, default_config, find_config, load_config
from tflint.engine import lint_artifact
from tflint.finding import Finding, Severity
from tflint.load import UsageError, artifact_from_message, coerce_message, load_path, parse_op_list
from tflint.registry import OpRegistry, user_registry

ConfigLike = Config | Mapping[str, Any] | str | os.PathLike[str] | None


@dataclass(frozen=True)
class Report:
    """The findings of one lint run, and whether they pass `fail_on`."""

    findings: tuple[Finding, ...]
    fail_on: Severity = Severity.ERROR
    files: tuple[str, ...] = field(default=())

    @property
    def ok(self) -> bool:
        """True when no finding is at or above the failing level."""
        return not any(finding.severity >= self.fail_on for finding in self.findings)

    def to_json(self, indent: int | None = 2) -> str:
        """The findings as a JSON array (same keys as `--format json`)."""
        return json.dumps([finding.to_dict() for finding in self.findings], indent=indent)

    def __iter__(self):
        return iter(self.findings)

    def __len__(self) -> int:
        return len(self.findings)


class GraphValidationError(Exception):
    """Raised by `validate` when a graph has findings at or above `fail_on`."""

    def __init__(self, report: Report) -> None:
        failing = [finding for finding in report.findings if finding.severity >= report.fail_on]
        lines = [f"{f.location()}: {f.severity}: {f.message} [{f.rule}]" for f in failing[:20]]
        more = f"\n... and {len(failing) - 20} more" if len(failing) > 20 else ""
        super().__init__(f"{len(failing)} finding(s) at or above {report.fail_on}:\n" + "\n".join(lines) + more)
        self.report = report
        self.findings = tuple(failing)


def resolve_config(config: ConfigLike, near: str | None = None) -> Config:
    """A Config from an object, a mapping, a path, or discovery next to `near`."""
    if isinstance(config, Config):
        return config
    if isinstance(config, Mapping):
        return config_from_mapping(config)
    if config is not None:
        return load_config(config)
    found = find_config(near) if near and near != "-" else None
    return load_config(found) if found else default_config()


def registry_for(config: Config, extra_op_defs: Iterable[str | Any] = ()) -> OpRegistry:
    """The op registry for a run: extra OpLists, the config's op-defs, then the bundled snapshot."""
    lists = []
    for item in list(extra_op_defs) + list(config.op_defs):
        if isinstance(item, (str, os.PathLike)):
            try:
                with open(item, "rb") as handle:
                    data = handle.read()
            except OSError as error:
                raise UsageError(f"{item}: cannot read op definitions: {error.strerror or error}") from None
            lists.append((str(item), parse_op_list(data, str(item))))
        else:
            lists.append(("op_defs", item))
    return user_registry(lists)


def lint_file(path: str | os.PathLike[str], config: ConfigLike = None, *, op_defs: Sequence[str] = (), input_type: str | None = None) -> Report:
    """Lint one graph file or SavedModel directory.

    Raises `tflint.ConfigError` for invalid configuration and
    `tflint.UsageError` for an unreadable path; a file that does not parse
    is an `invalid-graph` finding in the report.
    """
    path = os.fspath(path)
    resolved = resolve_config(config, near=path)
    registry = registry_for(resolved, op_defs)
    artifact = load_path(path, input_type)
    findings = lint_artifact(artifact, resolved, registry)
    return Report(tuple(findings), resolved.fail_on, (path,))


def lint_graph(graph: Any, *, op_defs: Sequence[Any] = (), config: ConfigLike = None, name: str = "<graph>") -> Report:
    """Lint an in-memory graph.

    `graph` is a GraphDef, MetaGraphDef or SavedModel message (tflint's own
    or TensorFlow's), or their serialized bytes. `op_defs` are extra OpList
    messages or OpList file paths (custom ops).
    """
    resolved = resolve_config(config)
    registry = registry_for(resolved, op_defs)
    message, kind = coerce_message(graph)
    artifact = artifact_from_message(message, kind, name)
    return Report(tuple(lint_artifact(artifact, resolved, registry)), resolved.fail_on, (name,))


def validate(graph_or_path: Any, *, op_defs: Sequence[Any] = (), config: ConfigLike = None) -> Report:
    """Lint a path or an in-memory graph; raise GraphValidationError if it fails.

    Returns the report (warnings included) when nothing is at or above the
    configured `fail-on` level.
    """
    if isinstance(graph_or_path, (str, os.PathLike)):
        report = lint_file(graph_or_path, config, op_defs=op_defs)
    else:
        report = lint_graph(graph_or_path, op_defs=op_defs, config=config)
    if not report.ok:
        raise GraphValidationError(report)
    return report


__all__ = [
    "ConfigError",
    "GraphValidationError",
    "Report",
    "UsageError",
    "lint_file",
    "lint_graph",
    "validate",
]
