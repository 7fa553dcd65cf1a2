"""cycle: TensorFlow's topological import, with its exact loop exception.

Every graph in CASES was imported with TensorFlow 2.21; the comment on each
says what TensorFlow did. Function bodies were checked with a call node (the
importer instantiates called functions for shape inference, and fails with
the same "N nodes in a cycle").
"""

from __future__ import annotations

import pytest
from conftest import lint_bytes, lint_text, pinned

from tflint import protos
from tflint.engine.run import NEVER_CALLED

ID = "cycle"

X = 'node { name: "x" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } }\n'
T = 'attr { key: "T" value { type: DT_FLOAT } }'
VARIABLE = 'node { name: "v" op: "VariableV2" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { } } } }\n'


def _node(name: str, op: str, *inputs: str, extra: str = "") -> str:
    listed = " ".join(f'input: "{raw}"' for raw in inputs)
    return f'node {{ name: "{name}" op: "{op}" {listed} {T} {extra}}}\n'


def _merge(name: str, *inputs: str, op: str = "Merge") -> str:
    data = sum(1 for raw in inputs if not raw.startswith("^"))
    return _node(name, op, *inputs, extra=f'attr {{ key: "N" value {{ i: {data} }} }} ')


LOOP = (
    X
    + _node("enter", "Enter", "x", extra='attr { key: "frame_name" value { s: "loop" } } ')
    + _merge("merge", "enter", "next")
    + _node("next", "NextIteration", "merge")
)

CASES = [
    # TF: imports.
    pytest.param(LOOP, [], id="while-loop"),
    # TF: imports (nodes in any file order).
    pytest.param(
        _node("next", "NextIteration", "merge")
        + _merge("merge", "enter", "next")
        + _node("enter", "Enter", "x", extra='attr { key: "frame_name" value { s: "l" } } ')
        + X,
        [],
        id="while-loop-reversed",
    ),
    # TF: imports; the back edge may come first.
    pytest.param(X + _merge("merge", "next", "x") + _node("next", "NextIteration", "merge"), [], id="back-edge-first"),
    # TF: imports (a RefMerge loop follows the same rule).
    pytest.param(
        VARIABLE + _merge("merge", "v", "next", op="RefMerge") + _node("next", "RefNextIteration", "merge"),
        [],
        id="ref-loop",
    ),
    # TF: "2 nodes in a cycle".
    pytest.param(
        VARIABLE + _merge("merge", "next", "^v", op="RefMerge") + _node("next", "RefNextIteration", "merge"),
        [(ID, "merge", 2)],
        id="starved-ref-loop",
    ),
    # TF: imports: pending = 1 control + 1 = 2, counted: x (data) and x (control).
    pytest.param(
        X + _merge("merge", "x", "next", "^x") + _node("next", "NextIteration", "merge"), [], id="merge-with-control"
    ),
    # TF: imports: two back edges, one other input.
    pytest.param(
        X + _merge("merge", "x", "next", "next") + _node("next", "NextIteration", "merge"), [], id="two-back-edges"
    ),
    # TF: imports: a control input from the NextIteration raises the need to 2 other inputs.
    pytest.param(
        X + _merge("merge", "x", "x", "next", "^next") + _node("next", "NextIteration", "merge"),
        [],
        id="control-from-next-iteration",
    ),
    # TF: "1 nodes in a cycle".
    pytest.param(_node("a", "Identity", "a"), [(ID, "a", 1)], id="data-self-loop"),
    # TF: "1 nodes in a cycle".
    pytest.param('node { name: "a" op: "NoOp" input: "^a" }\n', [(ID, "a", 1)], id="control-self-loop"),
    # TF: "3 nodes in a cycle" (c only depends on the cycle; reported once, on a).
    pytest.param(
        'node { name: "a" op: "NoOp" input: "^b" }\nnode { name: "b" op: "NoOp" input: "^a" }\nnode { name: "c" op: "NoOp" input: "^b" }\n',
        [(ID, "a", 1)],
        id="two-cycle-and-downstream",
    ),
    # TF: "2 nodes in a cycle": a Merge without a NextIteration input is an ordinary node.
    pytest.param(
        X + _merge("merge", "x", "id") + _node("id", "Identity", "merge"),
        [(ID, "merge", 2)],
        id="merge-without-next-iteration",
    ),
    # TF: "3 nodes in a cycle": the NextIteration must feed the Merge directly.
    pytest.param(
        X + _merge("merge", "x", "id") + _node("next", "NextIteration", "merge") + _node("id", "Identity", "next"),
        [(ID, "merge", 2)],
        id="next-iteration-not-direct",
    ),
    # TF: "2 nodes in a cycle": pending = 1 control + 1 = 2, only x counts.
    pytest.param(
        X + _merge("merge", "next", "^x") + _node("next", "NextIteration", "merge"),
        [(ID, "merge", 2)],
        id="starved-merge",
    ),
    # TF: "1 nodes in a cycle" though there is no cycle: the control edge from NextIteration never counts.
    pytest.param(
        X + _node("next", "NextIteration", "x") + _merge("merge", "x", "^next"),
        [(ID, "merge", 3)],
        id="control-only-from-next-iteration",
    ),
    # TF: aborts ("Check failed: *current_pending_count > 0").
    pytest.param(
        X + _merge("merge", "x", "x", "next") + _node("next", "NextIteration", "merge"),
        [(ID, "merge", 2)],
        id="over-fed-merge-crashes",
    ),
    # Two separate cycles: two findings.
    pytest.param(
        _node("a", "Identity", "b") + _node("b", "Identity", "a") + _node("c", "Identity", "c"),
        [(ID, "a", 1), (ID, "c", 3)],
        id="two-cycles",
    ),
    # Unknown inputs are unresolved-input's; they do not block anything here.
    pytest.param(
        _node("a", "Identity", "missing") + _node("b", "Identity", "a", "^gone"), [], id="unknown-inputs-ignored"
    ),
    # Nodes in reverse order, no cycle.
    pytest.param(
        _node("c", "Identity", "b") + _node("b", "Identity", "a") + _node("a", "Identity", "x") + X,
        [],
        id="reverse-order-chain",
    ),
]


@pytest.mark.parametrize("pbtxt, expected", CASES)
def test_cycles(pbtxt, expected):
    assert pinned(lint_text(pbtxt), rule=ID) == expected


def _function(*body: str) -> str:
    return (
        "library { function {\n"
        '  signature { name: "f" input_arg { name: "a" type: DT_FLOAT } output_arg { name: "o" type: DT_FLOAT } }\n'
        + "".join(f"  {line}\n" for line in body)
        + '  ret { key: "o" value: "a" }\n'
        "} }\n"
    )


FUNCTION_CASES = [
    # TF (called): "3 nodes in a cycle".
    pytest.param(
        _function(
            f'node_def {{ name: "n1" op: "Identity" input: "a" input: "^n2" {T} }}',
            f'node_def {{ name: "n2" op: "Identity" input: "n1:output:0" {T} }}',
        ),
        [("n1", 3)],
        id="cycle-in-body",
    ),
    # TF (called): runs.
    pytest.param(
        _function(
            f'node_def {{ name: "enter" op: "Enter" input: "a" {T} attr {{ key: "frame_name" value {{ s: "fr" }} }} }}',
            f'node_def {{ name: "merge" op: "Merge" input: "enter:output:0" input: "next:output:0" {T} attr {{ key: "N" value {{ i: 2 }} }} }}',
            f'node_def {{ name: "next" op: "NextIteration" input: "merge:output:0" {T} }}',
        ),
        [],
        id="loop-in-body",
    ),
    # TF (called): "2 nodes in a cycle"; the control input from the argument counts, 2 are needed.
    pytest.param(
        _function(
            f'node_def {{ name: "merge" op: "Merge" input: "next:output:0" input: "^a" {T} attr {{ key: "N" value {{ i: 1 }} }} }}',
            f'node_def {{ name: "next" op: "NextIteration" input: "merge:output:0" {T} }}',
        ),
        [("merge", 3)],
        id="starved-merge-in-body",
    ),
    # `a` names the argument, not the node `a`: no self-loop (TensorFlow reports the duplicate name instead).
    pytest.param(_function(f'node_def {{ name: "a" op: "Identity" input: "a" {T} }}'), [], id="argument-shadows-node"),
    # But `a:output:0` is the node.
    pytest.param(
        _function(f'node_def {{ name: "a" op: "Identity" input: "a:output:0" {T} }}'),
        [("a", 3)],
        id="node-output-self-loop",
    ),
]


@pytest.mark.parametrize("pbtxt, expected", FUNCTION_CASES)
def test_function_bodies(pbtxt, expected):
    findings = [f for f in lint_text(pbtxt) if f.rule == ID]
    assert [(f.node, f.line) for f in findings] == expected
    assert all(f.function == "f" for f in findings)


def test_cycle_message_shows_the_cycle_in_data_flow_order():
    text = _node("a", "Identity", "c") + _node("b", "Identity", "a") + _node("c", "Identity", "b")
    [finding] = [f for f in lint_text(text) if f.rule == ID]
    assert finding.message == (
        "Node 'a' is on a cycle of 3 nodes: a -> b -> c -> a. TensorFlow only accepts cycles through a loop "
        "Merge fed by a NextIteration and rejects the graph at import ('nodes in a cycle')"
    )


def test_function_message():
    [finding] = [f for f in lint_text(FUNCTION_CASES[0].values[0]) if f.rule == ID]
    assert finding.message.endswith(
        f"and rejects the function when it instantiates it ('nodes in a cycle') ({NEVER_CALLED})"
    )


def test_self_loop_message():
    [finding] = [f for f in lint_text('node { name: "a" op: "NoOp" input: "^a" }') if f.rule == ID]
    assert finding.message.startswith("Node 'a' is its own input (a -> a).")


def test_shortest_cycle_and_component_size():
    # a <-> b, and a -> c -> d -> a: one component of 4; the shortest cycle through a is a -> b -> a.
    text = (
        _node("a", "Identity", "b", "d")
        + _node("b", "Identity", "a")
        + _node("c", "Identity", "a")
        + _node("d", "Identity", "c")
    )
    [finding] = [f for f in lint_text(text) if f.rule == ID]
    assert finding.node == "a"
    assert "a cycle of 2 nodes: a -> b -> a; 4 nodes are on cycles with it." in finding.message


def test_long_cycles_are_shortened():
    names = [f"n{i}" for i in range(25)]
    text = "".join(_node(name, "Identity", names[i - 1]) for i, name in enumerate(names))
    [finding] = [f for f in lint_text(text) if f.rule == ID]
    assert (
        "a cycle of 25 nodes: n0 -> n1 -> n2 -> n3 -> n4 -> n5 -> n6 -> n7 -> n8 -> n9 -> ... -> n0." in finding.message
    )


def test_over_fed_merge_message():
    text = X + _merge("merge", "x", "x", "next") + _node("next", "NextIteration", "merge")
    [finding] = [f for f in lint_text(text) if f.rule == ID]
    assert finding.message.startswith(
        "Merge 'merge' has a NextIteration back edge and 2 other data inputs; TensorFlow schedules a loop Merge after 1"
    )


def _chain(count: int, *, closed: bool, reverse: bool) -> bytes:
    graph = protos.GraphDef()
    order = range(count - 1, -1, -1) if reverse else range(count)
    for i in order:
        node = graph.node.add(name=f"n{i}", op="NoOp")
        if i > 0:
            node.input.append(f"^n{i - 1}")
        elif closed:
            node.input.append(f"^n{count - 1}")
    return graph.SerializeToString()


@pytest.mark.parametrize("reverse", [False, True], ids=["file-order", "reverse-order"])
@pytest.mark.parametrize("closed", [False, True], ids=["open", "closed"])
def test_chains(reverse, closed):
    findings = [f for f in lint_bytes(_chain(5000, closed=closed, reverse=reverse)) if f.rule == ID]
    expected = ["n4999" if reverse else "n0"] if closed else []
    assert [f.node for f in findings] == expected


def test_300k_node_cycle_needs_no_recursion():
    # The rule alone (the whole engine on 300k nodes is slow to test): iterative throughout.
    from tflint.api import registry_for
    from tflint.config.settings import default_config
    from tflint.engine.run import build_index
    from tflint.read.load import load_bytes
    from tflint.rules import cycle

    artifact = load_bytes(_chain(300_000, closed=True, reverse=True), "chain.pb")
    index = build_index(artifact.graphs[0], registry_for(default_config()), artifact)
    [issue] = list(cycle.check(index, {}))
    assert issue.node.name == "n299999"
    assert "a cycle of 300000 nodes: n299999 -> n0 -> n1 -> " in issue.message
