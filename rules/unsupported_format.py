"""A TensorFlow graph in a format tflint cannot read yet: a chunked SavedModel.

TensorFlow 2.13+ writes a SavedModel whose protobuf would exceed 2 GB as
chunks (`saved_model.cpb`, `tf.saved_model.SaveOptions(experimental_image_format=True)`),
which TensorFlow's loaders read. tflint does not read this format yet, so
nothing in such a model is checked: the run says so instead of passing in
silence, and instead of calling the file broken.

How to fix: nothing to fix in the model. To check it with tflint, export a
copy without `experimental_image_format` (models under 2 GB), or lint the
graph another way (`tf.io.write_graph` of its concrete functions).

Okay:
  node { name: "a" op: "NoOp" }
Fail (file saved_model.cpb):
  riegeli chunks of a SavedModel   # unsupported-format
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from tflint.finding import Issue, Severity, at_file

ID = "unsupported-format"
CATEGORY = "input"
DEFAULT_SEVERITY = Severity.WARNING
OPTIONS: dict[str, Any] = {}
# check() receives a file the loader did not lint (tflint.engine.run.UNLINTED), not a graph.
CHECKS = "unlinted-file"


def check(artifact: Any, options: Mapping[str, Any]) -> Iterator[Issue]:
    """Yield the issue of a file the loader did not lint: at its start (text), or about the file (binary)."""
    if artifact.unsupported is None:
        return
    yield Issue(None, f"{artifact.unsupported}: not linted", at=at_file())
