"""A file with a graph's extension holds some other protobuf, or no protobuf at all: it is skipped.

Repositories hold many `.pbtxt` and `.pb` files that are not TensorFlow
graphs: Object Detection label maps, MediaPipe calculator graphs, TF Serving
and Triton model configs, TFMD schemas, OpLists, API golden files, pipeline
specs, and in every SavedModel of TensorFlow 2.12+ `fingerprint.pb` (and
Keras 2's `keras_metadata.pb`). tflint recognises them from their content (the
top-level field names of a text file, the wire structure of a binary one) and
does not lint them. A file that looks like a graph but is broken (a syntax
error, a misspelt field inside `node { }`) is not skipped: it is an
`invalid-graph` error. When the content is not clear, the file is linted.

At the default level (`info`) skipped files are counted in the text summary
(`--show-files` lists them), are `info` findings in JSON and notifications
in SARIF; raise the level (`rules: {not-a-graph: error}`) to make a stray
non-graph fail the run, or switch the rule off (for some paths with
`per-file-ignores`) to hear nothing of them, e.g. under `--fail-on info`.

How to fix: nothing, when the file is what it is meant to be; `exclude` it to
stop tflint reading it. If it is a graph tflint does not recognise, lint it
with `--input-type graphdef` (and please report it).

Okay:
  node { name: "a" op: "NoOp" }
Fail:
  item { name: "/m/01g317" id: 1 display_name: "person" }   # not-a-graph
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from tflint.finding import Issue, Severity, at_file

ID = "not-a-graph"
CATEGORY = "input"
DEFAULT_SEVERITY = Severity.INFO
OPTIONS: dict[str, Any] = {}
# check() receives a file the loader did not lint (tflint.engine.run.UNLINTED), not a graph.
CHECKS = "unlinted-file"


def check(artifact: Any, options: Mapping[str, Any]) -> Iterator[Issue]:
    """Yield the issue of a file the loader did not lint: at its start (text), or about the file (binary)."""
    if artifact.skipped is None:
        return
    yield Issue(None, f"not a TensorFlow graph: {artifact.skipped}; not linted", at=at_file())
