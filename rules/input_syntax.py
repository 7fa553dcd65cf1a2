"""Input strings are spelled so that TensorFlow reads them as written.

A top-level input is `node`, `node:index` or `^node` (control). TensorFlow's
importer does not check that grammar: it splits each string with its lax
`ParseTensorName` (the text after the last `:` is the index if it is all
digits, else a leading `^` marks a control input, else the whole string is a
node name) and then looks the node up. So a malformed input either fails with
a puzzling `Node 'b': Unknown input node '...'`, or is silently read as
something else, or crashes the importer. This rule reports, with what
TensorFlow actually does:

- an empty input, or a lone `^` (read as a node named '');
- `a:` (empty index) and `a:x`, `a:-1` (non-digit index), read as a node
  named `a:` or `a:x`; `a:1:2` (read as output 2 of a node `a:1`); `:0`;
- `^a:0`, a control input with an index: read as a *data* input from a node
  named `^a` (TensorFlow's `ValidateNodeDef` also forbids it: "Control input
  '^a:0' must not have ':'");
- an index that does not fit TensorFlow's 32-bit int: from 2**31 to 2**32-1
  it becomes negative and the importer crashes (segfault on `a:2147483648`
  and `a:4294967295`); from 2**32 it wraps around and is silently read as
  another output (`a:4294967296` is `a:0`); past 2**64-1 the whole string is
  read as a node name.

Inside a function body inputs are looked up literally in the names the
instantiation builds: `arg`, `arg:i`, `node:out_arg`, `node:out_arg:i` (index
in plain decimal), and `^name`. So `node:0` (an output by number), `arg:out`,
`x:01` (leading zero), more than two `:` and empty parts are reported there;
TensorFlow fails with `input n:0 is not found` when it instantiates the
function. Whether the node, argument or output arg exists is left to
`unresolved-input` and the output-index checks.

Reported as warnings (TensorFlow accepts them and reads them as meant, but
they are suspect): a leading zero in a top-level index (`a:01` is read as
`a:1`). A repeated control input (`^a` twice) is legal and harmless
(TensorFlow de-duplicates it): reported as info only. With the option
`redundant-control: true`, also a control input on a node that already
feeds a data input (off by default: TensorFlow itself writes those in
function bodies for automatic control dependencies).

How to fix: write `node`, `node:N` or `^node` at top level, and
`node:out_arg:N`, `arg` or `arg:N` inside functions.

Okay:
  node { name: "a" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
  node { name: "b" op: "Identity" input: "a:0" input: "^a" attr { key: "T" value { type: DT_FLOAT } } }
Fail:
  node { name: "a" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
  node { name: "c" op: "Identity" input: "a:01" attr { key: "T" value { type: DT_FLOAT } } }   # input-syntax
  node { name: "d" op: "NoOp" input: "^a" input: "^a" }   # input-syntax
Fail:
  node { name: "a" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
  node { name: "b" op: "Identity" input: "a:" attr { key: "T" value { type: DT_FLOAT } } }   # input-syntax
  node { name: "c" op: "Identity" input: "a" input: "^a:0" attr { key: "T" value { type: DT_FLOAT } } }   # input-syntax
  node { name: "d" op: "Identity" input: "a:4294967296" attr { key: "T" value { type: DT_FLOAT } } }   # input-syntax
Fail:
  library { function {
    signature { name: "f" input_arg { name: "x" type: DT_FLOAT } output_arg { name: "y" type: DT_FLOAT } }
    node_def { name: "n" op: "Identity" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
    node_def { name: "m" op: "Identity" input: "n:0" attr { key: "T" value { type: DT_FLOAT } } }   # input-syntax
    ret { key: "y" value: "m:output:0" }
  } }
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from tflint.finding import Issue, Severity
from tflint.tf.index import GraphIndex
from tflint.tf.inputs import (
    function_input_problem,
    graph_input_problem,
    hygiene_problems,
    nodes_with_suspect_inputs,
)

ID = "input-syntax"
CATEGORY = "structure"
DEFAULT_SEVERITY = Severity.ERROR
OPTIONS: dict[str, Any] = {"redundant-control": False}
# Time on a large graph relative to other rules, for the parallel planner (rules/__init__.py).
COST = 2


def check(graph: GraphIndex, options: Mapping[str, Any]) -> Iterator[Issue]:
    """Yield one issue per input string TensorFlow cannot read as written."""
    redundant = options["redundant-control"]
    for scope in graph.scopes():
        in_function = scope.function is not None
        args = scope.arg_names
        names = scope.by_name
        # Top level: one scan over all input strings finds the few nodes worth checking one by one.
        nodes = scope.nodes if in_function else nodes_with_suspect_inputs(scope.nodes)
        for node in nodes:
            inputs = node.raw_inputs
            if not inputs:
                continue
            for position, raw in enumerate(inputs):
                if in_function:
                    problem = function_input_problem(raw, args, names)
                else:
                    problem = graph_input_problem(raw)
                if problem is not None:
                    yield Issue(node, f"Node '{node.name}': input #{position} '{raw}' {problem}")
            for hygiene in hygiene_problems(inputs, in_function=in_function, redundant_control=redundant):
                severity = Severity.INFO if hygiene.kind == "duplicate-control" else Severity.WARNING
                yield Issue(node, f"Node '{node.name}': {hygiene.message}", severity=severity)
