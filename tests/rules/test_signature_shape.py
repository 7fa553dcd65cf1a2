"""signature-shape: TensorInfo shapes against placeholder shapes, Const shapes and `_output_shapes`.

Verified with TensorFlow 2.21: a signature declaring `[?,3]` for a `[?,2]`
placeholder loads and runs with both loaders (they never read it).
"""

from __future__ import annotations

import pytest
from conftest import lint_text, pinned, require
from serving_graphs import (
    SERVING,
    copy_model,
    edit_saved_model,
    identity,
    line_of,
    meta,
    node,
    placeholder,
    signature,
    tensor,
)

from tflint.api import lint_file

RULE = "signature-shape"
X = placeholder("x", shape=(-1, 2))
SHAPES = 'attr { key: "_output_shapes" value { list { shape { dim { size: -1 } dim { size: 4 } } } } } '


def _one(entry: str, *nodes: str):
    text = meta(*(nodes or (X,)), signatures=[signature("s", entry)])
    return text, line_of(text, entry[:30])


def _cases():
    for shape, label in [((-1, 2), "equal"), ((8, 2), "known-batch"), ((-1, -1), "wildcards"), ((8, -1), "mixed")]:
        yield pytest.param(*_one(tensor("inputs", "x", "x:0", shape=shape)), False, id=label)
    yield pytest.param(*_one(tensor("inputs", "x", "x:0", unknown_rank=True)), False, id="unknown-rank-declared")
    yield pytest.param(
        *_one('inputs { key: "x" value { name: "x:0" dtype: DT_FLOAT } }'), False, id="no-shape-declared"
    )
    yield pytest.param(*_one(tensor("inputs", "x", "x:0", shape=(-1, 3))), True, id="dim-differs")
    yield pytest.param(*_one(tensor("inputs", "x", "x:0", shape=(-1,))), True, id="rank-differs")
    yield pytest.param(*_one(tensor("inputs", "x", "x:0", shape=())), True, id="scalar-vs-matrix")
    unshaped = placeholder("u")
    yield pytest.param(
        *_one(tensor("inputs", "u", "u:0", shape=(1, 2, 3)), unshaped), False, id="placeholder-without-shape"
    )
    shaped = node("y", "Relu", "x", attrs='attr { key: "T" value { type: DT_FLOAT } } ' + SHAPES)
    yield pytest.param(*_one(tensor("outputs", "y", "y:0", shape=(-1, 4)), X, shaped), False, id="output-shapes-match")
    yield pytest.param(*_one(tensor("outputs", "y", "y:0", shape=(-1, 5)), X, shaped), True, id="output-shapes-differ")
    yield pytest.param(
        *_one(tensor("outputs", "y", "y:0", shape=(-1, 5)), X, identity("y", "x")), False, id="no-output-shapes"
    )
    const = node(
        "c",
        "Const",
        attrs='attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 3 } } } } } ',
    )
    yield pytest.param(*_one(tensor("outputs", "c", "c:0", shape=(3,)), const), False, id="const-shape")
    yield pytest.param(*_one(tensor("outputs", "c", "c:0", shape=(4,)), const), True, id="const-shape-differs")
    yield pytest.param(*_one(tensor("outputs", "g", "gone:0", shape=(4,))), False, id="unresolved-skipped")


@pytest.mark.parametrize("pbtxt, line, reported", list(_cases()))
def test_rule(pbtxt, line, reported):
    found = pinned(lint_text(pbtxt), rule=RULE)
    assert found == ([(RULE, found[0][1], line)] if reported else [])


def test_message_and_level():
    text = meta(X, signatures=[signature("serving_default", tensor("inputs", "x", "x:0", shape=(-1, 3)))])
    findings = [f for f in lint_text(text) if f.rule == RULE]
    assert [(f.node, str(f.severity), f.message) for f in findings] == [
        (
            "x",
            "warning",
            "Signature 'serving_default' input 'x' declares shape [?,3], but 'x:0' (Placeholder) has shape [?,2]",
        ),
    ]


def test_tf2_call_output_shapes(tmp_path):
    model = copy_model(require(SERVING / "tf2_module_signatures"), tmp_path)
    assert [f for f in lint_file(model).findings if f.rule == RULE] == []

    def widen(saved):
        info = saved.meta_graphs[0].signature_def["serving_default"].outputs["y"]
        info.tensor_shape.dim[1].size = 7

    edit_saved_model(model, widen)
    findings = [f for f in lint_file(model).findings if f.rule == RULE]
    assert [(f.node, f.message) for f in findings] == [
        (
            "StatefulPartitionedCall_1",
            "Signature 'serving_default' output 'y' declares shape [?,7], but 'StatefulPartitionedCall_1:0' (StatefulPartitionedCall) has shape [?,1]",
        ),
    ]
