"""`--format json`: a JSON array of findings with stable keys."""

from __future__ import annotations

import json
from collections.abc import Sequence

from tflint.finding import Finding
from tflint.report.summary import Summary


def render(findings: Sequence[Finding], summary: Summary) -> str:
    """All findings as one JSON array (no summary: machines count for themselves)."""
    return json.dumps([finding.to_dict() for finding in findings], indent=2) + "\n"
