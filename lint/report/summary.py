"""What a run covered: the closing line of human-readable formats, and per-rule statistics."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from tflint.finding import Finding, Severity
from tflint.records import record, replace

NOT_A_GRAPH = "not-a-graph"


@record(frozen=True)
class Summary:
    """The run behind a list of findings, as the formats need it.

    `files` counts the files linted and `paths` names them (as findings do);
    `root` is the repository root that SARIF, GitHub and fingerprints make
    paths relative to; `baselined` counts findings the baseline hid; `rules`
    is the rule registry of the run (built-in rules plus enabled plugins);
    `statistics` asks human-readable formats for per-rule counts; `skipped`
    names the files that were not linted because they are not TensorFlow graphs.
    """

    files: int
    color: bool
    paths: tuple[str, ...]
    root: str | None
    baselined: int
    rules: Mapping[str, Any] | None
    statistics: bool
    skipped: tuple[str, ...]

    def __init__(
        self,
        files: int,
        color: bool = False,
        paths: tuple[str, ...] = (),
        root: str | None = None,
        baselined: int = 0,
        rules: Mapping[str, Any] | None = None,
        statistics: bool = False,
        skipped: tuple[str, ...] = (),
    ) -> None:
        vars(self).update(
            files=files,
            color=color,
            paths=paths,
            root=root,
            baselined=baselined,
            rules=rules,
            statistics=statistics,
            skipped=skipped,
        )

    def escaped(self) -> Summary:
        """This summary with the paths it names escaped for output (tflint.escape)."""
        from tflint.escape import escape

        return replace(self, paths=tuple(escape(path) for path in self.paths))

    def rule_modules(self) -> Mapping[str, Any]:
        """The run's rules, or the built-in registry when none were given."""
        if self.rules is not None:
            return self.rules
        from tflint.rules import all_rules

        return all_rules()

    def line(self, findings: Sequence[Finding]) -> str:
        """One sentence summarising `findings` (skipped files are counted, not listed)."""
        findings = shown(findings)
        hidden = (
            f" {self.baselined} baselined {_plural(self.baselined, 'finding')} not shown." if self.baselined else ""
        )
        if self.skipped:
            count = len(self.skipped)
            what = "not a TensorFlow graph" if count == 1 else "not TensorFlow graphs"
            hidden += f" {count} {_plural(count, 'file')} skipped: {what} \u2014 `--show-files` lists them."
        if not findings:
            if not self.files:
                return f"No TensorFlow graphs linted.{hidden}"
            return f"All checks passed ({self.files} {_plural(self.files, 'file')}).{hidden}"
        files = {finding.file for finding in findings}
        if self.paths:
            files &= set(self.paths)  # a stale baseline entry may sit in the baseline file, which was not linted
        return f"Found {counts_text(findings)} in {len(files)} of {self.files} {_plural(self.files, 'file')}.{hidden}"


def quiet_skip(finding: Finding) -> bool:
    """A skipped non-graph at `info`: counted in a summary, not listed one by one (raise the rule's level to list)."""
    return finding.rule == NOT_A_GRAPH and finding.severity <= Severity.INFO


def shown(findings: Sequence[Finding]) -> Sequence[Finding]:
    """`findings` without the quiet skips (human-readable formats)."""
    if not any(finding.rule == NOT_A_GRAPH for finding in findings):
        return findings
    return [finding for finding in findings if not quiet_skip(finding)]


def counts_text(findings: Sequence[Finding]) -> str:
    """`2 errors, 1 warning`: the non-zero counts per level, most severe first."""
    counts = Counter(finding.severity for finding in findings)
    return ", ".join(
        f"{counts[level]} {_plural(counts[level], str(level))}"
        for level in (Severity.ERROR, Severity.WARNING, Severity.INFO)
        if counts[level]
    )


def statistics(findings: Sequence[Finding]) -> str:
    """`--statistics`: one line per rule with its count and level(s), most frequent first."""
    if not findings:
        return ""
    counts = Counter(finding.rule for finding in findings)
    levels: dict[str, set[Severity]] = {}
    for finding in findings:
        levels.setdefault(finding.rule, set()).add(finding.severity)
    width = max(len(str(count)) for count in counts.values())
    rule_width = max(len(rule) for rule in counts)
    lines = []
    for rule, count in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
        shown = ", ".join(str(level) for level in sorted(levels[rule], reverse=True))
        lines.append(f"{count:>{width}}  {rule:<{rule_width}}  {shown}".rstrip())
    return "\n".join(lines) + "\n"


def _plural(count: int, word: str) -> str:
    return word if count == 1 else word + "s"
