"""A TensorFlow graph in a format tflint cannot read yet: a chunked SavedModel.

TensorFlow 2.13+ writes a SavedModel whose protobuf would exceed 2 GB as
chunks (`saved_model.cpb`, `tf.saved_model.SaveOptions(experimental_image_format=True)`),
which TensorFlow's loaders read. tflint does not read this format yet, so
nothing in such a model is checked: the run says so instead of passing in
silence, and instead of calling the file broken.

How to fix: nothing to fix in the model. To check it with tflint, export a
copy without `experimental_image_format` (models under 2 GB), or lint the
graph another way (`tf.io.write_graph` of its concrete functions).

Fail (file saved_model.cpb):
  riegeli chunks of a SavedModel   # unsupported-format
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from tflint.finding import Issue, Severity

ID = "unsupported-format"
CATEGORY = "input"
DEFAULT_SEVERITY = Severity.WARNING
OPTIONS: dict[str, Any] = {}


def check(graph: Any, options: Mapping[str, Any]) -> Iterator[Issue]:
    """Readable graphs are never reported here; the loader tells which files are not, and the engine reports them."""
    return iter(())
