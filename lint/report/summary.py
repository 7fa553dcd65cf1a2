"""What a run covered, for the closing line of human-readable formats."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from tflint.finding import Finding, Severity


@dataclass(frozen=True)
class Summary:
    """The counts behind `Found 2 errors, 1 warning in 3 files.`"""

    files: int
    color: bool = False

    def line(self, findings: Sequence[Finding]) -> str:
        """One sentence summarising `findings`."""
        if not findings:
            return f"All checks passed ({self.files} {_plural(self.files, 'file')})."
        counts = Counter(finding.severity for finding in findings)
        parts = [
            f"{counts[level]} {_plural(counts[level], str(level))}"
            for level in (Severity.ERROR, Severity.WARNING, Severity.INFO)
            if counts[level]
        ]
        files = len({finding.file for finding in findings})
        return f"Found {', '.join(parts)} in {files} of {self.files} {_plural(self.files, 'file')}."


def _plural(count: int, word: str) -> str:
    return word if count == 1 else word + "s"
