"""Output formats: one module per format, each a `render` function over findings."""

from __future__ import annotations

FORMATS = ("text", "json")


def renderer(name: str):
    """The `render(findings, summary) -> str` function of output format `name`."""
    import importlib

    if name not in FORMATS:
        raise ValueError(f"unknown format {name!r}")
    return importlib.import_module(f"tflint.report.{name}").render
