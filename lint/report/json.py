"""`--format json`: a JSON array of findings with stable keys."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from tflint.finding import Finding
from tflint.report.identity import fingerprints
from tflint.report.rulesdoc import help_uri
from tflint.report.summary import Summary

KEYS = (
    "rule",
    "category",
    "severity",
    "message",
    "file",
    "line",
    "column",
    "node",
    "function",
    "graph",
    "fingerprint",
    "url",
)


def render(findings: Sequence[Finding], summary: Summary) -> str:
    """All findings as one JSON array (no summary: machines count for themselves)."""
    return json.dumps(records(findings, summary), indent=2) + "\n"


def records(findings: Sequence[Finding], summary: Summary) -> list[dict[str, Any]]:
    """One mapping per finding, keys in the order of KEYS.

    `category` comes from the rule registry; `fingerprint` identifies the
    finding across runs by (repo-relative file, rule, node), never its line;
    `url` is the rule's documentation (None for a plugin rule without one).
    A finding with properties (`unsafe-op`'s trigger, capability, target,
    path and security-severity) has them under a last key, `properties`.
    """
    rules = summary.rule_modules()
    urls = {rule_id: help_uri(rule_id, module) for rule_id, module in rules.items()}
    result = []
    for finding, fingerprint in zip(findings, fingerprints(findings, summary.root)):
        record = finding.to_dict()
        module = rules.get(finding.rule)
        record["category"] = getattr(module, "CATEGORY", None)
        record["fingerprint"] = fingerprint
        record["url"] = urls.get(finding.rule)
        shown = {key: record.get(key) for key in KEYS}
        if "properties" in record:
            shown["properties"] = record["properties"]
        result.append(shown)
    return result
