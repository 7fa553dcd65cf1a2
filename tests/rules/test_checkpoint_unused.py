"""checkpoint-unused (info): checkpoint entries the restore op does not read."""

from __future__ import annotations

import pytest
from conftest import DATA
from savedmodel_files import restore_line, restoring_meta_graph, write_model
from test_serving_load import build

from tflint.api import lint_file

RULE = "checkpoint-unused"
FLOAT = ("DT_FLOAT", [2])


@pytest.mark.parametrize(
    "checkpoint, expected",
    [
        pytest.param({"w": FLOAT}, None, id="all-read"),
        pytest.param({"w": FLOAT, "old": FLOAT}, "1 checkpoint entry (8 bytes) that the restore op does not read: 'old'", id="one"),
        pytest.param(
            {"w": FLOAT, **{f"x{n}": FLOAT for n in range(5)}},
            "5 checkpoint entries (40 bytes) that the restore op does not read: 'x0', 'x1', 'x2' and 2 more",
            id="counted",
        ),
    ],
)  # fmt: skip
def test_rule(checkpoint, expected, tmp_path):
    text = restoring_meta_graph([("w", "DT_FLOAT")])
    findings = [f for f in lint_file(write_model(tmp_path / "m", text, checkpoint)).findings if f.rule == RULE]
    assert [(f.rule, f.node, f.line) for f in findings] == ([(RULE, None, restore_line(text))] if expected else [])
    if expected:
        assert findings[0].message == expected + "; loaders ignore them"
        assert str(findings[0].severity) == "info"


def test_a_tf_written_extra_tensor_is_an_info_note(tmp_path):
    model = build({"case": "tf2_module-extra-key", "base": "tf2_module"}, tmp_path / "model")
    (finding,) = [f for f in lint_file(model).findings if f.rule == RULE]
    assert "'unused/.ATTRIBUTES/VARIABLE_VALUE'" in finding.message


def test_tf_written_bases_read_every_entry(tmp_path):
    import shutil

    for base in sorted((DATA / "serving_load" / "bases").iterdir()):
        shutil.copytree(base, tmp_path / base.name)
        assert [f for f in lint_file(tmp_path / base.name).findings if f.rule == RULE] == []
