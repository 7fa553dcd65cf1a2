"""Const tensors stay below a size threshold.

Weights frozen into `Const` nodes live in the graph proto itself: a model
server parses, copies and keeps the whole GraphDef in memory, a protobuf
message cannot exceed 2 GiB (so constants that add up to more cannot be
saved at all), and a constant-heavy graph loads slowly. Variables (restored from `variables/`)
are the better home for large weights. TensorFlow accepts large constants;
this is a hint (info).

The size is the tensor's in-memory size: element count times the dtype's
size (strings: their bytes), which is what the tensor takes once loaded,
even when the proto stores one repeated value. Checks `Const` and
`HostConst` nodes, in the graph and in function bodies.

Options: `max-bytes` (default 16 MiB, 16777216). Off by default; the
`serving` preset reports it as info.

How to fix: keep large weights in variables (do not freeze them for
serving), or raise `max-bytes` for models that are meant to be frozen.

Okay:
  node { name: "w" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "value" value { tensor { dtype: DT_FLOAT
      tensor_shape { dim { size: 1024 } dim { size: 1024 } } float_val: 0.5 } } } }
Fail:
  node { name: "w" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "value" value { tensor { dtype: DT_FLOAT   # large-constant
      tensor_shape { dim { size: 4096 } dim { size: 4096 } } float_val: 0.5 } } } }
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from tflint.finding import Issue, Severity
from tflint.tf.index import GraphIndex
from tflint.tf.op_signatures import dtype_name
from tflint.tf.tensors import DT_STRING, DTYPE_SIZE, element_count, shape_text, tensor_content

ID = "large-constant"
CATEGORY = "serving"
DEFAULT_SEVERITY = Severity.OFF
OPTIONS: dict[str, Any] = {"max-bytes": 16 * 1024 * 1024}

CONST_OPS = frozenset({"Const", "HostConst"})


def validate_options(options: Mapping[str, Any]) -> str | None:
    """The threshold is a positive byte count."""
    if options["max-bytes"] < 1:
        return f"max-bytes: expected a positive number of bytes, got {options['max-bytes']}"
    return None


def check(graph: GraphIndex, options: Mapping[str, Any]) -> Iterator[Issue]:
    """Yield an issue for each Const whose value takes more than `max-bytes` once loaded."""
    limit = options["max-bytes"]
    for scope in graph.scopes():
        for node in scope.nodes:
            if node.op not in CONST_OPS or "value" not in node.attr:
                continue
            value = node.attr["value"]
            if value.WhichOneof("value") != "tensor":
                continue
            tensor = value.tensor
            size = tensor_bytes(tensor)
            if size is None or size <= limit:
                continue
            dims = [dim.size for dim in tensor.tensor_shape.dim]
            yield Issue(
                node,
                f"Node '{node.name}' (op {node.op}) holds a {dtype_name(tensor.dtype)} {shape_text(dims)} tensor of "
                f"{human_bytes(size)}, more than {human_bytes(limit)}",
                field="value",
            )


def tensor_bytes(tensor: Any) -> int | None:
    """The in-memory size of a TensorProto's value, or None when its shape or dtype is not usable."""
    dims = [dim.size for dim in tensor.tensor_shape.dim]
    if any(size < 0 for size in dims):
        return None
    count = element_count(dims)
    if tensor.dtype == DT_STRING:
        content = tensor_content(tensor)
        if content:
            return len(content)
        strings = tensor.string_val
        if not strings:
            return 0
        listed = sum(len(item) for item in strings[:count])
        return listed + max(0, count - len(strings)) * len(strings[-1])
    size = DTYPE_SIZE.get(tensor.dtype)
    return None if size is None else count * size


def human_bytes(size: float) -> str:
    """`16.0 MiB`, `512 bytes`."""
    if size < 1024:
        return f"{size} bytes"
    for unit in ("KiB", "MiB", "GiB", "TiB"):
        size /= 1024
        if size < 1024 or unit == "TiB":
            return f"{size:.1f} {unit}"
    return f"{size} bytes"  # pragma: no cover
