"""Node names follow TensorFlow's node-name grammar.

TensorFlow's importer checks every node name (`IsValidNodeName`) and refuses
the graph at the first bad one: `Node '_a': Node name contains invalid
characters`. The grammar the code implements (not the looser one in the
proto comment) is one or more segments joined by `>`; a segment starts with
an ASCII letter, digit or `.`, followed by letters, digits and `_ . / -`:

    ^SEG(>SEG)*$    SEG = [A-Za-z0-9.][A-Za-z0-9_./-]*

So empty names, spaces, `:`, `^`, non-ASCII letters, a leading `-` or `/`,
an empty segment (`a>`, `a>>b`) and a segment starting with `_` (`a>_b`) are
rejected. A leading `_` is reserved for TensorFlow's internal nodes: it is
rejected at the top level (TensorBoard demo names like `_send_Mean_0`, and
`_tf.foo` or `__inference_f_12` copied out of function bodies, fail), but
allowed as the very first character of a node inside a function body, which
TensorFlow builds with `allow_internal_ops` (checked when the function is
instantiated, also at import when a node calls it). `a//b/` is legal.

A function's input and output arg names are checked too: instantiating the
function adds a node named after each input arg and one named
`<output arg>_RetVal` per output (`Node 'o b_RetVal': Node name contains
invalid characters`).

How to fix: rename the node (and every input, `^control` and `loc:@` entry
that refers to it), e.g. replace spaces and `:` with `_` and drop a leading
`_` at the top level.

Okay:
  node { name: "scope/conv-1.2/Relu" op: "NoOp" }
  node { name: ".hidden" op: "NoOp" }
  node { name: "outer>inner" op: "NoOp" }
  library { function {
    signature { name: "f" }
    node_def { name: "_internal" op: "NoOp" }
  } }
Fail:
  node { name: "_send_Mean_0" op: "NoOp" }   # node-name-syntax
  node { name: "my node" op: "NoOp" }   # node-name-syntax
  node { name: "a>_b" op: "NoOp" }   # node-name-syntax
  node { name: "" op: "NoOp" }   # node-name-syntax
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, cast

from tflint.finding import Issue, Severity
from tflint.tf.index import GraphIndex
from tflint.tf.node import FUNCTION_NODE_NAME, GRAPH_NODE_NAME

ID = "node-name-syntax"
CATEGORY = "structure"
DEFAULT_SEVERITY = Severity.ERROR
OPTIONS: dict[str, Any] = {}
# Time on a large graph relative to other rules, for the parallel planner (rules/__init__.py).
COST = 3

# TensorFlow's IsValidNodeName, ASCII only; with allow_internal_ops (function bodies) a leading `_` too.
_GRAPH_NAME = GRAPH_NODE_NAME
_FUNCTION_NAME = FUNCTION_NODE_NAME
_BODY_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./-")
_FIRST_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789.")


def check(graph: GraphIndex, options: Mapping[str, Any]) -> Iterator[Issue]:
    """Yield an issue for each node (or function arg) whose name TensorFlow would refuse."""
    for scope in graph.scopes():
        in_function = scope.function is not None
        grammar = _FUNCTION_NAME if in_function else _GRAPH_NAME
        for node in scope.nodes:
            if grammar.fullmatch(node.name) is None:
                yield Issue(
                    node,
                    f"Node name '{node.name}' is not a valid TensorFlow node name: {explain(node.name, in_function)}",
                )
        if in_function:
            yield from _check_signature(cast(Any, scope.function).signature)


def _check_signature(signature: Any) -> Iterator[Issue]:
    """The instantiated body has a node per input arg (named after it) and per output arg (`<name>_RetVal`)."""
    for arg in signature.input_arg:
        if _FUNCTION_NAME.fullmatch(arg.name) is None:
            yield Issue(
                None,
                f"Function '{signature.name}': input arg '{arg.name}' is not a valid node name, and TensorFlow names "
                f"the argument's node after it when it instantiates the function: {explain(arg.name, True)}",
                function=signature.name,
            )
    for arg in signature.output_arg:
        node_name = f"{arg.name}_RetVal"
        if _FUNCTION_NAME.fullmatch(node_name) is None:
            yield Issue(
                None,
                f"Function '{signature.name}': output arg '{arg.name}' makes an invalid node name '{node_name}' when "
                f"TensorFlow instantiates the function: {explain(node_name, True)}",
                function=signature.name,
            )


def explain(name: str, in_function: bool) -> str:
    """Say what is wrong with an invalid node name, in plain words."""
    if not name:
        return "it is empty"
    for position, char in enumerate(name):
        if char != ">" and char not in _BODY_CHARS:
            return (
                f"character {char!r} at position {position} is not allowed (only ASCII letters, digits and _ . / - >)"
            )
    segments = name.split(">")
    if name[0] == "_" and not in_function:
        return "a leading '_' is reserved for TensorFlow's internal nodes (allowed only inside function bodies)"
    for number, segment in enumerate(segments):
        if number == 0 and in_function and segment.startswith("_"):
            segment = segment[1:] or "."
        if not segment:
            return "a '>' must separate two non-empty parts"
        if segment[0] not in _FIRST_CHARS:
            where = "the name" if number == 0 else "a part after '>'"
            return f"{where} starts with {segment[0]!r}; it must start with a letter, a digit or '.'"
    return "it does not match [A-Za-z0-9.][A-Za-z0-9_./-]*(>[A-Za-z0-9.][A-Za-z0-9_./-]*)*"
