"""The file could not be read as a TensorFlow graph.

The file is not valid text-format or binary protobuf for a GraphDef,
MetaGraphDef or SavedModel: a syntax error, an unknown field, invalid UTF-8,
truncated bytes, or nesting too deep to be a real graph. TensorFlow refuses
such a file before it looks at a single node, and so nothing else in it can
be checked. The finding carries the parser's line and column for text files.
It cannot be switched off or suppressed: a file tflint could not read must
never pass silently.

An empty file, or one holding only comments, is not such a file: it parses
as a graph with no nodes, which TensorFlow imports without complaint (see
`empty-graph`, a warning). The exceptions are a SavedModel file that is
empty (there is no meta graph to load) and a Git LFS pointer (the graph was
never fetched).

How to fix: regenerate the file with TensorFlow (`tf.io.write_graph`), or
correct the syntax at the reported position. Use `--input-type` if the
content was detected as the wrong kind of message.

Okay:
  node { name: "a" op: "NoOp" }
  node { name: "b" op: "NoOp" }
Fail:
  node { name: "a" op: "NoOp" }
  node { name: "b" op: "NoOp"     # invalid-graph
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, cast

from tflint.finding import Issue, Severity

ID = "invalid-graph"
CATEGORY = "input"
DEFAULT_SEVERITY = Severity.ERROR
OPTIONS: dict[str, Any] = {}
# check() receives a file that could not be read, not a graph; the engine runs it whatever the
# config says, at DEFAULT_SEVERITY, and no suppression may silence it.
CHECKS = "unreadable-file"
SUPPRESSIBLE = False
# The most of the reader's message a finding repeats: a parser may quote a whole token of the file
# (1,500 digits of an integer, a tensor's bytes), which says nothing the position does not.
MAX_DETAIL = 240


def check(artifact: Any, options: Mapping[str, Any]) -> Iterator[Issue]:
    """Yield the issue of a file the reader could not parse, at the parser's position (text files)."""
    failure = artifact.failure
    if failure is None:
        return
    kind = artifact.message_type or "graph"
    form = f"{artifact.form} " if artifact.form else ""
    position = cast("tuple[int, int] | None", (failure.line, failure.column) if failure.line is not None else None)
    detail = failure.message
    if len(detail) > MAX_DETAIL:
        detail = f"{detail[:MAX_DETAIL]}... ({len(detail):,} characters)"
    yield Issue(None, f"cannot read {form}{kind}: {detail}", position=position)
