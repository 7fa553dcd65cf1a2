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
# check() receives suppressions (tflint.engine.suppress.Suppressions): a file's inline directives,
# or a baseline's stale entries; not a graph.
CHECKS = "suppressions"
SUPPRESSIBLE = False

_PRUNE = "prune it with: tflint --prune-baseline PATH..."


def check(suppressions: Any, options: Mapping[str, Any]) -> Iterator[Issue]:
    """Yield one issue per rule a directive names but suppressed nothing of, and per stale baseline entry."""
    for directive, rule_id, rule_is_off in suppressions.unused:
        why = _why_unused(directive, rule_id, rule_is_off)
        yield Issue(None, f"Suppression of '{rule_id}' is unused: {why}", position=(directive.line, directive.column))
    for entry in suppressions.stale:
        what = f"{entry.rule} on '{entry.key}'" if entry.key else entry.rule
        gone = (
            f"{entry.count} of {entry.recorded} recorded"
            if entry.count != entry.recorded
            else f"{entry.recorded} recorded"
        )
        if entry.exists:
            yield Issue(None, f"Stale baseline entry: {what} no longer occurs ({gone}); {_PRUNE}")
        else:
            yield Issue(None, f"Stale baseline entry: {entry.file} no longer exists ({what}, {gone}); {_PRUNE}")


def _why_unused(directive: Any, rule_id: str, rule_is_off: bool) -> str:
    if rule_is_off:
        return "the rule is off"
    if directive.whole_file:
        return f"no {rule_id} finding in this file"
    if directive.first is None:
        return "nothing follows it to cover"
    lines = (
        f"line {directive.first}" if directive.first == directive.last else f"lines {directive.first}-{directive.last}"
    )
    return f"no {rule_id} finding on {lines}"
