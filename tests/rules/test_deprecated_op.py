"""deprecated-op: OpDef deprecations against the graph's producer (TensorFlow's CheckOpDeprecation)."""

from __future__ import annotations

import pytest
from conftest import lint_text, pinned

RULE = "deprecated-op"

CONST = 'node { name: "c" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } } float_val: 1 } } } }\n'
TOPK = 'node { name: "t" op: "TopK" input: "c" attr { key: "T" value { type: DT_FLOAT } } attr { key: "k" value { i: 1 } } }\n'


def _messages(text: str) -> list[str]:
    return [f.message for f in lint_text(text) if f.rule == RULE]


@pytest.mark.parametrize(
    "versions, removed",
    [
        # TopK is deprecated at GraphDef version 7. TensorFlow 2.21: producer 6 imports (and logs a
        # deprecation warning), producers 7 and 1700 fail with Unimplemented "...has been removed in version 7".
        ("", False),
        ("versions { producer: 6 }", False),
        ("versions { producer: 7 }", True),
        ("versions { producer: 1700 }", True),
    ],
)
def test_removed_depends_on_producer(versions, removed):
    text = CONST + TOPK + versions
    assert pinned(lint_text(text), rule=RULE) == [(RULE, "t", 2)]
    (message,) = _messages(text)
    assert ("removed in GraphDef version 7" in message) == removed
    assert ("is deprecated" in message) == (not removed)


def test_function_bodies_are_only_deprecated():
    # TensorFlow builds function bodies without the deprecation check (verified: no Unimplemented).
    text = (
        'library { function { signature { name: "f" input_arg { name: "x" type: DT_FLOAT } }\n'
        '  node_def { name: "t" op: "TopK" input: "x" attr { key: "T" value { type: DT_FLOAT } } attr { key: "k" value { i: 1 } } }\n'
        "} }\nversions { producer: 1700 }\n"
    )
    assert pinned(lint_text(text), rule=RULE) == [(RULE, "t", 2)]
    (message,) = _messages(text)
    assert "function bodies are not checked against the producer" in message


def test_not_deprecated_and_shadowing_functions():
    assert (
        pinned(
            lint_text(
                CONST
                + 'node { name: "t" op: "TopKV2" input: "c" input: "c" attr { key: "T" value { type: DT_FLOAT } } }\nversions { producer: 1700 }'
            ),
            rule=RULE,
        )
        == []
    )
    # A node calling a library function named like a deprecated op calls the function.
    assert (
        pinned(
            lint_text(
                'library { function { signature { name: "TopK" } } }\nnode { name: "t" op: "TopK" }\nversions { producer: 1700 }'
            ),
            rule=RULE,
        )
        == []
    )


def test_stripped_op_list_deprecation_is_not_tensorflows():
    text = """meta_info_def { stripped_op_list { op { name: "NoOp" deprecation { version: 1 explanation: "stale copy" } } } }
graph_def { node { name: "a" op: "NoOp" } versions { producer: 1700 } }
"""
    assert pinned(lint_text(text, input_type="MetaGraphDef"), rule=RULE) == []


def test_messages():
    assert _messages(CONST + TOPK + "versions { producer: 27 }") == [
        "Node 't' uses op TopK, which was removed in GraphDef version 7; the graph's producer is 27, so TensorFlow refuses it (Unimplemented). Use TopKV2 instead."
    ]
    assert _messages(CONST + TOPK + "versions { producer: 6 }") == [
        "Node 't' uses op TopK, which is deprecated as of GraphDef version 7 (the graph's producer is 6). Use TopKV2 instead."
    ]


def test_removed_ops_are_errors_and_deprecated_ones_warnings():
    graph = (
        'node { name: "c" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } '
        'attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } } float_val: 1 } } } }\n'
        'node { name: "t" op: "TopK" input: "c" attr { key: "T" value { type: DT_FLOAT } } attr { key: "k" value { i: 1 } } }\n'
    )
    removed = [str(f.severity) for f in lint_text(graph + "versions { producer: 27 }\n") if f.rule == "deprecated-op"]
    deprecated = [str(f.severity) for f in lint_text(graph + "versions { producer: 5 }\n") if f.rule == "deprecated-op"]
    configured = [
        str(f.severity)
        for f in lint_text(graph + "versions { producer: 27 }\n", {"rules": {"deprecated-op": "warning"}})
        if f.rule == "deprecated-op"
    ]
    assert (removed, deprecated, configured) == (["error"], ["warning"], ["warning"])
