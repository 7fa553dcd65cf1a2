"""`--format github`: GitHub Actions workflow commands, shown as annotations on the pull request.

GitHub shows at most 10 error and 10 warning annotations per step (and 50
per job), silently dropping the rest, so the output ends with a notice
giving the totals; upload SARIF to see every finding in code scanning.
"""

from __future__ import annotations

from collections.abc import Sequence

from tflint.finding import Finding, Severity
from tflint.report.identity import repo_path
from tflint.report.summary import Summary, shown
from tflint.report.text import context_suffix

COMMANDS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}
SHOWN_PER_KIND = 10


def render(findings: Sequence[Finding], summary: Summary) -> str:
    """One `::error file=...,line=...::message` command per finding, then a totals notice (skipped files counted)."""
    findings = shown(findings)
    lines = [annotation(finding, summary.root) for finding in findings]
    lines.append(_totals(findings, summary))
    return "\n".join(lines) + "\n"


def annotation(finding: Finding, root: str | None) -> str:
    """The workflow command for one finding (no line for binary files: a file-level annotation)."""
    properties = [f"file={_property(repo_path(finding.file, root))}"]
    if finding.line is not None:
        properties.append(f"line={finding.line}")
        if finding.column is not None:
            properties.append(f"col={finding.column}")
    properties.append(f"title={_property(f'tflint ({finding.rule})')}")
    message = f"{finding.message}{context_suffix(finding)} [{finding.rule}]"
    return f"::{COMMANDS[finding.severity]} {','.join(properties)}::{_data(message)}"


def _totals(findings: Sequence[Finding], summary: Summary) -> str:
    text = summary.line(findings)
    if any(sum(1 for f in findings if f.severity == level) > SHOWN_PER_KIND for level in COMMANDS):
        text += (
            f" GitHub shows only {SHOWN_PER_KIND} annotations of each kind per step: see the log, or upload --format "
            "sarif to code scanning."
        )
    return f"::notice title=tflint::{_data(text)}"


def _data(text: str) -> str:
    """Escape a command's message: %, CR and LF."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    """Escape a command's property value: as a message, plus `:` and `,`."""
    return _data(text).replace(":", "%3A").replace(",", "%2C")
