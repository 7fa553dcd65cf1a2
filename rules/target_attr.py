"""Every attr of a node is one the targeted TensorFlow releases accept (`target-tf`).

What an older release's importer refuses, checked against that release's
own OpDef (`ValidateNodeDef`):

- an attr its OpDef lacks: `NodeDef mentions attr 'debug_name' not in
  Op<name=VarHandleOp; ...>`. Only releases up to TF 2.4 refuse it; from
  2.5 on the importer drops the attr with a log line (see
  `target-attr-ignored`). When the value equals the newer OpDef's default,
  the message says so: stripping default-valued attrs (what
  `strip_default_attrs=True` does when exporting) fixes the graph. Importing
  a MetaGraphDef or a SavedModel already drops the top-level ones whose
  value equals the default its `stripped_op_list` gives, so those are not
  reported;
- a value of the wrong kind, outside that release's allowed values (a type
  it did not support yet) or below its minimum;
- an attr that release requires (its OpDef has no default yet) and the
  graph omits.

Function bodies are checked too. Loading a SavedModel builds every function
(`tf.saved_model.load`), so a problem there is an error; importing a GraphDef
or MetaGraphDef only registers the functions (measured: TF 2.4 imports a
graph whose function body has an attr it does not know), so there the
finding is a warning: the graph imports and fails when the function first
runs. Problems the newest bundled TensorFlow has
as well are left to `missing-attr`, `unknown-attr`, `allowed-values`, ...
The rule runs only when targets are set (see `target-op-missing`).

How to fix: strip default-valued attrs when exporting, or run the graph on a
newer TensorFlow.

Okay:
  node { name: "v" op: "VarHandleOp" attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "shape" value { shape { } } } }
Fail:
  node { name: "v" op: "VarHandleOp" attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "shape" value { shape { } } }
    attr { key: "debug_name" value { s: "v" } } }   # target-attr
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from tflint.finding import Issue, Severity
from tflint.tf.index import GraphIndex

ID = "target-attr"
CATEGORY = "version"
DEFAULT_SEVERITY = Severity.ERROR
OPTIONS: dict[str, Any] = {}
# The docstring examples run with this configuration.
EXAMPLE_CONFIG = {"target-tf": "2.4"}


def check(graph: GraphIndex, options: Mapping[str, Any]) -> Iterator[Issue]:
    """Yield one issue per attr (or missing attr) some target release refuses."""
    if not graph.registry.targets:
        return
    from tflint.tf.target import ATTR_MISSING, ATTR_UNKNOWN, ATTR_VALUE, target_issues

    yield from target_issues(graph, (ATTR_UNKNOWN, ATTR_VALUE, ATTR_MISSING))
