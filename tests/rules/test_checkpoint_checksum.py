"""checkpoint-checksum (off by default, `--verify-checksums`): restored bytes have the CRC-32C the index records."""

from __future__ import annotations

import pytest
from savedmodel_files import flip, restore_line, restoring_meta_graph, write_model

from tflint.api import lint_file

RULE = "checkpoint-checksum"
ON = {"rules": {RULE: "error"}}
SHARD = "variables.data-00000-of-00001"


@pytest.mark.parametrize(
    "where, expected",
    [
        pytest.param(None, [], id="intact"),
        pytest.param(0, [("w", "error")], id="restored-entry"),
        pytest.param(8, [("z", "warning")], id="unrestored-entry"),
    ],
)
def test_rule(where, expected, tmp_path):
    text = restoring_meta_graph([("w", "DT_FLOAT")])
    model = write_model(tmp_path / "m", text, {"w": ("DT_FLOAT", [2]), "z": ("DT_FLOAT", [2])})
    if where is not None:
        flip(model / "variables" / SHARD, where)
    findings = [f for f in lint_file(model, config=ON).findings if f.rule == RULE]
    assert [(f.rule, f.node, f.line) for f in findings] == [(RULE, None, restore_line(text))] * len(expected)
    for finding, (key, level) in zip(findings, expected):
        assert finding.message.startswith(f"Checkpoint key '{key}' (8 bytes in shard 0): Checksum does not match: ")
        assert str(finding.severity) == level


def test_off_by_default(tmp_path):
    text = restoring_meta_graph([("w", "DT_FLOAT")])
    model = write_model(tmp_path / "m", text, {"w": ("DT_FLOAT", [2])})
    flip(model / "variables" / SHARD, 0)
    assert [f for f in lint_file(model).findings if f.rule == RULE] == []


def test_a_short_shard_is_left_to_checkpoint_shard(tmp_path):
    text = restoring_meta_graph([("w", "DT_FLOAT")])
    model = write_model(tmp_path / "m", text, {"w": ("DT_FLOAT", [2])})
    (model / "variables" / SHARD).write_bytes(b"\0")
    rules = {f.rule for f in lint_file(model, config=ON).findings}
    assert RULE not in rules and "checkpoint-shard" in rules


def test_verify_checksums_turns_it_on_as_an_error(tmp_path, capsys):
    from tflint.cli import main

    text = restoring_meta_graph([("w", "DT_FLOAT")])
    model = write_model(tmp_path / "m", text, {"w": ("DT_FLOAT", [2])})
    flip(model / "variables" / SHARD, 0)
    assert main([str(model), "--select", "checkpoint-key-missing"]) == 0
    capsys.readouterr()
    assert main([str(model), "--verify-checksums"]) == 1
    assert "error: Checkpoint key 'w' (8 bytes in shard 0): Checksum does not match" in capsys.readouterr().out


def test_long_reads_report_their_progress(tmp_path):
    from tflint.read.saved_model import report_reads_to

    text = restoring_meta_graph([("w", "DT_FLOAT")])
    model = write_model(tmp_path / "m", text, {"w": ("DT_FLOAT", [2]), "z": ("DT_FLOAT", [4])})
    seen = []
    report_reads_to(lambda what, done, total: seen.append((what, done, total)))
    try:
        lint_file(model, config=ON)
    finally:
        report_reads_to(None)
    assert seen[-1] == ("checksums of variables/", 24, 24)


def test_the_progress_line_names_the_read():
    import io

    from tflint.report.progress import Progress

    stream = io.StringIO()
    progress = Progress(stream, delay=0, interval=0)
    progress.file(1, 1, "export/1")
    progress.work("checksums of variables/", 3 << 20, 2048 << 20)
    assert stream.getvalue().endswith("tflint: [1/1] export/1 (checksums of variables/ 3/2,048 MB)")


VARIANT = __import__("pathlib").Path(__file__).resolve().parents[1] / "data" / "checkpoint_variant"
TL = "tl/.ATTRIBUTES/VARIABLE_VALUE"  # a TensorList variable's DT_VARIANT entry, 87 bytes at offset 508


@pytest.mark.parametrize(
    "where, expected",
    [
        pytest.param(None, None, id="intact"),
        pytest.param(509, "The checksum after Variant 0 does not match", id="element-bytes"),
        pytest.param(591, "The checksum after Variant 0 does not match", id="element-checksum"),
        pytest.param(508, "variant 0 has", id="element-length"),
    ],
)
def test_a_variant_entry_tensorflow_wrote(where, expected, tmp_path):
    text = restoring_meta_graph([(TL, "DT_VARIANT")])
    model = write_model(tmp_path / "m", text, {"w": ("DT_FLOAT", [2])})
    for name in ("variables.index", SHARD):
        (model / "variables" / name).write_bytes((VARIANT / name.replace("variables", "ckpt")).read_bytes())
    if where is not None:
        flip(model / "variables" / SHARD, where)
    findings = [f for f in lint_file(model, config=ON).findings if f.rule == RULE]
    if expected is None:
        assert [f.message for f in findings] == []
    else:
        (finding,) = findings
        assert finding.message.startswith(f"Checkpoint key '{TL}' (87 bytes in shard 0): {expected}"), finding.message
        assert finding.message.endswith("; every loader fails at load")
