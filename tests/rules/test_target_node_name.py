"""target-node-name: node names TF 1.15's grammar refuses (`>`, legal from TF 2.0 on)."""

from __future__ import annotations

import pytest
from conftest import lint_text, pinned

from tflint.api import min_tf

RULE = "target-node-name"
BODY = 'library {\n  function {\n    signature { name: "f" }\n    node_def { name: "a>b" op: "NoOp" }\n  }\n}\n'


@pytest.mark.parametrize(
    "pbtxt, targets, expected",
    [
        # Characters every release accepts (measured on 1.15 and 2.0 to 2.21).
        pytest.param('node { name: "a-b.c/d_e" op: "NoOp" }', "1.15", [], id="plain"),
        pytest.param('node { name: ".a" op: "NoOp" }\nnode { name: "a//b/" op: "NoOp" }', "1.15", [], id="odd-legal"),
        # TF 1.15: `Node 'a-b.c>d': Node name contains invalid characters`; 2.0+ import it.
        pytest.param('node { name: "a-b.c>d" op: "NoOp" }', "1.15", [(RULE, "a-b.c>d", 1)], id="segment"),
        pytest.param('node { name: "x" op: "NoOp" }\nnode { name: "a>b>c" op: "NoOp" }', "1.15", [(RULE, "a>b>c", 2)]),
        pytest.param('node { name: "a-b.c>d" op: "NoOp" }', "2.0", [], id="new-enough"),
        pytest.param('node { name: "a-b.c>d" op: "NoOp" }', "1.15,2.4", [(RULE, "a-b.c>d", 1)], id="two-targets"),
        pytest.param('node { name: "a-b.c>d" op: "NoOp" }', None, [], id="no-target"),
        # Refused by every release: node-name-syntax's finding only.
        pytest.param('node { name: "a>-b" op: "NoOp" }', "1.15", [], id="bad-everywhere"),
        # A function body: TF 1.15 checks it when it instantiates the function, at import when a node calls it.
        # (uncalled: a warning, see below)
        pytest.param(BODY, "1.15", [(RULE, "a>b", 4)], id="uncalled-function"),
        pytest.param(BODY + 'node { name: "c" op: "f" }', "1.15", [(RULE, "a>b", 4)], id="called-function"),
        pytest.param(BODY + 'node { name: "c" op: "f" }', "2.0", [], id="called-function-new-enough"),
        # With allow_internal_ops a body's node may start with `_`.
        pytest.param(BODY.replace("a>b", "_a>b") + 'node { name: "c" op: "f" }', "1.15", [(RULE, "_a>b", 4)]),
    ],
)
def test_rule(pbtxt, targets, expected):
    config = {"target-tf": targets} if targets else None
    assert pinned(lint_text(pbtxt, config), rule=RULE) == expected


def test_message_names_the_release_and_where_it_changed():
    found = [f for f in lint_text('node { name: "a>b" op: "NoOp" }', {"target-tf": "1.15,2.4"}) if f.rule == RULE]
    assert [f.message for f in found] == [
        "TF 1.15: Node name 'a>b' contains '>', which that release's node-name grammar lacks (TF 2.0 added it)"
    ]


def test_an_uncalled_function_is_a_warning_and_a_saved_model_builds_every_function():
    # Measured on TF 1.15: a graph whose uncalled function has a node `a>b` imports (running it would fail).
    found = [f for f in lint_text(BODY, {"target-tf": "1.15"}) if f.rule == RULE]
    assert [(f.severity.name, "never called" in f.message) for f in found] == [("WARNING", True)]
    # tf.saved_model.load builds every function of the library, called or not.
    model = 'saved_model_schema_version: 1\nmeta_graphs {\n  meta_info_def { tags: "serve" }\n  graph_def {\n'
    model += '    library { function { signature { name: "f" } node_def { name: "a>b" op: "NoOp" } } }\n  }\n}\n'
    found = [f for f in lint_text(model, {"target-tf": "1.15"}, name="saved_model.pbtxt") if f.rule == RULE]
    assert [(f.severity.name, f.node, f.line) for f in found] == [("ERROR", "a>b", 5)]


def test_min_tf_counts_only_the_names_an_import_checks(tmp_path):
    uncalled = tmp_path / "uncalled.pbtxt"
    uncalled.write_text(BODY)
    called = tmp_path / "called.pbtxt"
    called.write_text(BODY + 'node { name: "c" op: "f" }\n')
    assert min_tf(uncalled).release == "1.15"
    assert min_tf(called).needs == (("2.0", ("node name with '>' (a>b)",)),)
