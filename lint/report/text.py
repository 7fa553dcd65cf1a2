"""`--format text`: `path:line:col: severity: message [rule]`, then a summary line."""

from __future__ import annotations

from collections.abc import Sequence

from tflint.finding import Finding, Severity
from tflint.report.summary import Summary, shown, statistics

_COLORS = {Severity.ERROR: "\033[31m", Severity.WARNING: "\033[33m", Severity.INFO: "\033[36m"}
_RESET = "\033[0m"
_BOLD = "\033[1m"


def render(findings: Sequence[Finding], summary: Summary) -> str:
    """One line per finding, the per-rule counts if asked for, then the summary line."""
    findings = shown(findings)
    lines = [format_line(finding, summary.color) for finding in findings]
    if summary.statistics and findings:
        lines.append("")
        lines.append(statistics(findings).rstrip("\n"))
        lines.append("")
    lines.append(summary.line(findings))
    return "\n".join(lines) + "\n"


def format_line(finding: Finding, color: bool = False) -> str:
    """The text line for one finding.

    Binary sources have no lines: the location is the file, and the node
    (and function, meta graph) follow in parentheses after the message.
    """
    severity = str(finding.severity)
    location = finding.location()
    if color:
        severity = f"{_COLORS.get(finding.severity, '')}{severity}{_RESET}"
        location = f"{_BOLD}{location}{_RESET}"
    return f"{location}: {severity}: {finding.message}{context_suffix(finding)} [{finding.rule}]"


def context_suffix(finding: Finding) -> str:
    """` (in meta graph [serve], function 'f', node 'x')`: what the location alone does not say.

    The node is left out when the message names it already (`Node 'x' has ...`).
    """
    context = []
    if finding.graph:
        context.append(finding.graph)
    if finding.function:
        context.append(f"function '{finding.function}'")
    if finding.line is None and finding.node and f"'{finding.node}'" not in finding.message:
        context.append(f"node '{finding.node}'")
    return f" (in {', '.join(context)})" if context else ""
