"""checkpoint-unused (info): checkpoint entries the restore op does not read."""

from __future__ import annotations

import pytest
from conftest import DATA
from savedmodel_files import restore_line, restoring_meta_graph, write_model
from test_serving_load import build

from tflint.api import lint_file

RULE = "checkpoint-unused"
SERVING = {"extends": "serving"}
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


def test_tf_written_bases_read_every_entry_and_serve_every_variable_but_a_counter(tmp_path):
    import shutil

    notes, default = {}, {}
    for base in sorted((DATA / "serving_load" / "bases").iterdir()):
        shutil.copytree(base, tmp_path / base.name)
        notes[base.name] = [
            f.message for f in lint_file(tmp_path / base.name, config=SERVING).findings if f.rule == RULE
        ]
        default[base.name] = [f.message for f in lint_file(tmp_path / base.name).findings if f.rule == RULE]
    assert default == {name: [] for name in notes}
    assert notes == {
        "tf1_builder": [
            "1 restored variable that no signature reads: 'counter' (optimizer state, training counters?); loaders "
            "restore them anyway"
        ],  # only its main op touches it
        "tf1_sharded": [],
        "tf2_lookup": [],
        "tf2_module": [],
    }


def test_restored_variables_no_signature_reads(tmp_path):
    """A TF1 graph: 'w' feeds the signature's output, 'step' is restored and read by nothing a request runs."""
    from savedmodel_files import restoring_meta_graph, write_model

    text = restoring_meta_graph([("step", "DT_FLOAT"), ("w", "DT_FLOAT")], {"step": [2], "w": [2]})
    text += (
        '  signature_def { key: "serving_default" value { outputs { key: "y" value { name: "w:0" } }\n'
        '    method_name: "tensorflow/serving/predict" } }\n'
    )
    checkpoint = {"step": ("DT_FLOAT", [2]), "w": ("DT_FLOAT", [2])}
    model = write_model(tmp_path / "m", text, checkpoint)
    findings = [f for f in lint_file(model, config=SERVING).findings if f.rule == RULE]
    assert [f.message.split(" (")[0] for f in findings] == ["1 restored variable that no signature reads: 'step'"]
    assert [str(f.severity) for f in findings] == ["info"]  # one below the preset's warning
    assert [f for f in lint_file(model).findings if f.rule == RULE] == []  # off by default
