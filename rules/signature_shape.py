"""A SignatureDef's shapes are compatible with the shapes the graph declares for those tensors.

A TensorInfo's `tensor_shape` tells clients what to send and what comes
back; TensorFlow Serving's model metadata and `saved_model_cli show`
report it, and client code is generated from it. TensorFlow never compares
it with the graph (checked with TensorFlow 2.21: both loaders accept a
signature declaring `[?,3]` for a `[?,2]` placeholder, and only a request
shaped like the graph's placeholder runs); a client that follows the
signature sends tensors the model cannot take, or receives something other
than announced.

The graph's shape for a tensor is the `shape` attr of a `Placeholder` /
`PlaceholderWithDefault`, the shape of a `Const`'s value, or else the
node's `_output_shapes` entry (written by TF1 exports and by TF2 for every
top-level node, call nodes included). Shapes are compatible as in
`TensorShape.is_compatible_with`: an unknown rank matches anything, ranks
must be equal, and a dimension of -1 (`?`) matches any size. Tensors with
no declared shape on either side, sparse and composite TensorInfos, and
names that do not resolve (`signature-unresolved`) are skipped.

How to fix: re-export the signature from the real tensors, or give the
placeholder / signature the shape the model really takes.

Okay:
  graph_def {
    node {
      name: "x" op: "Placeholder"
      attr { key: "dtype" value { type: DT_FLOAT } }
      attr { key: "shape" value { shape { dim { size: -1 } dim { size: 2 } } } }
    }
  }
  signature_def {
    key: "serving_default"
    value {
      inputs { key: "x" value { name: "x:0" dtype: DT_FLOAT tensor_shape { dim { size: 8 } dim { size: -1 } } } }
      inputs { key: "x_any" value { name: "x:0" dtype: DT_FLOAT tensor_shape { unknown_rank: true } } }
    }
  }
Fail:
  graph_def {
    node {
      name: "x" op: "Placeholder"
      attr { key: "dtype" value { type: DT_FLOAT } }
      attr { key: "shape" value { shape { dim { size: -1 } dim { size: 2 } } } }
    }
  }
  signature_def {
    key: "serving_default"
    value {
      inputs { key: "x"
        value { name: "x:0" dtype: DT_FLOAT tensor_shape { dim { size: -1 } dim { size: 3 } } } }   # signature-shape
      inputs { key: "x_flat"
        value { name: "x:0" dtype: DT_FLOAT tensor_shape { dim { size: -1 } } } }   # signature-shape
    }
  }
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from tflint.finding import Issue, Severity, at_signature_entry
from tflint.tf.index import GraphIndex
from tflint.tf.node import Node
from tflint.tf.serving import resolve_tensor, signature_tensors
from tflint.tf.tensors import shape_text

ID = "signature-shape"
CATEGORY = "serving"
DEFAULT_SEVERITY = Severity.WARNING
OPTIONS: dict[str, Any] = {}

PLACEHOLDER_OPS = frozenset({"Placeholder", "PlaceholderV2", "PlaceholderWithDefault"})
CONST_OPS = frozenset({"Const", "HostConst"})

# (dims, unknown rank); None where the graph declares nothing.
Shape = tuple[tuple[int, ...], bool]


def check(graph: GraphIndex, options: Mapping[str, Any]) -> Iterator[Issue]:
    """Yield an issue for each signature tensor whose declared shape cannot hold the graph's."""
    meta = graph.meta_graph
    if meta is None:
        return
    for item in signature_tensors(meta):
        if item.is_op or item.part or not item.info.HasField("tensor_shape"):
            continue
        declared = _shape(item.info.tensor_shape)
        if declared[1]:
            continue
        resolved = resolve_tensor(graph, item.name)
        if resolved.problem is not None or resolved.node is None:
            continue
        actual = graph_shape(resolved.node, resolved.index)
        if actual is None or actual[1] or compatible(declared[0], actual[0]):
            continue
        subject = item.describe()
        subject = subject[0].upper() + subject[1:]
        where = at_signature_entry(item.signature, item.direction, item.key, "shape")
        yield Issue(
            resolved.node,
            f"{subject} declares shape {shape_text(list(declared[0]))}, but '{item.name}' ({resolved.node.op}) has "
            f"shape {shape_text(list(actual[0]))}",
            at=where,
        )


def graph_shape(node: Node, index: int) -> Shape | None:
    """The shape the graph declares for output `index` of `node`, or None when it declares none."""
    attr = node.attr
    if node.op in PLACEHOLDER_OPS and index == 0:
        if "shape" in attr and attr["shape"].WhichOneof("value") == "shape":
            return _shape(attr["shape"].shape)
        return None
    if node.op in CONST_OPS and index == 0:
        if "value" in attr and attr["value"].WhichOneof("value") == "tensor":
            return _shape(attr["value"].tensor.tensor_shape)
        return None
    if "_output_shapes" in attr and attr["_output_shapes"].WhichOneof("value") == "list":
        shapes = attr["_output_shapes"].list.shape
        if 0 <= index < len(shapes):
            return _shape(shapes[index])
    return None


def _shape(proto: Any) -> Shape:
    return tuple(dim.size for dim in proto.dim), bool(proto.unknown_rank)


def compatible(first: tuple[int, ...], second: tuple[int, ...]) -> bool:
    """`TensorShape.is_compatible_with` for two known-rank shapes (-1 is an unknown dimension)."""
    if len(first) != len(second):
        return False
    return all(a == b or a < 0 or b < 0 for a, b in zip(first, second))
