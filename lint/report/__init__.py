"""Output formats: one module per format, each a `render(findings, summary) -> str` function.

Machine-readable formats (json, sarif, github, junit) print nothing but
their document; the summary line and colour belong to `text` alone.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # annotations only: the format modules load when used
    from tflint.finding import Finding
    from tflint.report.summary import Summary

FORMATS = ("text", "json", "sarif", "github", "junit")
CHOICES = FORMATS + ("auto",)


def resolve_format(name: str, environ: Mapping[str, str] = os.environ) -> str:
    """The concrete format for `name`: `auto` is `github` under GitHub Actions, else `text`."""
    if name == "auto":
        return "github" if environ.get("GITHUB_ACTIONS") == "true" else "text"
    return name


def renderer(name: str) -> Callable[[Sequence[Finding], Summary], str]:
    """The `render(findings, summary) -> str` function of output format `name`.

    Every format renders escaped findings and paths (tflint.escape): whatever a graph
    or a file name holds, the output has one line per record and no control characters.
    """
    import importlib

    name = resolve_format(name)
    if name not in FORMATS:
        raise ValueError(f"unknown format {name!r}")
    render: Callable[[Sequence[Finding], Summary], str] = importlib.import_module(f"tflint.report.{name}").render

    def render_escaped(findings: Sequence[Finding], summary: Summary) -> str:
        return render(escaped(findings), summary.escaped())

    return render_escaped


def escaped(findings: Sequence[Finding]) -> list[Finding]:
    """`findings` ready for output: every text field escaped (tflint.escape)."""
    return [finding.escaped() for finding in findings]
