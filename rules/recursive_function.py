"""No function calls itself, directly or through other functions; gradient functions form no closed cycle.

TensorFlow does not support recursive functions, and fails in several ways
(all verified with TensorFlow 2.21):

- the C++ SavedModel loader refuses a function with a body node whose op is
  the function itself: `Function f is self recursive and TensorFlow does not
  support this scenario.`;
- `tf.saved_model.load` refuses any cycle among library functions, through
  call nodes or `func` attrs: `There is a cyclic dependency between
  functions.`;
- `tf.import_graph_def` of a GraphDef that calls a recursive function, or
  the first run of one (also for recursion that an `If` would stop),
  crashes the process with a segmentation fault.

A function is recursive here when it reaches itself through its body nodes:
a node whose op is a library function, and every `func` / `list(func)` attr
value (nested NameAttrList attrs included) naming a library function. Each
function on a cycle is reported once, at the first body node that leads
back into the cycle.

Also reported: a library in which every function has a gradient function
(GradientDef). `tf.import_graph_def` then finds no function to start from
and refuses the graph: `FunctionDefLibrary contains cyclic gradient
functions!`.

How to fix: rewrite the recursion as a loop (`While`), or break the cycle.

Okay:
  library {
    function { signature { name: "f" } node_def { name: "call_g" op: "g" } }
    function { signature { name: "g" } }
  }
Fail:
  library {
    function { signature { name: "f" } node_def { name: "call_g" op: "g" } }   # recursive-function
    function { signature { name: "g" } node_def { name: "call_f" op: "f" } }   # recursive-function
  }
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, cast

from tflint.finding import Issue, Severity
from tflint.tf.functions import func_references
from tflint.tf.index import GraphIndex
from tflint.tf.node import Node

ID = "recursive-function"
CATEGORY = "function"
DEFAULT_SEVERITY = Severity.ERROR
OPTIONS: dict[str, Any] = {}

# Above this many functions in one cycle, the message names no path (finding one costs too much).
_MAX_PATH_SEARCH = 64


def check(graph: GraphIndex, options: Mapping[str, Any]) -> Iterator[Issue]:
    """Yield one issue per function on a call cycle, and one for a closed gradient cycle."""
    calls = _call_graph(graph)
    for component in _strongly_connected(calls):
        members = set(component)
        if len(component) == 1 and not any(callee == component[0] for callee, _ in calls[component[0]]):
            continue
        for function in component:
            callee, node = next((callee, node) for callee, node in calls[function] if callee in members)
            yield Issue(node, _message(function, callee, node, calls, members))
    yield from _gradient_cycle(graph)


def _call_graph(graph: GraphIndex) -> dict[str, list[tuple[str, Node]]]:
    """For each library function (first definition of a name), (callee, body node) in body order."""
    library = graph.function_by_name
    calls: dict[str, list[tuple[str, Node]]] = {}
    for scope in graph.function_scopes:
        name = cast(str, scope.name)  # function scopes are named
        if name in calls or library.get(name) is not scope.function:
            continue  # a duplicate definition: TensorFlow keeps the first (or refuses the graph)
        edges: list[tuple[str, Node]] = []
        for node in scope.nodes:
            if node.op in library:
                edges.append((node.op, node))
            for _, function in func_references(node):
                if function.name in library:
                    edges.append((function.name, node))
        calls[name] = edges
    return calls


def _strongly_connected(calls: dict[str, list[tuple[str, Node]]]) -> Iterator[list[str]]:
    """Tarjan's strongly connected components, iteratively (no recursion limit on long call chains)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    counter = 0
    for root in calls:
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            function, position = work.pop()
            if position == 0:
                index[function] = low[function] = counter
                counter += 1
                stack.append(function)
                on_stack.add(function)
            edges = calls[function]
            while position < len(edges):
                callee = edges[position][0]
                position += 1
                if callee not in index:
                    work.append((function, position))
                    work.append((callee, 0))
                    break
                if callee in on_stack:
                    low[function] = min(low[function], index[callee])
            else:
                if low[function] == index[function]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == function:
                            break
                    yield component[::-1]
                if work:
                    caller = work[-1][0]
                    low[caller] = min(low[caller], low[function])


def _message(
    function: str, callee: str, node: Node, calls: dict[str, list[tuple[str, Node]]], members: set[str]
) -> str:
    how = f"node '{node.name}' calls" if node.op == callee else f"node '{node.name}' (op {node.op}) refers to"
    if callee == function:
        return f"Function '{function}' is recursive: {how} '{function}' itself; TensorFlow does not support recursion"
    path = _path(callee, function, calls, members) if len(members) <= _MAX_PATH_SEARCH else None
    cycle = " -> ".join([function, *path]) if path else f"{len(members)} functions"
    return (
        f"Function '{function}' is recursive: {how} '{callee}', which leads back to '{function}' ({cycle}); "
        "TensorFlow does not support recursion"
    )


def _path(start: str, goal: str, calls: dict[str, list[tuple[str, Node]]], members: set[str]) -> list[str] | None:
    """The shortest call path start -> ... -> goal inside one cycle (breadth first)."""
    previous: dict[str, str | None] = {start: None}
    frontier = [start]
    while frontier:
        following = []
        for function in frontier:
            for callee, _ in calls[function]:
                if callee not in members or callee in previous:
                    continue
                previous[callee] = function
                if callee == goal:
                    path = [callee]
                    while previous[path[-1]] is not None:
                        path.append(cast(str, previous[path[-1]]))
                    return path[::-1]
                following.append(callee)
        frontier = following
    return None


def _gradient_cycle(graph: GraphIndex) -> Iterator[Issue]:
    """`tf.import_graph_def`'s check: some function must have no gradient (after all names resolve)."""
    library = graph.function_by_name
    if not graph.functions or not graph.gradients:
        return
    if any(g.function_name not in library or g.gradient_func not in library for g in graph.gradients):
        return  # unknown-function reports the missing names, which TensorFlow finds first
    gradient_of = {g.function_name: g.gradient_func for g in graph.gradients}
    if any(function.signature.name not in gradient_of for function in graph.functions):
        return
    first = graph.functions[0].signature.name
    chain = [first]
    while gradient_of[chain[-1]] not in chain:
        chain.append(gradient_of[chain[-1]])
    chain.append(gradient_of[chain[-1]])
    yield Issue(
        None,
        "Every function of the library has a gradient function, so gradients form a cycle "
        f"({' -> '.join(chain)}): tf.import_graph_def refuses the graph (FunctionDefLibrary contains cyclic gradient "
        "functions)",
        function=first,
        library=True,  # tf.import_graph_def's check of the library, whether or not a function runs
    )
