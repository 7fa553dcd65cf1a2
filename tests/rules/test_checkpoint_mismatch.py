"""checkpoint-mismatch: a restored entry's dtype is RestoreV2's, its shape its variable's (TF1 and TF2)."""

from __future__ import annotations

import shutil

import pytest
from conftest import DATA
from savedmodel_files import restore_line, restoring_meta_graph, write_model
from test_serving_load import build

from tflint.api import lint_file

RULE = "checkpoint-mismatch"


@pytest.mark.parametrize(
    "keys, variables, checkpoint, expected",
    [
        pytest.param([("w", "DT_FLOAT")], {"w": [2, 3]}, {"w": ("DT_FLOAT", [2, 3])}, None, id="agree"),
        pytest.param(
            [("w", "DT_FLOAT")], {}, {"w": ("DT_DOUBLE", [2])}, "expected dtype float does not equal original dtype double", id="dtype"
        ),
        pytest.param([("w", "DT_FLOAT")], {"w": [2, 3]}, {"w": ("DT_FLOAT", [3, 2])}, "is [3,2] but variable 'w' is [2,3]", id="shape"),
        pytest.param([("w", "DT_FLOAT")], {"w": [2, -1]}, {"w": ("DT_FLOAT", [2, 7])}, None, id="unknown-dim-fits"),
        pytest.param([("w", "DT_FLOAT")], {"w": [6]}, {"w": ("DT_FLOAT", [2, 3])}, "is [2,3] but variable 'w' is [6]", id="rank"),
        pytest.param([("w", "DT_FLOAT")], {}, {"v": ("DT_DOUBLE", [2])}, None, id="missing-is-not-a-mismatch"),
    ],
)  # fmt: skip
def test_rule(keys, variables, checkpoint, expected, tmp_path):
    text = restoring_meta_graph(keys, variables)
    findings = [f for f in lint_file(write_model(tmp_path / "m", text, checkpoint)).findings if f.rule == RULE]
    assert [(f.rule, f.node, f.line) for f in findings] == ([(RULE, None, restore_line(text))] if expected else [])
    if expected:
        assert expected in findings[0].message


@pytest.mark.parametrize("case", ["tf2_module-shape-swapped", "tf1_builder-shape-swapped"])
def test_tf_written_shape_swaps_say_the_cpp_loader_accepts_them(case, tmp_path):
    model = build({"case": case, "base": case.split("-")[0]}, tmp_path / "model")
    (finding,) = [f for f in lint_file(model).findings if f.rule == RULE]
    assert (
        "TF Serving's loader restores it anyway and the warm-up or first request that uses it fails" in finding.message
    )
    if case.startswith("tf2"):
        assert finding.message.startswith("Checkpoint key 'kernel/.ATTRIBUTES/VARIABLE_VALUE' is [4,3] but variable")
        assert "tf.saved_model.load fails at load" in finding.message


def test_healthy_tf_written_models_agree(tmp_path):
    for base in sorted((DATA / "serving_load" / "bases").iterdir()):
        model = tmp_path / base.name
        shutil.copytree(base, model)
        assert [f for f in lint_file(model).findings if f.rule == RULE] == []
