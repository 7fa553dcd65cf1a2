"""Output formats: one module per format, each a `render(findings, summary) -> str` function.

Machine-readable formats (json, sarif, github, junit) print nothing but
their document; the summary line and colour belong to `text` alone.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

FORMATS = ("text", "json", "sarif", "github", "junit")
CHOICES = FORMATS + ("auto",)


def resolve_format(name: str, environ: Mapping[str, str] = os.environ) -> str:
    """The concrete format for `name`: `auto` is `github` under GitHub Actions, else `text`."""
    if name == "auto":
        return "github" if environ.get("GITHUB_ACTIONS") == "true" else "text"
    return name


def renderer(name: str):
    """The `render(findings, summary) -> str` function of output format `name`."""
    import importlib

    name = resolve_format(name)
    if name not in FORMATS:
        raise ValueError(f"unknown format {name!r}")
    return importlib.import_module(f"tflint.report.{name}").render
