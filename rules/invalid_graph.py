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

Fail:
  node { name: "a" op: "NoOp" }
  node { name: "b" op: "NoOp"     # invalid-graph
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from tflint.finding import Issue, Severity

ID = "invalid-graph"
CATEGORY = "input"
DEFAULT_SEVERITY = Severity.ERROR
OPTIONS: dict[str, Any] = {}
# The engine reports this rule for files that do not parse; no config may silence it.
SUPPRESSIBLE = False


def check(graph: Any, options: Mapping[str, Any]) -> Iterator[Issue]:
    """Parsed graphs are valid by definition here; the loader reports the rest."""
    return iter(())
