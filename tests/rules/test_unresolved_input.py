"""unresolved-input: every data and control input names a node of its scope (or an argument, in a function body).

TensorFlow's importer splits an input string with `ParseTensorName` before it looks the node
up, so a malformed node name that equals an input string (`b:1`, `^c`) does not resolve it:
the lookup is for `b` and `c` ("Node 'i': Unknown input node 'b:1'").
"""

from __future__ import annotations

import pytest
from conftest import lint_text, pinned
from signature_graphs import T_FLOAT, const, graph, library

RULE = "unresolved-input"


def identity(name: str, *sources: str) -> str:
    inputs = " ".join(f'input: "{source}"' for source in sources)
    return f'node {{ name: "{name}" op: "Identity" {inputs} {T_FLOAT} }}'


def body_identity(name: str, source: str) -> str:
    return f'node_def {{ name: "{name}" op: "Identity" input: "{source}" {T_FLOAT} }}'


CASES = [
    # -- clean ----------------------------------------------------------------
    pytest.param(graph(const("a"), identity("i", "a"), identity("j", "a:0", "^i")), [], id="plain-indexed-control"),
    pytest.param(graph(identity("i", "later"), const("later")), [], id="producer-after-consumer"),
    pytest.param(
        graph(
            const("a"),
            library(
                body_identity("i", "x"),
                body_identity("j", "i:output:0"),
                'node_def { name: "n" op: "NoOp" input: "^i" }',
            ),
        ),
        [],
        id="body-arg-node-control",
    ),
    # -- failures -------------------------------------------------------------
    pytest.param(graph(const("a"), identity("i", "gone")), [(RULE, "i", 2)], id="missing-data-input"),
    pytest.param(graph(const("a"), identity("i", "gone:2")), [(RULE, "i", 2)], id="missing-indexed-input"),
    pytest.param(graph(const("a"), identity("i", "a", "^gone")), [(RULE, "i", 2)], id="missing-control-input"),
    pytest.param(
        graph(identity("i", "gone"), const("a"), identity("j", "gone", "gone")),
        [(RULE, "i", 1), (RULE, "j", 3), (RULE, "j", 3)],
        id="every-reader-of-a-missing-name",
    ),
    pytest.param(
        graph(const("b:1"), identity("i", "b:1")), [(RULE, "i", 2)], id="malformed-name-with-index-is-not-its-own-input"
    ),
    pytest.param(
        graph(const("^c"), identity("i", "a", "^c"), const("a")),
        [(RULE, "i", 2)],
        id="malformed-name-with-caret-is-not-its-own-input",
    ),
    pytest.param(
        graph(const("a"), library(body_identity("i", "nothing"))),
        [(RULE, "i", 4)],
        id="body-names-neither-node-nor-arg",
    ),
    pytest.param(
        graph(const("a"), library(body_identity("i", "a"))), [(RULE, "i", 4)], id="body-does-not-see-top-level-nodes"
    ),
]


@pytest.mark.parametrize("pbtxt, expected", CASES)
def test_rule(pbtxt, expected):
    assert pinned(lint_text(pbtxt), rule=RULE) == expected


def test_message_names_the_input_and_the_missing_node():
    (finding,) = [f for f in lint_text(graph(const("b:1"), identity("i", "b:1"))) if f.rule == RULE]
    assert finding.message == "Node 'i' has input 'b:1' but no node is named 'b'"
