"""`--format sarif`: SARIF 2.1.0 for GitHub code scanning and other SARIF viewers.

Paths are relative to the repository root, regions 1-based. Binary graphs
have no lines: their results point at line 1 and name the node in
`logicalLocations`. Every result carries its own `primaryLocationLineHash`,
computed from (file, rule, node), so that GitHub tracks an alert across
commits even in binary files, where hashing line 1 would merge them all.
Files skipped as not TensorFlow graphs (`not-a-graph` at `info`) are tool
execution notifications, not results: code scanning does not alert on them.
A rule that declares `SECURITY_SEVERITY` (`unsafe-op`) has the `security` tag
and that score on its descriptor, and each of its results its own score
(`security-severity`, from the trigger and the target) with the finding's
other properties.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from tflint.finding import Finding, Severity
from tflint.report.identity import fingerprints, repo_path
from tflint.report.rulesdoc import (
    HOME_URL,
    description_of,
    docstring,
    help_uri,
    rule_markdown,
    rule_name,
    summary_of,
)
from tflint.report.summary import Summary, quiet_skip

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note", Severity.OFF: "none"}


def render(findings: Sequence[Finding], summary: Summary) -> str:
    """One SARIF log with one run."""
    return json.dumps(sarif_log(findings, summary), indent=2) + "\n"


def sarif_log(findings: Sequence[Finding], summary: Summary) -> dict[str, Any]:
    """The SARIF log as a JSON-ready mapping."""
    from tflint import __version__

    modules = summary.rule_modules()
    rule_ids = sorted(modules)
    index_of = {rule_id: number for number, rule_id in enumerate(rule_ids)}
    driver: dict[str, Any] = {
        "name": "tflint",
        "semanticVersion": __version__,
        "informationUri": HOME_URL,
        "rules": [_rule(rule_id, modules[rule_id]) for rule_id in rule_ids],
    }
    skips = [finding for finding in findings if quiet_skip(finding)]
    if skips:
        findings = [finding for finding in findings if not quiet_skip(finding)]
    results = [
        _result(finding, fingerprint, index_of.get(finding.rule), summary.root)
        for finding, fingerprint in zip(findings, fingerprints(findings, summary.root))
    ]
    run: dict[str, Any] = {"tool": {"driver": driver}, "columnKind": "unicodeCodePoints", "results": results}
    if skips:
        run["invocations"] = [
            {
                "executionSuccessful": True,
                "toolExecutionNotifications": [_notification(finding, summary.root) for finding in skips],
            }
        ]
    return {"$schema": SCHEMA, "version": "2.1.0", "runs": [run]}


def _notification(finding: Finding, root: str | None) -> dict[str, Any]:
    """A skipped file, as a SARIF notification about the run rather than a result about the code."""
    return {
        "level": LEVELS[finding.severity],
        "message": {"text": finding.message},
        "locations": [{"physicalLocation": {"artifactLocation": {"uri": _uri(repo_path(finding.file, root))}}}],
        "descriptor": {"id": finding.rule},
    }


def _rule(rule_id: str, module: Any) -> dict[str, Any]:
    short = summary_of(module) or rule_id
    rule: dict[str, Any] = {"id": rule_id}
    name = rule_name(rule_id)
    if name.lower() != rule_id.lower():  # SARIF: a name no different from the id is left out (`cycle`)
        rule["name"] = name
    rule |= {
        "shortDescription": {"text": short},
        "fullDescription": {"text": description_of(module) or short},
        "help": {"text": docstring(module) or short, "markdown": rule_markdown(module)},
        "defaultConfiguration": {"level": LEVELS[module.DEFAULT_SEVERITY]},
        "properties": _rule_properties(module),
    }
    url = help_uri(rule_id, module)
    if url:
        rule["helpUri"] = url
    return rule


# GitHub code scanning ranks security results by this property: a number from 0.0 to 10.0, as a string.
SECURITY_SEVERITY = "security-severity"


def _rule_properties(module: Any) -> dict[str, Any]:
    """The rule's tags, plus `security-severity` (and the `security` tag) for a rule that declares a score."""
    properties: dict[str, Any] = {"tags": [module.CATEGORY]}
    score = getattr(module, "SECURITY_SEVERITY", None)
    if score is not None:
        properties["tags"].append("security")
        properties[SECURITY_SEVERITY] = f"{float(score):.1f}"
    return properties


def _result(finding: Finding, fingerprint: str, rule_index: int | None, root: str | None) -> dict[str, Any]:
    region: dict[str, Any] = {"startLine": finding.line or 1}
    if finding.line is not None and finding.column is not None:
        region["startColumn"] = finding.column
    location: dict[str, Any] = {
        "physicalLocation": {"artifactLocation": {"uri": _uri(repo_path(finding.file, root))}, "region": region},
    }
    logical = _logical_location(finding)
    if logical:
        location["logicalLocations"] = [logical]
    result: dict[str, Any] = {"ruleId": finding.rule}
    if rule_index is not None:
        result["ruleIndex"] = rule_index
    result.update(
        {
            "level": LEVELS[finding.severity],
            "message": {"text": finding.message},
            "locations": [location],
            "partialFingerprints": {"primaryLocationLineHash": fingerprint},
        }
    )
    if finding.properties:
        properties = dict(finding.properties)
        if SECURITY_SEVERITY in properties:
            properties[SECURITY_SEVERITY] = f"{float(properties[SECURITY_SEVERITY]):.1f}"
        result["properties"] = properties
    return result


def _uri(path: str) -> str:
    """A relative URI reference for a repository path; a file:// URI for an absolute one."""
    from pathlib import PurePosixPath
    from urllib.parse import quote

    if path.startswith("/"):
        return PurePosixPath(path).as_uri()
    return quote(path)


def _logical_location(finding: Finding) -> dict[str, Any] | None:
    """The node (or function) a finding is about, as `function/node` within its meta graph."""
    if finding.node is None and finding.function is None:
        return None
    if finding.node is None:
        return {"name": finding.function, "fullyQualifiedName": finding.function, "kind": "function"}
    qualified = f"{finding.function}/{finding.node}" if finding.function else finding.node
    if finding.graph:
        qualified = f"{finding.graph}/{qualified}"
    return {"name": finding.node, "fullyQualifiedName": qualified, "kind": "object"}
