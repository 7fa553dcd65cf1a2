"""recursive-function: call cycles through call nodes and func attrs, and closed gradient cycles."""

from __future__ import annotations

import pytest
from conftest import lint_text, pinned

from tflint.engine.run import NEVER_CALLED

RULE = "recursive-function"


def _fn(name: str, *nodes: str) -> str:
    return f'function {{ signature {{ name: "{name}" }} {" ".join(nodes)} }}'


def _call(node: str, callee: str, op: str = "PartitionedCall") -> str:
    return (
        f'node_def {{ name: "{node}" op: "{op}" attr {{ key: "Tin" value {{ list {{ }} }} }} attr {{ key: "Tout" value {{ list {{ }} }} }} '
        f'attr {{ key: "f" value {{ func {{ name: "{callee}" }} }} }} }}'
    )


def _if(node: str, then: str, other: str) -> str:
    return (
        f'node_def {{ name: "{node}" op: "StatelessIf" input: "p" attr {{ key: "Tcond" value {{ type: DT_BOOL }} }} '
        f'attr {{ key: "Tin" value {{ list {{ }} }} }} attr {{ key: "Tout" value {{ list {{ }} }} }} '
        f'attr {{ key: "then_branch" value {{ func {{ name: "{then}" }} }} }} attr {{ key: "else_branch" value {{ func {{ name: "{other}" }} }} }} }}'
    )


def _library(*functions: str) -> str:
    return "library {\n" + "\n".join(functions) + "\n}\n"


@pytest.mark.parametrize(
    "pbtxt, expected",
    [
        # Each recursive shape below crashed TensorFlow 2.21 (segfault) at import or first run when called.
        pytest.param(_library(_fn("f", 'node_def { name: "r" op: "f" }')), [(RULE, "r", 2)], id="self-call-by-op"),
        pytest.param(_library(_fn("f", _call("r", "f"))), [(RULE, "r", 2)], id="self-call-by-func-attr"),
        pytest.param(
            _library(_fn("f", 'node_def { name: "a" op: "g" }'), _fn("g", 'node_def { name: "b" op: "f" }')),
            [(RULE, "a", 2), (RULE, "b", 3)],
            id="mutual",
        ),
        pytest.param(
            _library(
                _fn("f", _if("if", "base", "step")),
                _fn("base"),
                _fn("step", _call("again", "f", "StatefulPartitionedCall")),
            ),
            [(RULE, "if", 2), (RULE, "again", 4)],
            id="conditional-through-if",
        ),
        pytest.param(
            _library(_fn("f", 'node_def { name: "a" op: "g" }'), _fn("g", 'node_def { name: "b" op: "h" }'), _fn("h")),
            [],
            id="chain",
        ),
        pytest.param(_library(_fn("f", _call("a", "g"), _call("b", "g")), _fn("g")), [], id="diamond-no-cycle"),
        pytest.param(
            _library(
                _fn("f", 'node_def { name: "x" op: "NoOp" }', 'node_def { name: "r" op: "g" }'),
                _fn("g", 'node_def { name: "s" op: "g" }'),
            ),
            [(RULE, "s", 3)],
            id="only-cycle-members",
        ),
        pytest.param(
            'node { name: "f" op: "NoOp" }\n' + _library(_fn("g")), [], id="top-level-node-named-like-function"
        ),
    ],
)
def test_call_cycles(pbtxt, expected):
    assert pinned(lint_text(pbtxt), rule=RULE) == expected


def test_long_call_chain_needs_no_recursion():
    count = 5000
    functions = [_fn(f"f{i}", f'node_def {{ name: "c" op: "f{i + 1}" }}') for i in range(count)]
    functions.append(_fn(f"f{count}", 'node_def { name: "back" op: "f0" }'))
    findings = [f for f in lint_text(_library(*functions)) if f.rule == RULE]
    assert len(findings) == count + 1
    assert {f.function for f in findings} == {f"f{i}" for i in range(count + 1)}


def test_messages():
    text = _library(
        _fn("f", 'node_def { name: "a" op: "g" }'),
        _fn("g", _call("b", "f")),
        _fn("h", 'node_def { name: "me" op: "h" }'),
    )
    # Nothing calls them: TensorFlow imports the graph, and the messages say so.
    messages = {f.function: f.message.removesuffix(f" ({NEVER_CALLED})") for f in lint_text(text) if f.rule == RULE}
    assert messages == {
        "f": "Function 'f' is recursive: node 'a' calls 'g', which leads back to 'f' (f -> g -> f); TensorFlow does not support recursion",
        "g": "Function 'g' is recursive: node 'b' (op PartitionedCall) refers to 'f', which leads back to 'g' (g -> f -> g); TensorFlow does not support recursion",
        "h": "Function 'h' is recursive: node 'me' calls 'h' itself; TensorFlow does not support recursion",
    }


GRADIENTS = _library(_fn("f"), _fn("g"), "GRADIENTS")


@pytest.mark.parametrize(
    "gradients, count",
    [
        # tf.import_graph_def: "FunctionDefLibrary contains cyclic gradient functions!" (verified).
        ('gradient { function_name: "f" gradient_func: "g" } gradient { function_name: "g" gradient_func: "f" }', 1),
        ('gradient { function_name: "f" gradient_func: "f" } gradient { function_name: "g" gradient_func: "g" }', 1),
        ('gradient { function_name: "f" gradient_func: "g" }', 0),
        # A missing name is unknown-function's finding (TensorFlow reports it first).
        ('gradient { function_name: "f" gradient_func: "g" } gradient { function_name: "g" gradient_func: "x" }', 0),
    ],
)
def test_gradient_cycles(gradients, count):
    findings = [f for f in lint_text(GRADIENTS.replace("GRADIENTS", gradients)) if f.rule == RULE]
    assert len(findings) == count


def test_gradient_cycle_message():
    text = GRADIENTS.replace(
        "GRADIENTS",
        'gradient { function_name: "f" gradient_func: "g" } gradient { function_name: "g" gradient_func: "f" }',
    )
    (finding,) = [f for f in lint_text(text) if f.rule == RULE]
    assert finding.message == (
        "Every function of the library has a gradient function, so gradients form a cycle (f -> g -> f): "
        "tf.import_graph_def refuses the graph (FunctionDefLibrary contains cyclic gradient functions)"
    )
    assert finding.line == 2
