"""A suppression comment that cannot be honoured.

A `# tflint: ...` comment that tflint cannot act on would otherwise fail
silently, leaving the author to believe a finding is accepted when it is
not, or the reverse. Reported, and suppressing nothing: a malformed
directive; an unknown rule name (with the closest known one); a rule that
cannot be suppressed (`invalid-graph`, and these meta rules); `file-ignore`
outside the file's leading comment block; and directives the configuration
forbids (`inline-suppressions: false`) or that lack the reason it requires
(`inline-suppressions: {require-reason: true}`).

How to fix: correct the directive:
`# tflint: ignore[rule, ...] -- reason` on its own line above a block or at
the end of a line, `# tflint: file-ignore[rule, ...]` at the top of the file.

Okay:
  # tflint: ignore[unknown-op] -- registered by the serving binary
  node { name: "a" op: "VendorOp" }
Fail:
  # tflint: ignore[unknwn-op]   # invalid-suppression
  node { name: "a" op: "NoOp" }
Fail:
  node { name: "a" op: "NoOp" }
  # tflint: file-ignore[unknown-op]   # invalid-suppression
  node { name: "b" op: "NoOp" }
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from tflint.finding import Issue, Severity

ID = "invalid-suppression"
CATEGORY = "meta"
DEFAULT_SEVERITY = Severity.ERROR
OPTIONS: dict[str, Any] = {}
# check() receives a file's suppressions (tflint.engine.suppress.Suppressions), not a graph.
CHECKS = "suppressions"
SUPPRESSIBLE = False


def check(suppressions: Any, options: Mapping[str, Any]) -> Iterator[Issue]:
    """Yield one issue per directive that cannot be honoured, where it is written."""
    for problem in suppressions.problems:
        yield Issue(None, problem.message, position=(problem.line, problem.column))
