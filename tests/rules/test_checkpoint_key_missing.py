"""checkpoint-key-missing: every key the restore op reads is in variables/variables.index."""

from __future__ import annotations

import pytest
from savedmodel_files import restore_line, restoring_meta_graph, write_model

from tflint.api import lint_file

RULE = "checkpoint-key-missing"
FLOAT = ("DT_FLOAT", [2])


@pytest.mark.parametrize(
    "keys, checkpoint, missing",
    [
        pytest.param([("w", "DT_FLOAT")], {"w": FLOAT}, [], id="present"),
        pytest.param([("w", "DT_FLOAT")], {"v": FLOAT}, ["'w'"], id="absent"),
        pytest.param([("w", "DT_FLOAT"), ("b", "DT_FLOAT")], {"w": FLOAT}, ["'b'"], id="one-of-two"),
        pytest.param(
            [(name, "DT_FLOAT") for name in "abcde"], {"z": FLOAT}, ["'a', 'b', 'c' and 2 more"], id="counted"
        ),
        pytest.param([("w", "DT_FLOAT")], {"w": FLOAT, "extra": FLOAT}, [], id="extra-is-not-missing"),
    ],
)
def test_rule(keys, checkpoint, missing, tmp_path):
    text = restoring_meta_graph(keys)
    findings = [f for f in lint_file(write_model(tmp_path / "m", text, checkpoint)).findings if f.rule == RULE]
    assert [(f.rule, f.node, f.line) for f in findings] == [(RULE, None, restore_line(text))] * len(missing)
    for finding, shown in zip(findings, missing):
        assert f"lacks ({shown})" in finding.message


def test_message_quotes_tensorflow(tmp_path):
    text = restoring_meta_graph([("dense/kernel", "DT_FLOAT")])
    (finding,) = [f for f in lint_file(write_model(tmp_path / "m", text, {"w": FLOAT})).findings if f.rule == RULE]
    assert finding.message == (
        "The restore op reads 1 key that variables/variables.index lacks ('dense/kernel'): every loader fails at "
        "load with 'Key dense/kernel not found in checkpoint'"
    )


def test_a_lone_saved_model_file_has_no_checkpoint_to_compare(tmp_path):
    text = restoring_meta_graph([("w", "DT_FLOAT")])
    model = write_model(tmp_path / "m", text, {"v": FLOAT})
    assert [f for f in lint_file(model / "saved_model.pbtxt").findings if f.rule == RULE] != []  # its directory
    lone = tmp_path / "elsewhere.pbtxt"
    lone.write_text((model / "saved_model.pbtxt").read_text())
    assert [f for f in lint_file(lone).findings if f.rule == RULE] == []


def test_a_broken_index_is_left_to_checkpoint_index(tmp_path):
    text = restoring_meta_graph([("w", "DT_FLOAT")])
    model = write_model(tmp_path / "m", text, {"v": FLOAT})
    (model / "variables" / "variables.index").write_bytes(b"garbage")
    rules = {f.rule for f in lint_file(model).findings}
    assert RULE not in rules and "checkpoint-index" in rules
