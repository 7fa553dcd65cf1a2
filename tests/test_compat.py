"""`tflint compat`: real model pairs written by TensorFlow against its own verdicts, the CLI, the API, bad input.

The pairs in tests/data/compat were written by tools/gen_compat_models.py
(TensorFlow 2.21, and 2.15 for newer_tf / older_tf); verdicts.json records,
for each signature of version 1, whether TensorFlow still runs a request of
its clients against version 2.
"""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest
from conftest import DATA, compat_text, lint_text
from serving_graphs import line_of, meta, placeholder, signature, tensor

import tflint
from tflint import protos
from tflint.cli import main
from tflint.engine.compat import interface_of
from tflint.read.interface import changed_pairs, latest_versions, read_version
from tflint.read.load import load_path

PAIRS = DATA / "compat"
VERDICTS = json.loads((PAIRS / "verdicts.json").read_text())

# What tflint reports for each pair: (rule, level) -> count.
EXPECTED = {
    "same_model_saved_twice": {},
    "weights_only": {},
    "older_tf": {},
    "batch_fixed": {("shape-changed", "error"): 1, ("shape-changed", "info"): 1},
    "shape_relaxed": {("shape-changed", "warning"): 1, ("shape-changed", "info"): 1},
    "input_dtype": {("dtype-changed", "error"): 1, ("newer-tensorflow", "info"): 1},
    "input_renamed": {("input-removed", "error"): 1},
    "input_added_required": {("required-input-added", "error"): 1, ("newer-tensorflow", "info"): 1},
    "input_added_optional": {("api-added", "info"): 1, ("newer-tensorflow", "info"): 1},
    "signature_removed": {("signature-removed", "error"): 1},
    "signature_added": {("api-added", "info"): 1},
    "method_changed": {("method-name-changed", "warning"): 1},
    "output_removed": {("output-removed", "error"): 1},
    "output_dtype": {("dtype-changed", "error"): 1, ("newer-tensorflow", "info"): 1},
    "output_shape": {("shape-changed", "error"): 1},
    "tag_set_removed": {("tag-set-removed", "error"): 1},
    "regress_keys": {("api-keys-removed", "error"): 1},
    "asset_renamed": {("asset-renamed", "warning"): 1},
    "newer_tf": {("newer-tensorflow", "info"): 1, ("newer-tensorflow", "warning"): 2},
}


def _counts(report):
    return dict(Counter((f.rule, str(f.severity)) for f in report.findings))


def test_every_generated_pair_is_pinned():
    assert sorted(EXPECTED) == sorted(path.name for path in PAIRS.iterdir() if path.is_dir()) == sorted(VERDICTS)


@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_real_pair(case):
    report = tflint.compat(PAIRS / case, config={}, baseline=False)
    assert _counts(report) == EXPECTED[case]
    assert all(f.file == str(PAIRS / case / "2" / "saved_model.pb") for f in report.findings)


@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_errors_agree_with_tensorflow(case):
    """A client TensorFlow refuses is reported at error or warning level; one it serves is never an error."""
    report = tflint.compat(PAIRS / case, config={}, baseline=False)
    levels = {str(f.severity) for f in report.findings}
    rejected = [where for where, verdict in VERDICTS[case]["clients_of_1"].items() if verdict.startswith("rejected")]
    if rejected:
        assert levels & {"error", "warning"}, rejected
    else:
        assert "error" not in levels


def test_the_batch_finding_in_full():
    (finding,) = [
        f for f in tflint.compat(PAIRS / "batch_fixed", config={}).findings if f.severity == tflint.Severity.ERROR
    ]
    assert finding.message == (
        "serving_default input 'image': shape [-1,8,8,3] in version 1 → [1,8,8,3] in version 2: "
        "dimension 0 (batch) is now fixed at 1; clients sending a batch of 2 are rejected"
    )
    assert (finding.graph, finding.node, finding.line) == ("meta graph [serve]", "serving_default_image", None)


@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_the_wire_reading_gives_the_interface_of_the_full_reading(case):
    """Skipping the graph on the wire loses nothing the comparison reads."""
    for version in ("1", "2"):
        directory = str(PAIRS / case / version)
        reduced = read_version(directory)
        whole = load_path(directory)
        assert reduced.artifact.path == whole.path
        assert _projection(interface_of(reduced)) == _projection(_interface_of_artifact(whole))
        named = sum(len(source.node_list()) for source in reduced.artifact.graphs)
        assert named < sum(len(source.node_list()) for source in whole.graphs)


def _interface_of_artifact(artifact):
    from tflint.read.interface import ModelVersion

    return interface_of(ModelVersion(artifact.path, "v", artifact))


def _projection(interface):
    """The interface without node objects (the two readings build distinct ones)."""
    out = {}
    for tags, found in interface.metas.items():
        signatures = {
            key: (
                signature.method_name,
                {
                    k: (s.encoding, s.dtype, s.shape, s.name, s.optional, getattr(s.node, "op", None))
                    for k, s in signature.inputs.items()
                },
                {k: (s.encoding, s.dtype, s.shape, s.name, s.optional) for k, s in signature.outputs.items()},
            )
            for key, signature in found.signatures.items()
        }
        out[tags] = (signatures, found.assets, found.producer, found.min_consumer, found.ops, found.tensorflow_version)
    return out


def _as_text(directory: Path, out: Path) -> Path:
    """A copy of a SavedModel directory with its saved_model.pb written as saved_model.pbtxt."""
    from google.protobuf import text_format

    shutil.copytree(directory, out)
    message = protos.SavedModel.FromString((out / "saved_model.pb").read_bytes())
    (out / "saved_model.pb").unlink()
    (out / "saved_model.pbtxt").write_text(text_format.MessageToString(message))
    return out


def test_text_versions_give_the_same_findings_with_lines(tmp_path):
    old = _as_text(PAIRS / "batch_fixed" / "1", tmp_path / "m" / "1")
    new = _as_text(PAIRS / "batch_fixed" / "2", tmp_path / "m" / "2")
    binary = tflint.compat(PAIRS / "batch_fixed", config={})
    text = tflint.compat(old, new, config={})
    assert sorted((f.rule, f.severity, f.message) for f in text) == sorted(
        (f.rule, f.severity, f.message) for f in binary
    )
    source = (new / "saved_model.pbtxt").read_text()
    error = next(f for f in text if f.severity == tflint.Severity.ERROR)
    assert error.file == str(new / "saved_model.pbtxt")
    assert error.line > line_of(source, 'key: "image"')
    assert source.split("\n")[error.line - 1].strip().startswith("tensor_shape")


# -- the command -----------------------------------------------------------------------------------


def test_cli_exit_codes(capsys):
    assert main(["compat", str(PAIRS / "batch_fixed")]) == 1
    assert "[shape-changed]" in capsys.readouterr().out
    assert (
        main(["compat", str(PAIRS / "same_model_saved_twice" / "1"), str(PAIRS / "same_model_saved_twice" / "2")]) == 0
    )
    assert main(["compat", str(PAIRS / "signature_added"), "--fail-on", "info"]) == 1
    assert main(["compat", str(PAIRS / "batch_fixed"), "--exit-zero"]) == 0


@pytest.mark.parametrize("fmt", ["json", "sarif", "github", "junit", "text"])
def test_every_output_format(capsys, fmt):
    assert main(["compat", str(PAIRS / "output_removed"), "--format", fmt]) == 1
    out = capsys.readouterr().out
    assert "output-removed" in out
    if fmt == "json":
        (record,) = json.loads(out)
        assert record["rule"] == "output-removed" and record["severity"] == "error"


def _one_line_error(capsys, argv, expected):
    assert main(["compat", *argv]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == f"tflint: error: {expected}\n"


def test_missing_version(capsys, tmp_path):
    _one_line_error(
        capsys, [str(tmp_path / "1"), str(PAIRS / "batch_fixed" / "2")], f"{tmp_path / '1'}: no such file or directory"
    )


def test_version_dir_without_saved_model(capsys, tmp_path):
    (tmp_path / "1").mkdir()
    (tmp_path / "2").mkdir()
    (tmp_path / "2" / "variables").mkdir()
    _one_line_error(
        capsys,
        [str(tmp_path / "1"), str(tmp_path / "2")],
        f"{tmp_path / '1'}: a version directory without saved_model.pb or saved_model.pbtxt",
    )
    shutil.copytree(PAIRS / "batch_fixed" / "1", tmp_path / "1", dirs_exist_ok=True)
    _one_line_error(
        capsys, [str(tmp_path)], f"{tmp_path / '2'}: a version directory without saved_model.pb or saved_model.pbtxt"
    )


def test_base_dir_with_fewer_than_two_versions(capsys, tmp_path):
    shutil.copytree(PAIRS / "batch_fixed" / "1", tmp_path / "7")
    _one_line_error(
        capsys,
        [str(tmp_path)],
        f"{tmp_path}: a model base directory needs two numeric version directories to compare (only 7/)",
    )


def test_latest_versions_orders_numerically(tmp_path):
    for number in ("2", "10", "9"):
        shutil.copytree(PAIRS / "batch_fixed" / "1", tmp_path / number)
    (tmp_path / "latest").mkdir()
    assert latest_versions(str(tmp_path)) == (str(tmp_path / "9"), str(tmp_path / "10"))


def test_different_kinds(capsys, tmp_path):
    meta = protos.SavedModel.FromString((PAIRS / "batch_fixed" / "1" / "saved_model.pb").read_bytes()).meta_graphs[0]
    (tmp_path / "model.meta").write_bytes(meta.SerializeToString())
    old = str(PAIRS / "batch_fixed" / "1")
    _one_line_error(
        capsys,
        [old, str(tmp_path / "model.meta")],
        f"{old} is a SavedModel and {tmp_path / 'model.meta'} a MetaGraphDef: compare two versions of the same kind",
    )


def test_binary_meta_graph_files(tmp_path):
    for version in ("1", "2"):
        saved = protos.SavedModel.FromString((PAIRS / "batch_fixed" / version / "saved_model.pb").read_bytes())
        (tmp_path / f"v{version}.meta").write_bytes(saved.meta_graphs[0].SerializeToString())
    report = tflint.compat(tmp_path / "v1.meta", tmp_path / "v2.meta", config={})
    assert _counts(report) == EXPECTED["batch_fixed"]
    assert any(f"in {tmp_path / 'v1.meta'} → [1,8,8,3] in {tmp_path / 'v2.meta'}" in f.message for f in report)


def test_a_graphdef_has_no_interface(capsys, tmp_path):
    (tmp_path / "g.pbtxt").write_text('node { name: "a" op: "NoOp" }\n')
    _one_line_error(
        capsys,
        [str(tmp_path / "g.pbtxt"), str(tmp_path / "g.pbtxt")],
        f"{tmp_path / 'g.pbtxt'}: a GraphDef has no signatures to compare; give SavedModels or MetaGraphDefs (OLD NEW)",
    )


def test_a_binary_graphdef_is_not_taken_for_a_meta_graph(capsys, tmp_path):
    graph = protos.GraphDef()
    graph.node.add(name="a", op="NoOp")
    (tmp_path / "g.pb").write_bytes(graph.SerializeToString())
    _one_line_error(
        capsys,
        [str(tmp_path / "g.pb"), str(tmp_path / "g.pb")],
        f"{tmp_path / 'g.pb'}: a GraphDef has no signatures to compare; give SavedModels or MetaGraphDefs (OLD NEW)",
    )


def test_the_report_never_overwrites_a_version(capsys, tmp_path):
    shutil.copytree(PAIRS / "batch_fixed", tmp_path / "m")
    target = tmp_path / "m" / "2" / "saved_model.pb"
    before = target.read_bytes()
    _one_line_error(
        capsys,
        [str(tmp_path / "m"), "-o", str(target)],
        f"--output {target}: that is a file being compared; tflint never overwrites its input",
    )
    assert target.read_bytes() == before


def test_three_paths_is_a_usage_error(capsys):
    assert main(["compat", "a", "b", "c"]) == 2
    assert "expected OLD NEW or one model base directory, got 3 paths" in capsys.readouterr().err


def test_a_version_that_does_not_parse_is_an_invalid_graph_finding(capsys, tmp_path):
    shutil.copytree(PAIRS / "batch_fixed" / "1", tmp_path / "1")
    (tmp_path / "2").mkdir()
    (tmp_path / "2" / "saved_model.pb").write_bytes(b"\x08\x01\x12\xff\xff\xff\x7f garbage")
    report = tflint.compat(tmp_path, config={})
    assert [(f.rule, f.file) for f in report.findings] == [("invalid-graph", str(tmp_path / "2" / "saved_model.pb"))]
    assert main(["compat", str(tmp_path)]) == 1


# -- configuration, suppressions, baselines --------------------------------------------------------


def test_config_next_to_the_new_version_sets_levels(tmp_path):
    shutil.copytree(PAIRS / "batch_fixed", tmp_path / "m")
    (tmp_path / "m" / ".tflint.yaml").write_text("rules:\n  shape-changed: warning\n")
    report = tflint.compat(tmp_path / "m")
    assert _counts(report) == {("shape-changed", "warning"): 2}
    assert report.ok
    (tmp_path / "m" / ".tflint.yaml").write_text("rules:\n  shape-changed: off\n")
    assert tflint.compat(tmp_path / "m").findings == ()


OLD_TEXT = meta(
    placeholder("x"),
    signatures=[signature("serving_default", tensor("inputs", "x", "x:0", shape=(-1, 4)))],
    tags=["serve"],
)
NEW_TEXT = OLD_TEXT.replace("size: -1", "size: 1")


def test_inline_suppression_in_the_new_version():
    suppressed = NEW_TEXT.replace(
        'inputs { key: "x"', '# tflint: ignore[shape-changed] -- batch of 1 on purpose\n    inputs { key: "x"'
    )
    assert [f.rule for f in compat_text(OLD_TEXT, NEW_TEXT)] == ["shape-changed"]
    assert compat_text(OLD_TEXT, suppressed) == []
    # Linting the same file: the compat directive is not "unused" there (lint never runs compat rules).
    assert [f.rule for f in lint_text(suppressed)] == []


def test_a_lint_directive_is_not_unused_in_compat():
    directive = NEW_TEXT.replace("graph_def {", "# tflint: ignore[dead-node]\ngraph_def {")
    assert [f.rule for f in compat_text(OLD_TEXT, directive)] == ["shape-changed"]


def test_baseline_hides_compat_findings_and_lint_keeps_them(tmp_path, capsys):
    shutil.copytree(PAIRS / "batch_fixed", tmp_path / "m")
    baseline = tmp_path / "baseline.json"
    assert main(["compat", str(tmp_path / "m"), "--write-baseline", str(baseline)]) == 0
    capsys.readouterr()
    report = tflint.compat(tmp_path / "m", baseline=baseline)
    assert (report.findings, report.baselined) == ((), 2)
    # Linting version 2 with the same baseline: compat entries are not stale (lint did not run those rules).
    linted = tflint.lint_paths([tmp_path / "m" / "2"], config={}, baseline=baseline)
    assert [f for f in linted.findings if f.rule == "unused-suppression"] == []
    # ...and a lint-written baseline does not make compat report lint entries stale.
    lint_baseline = tmp_path / "lint.json"
    lint_baseline.write_text(json.dumps({"version": 1, "files": {"m/2/saved_model.pb": {"dead-node": {"x": 1}}}}))
    report = tflint.compat(tmp_path / "m", baseline=lint_baseline)
    assert [f.rule for f in report.findings if f.rule == "unused-suppression"] == []


def test_compat_baseline_entries_of_rules_turned_off_are_not_stale_and_no_baseline_shows_all(tmp_path, capsys):
    shutil.copytree(PAIRS / "batch_fixed", tmp_path / "m")
    baseline = tmp_path / "baseline.json"
    assert main(["compat", str(tmp_path / "m"), "--write-baseline", str(baseline)]) == 0
    recorded = json.loads(baseline.read_text())["files"]
    rules = {rule for entries in recorded.values() for rule in entries}
    off = sorted(rules)[0]
    report = tflint.compat(tmp_path / "m", config={"rules": {off: "off"}}, baseline=baseline)
    assert [f for f in report.findings if f.rule == "unused-suppression"] == []
    (tmp_path / "m" / ".tflint.yaml").write_text(f"baseline: {baseline}\n")
    capsys.readouterr()
    assert main(["compat", str(tmp_path / "m")]) == 0
    assert "2 baselined findings not shown" in capsys.readouterr().out
    assert main(["compat", "--no-baseline", str(tmp_path / "m")]) == 1
    assert "baselined" not in capsys.readouterr().out


# -- the pre-commit hook ---------------------------------------------------------------------------


def test_changed_files_name_the_versions_to_compare(tmp_path, monkeypatch):
    for number in ("1", "2", "3"):
        shutil.copytree(PAIRS / "batch_fixed" / ("1" if number == "1" else "2"), tmp_path / "models" / "m" / number)
    monkeypatch.chdir(tmp_path)
    changed = [
        "models/m/3/variables/variables.index",
        "models/m/3/saved_model.pb",
        "models/m/1/saved_model.pb",
        "README.md",
    ]
    assert changed_pairs(changed) == [(str(Path("models/m/2")), str(Path("models/m/3")))]
    assert main(["compat", "--changed", "models/m/2/saved_model.pb"]) == 1
    assert main(["compat", "--changed", "models/m/1/saved_model.pb", "README.md"]) == 0


# -- the API and what messages show ----------------------------------------------------------------


def test_versions_of_the_same_number_are_named_by_path(tmp_path):
    shutil.copytree(PAIRS / "output_removed" / "1", tmp_path / "a" / "1")
    shutil.copytree(PAIRS / "output_removed" / "2", tmp_path / "b" / "1")
    (finding,) = tflint.compat(tmp_path / "a" / "1", tmp_path / "b" / "1", config={}).findings
    assert f"is in {tmp_path / 'a' / '1'} but not in {tmp_path / 'b' / '1'}:" in finding.message


def test_api_returns_a_report():
    report = tflint.compat(PAIRS / "input_renamed" / "1", PAIRS / "input_renamed" / "2")
    assert isinstance(report, tflint.Report)
    assert not report.ok
    assert report.files == (str(PAIRS / "input_renamed" / "2" / "saved_model.pb"),)
    assert "input-removed" in report.render("sarif")


def test_names_from_the_file_are_escaped():
    old = meta(signatures=[signature("a\nb\x1b[31m", tensor("inputs", "x", "x:0"))], tags=["serve"])
    old = old.replace("a\nb\x1b[31m", "a\\nb\\033[31m")
    new = meta(tags=["serve"])
    (finding,) = [f for f in compat_text(old, new) if f.rule == "signature-removed"]
    assert "\n" not in finding.message and "\x1b" not in finding.message
    assert finding.message.startswith("signature 'a\\nb\\x1b[31m' is in version 1")


def test_compat_honours_the_findings_cap(monkeypatch):
    from tflint.engine import compat as engine_compat

    monkeypatch.setattr(engine_compat, "MAX_PER_GRAPH", 3)
    inputs = [tensor("inputs", f"x{i}", f"p{i}:0", shape=[1]) for i in range(7)]
    nodes = [placeholder(f"p{i}") for i in range(7)]
    old = meta(*nodes, signatures=[signature("serving_default", *inputs)], tags=["serve"])
    new = meta(*nodes, signatures=[signature("serving_default", inputs[0])], tags=["serve"])
    findings = [f for f in compat_text(old, new) if f.rule == "input-removed"]
    assert len(findings) == 4
    assert [f.message for f in findings if f.message.startswith("...")] == [
        "... and 3 more input-removed findings in this comparison (at most 3 are reported per rule and graph)"
    ]


def test_a_message_about_a_huge_shape_is_bounded():
    old = meta(
        placeholder("x"), signatures=[signature("s", tensor("inputs", "x", "x:0", shape=[1] * 3000))], tags=["serve"]
    )
    new = meta(
        placeholder("x"), signatures=[signature("s", tensor("inputs", "x", "x:0", shape=[2] * 3000))], tags=["serve"]
    )
    findings = [f for f in compat_text(old, new) if f.rule == "shape-changed"]
    assert len(findings) == 1
    message = findings[0].message
    assert len(message) < 1000, len(message)
    assert "[1,1,1,1,1,1,1,1,... (3,000 dimensions)]" in message and "and 2,996 more dimensions" in message
