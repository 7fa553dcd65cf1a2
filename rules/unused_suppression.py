"""A suppression suppressed nothing: an inline directive or a baseline entry.

Suppressions outlive the problems they hid: the node gets fixed or renamed,
the rule stops firing, and the comment stays behind, ready to hide the next,
unrelated problem on the same node. This rule reports every rule named by a
`# tflint: ignore[...]` or `# tflint: file-ignore[...]` comment that
suppressed no finding, like ruff's RUF100 and ESLint's unused directives. It
also reports baseline entries that no longer match a finding (stale
entries), on the graph file they belong to, or on the baseline itself when
that file is gone; raise this rule to `error` to make a baseline a ratchet
that must be pruned as problems get fixed.

How to fix: delete the suppression, or the rule from its list; drop stale
baseline entries with `tflint --prune-baseline PATH...`. This rule cannot
itself be suppressed; switch it off in the config if need be.

Okay:
  # tflint: ignore[unknown-op] -- registered by the serving binary
  node { name: "a" op: "VendorOp" }
Fail:
  # tflint: ignore[unknown-op]   # unused-suppression
  node { name: "a" op: "NoOp" }
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from tflint.finding import Issue, Severity

ID = "unused-suppression"
CATEGORY = "meta"
DEFAULT_SEVERITY = Severity.WARNING
OPTIONS: dict[str, Any] = {}
SUPPRESSIBLE = False


def check(graph: Any, options: Mapping[str, Any]) -> Iterator[Issue]:
    """Nothing per graph: tflint.engine.suppress and tflint.baseline report this rule."""
    return iter(())
