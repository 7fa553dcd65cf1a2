"""Int attrs reach their minimum, and list attrs have at least their minimum length.

An AttrDef may set a minimum (`has_minimum`): for an `int` attr the value
must be at least that (`ConcatV2`'s `N` counts its inputs and must be at
least 2), for a list attr the list must have at least that many elements
(`MaxPool`'s `ksize` needs 4; a dataset's `output_types` at least 1).
TensorFlow's importer refuses the graph otherwise (`Value for attr 'N' of 1
must be at least minimum 2`, `Length for attr 'ksize' of 0 must be at least
minimum 4`, E1/E2). An AttrValue with nothing set counts as an empty list.
Values of the wrong kind are reported by `attr-type-mismatch` instead.

How to fix: give the attr a value (and, for `number_attr` counts such as
`N`, the node as many inputs) that meets the minimum; a concat of one
tensor is an `Identity`.

Okay:
  node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
  node { name: "axis" op: "Placeholder" attr { key: "dtype" value { type: DT_INT32 } } }
  node { name: "cat" op: "ConcatV2" input: "x" input: "x" input: "axis" attr { key: "N" value { i: 2 } }
    attr { key: "T" value { type: DT_FLOAT } } attr { key: "Tidx" value { type: DT_INT32 } } }
Fail:
  node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
  node { name: "axis" op: "Placeholder" attr { key: "dtype" value { type: DT_INT32 } } }
  node { name: "cat" op: "ConcatV2" input: "x" input: "axis" attr { key: "N" value { i: 1 } }   # attr-minimum
    attr { key: "T" value { type: DT_FLOAT } } attr { key: "Tidx" value { type: DT_INT32 } } }
  node { name: "pool" op: "MaxPool" input: "x" attr { key: "T" value { type: DT_FLOAT } }
    attr { key: "ksize" value { list { i: 1 i: 2 } } }   # attr-minimum
    attr { key: "strides" value { list { i: 1 i: 1 i: 1 i: 1 } } } attr { key: "padding" value { s: "SAME" } } }
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from tflint.finding import Issue, Severity
from tflint.tf.attrs import attr_report
from tflint.tf.index import GraphIndex

ID = "attr-minimum"
CATEGORY = "schema"
DEFAULT_SEVERITY = Severity.ERROR
OPTIONS: dict[str, Any] = {}
# Reads tflint.tf.attrs.attr_report: runs beside the other rules that do, so it is built once.
SHARES = "attr_report"


def check(graph: GraphIndex, options: Mapping[str, Any]) -> Iterator[Issue]:
    """Yield one issue per int attr below its minimum or list attr shorter than its minimum."""
    yield from attr_report(graph).minimum
