"""The graph has no cycles except control-flow loops, exactly as TensorFlow schedules them.

TensorFlow's importer adds nodes in topological order, following data and
control inputs alike, and refuses the graph when some are never ready
(`N nodes in a cycle`; the nodes are only written to its log). Its one
exception is the loop of control flow v1: a `Merge` (`RefMerge`,
`_XlaMerge`) with at least one data input from a `NextIteration`
(`RefNextIteration`) does not wait for that back edge: it is ready once
(its number of control inputs + 1) of its other inputs are, and edges from a
`NextIteration` into any `Merge` never count. This rule replays that
schedule and reports:

- each cycle that blocks it, once, on its first node in file order, with the
  nodes in data-flow order (a self-loop, data or control, is a cycle too);
- a loop `Merge` that can never be ready: fewer data inputs besides the back
  edge than (its control inputs from `NextIteration` + 1), e.g. a `Merge`
  fed only by a `NextIteration`; or a `Merge` with a control input from a
  `NextIteration` but no data back edge (TensorFlow never counts that input);
- a loop `Merge` with more than that many other data inputs: the importer
  aborts on a failed check (`Check failed: *current_pending_count > 0`)
  instead of reporting an error.

Nodes that are merely downstream of a cycle are not reported (TensorFlow's
count includes them). Inputs naming no node are left to `unresolved-input`
and treated as ready here.

Function bodies are checked the same way: TensorFlow builds an instantiated
body with the same graph constructor, so a cycle makes every call of the
function fail (at import already when a node calls it, since the importer
instantiates called functions for shape inference). Arguments are always
ready.

How to fix: break the cycle (usually an input pointing at the wrong node);
in a hand-built loop, feed the `Merge` exactly one `Enter` (or initial value)
and one `NextIteration`.

Okay:
  node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
  node { name: "enter" op: "Enter" input: "x" attr { key: "T" value { type: DT_FLOAT } }
    attr { key: "frame_name" value { s: "loop" } } }
  node { name: "merge" op: "Merge" input: "enter" input: "next" attr { key: "T" value { type: DT_FLOAT } }
    attr { key: "N" value { i: 2 } } }
  node { name: "next" op: "NextIteration" input: "merge" attr { key: "T" value { type: DT_FLOAT } } }
Fail:
  node { name: "a" op: "Identity" input: "b" attr { key: "T" value { type: DT_FLOAT } } }   # cycle
  node { name: "b" op: "Identity" input: "a" attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "c" op: "NoOp" input: "^c" }   # cycle
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator, Mapping
from typing import Any

from tflint.finding import Issue, Severity
from tflint.tf.index import MERGE_OPS, NEXT_ITERATION_OPS, GraphIndex, Scope

ID = "cycle"
CATEGORY = "structure"
DEFAULT_SEVERITY = Severity.ERROR
OPTIONS: dict[str, Any] = {}
# Time on a large graph relative to other rules, for the parallel planner (rules/__init__.py).
COST = 10

# Cycles longer than this are shown as their first nodes, "...", and the closing node.
MAX_SHOWN = 10


def check(graph: GraphIndex, options: Mapping[str, Any]) -> Iterator[Issue]:
    """Yield one issue per blocking cycle and per loop Merge TensorFlow cannot schedule."""
    for scope in graph.scopes():
        yield from _check_scope(scope)


def _check_scope(scope: Scope) -> Iterator[Issue]:
    nodes = scope.nodes
    count = len(nodes)
    if count == 0:
        return
    lookup = scope.by_name.get  # a node's number is its ordinal (a dict of ordinals by name cost 14 MB at 300k nodes)
    args = scope.arg_names
    verdict = (
        "rejects the function when it instantiates it" if scope.function is not None else "rejects the graph at import"
    )
    sources: list[int] = []
    starts = [0] * (count + 1)
    issues: list[Issue] = []
    done = _schedule(nodes, lookup, args, verdict, sources, starts, issues)
    yield from issues
    if all(done):
        return
    for component, cyclic in _stuck_components(sources, starts, done):
        if cyclic:
            yield _cycle_issue(nodes, sources, starts, component, verdict)


def _schedule(
    nodes: list[Any],
    lookup: Any,
    args: frozenset[str],
    verdict: str,
    sources: list[int],
    starts: list[int],
    issues: list[Issue],
) -> list[bool]:
    """Which nodes TensorFlow's topological processing reaches (Kahn's algorithm with its pending counts).

    Appends to `issues` the loop Merges TensorFlow cannot schedule, and fills
    `sources`/`starts` with the inputs TensorFlow counts down, as flat arrays
    (a list per node would make the garbage collector rescan the heap): node
    v's are sources[starts[v]:starts[v + 1]]. Nodes are visited in file
    order, which TensorFlow's own graphs almost follow; a node with an input
    that is not done yet waits on that one input (on all of them for a loop
    Merge) and is looked at again when it is done, resuming where it stopped,
    so every input is examined about once.
    """
    count = len(nodes)
    done = [False] * count
    resume = [0] * count  # where an ordinary node's scan of its sources stopped
    need: dict[int, int] = {}  # loop Merge -> how many more of its sources must be done
    # A node not done yet -> the node waiting on it, or a list when several are (a list per
    # entry would cost the garbage collector dearly on long stuck chains).
    waiting: dict[int, Any] = {}
    for v, node in enumerate(nodes):
        starts[v] = len(sources)
        if node.op in MERGE_OPS:
            counted, pending, issue = _merge_inputs(node, nodes, lookup, args, verdict)
            if issue is not None:
                issues.append(Issue(node, issue))
            sources.extend(counted)
            for u in counted:
                if done[u]:
                    pending -= 1
                else:
                    _wait(waiting, u, v)
            need[v] = pending
            if pending > 0:
                continue
        else:
            blocked = -1
            for item in node.inputs:
                if args and item.output_arg is None and item.node in args:
                    continue  # like TensorFlow, `x`, `x:i` and `^x` name argument `x` before any node `x`
                producer = lookup(item.node)
                if producer is not None:
                    u = producer.ordinal
                    if blocked < 0 and not done[u]:
                        blocked = len(sources)
                    sources.append(u)
            if blocked >= 0:
                resume[v] = blocked
                _wait(waiting, sources[blocked], v)
                continue
        done[v] = True
        if not waiting:
            continue
        # v is done: look again at the nodes waiting on it, and on the ones that become done.
        stack = [v]
        while stack:
            woken = waiting.pop(stack.pop(), None)
            if woken is None:
                continue
            for w in (woken,) if type(woken) is int else woken:
                if done[w]:
                    continue
                if w in need:
                    need[w] -= 1
                    if need[w] <= 0:
                        done[w] = True
                        stack.append(w)
                    continue
                k = resume[w]
                end = starts[w + 1] if w + 1 <= v else len(sources)
                while k < end and done[sources[k]]:
                    k += 1
                if k < end:
                    resume[w] = k
                    _wait(waiting, sources[k], w)
                else:
                    done[w] = True
                    stack.append(w)
    starts[count] = len(sources)
    return done


def _wait(waiting: dict[int, Any], u: int, v: int) -> None:
    """Record that v waits on u."""
    already = waiting.get(u)
    if already is None:
        waiting[u] = v
    elif type(already) is int:
        waiting[u] = [already, v]
    else:
        already.append(v)


def _merge_inputs(
    node: Any, nodes: list[Any], lookup: Any, args: frozenset[str], verdict: str
) -> tuple[list[int], int, str | None]:
    """A Merge's counted sources, its pending count, and why TensorFlow cannot schedule it (or None).

    TensorFlow: a Merge with a data input from a NextIteration is ready after
    (its control inputs + 1) of its non-NextIteration inputs; an edge from a
    NextIteration into a Merge is never counted. Inputs naming no node (or an
    argument) are taken as ready.
    """
    counted: list[int] = []
    controls = controls_from_loop = data_from_loop = other_data = unresolved_others = 0
    for item in node.inputs:
        if args and item.output_arg is None and item.node in args:
            u = None
        else:
            producer = lookup(item.node)
            u = producer.ordinal if producer is not None else None
        from_loop = u is not None and nodes[u].op in NEXT_ITERATION_OPS
        if item.raw.startswith("^"):
            controls += 1
            controls_from_loop += from_loop
        elif from_loop:
            data_from_loop += 1
        else:
            other_data += 1
        if not from_loop:
            if u is None:
                unresolved_others += 1
            else:
                counted.append(u)
    kind = node.op
    if not data_from_loop:
        if controls_from_loop:
            return (
                counted,
                len(counted) + controls_from_loop,
                (
                    f"{kind} '{node.name}' has a control input from a NextIteration but no data input from one; "
                    f"TensorFlow never counts that input as done, so it never schedules the node and {verdict} "
                    f"('nodes in a cycle')"
                ),
            )
        return counted, len(counted), None
    pending = controls + 1 - unresolved_others
    needed = controls_from_loop + 1
    if other_data < needed:
        return (
            counted,
            pending,
            (
                f"{kind} '{node.name}' has a NextIteration back edge but {other_data} other data input(s); TensorFlow "
                f"waits for {controls + 1} of its non-NextIteration inputs (its {controls} control input(s) + 1), "
                f"never schedules it and {verdict} ('nodes in a cycle')"
            ),
        )
    if other_data > needed:
        return (
            counted,
            pending,
            (
                f"{kind} '{node.name}' has a NextIteration back edge and {other_data} other data inputs; TensorFlow "
                f"schedules a loop Merge after {controls + 1} of its non-NextIteration inputs (its {controls} control "
                f"input(s) + 1) and its graph constructor aborts (failed check on the pending count) when another one "
                f"arrives; a loop Merge takes one initial value and its NextIteration"
            ),
        )
    return counted, pending, None


def _stuck_components(sources: list[int], starts: list[int], done: list[bool]) -> Iterator[tuple[list[int], bool]]:
    """Strongly connected components of the unprocessed nodes (iterative Tarjan over input edges).

    Yields (members, is_cycle); a single node is a cycle only when it feeds itself.
    """
    count = len(done)
    index = [-1] * count
    low = [0] * count
    on_stack = [False] * count
    stack: list[int] = []
    counter = 0
    for root in range(count):
        if done[root] or index[root] != -1:
            continue
        work = [(root, starts[root])]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack[root] = True
        while work:
            v, k = work[-1]
            end = starts[v + 1]
            advanced = False
            while k < end:
                u = sources[k]
                k += 1
                if done[u]:
                    continue
                if index[u] == -1:
                    work[-1] = (v, k)
                    index[u] = low[u] = counter
                    counter += 1
                    stack.append(u)
                    on_stack[u] = True
                    work.append((u, starts[u]))
                    advanced = True
                    break
                if on_stack[u] and index[u] < low[v]:
                    low[v] = index[u]
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                if low[v] < low[parent]:
                    low[parent] = low[v]
            if low[v] == index[v]:
                members = []
                while True:
                    w = stack.pop()
                    on_stack[w] = False
                    members.append(w)
                    if w == v:
                        break
                yield members, len(members) > 1 or v in sources[starts[v] : starts[v + 1]]


def _cycle_issue(nodes: list[Any], sources: list[int], starts: list[int], component: list[int], verdict: str) -> Issue:
    """One issue on the component's first node, showing a shortest cycle through it."""
    start = min(component)
    path = _shortest_cycle(sources, starts, set(component), start)
    names = [nodes[v].name for v in path]
    shown = names + [names[0]]
    if len(shown) > MAX_SHOWN + 1:
        shown = shown[:MAX_SHOWN] + ["..."] + [shown[-1]]
    text = " -> ".join(shown)
    if len(path) == 1:
        head = f"Node '{names[0]}' is its own input ({text})"
    else:
        head = f"Node '{names[0]}' is on a cycle of {len(path)} nodes: {text}"
    extra = f"; {len(component)} nodes are on cycles with it" if len(component) > len(path) else ""
    return Issue(
        nodes[start],
        f"{head}{extra}. TensorFlow only accepts cycles through a loop Merge fed by a NextIteration and {verdict} "
        "('nodes in a cycle')",
    )


def _shortest_cycle(sources: list[int], starts: list[int], members: set[int], start: int) -> list[int]:
    """Nodes of a shortest cycle through `start`, in data-flow order, starting at `start`."""
    # Breadth-first over input edges, backwards from `start`, until an input is `start` again.
    feeds: dict[int, int] = {}  # feeds[u] = v: u is an input of v, one step nearer `start`
    queue = deque([start])
    while queue:
        v = queue.popleft()
        for k in range(starts[v], starts[v + 1]):
            u = sources[k]
            if u == start:
                chain = [v]  # start feeds v, v feeds feeds[v], ..., which feeds start
                while chain[-1] != start:
                    chain.append(feeds[chain[-1]])
                chain.pop()
                return [start] + chain
            if u in members and u not in feeds:
                feeds[u] = v
                queue.append(u)
    return [start]
