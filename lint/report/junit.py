"""`--format junit`: JUnit XML for CI test-report views (Jenkins, GitLab, Azure DevOps).

One test suite per linted file; each finding is a failed test case named
after its rule and node, and a file without findings is one passing case. A
file that is not a TensorFlow graph is a skipped case (a failure when the
`not-a-graph` rule is raised above `info`).
The document uses only the elements and attributes of junit-10.xsd (the schema
Jenkins' xUnit plugin validates against); its text is escaped (tflint.escape),
so it holds no character XML 1.0 forbids.
"""

from __future__ import annotations

from collections.abc import Sequence
from xml.sax.saxutils import escape, quoteattr

from tflint.finding import Finding
from tflint.report.summary import Summary, quiet_skip
from tflint.report.text import format_line


def render(findings: Sequence[Finding], summary: Summary) -> str:
    """The JUnit XML document."""
    by_file: dict[str, list[Finding]] = {path: [] for path in (*summary.paths, *summary.skipped)}
    skipped = set(summary.skipped)
    for finding in findings:
        if not quiet_skip(finding):
            by_file.setdefault(finding.file, []).append(finding)
    failures = sum(len(items) for items in by_file.values())
    total_tests = sum(max(1, len(items)) for items in by_file.values())
    out = ['<?xml version="1.0" encoding="UTF-8"?>']
    out.append(f'<testsuites name="tflint" tests="{total_tests}" failures="{failures}" errors="0">')
    for path, items in by_file.items():
        quiet = path in skipped and not items
        out.append(
            f'  <testsuite name={quoteattr(path)} tests="{max(1, len(items))}" failures="{len(items)}" errors="0"'
            f' skipped="{int(quiet)}">'
        )
        if quiet:
            out.append(f'    <testcase classname={quoteattr(path)} name="tflint">')
            out.append('      <skipped message="not a TensorFlow graph"/>')
            out.append("    </testcase>")
        elif not items:
            out.append(f'    <testcase classname={quoteattr(path)} name="tflint"/>')
        for finding in items:
            out.extend(_testcase(finding))
        out.append("  </testsuite>")
    out.append("</testsuites>")
    return "\n".join(out) + "\n"


def _testcase(finding: Finding) -> list[str]:
    # Only junit-10.xsd's attributes (name, classname): the location is in the failure's text.
    name = f"{finding.rule} ({finding.node})" if finding.node else finding.rule
    return [
        f"    <testcase classname={quoteattr(finding.file)} name={quoteattr(name)}>",
        f"      <failure type={quoteattr(str(finding.severity))} "
        f"message={quoteattr(finding.message)}>{escape(format_line(finding))}</failure>",
        "    </testcase>",
    ]
