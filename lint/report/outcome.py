"""What a run gives its caller: `Report` (the findings, and whether they pass), and the error `validate` raises.

tflint.api returns them; a report renders itself in any output format (tflint.report's renderers).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

from tflint.finding import Finding, Severity
from tflint.records import record


@record(frozen=True)
class Report:
    """The findings of one lint run, and whether they pass the failing level.

    `fail_on` is the failing level; `file_fail_on` overrides it per file
    (each file fails by its own config's `fail-on`). `files` names the files
    linted, as findings do; `baselined` counts findings a baseline hid;
    `rules` is the rule registry of the run (built-in plus plugin rules);
    `pruned` counts the stale baseline entries `prune_baseline` removed;
    `skipped` holds (file, what it holds) for each file that is not a
    TensorFlow graph and so was not linted (not in `files`).
    """

    findings: tuple[Finding, ...]
    fail_on: Severity
    files: tuple[str, ...]
    file_fail_on: Mapping[str, Severity]
    baselined: int
    rules: Mapping[str, Any] | None
    pruned: int
    skipped: tuple[tuple[str, str], ...]

    def __init__(
        self,
        findings: tuple[Finding, ...],
        fail_on: Severity = Severity.ERROR,
        files: tuple[str, ...] = (),
        file_fail_on: Mapping[str, Severity] | None = None,
        baselined: int = 0,
        rules: Mapping[str, Any] | None = None,
        pruned: int = 0,
        skipped: tuple[tuple[str, str], ...] = (),
    ) -> None:
        vars(self).update(
            findings=findings,
            fail_on=fail_on,
            files=files,
            file_fail_on={} if file_fail_on is None else file_fail_on,
            baselined=baselined,
            rules=rules,
            pruned=pruned,
            skipped=skipped,
        )

    def failing(self) -> tuple[Finding, ...]:
        """The findings at or above their file's failing level."""
        return tuple(f for f in self.findings if f.severity >= self.file_fail_on.get(f.file, self.fail_on))

    @property
    def ok(self) -> bool:
        """True when no finding is at or above the failing level."""
        return not self.failing()

    def render(
        self, format: str = "text", *, color: bool = False, root: str | None = None, statistics: bool = False
    ) -> str:  # noqa: A002 - the CLI's name
        """The report in an output format: text, json, sarif, github or junit.

        Paths in SARIF, GitHub annotations and fingerprints are made relative
        to `root` (default: the repository holding the current directory).
        """
        from tflint.report import renderer
        from tflint.report.identity import find_root
        from tflint.report.summary import Summary

        summary = Summary(
            files=len(self.files),
            color=color,
            paths=self.files,
            root=root if root is not None else find_root(),
            baselined=self.baselined,
            rules=self.rules,
            statistics=statistics,
            skipped=tuple(path for path, _ in self.skipped),
        )
        rendered: str = renderer(format)(self.findings, summary)
        return rendered

    def to_json(self, indent: int | None = 2) -> str:
        """The findings as a JSON array (same keys as `--format json`)."""
        from tflint.report import escaped
        from tflint.report.identity import find_root
        from tflint.report.json import records
        from tflint.report.summary import Summary

        summary = Summary(files=len(self.files), paths=self.files, root=find_root(), rules=self.rules)
        return json.dumps(records(escaped(self.findings), summary.escaped()), indent=indent)

    def to_sarif(self) -> str:
        """The report as a SARIF 2.1.0 log (same as `--format sarif`)."""
        return self.render("sarif")

    def __iter__(self) -> Iterator[Finding]:
        return iter(self.findings)

    def __len__(self) -> int:
        return len(self.findings)


class GraphValidationError(Exception):
    """Raised by `validate` when a graph has findings at or above `fail_on`."""

    def __init__(self, report: Report) -> None:
        failing = [finding for finding in report.findings if finding.severity >= report.fail_on]
        shown = [finding.escaped() for finding in failing[:20]]
        lines = [f"{f.location()}: {f.severity}: {f.message} [{f.rule}]" for f in shown]
        more = f"\n... and {len(failing) - 20} more" if len(failing) > 20 else ""
        super().__init__(f"{len(failing)} finding(s) at or above {report.fail_on}:\n" + "\n".join(lines) + more)
        self.report = report
        self.findings = tuple(failing)
