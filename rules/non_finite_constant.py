"""Floating-point constants hold no NaN or infinity.

A NaN in a frozen weight or a constant spreads through every result that
touches it; an infinity turns into NaN at the first `0 * inf` or
`inf - inf`. TensorFlow loads and runs such constants without a word, so
the model serves garbage. Typical causes: a diverged training run frozen
into the graph, a division by zero in a hand-made constant, an
uninitialized buffer, or a text-format value beyond the dtype's range
(`float_val: 3.5e38` is stored as `inf`). Intentional uses exist (a `-inf` attention mask, a
NaN sentinel): silence those with `ignore-nodes`. This is a warning.

Checks the `value` of `Const` and `HostConst` nodes in the graph and in
function bodies, for every floating-point dtype (`float`, `double`, `half`,
`bfloat16`, `complex64` / `complex128` (either part), and the float8 types
that have a NaN or infinity), whether the values are in `tensor_content` or
in the dtype's `*_val` field. Scanning is done on the raw bytes, so even
huge weights cost little. Off by default; the `serving` preset makes it a
warning.

How to fix: find where the value came from (re-freeze from a good
checkpoint), or replace infinities with large finite values.

Okay:
  node { name: "c" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } } float_val: 1.0
      float_val: -3.4e38 } } } }
Fail:
  node { name: "c" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } }   # non-finite-constant
      float_val: 1.0 float_val: nan } } } }
  node { name: "d" op: "Const" attr { key: "dtype" value { type: DT_DOUBLE } }
    attr { key: "value" value { tensor { dtype: DT_DOUBLE tensor_shape { }   # non-finite-constant
      double_val: -inf } } } }
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from tflint.finding import Issue, Severity
from tflint.tf.index import GraphIndex
from tflint.tf.op_signatures import dtype_name
from tflint.tf.tensors import NON_FINITE_DTYPES, non_finite

ID = "non-finite-constant"
CATEGORY = "serving"
DEFAULT_SEVERITY = Severity.OFF
OPTIONS: dict[str, Any] = {}

CONST_OPS = frozenset({"Const", "HostConst"})


def check(graph: GraphIndex, options: Mapping[str, Any]) -> Iterator[Issue]:
    """Yield an issue for each floating-point Const holding a NaN or an infinity."""
    for scope in graph.scopes():
        for node in scope.nodes:
            if node.op not in CONST_OPS or "value" not in node.attr:
                continue
            value = node.attr["value"]
            if value.WhichOneof("value") != "tensor" or value.tensor.dtype not in NON_FINITE_DTYPES:
                continue
            found = non_finite(value.tensor)
            if found is None:
                continue
            count, first, shown = found
            what = "a NaN or infinite value" if count == 1 else f"{count} NaN or infinite values"
            yield Issue(
                node,
                f"Node '{node.name}' (op {node.op}, {dtype_name(value.tensor.dtype)}) holds {what} (element {first} "
                f"is {shown})",
                field="value",
            )
