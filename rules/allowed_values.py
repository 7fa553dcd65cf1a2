"""Type and string attrs hold one of the values their AttrDef allows.

Many OpDefs restrict an attr to a list of values: `Conv2D`'s `T` to
`half, bfloat16, float, double, int32`, its `padding` to `"SAME"`,
`"VALID"`, `"EXPLICIT"`. TensorFlow's importer checks `type` and `string`
attrs, and every element of `list(type)` and `list(string)` attrs, against
`allowed_values` and refuses the graph otherwise (`Value for attr 'padding'
of "FOO" is not in the list of allowed values: "SAME", "VALID",
"EXPLICIT"`, E3/E4). Values of the wrong kind are reported by
`attr-type-mismatch` instead. String comparisons are exact (case matters).
When several registry layers define the op (a MetaGraphDef's
`stripped_op_list`, `--op-defs`, TensorFlow's registry), a value allowed by
any of them is accepted: TensorFlow versions only ever widen these lists.

How to fix: use one of the listed values (for a dtype, cast the input to an
allowed type first), or pick the op variant that supports the dtype.

Okay:
  node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
  node { name: "w" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
  node { name: "conv" op: "Conv2D" input: "x" input: "w" attr { key: "T" value { type: DT_FLOAT } }
    attr { key: "padding" value { s: "SAME" } } attr { key: "strides" value { list { i: 1 i: 1 i: 1 i: 1 } } } }
Fail:
  node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_INT64 } } }
  node { name: "w" op: "Placeholder" attr { key: "dtype" value { type: DT_INT64 } } }
  node {
    name: "conv"
    op: "Conv2D"
    input: "x"
    input: "w"
    attr { key: "T" value { type: DT_INT64 } }   # allowed-values
    attr { key: "padding" value { s: "same" } }   # allowed-values
    attr { key: "strides" value { list { i: 1 i: 1 i: 1 i: 1 } } }
  }
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from tflint.finding import Issue, Severity
from tflint.tf.attrs import attr_report
from tflint.tf.index import GraphIndex

ID = "allowed-values"
CATEGORY = "schema"
DEFAULT_SEVERITY = Severity.ERROR
OPTIONS: dict[str, Any] = {}
# Reads tflint.tf.attrs.attr_report: runs beside the other rules that do, so it is built once.
SHARES = "attr_report"


def check(graph: GraphIndex, options: Mapping[str, Any]) -> Iterator[Issue]:
    """Yield one issue per attr value outside its AttrDef's allowed values."""
    yield from attr_report(graph).allowed
