"""Every attr the op defines without a default is set on the node.

TensorFlow's importer first adds the OpDef's default for every absent attr
that has one (`AddDefaultsToNodeDef`), then refuses the graph if an attr
without a default is still absent (`NodeDef missing attr 'T' from Op<...>`,
N9). So only attrs with no default can be missing; leaving out defaulted
attrs (as TensorFlow's own writer does) is fine. A call to a function of the
graph's library is checked against the function's signature: its attrs
usually have no default, so the call must set each of them. Attrs set to a
placeholder (`placeholder: "T"`, inside function bodies) count as present.
One finding per node lists every missing attr.

When the op is defined by several registry layers (a MetaGraphDef's
`stripped_op_list`, `--op-defs` files, TensorFlow's registry), an attr is
only required when no layer gives it a default: TensorFlow versions only
ever add attrs with defaults.

How to fix: set the attr (for `Const`, `dtype` must match the tensor's
dtype; for `T`-style attrs, the dtype of the input), or regenerate the graph
with the TensorFlow that wrote its op definitions.

Okay:
  node { name: "c" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } } float_val: 1 } } } }
  node { name: "r" op: "Relu" input: "c" attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "axis" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
    attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { } int_val: 0 } } } }
  node { name: "s" op: "Sum" input: "r" input: "axis" attr { key: "T" value { type: DT_FLOAT } } }
Fail:
  node { name: "c" op: "Const"   # missing-attr
    attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 1 } } } }
  node { name: "r" op: "Relu" input: "c" }   # missing-attr
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from tflint.finding import Issue, Severity
from tflint.tf.attrs import attr_report
from tflint.tf.index import GraphIndex

ID = "missing-attr"
CATEGORY = "schema"
DEFAULT_SEVERITY = Severity.ERROR
OPTIONS: dict[str, Any] = {}
# Time on a large graph relative to other rules, for the parallel planner (rules/__init__.py).
COST = 4
# Reads tflint.tf.attrs.attr_report: runs beside the other rules that do, so it is built once.
SHARES = "attr_report"


def check(graph: GraphIndex, options: Mapping[str, Any]) -> Iterator[Issue]:
    """Yield one issue per node that lacks attrs its OpDef (or function signature) requires."""
    yield from attr_report(graph).missing
