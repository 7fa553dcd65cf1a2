"""A text graph uses only protobuf fields and enum values the targeted TensorFlow releases know.

An older TensorFlow parses a `.pbtxt` with its own protobuf schema, and its
text parser refuses a field or enum value name it does not know: `Message
type "tensorflow.NodeDef" has no field named "experimental_type"` (TF 2.4
and older), `Unknown enumeration value of "TFT_SHAPE_TENSOR" for field
"type_id"` (TF 2.8, 2.11). The binary form of the same graph parses there
(binary parsing keeps unknown fields and enum numbers), so the message says
so. One finding per name, at its first use, with the count of further uses.
The schemas of every bundled release are compared (NodeDef, AttrValue,
TensorProto, FullTypeDef, FunctionDef, GraphDef, MetaGraphDef, SavedModel,
SignatureDef, and everything they contain). Binary files are not checked.
The rule runs only when targets are set (see `target-op-missing`).

How to fix: ship the binary form (`.pb`), or re-export the text with the
older TensorFlow.

Okay:
  node { name: "a" op: "NoOp" }
Fail:
  node { name: "a" op: "NoOp" experimental_type { type_id: TFT_PRODUCT } }   # target-text-schema
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from tflint.finding import Issue, Severity
from tflint.tf.index import GraphIndex

ID = "target-text-schema"
CATEGORY = "version"
DEFAULT_SEVERITY = Severity.ERROR
OPTIONS: dict[str, Any] = {}
# The docstring examples run with this configuration.
EXAMPLE_CONFIG = {"target-tf": "2.4"}


def check(graph: GraphIndex, options: Mapping[str, Any]) -> Iterator[Issue]:
    """Yield one issue per schema name of the text that some target release lacks."""
    targets = graph.registry.targets
    artifact = graph.artifact
    if not targets or artifact is None or artifact.form != "text" or not artifact.text or graph.graph_id != 0:
        return
    from tflint import protos
    from tflint.tf.releases import schema_gaps
    from tflint.tf.target import label

    root = getattr(protos, artifact.message_type or "", None)
    if root is None:
        return
    gaps = schema_gaps(targets)
    by_bit = {target.bit: target for target in targets}
    uses = artifact.schema_uses(root.DESCRIPTOR, gaps, sum(1 << bit for bit in by_bit))
    first: dict[tuple[str, str, str, int], Any] = {}
    counts: dict[tuple[str, str, str, int], int] = {}
    for use in uses:
        key = (use.kind, use.owner, use.name, use.lacking)
        first.setdefault(key, use)
        counts[key] = counts.get(key, 0) + 1
    for key, use in first.items():
        lacking = [target for bit, target in by_bit.items() if use.lacking & (1 << bit)]
        what = (
            f"field '{use.name}' of {use.owner}" if use.kind == "messages" else f"enum value {use.name} of {use.owner}"
        )
        more = counts[key] - 1
        also = f" (and {more} more {'use' if more == 1 else 'uses'})" if more else ""
        yield Issue(
            None,
            f"{label(lacking)}: {what} is not in that release's protobuf schema, so its text parser refuses "
            f"this file{also}; the binary form would parse",
            position=(use.line, use.column),
        )
