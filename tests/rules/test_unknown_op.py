"""unknown-op: the did-you-mean hint comes from the registry in force, never from TensorFlow's test ops."""

from __future__ import annotations

import pytest
from conftest import lint_text

from tflint.tf import registry

ID = "unknown-op"


def test_test_only_ops_are_registered_and_listed():
    hidden = registry.test_only_ops()
    assert {"Foo1", "Foo3", "Attr", "Binary"} <= hidden
    assert hidden <= set(registry.bundled_ops())
    assert not hidden & {"Const", "MatMul", "Identity", "NoOp", "Placeholder"}


@pytest.mark.parametrize(
    "op, message",
    [
        pytest.param("Foo", "Node 'a' uses op 'Foo', which is not registered (did you mean 'Floor'?)", id="not-foo3"),
        pytest.param("Fooo", "Node 'a' uses op 'Fooo', which is not registered", id="no-hint"),
        pytest.param(
            "matmul", "Node 'a' uses op 'matmul', which is not registered (did you mean 'MatMul'?)", id="case"
        ),
        pytest.param("Identiti", "Node 'a' uses op 'Identiti', which is not registered (did you mean 'Identity'?)"),
    ],
)
def test_suggestion(op, message):
    assert [(f.rule, f.message) for f in lint_text(f'node {{ name: "a" op: "{op}" }}')] == [(ID, message)]


def test_a_test_op_is_still_a_registered_op():
    assert [f for f in lint_text('node { name: "a" op: "Foo3" }') if f.rule == ID] == []


def test_a_user_op_def_is_suggested(tmp_path):
    ops = tmp_path / "ops.pbtxt"
    ops.write_text('op { name: "VendorLookup" }\n')
    findings = lint_text('node { name: "a" op: "VendorLokup" }', {"op-defs": [str(ops)]})
    assert [f.message for f in findings if f.rule == ID] == [
        "Node 'a' uses op 'VendorLokup', which is not registered (did you mean 'VendorLookup'?)"
    ]
