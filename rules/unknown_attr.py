"""Every attr of a node is one its op defines (or an internal `_` attr).

TensorFlow 2.x does not reject a node attr that the OpDef does not define: it
logs `NodeDef mentions attribute foo which is not in the op definition ...
Unknown attributes will be ignored` and drops it from consideration (N6).
TensorFlow 1.x refused such graphs (`NodeDef mentions attr 'foo' not in
Op<...>`). Either way the value has no effect, which usually means a typo
(`dtpye`), an attr meant for another op, or a graph written by a newer
TensorFlow than the one that will run it. Attrs whose key starts with `_`
(`_class`, `_output_shapes`, `_XlaCompile`, ...) are internal and never
checked (N5). A call to a function of the graph's library may only set the
attrs of the function's signature.

An attr counts as known when any registry layer that defines the op
declares it: the graph's own `stripped_op_list` (the producer's OpDefs,
which may be older or newer than TensorFlow 2.21's), `--op-defs` files, or
the bundled registry. TensorFlow validates against its own registry, not
the `stripped_op_list`, so an attr newer than the `stripped_op_list` but
known to TensorFlow is fine; one the `stripped_op_list` declares but
TensorFlow 2.21 does not comes from a newer producer and is fine too.

How to fix: correct the key's spelling, move the attr to the node that
needs it, or drop it; for graphs from a newer TensorFlow, run them with that
version (or strip attrs that equal their defaults before export).

Okay:
  node { name: "c" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 1 } } }
    attr { key: "_output_shapes" value { list { shape { } } } } }
Fail:
  node { name: "c" op: "Const" attr { key: "dtpye" value { type: DT_FLOAT } }   # unknown-attr
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 1 } } } }
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from tflint.finding import Issue, Severity
from tflint.tf.attrs import attr_report
from tflint.tf.index import GraphIndex

ID = "unknown-attr"
CATEGORY = "schema"
DEFAULT_SEVERITY = Severity.WARNING
OPTIONS: dict[str, Any] = {}
# Reads tflint.tf.attrs.attr_report: runs beside the other rules that do, so it is built once.
SHARES = "attr_report"


def check(graph: GraphIndex, options: Mapping[str, Any]) -> Iterator[Issue]:
    """Yield one issue per attr key no definition of the node's op declares."""
    yield from attr_report(graph).unknown
