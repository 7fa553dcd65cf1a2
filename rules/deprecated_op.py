"""Nodes use no deprecated op, and above all no op removed at the graph's producer version.

An OpDef can carry a deprecation: the GraphDef version `D` from which the op
is gone, and an explanation. TensorFlow's importer compares it with the
graph's `versions.producer` (`CheckOpDeprecation`):

- producer >= D: the op is removed for this graph and the import fails
  with `Unimplemented: Op TopK is not available in GraphDef version 27. It
  has been removed in version 7. Use TopKV2 instead.` The message says
  "removed";
- producer < D: TensorFlow imports the graph and logs `Op X is deprecated.
  It will cease to work in GraphDef version D. ...`. The message says
  "deprecated".

A graph without `versions` counts as producer 0, so its deprecated ops are
never removed. Function bodies are not checked against the producer
(TensorFlow builds them without this check), so ops there are reported as
deprecated only. The OpDef is TensorFlow's own (the bundled registry or
`--op-defs`), not a MetaGraphDef's `stripped_op_list`.

Severity: a deprecated op is a warning; a removed one is an error, since
TensorFlow refuses the graph. Setting the rule's level in the config
applies that level to both.

How to fix: replace the op with the one the explanation names (usually
its V2/V3 successor) and re-export the graph.

Okay:
  node { name: "a" op: "NoOp" }
  versions { producer: 27 }
Fail:
  node { name: "c" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } } float_val: 1 } } } }
  node { name: "t" op: "TopK" input: "c" attr { key: "T" value { type: DT_FLOAT } }   # deprecated-op
    attr { key: "k" value { i: 1 } } }
  versions { producer: 27 }
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from tflint.finding import Issue, Severity
from tflint.tf.functions import registered_op
from tflint.tf.index import GraphIndex

ID = "deprecated-op"
CATEGORY = "version"
DEFAULT_SEVERITY = Severity.WARNING
OPTIONS: dict[str, Any] = {}


def check(graph: GraphIndex, options: Mapping[str, Any]) -> Iterator[Issue]:
    """Yield one issue per node whose op is deprecated, saying whether the graph's producer removes it."""
    producer = graph.producer
    deprecations: dict[str, Any] = {}
    for node in graph.all_nodes():
        op = node.op
        if op not in deprecations:
            op_def = None if op in graph.function_by_name else registered_op(graph, op)
            deprecations[op] = op_def.deprecation if op_def is not None and op_def.HasField("deprecation") else None
        deprecation = deprecations[op]
        if deprecation is None:
            continue
        explanation = f" {deprecation.explanation.rstrip('.')}." if deprecation.explanation else ""
        if node.function is None and producer >= deprecation.version:
            yield Issue(
                node,
                f"Node '{node.name}' uses op {op}, which was removed in GraphDef version {deprecation.version}; "
                f"the graph's producer is {producer}, so TensorFlow refuses it (Unimplemented).{explanation}",
                severity=Severity.ERROR,
            )
        else:
            where = (
                f"the graph's producer is {producer}"
                if node.function is None
                else "function bodies are not checked against the producer"
            )
            yield Issue(
                node,
                f"Node '{node.name}' uses op {op}, which is deprecated as of GraphDef version {deprecation.version} "
                f"({where}).{explanation}",
            )
