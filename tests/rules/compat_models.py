"""Builders shared by the compat rules' tests: two MetaGraphDef texts compared as versions 1 and 2."""

from __future__ import annotations

from conftest import compat_text
from serving_graphs import meta, placeholder, signature, tensor

__all__ = ["model", "pins", "placeholder", "signature", "tensor"]


def model(*signatures: str, nodes: tuple[str, ...] = (), tags: tuple[str, ...] = ("serve",), extra: str = "") -> str:
    """A MetaGraphDef text tagged `tags` (default {serve}) with these signatures, nodes and extra fields."""
    return meta(*nodes, signatures=signatures, tags=tags, extra=extra)


def pins(rule: str, old: str, new: str, config: dict | None = None) -> list[tuple[str, str | None, int | None, str]]:
    """(rule, node, line in `new`, severity) of `rule`'s findings when `new` is compared with `old`."""
    return [(f.rule, f.node, f.line, str(f.severity)) for f in compat_text(old, new, config) if f.rule == rule]
