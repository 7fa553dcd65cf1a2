"""Every attr value has the kind its AttrDef's type asks for, and a valid DataType.

TensorFlow's importer checks each attr value against the OpDef's type with
`AttrValueHasType` and refuses the graph when they disagree (D1-D6):
- a value of another kind: `i: 1` where a `type` is expected (`AttrValue had
  value with type 'int' when 'type' expected`), a single value where a list
  is expected or a list where a single value is expected, a list of another
  element kind, or a list mixing element kinds;
- no value at all (`AttrValue missing value with expected type 'int'`), or
  an empty `list {}`, where a single value is expected. An AttrValue with
  nothing set is read as an empty list for list types. TensorFlow's Python
  importer replaces an empty value by the OpDef default, so an empty value
  is only reported for attrs without a default (and in function bodies);
- a placeholder where a value is needed: placeholders (`placeholder: "T"`)
  are bound from the call's attrs when a function body is instantiated, so
  they are meaningless in the top-level graph (TensorFlow fails when it
  reads the attr for the signature, the shape function or the kernel, and
  never writes one there), an empty
  placeholder can never be bound (`AttrValue had value with unexpected type
  'placeholder'`), and in a function body one naming no attr of the
  function's signature fails instantiation (`Failed to bind all placeholders
  in $Q`). In a function body any empty AttrValue fails the same way;
- for `type` and `list(type)` attrs: a number that is not a DataType
  (`AttrValue has invalid DataType enum: 150`; binary graphs keep unknown
  numbers), a reference type such as `float_ref` (`AttrValue must not have
  reference type value of float_ref`), or `DT_INVALID`.
Internal attrs (keys starting with `_`) are never checked; attrs the op does
not define are reported by `unknown-attr`.

How to fix: write the value in the field its type names (`type: DT_FLOAT`
for `type`, `list { i: 1 i: 2 }` for `list(int)`, `s: "SAME"` for
`string`), use base types rather than `_ref` types, and bind placeholders
only inside function bodies.

Okay:
  node { name: "c" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 1 } } } }
  node { name: "q" op: "FIFOQueueV2" attr { key: "component_types" value { list { type: DT_FLOAT } } }
    attr { key: "shapes" value { } } }
Fail:
  node { name: "c" op: "Const" attr { key: "dtype" value { i: 1 } }   # attr-type-mismatch
    attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 1 } } } }
  node { name: "r" op: "Relu" input: "c" attr { key: "T" value { type: DT_FLOAT_REF } } }   # attr-type-mismatch
  node { name: "p" op: "Placeholder" attr { key: "dtype" value { placeholder: "T" } } }   # attr-type-mismatch
Fail:
  node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
  node {
    name: "pool"
    op: "MaxPool"
    input: "x"
    attr { key: "T" value { type: DT_FLOAT } }
    attr { key: "ksize" value { list { i: 1 i: 2 s: "2" i: 1 } } }   # attr-type-mismatch
    attr { key: "strides" value { i: 1 } }   # attr-type-mismatch
    attr { key: "padding" value { } }   # attr-type-mismatch
  }
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from tflint.finding import Issue, Severity
from tflint.tf.attrs import attr_report
from tflint.tf.index import GraphIndex

ID = "attr-type-mismatch"
CATEGORY = "schema"
DEFAULT_SEVERITY = Severity.ERROR
OPTIONS: dict[str, Any] = {}
# Reads tflint.tf.attrs.attr_report: runs beside the other rules that do, so it is built once.
SHARES = "attr_report"


def check(graph: GraphIndex, options: Mapping[str, Any]) -> Iterator[Issue]:
    """Yield one issue per attr value whose kind or DataType its AttrDef rejects."""
    yield from attr_report(graph).mismatch
