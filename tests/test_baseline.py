"""Baselines: recorded by (file, rule, node) with counts, never lines; new findings, stale entries, misuse."""

from __future__ import annotations

import json

import pytest

from tflint.cli import main

BROKEN = 'node {\n  name: "a"\n  op: "Idenity"\n}\nnode {\n  name: "b"\n  op: "NoOp"\n  input: "^gone"\n}\n'
NEW_PROBLEM = 'node {\n  name: "c"\n  op: "NoOp"\n  input: "^alsogone"\n}\n'
PADDING = 'node {\n  name: "pad"\n  op: "NoOp"\n}\n'


def padding(count):
    return "".join(PADDING.replace('"pad"', f'"pad{number}"') for number in range(count))


@pytest.fixture
def repo(tmp_path, monkeypatch):
    (tmp_path / ".git").mkdir()
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "g.pbtxt").write_text(BROKEN)
    (tmp_path / "models" / "ok.pbtxt").write_text(PADDING)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run(capsys, *args):
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_write_records_findings_by_node_with_counts_sorted_and_stable(repo, capsys):
    from tflint import protos

    graph = protos.GraphDef()
    graph.node.add(name="x", op="Nope")
    graph.node.add(name="x", op="Nope")
    function = graph.library.function.add()
    function.signature.name = "fn"
    function.node_def.add(name="inner", op="AlsoNope")
    (repo / "models" / "bin.pb").write_bytes(graph.SerializeToString())
    code, out, err = run(capsys, "--write-baseline", ".tflint-baseline.json", "models")
    assert code == 0
    assert out == "All checks passed (3 files). 6 baselined findings not shown.\n"
    assert err == "tflint: wrote .tflint-baseline.json: 6 findings recorded\n"
    text = (repo / ".tflint-baseline.json").read_text()
    assert json.loads(text) == {
        "version": 2,
        "files": {
            "models/bin.pb": {
                "duplicate-node-name": {"error": {"x": 1}},
                "unknown-op": {"error": {"x": 2}, "warning": {"function fn > node inner": 1}},
            },
            "models/g.pbtxt": {"unknown-op": {"error": {"a": 1}}, "unresolved-input": {"error": {"b": 1}}},
        },
    }
    assert text == json.dumps(json.loads(text), indent=2, sort_keys=True) + "\n"  # sorted, one entry per line
    assert '"line"' not in text
    run(capsys, "--write-baseline", ".tflint-baseline.json", "models/g.pbtxt", "models/bin.pb", "models/ok.pbtxt")
    assert (repo / ".tflint-baseline.json").read_text() == text  # the order of paths does not matter


def test_only_new_findings_are_reported_even_after_lines_move(repo, capsys):
    run(capsys, "--write-baseline", "base.json", "models")
    # Regenerating a graph moves every line; the baseline is keyed by node, so nothing resurfaces.
    (repo / "models" / "g.pbtxt").write_text(padding(3) + BROKEN + NEW_PROBLEM)
    code, out, _ = run(capsys, "--baseline", "base.json", "models")
    assert code == 1
    assert out.splitlines() == [
        "models/g.pbtxt:23:3: error: Node 'c' has control input '^alsogone' but no node is named 'alsogone' [unresolved-input]",
        "Found 1 error in 1 of 2 files. 2 baselined findings not shown.",
    ]


def test_counts_hide_only_as_many_as_recorded(repo, capsys):
    run(capsys, "--write-baseline", "base.json", "models")
    (repo / "models" / "g.pbtxt").write_text(BROKEN.replace('input: "^gone"', 'input: "^gone"\n  input: "^gone2"'))
    code, out, _ = run(capsys, "--baseline", "base.json", "models/g.pbtxt")
    assert code == 1
    assert out.splitlines() == [
        "models/g.pbtxt:6:3: error: Node 'b' has control input '^gone2' but no node is named 'gone2' [unresolved-input]",
        "Found 1 error in 1 of 1 file. 2 baselined findings not shown.",
    ]


def test_stale_entries_are_reported_as_unused_suppressions(repo, capsys):
    run(capsys, "--write-baseline", "base.json", "models")
    (repo / "models" / "g.pbtxt").write_text(BROKEN.replace("Idenity", "NoOp"))
    code, out, _ = run(capsys, "--baseline", "base.json", "models")
    assert code == 0  # a warning by default: reported, not failing
    assert out.splitlines() == [
        "models/g.pbtxt: warning: Stale baseline entry: unknown-op (error) on 'a' no longer occurs (1 recorded); prune it with: tflint --prune-baseline PATH... [unused-suppression]",
        "Found 1 warning in 1 of 2 files. 1 baselined finding not shown.",
    ]
    # a ratchet: raise the rule to error and stale entries must be pruned
    (repo / ".tflint.yaml").write_text("baseline: base.json\nrules:\n  unused-suppression: error\n")
    assert run(capsys, "models")[0] == 1


def test_stale_entries_only_for_files_linted_or_gone(repo, capsys):
    run(capsys, "--write-baseline", "base.json", "models")
    code, out, _ = run(capsys, "--baseline", "base.json", "models/ok.pbtxt")
    assert (code, out) == (0, "All checks passed (1 file).\n")  # g.pbtxt was not linted: nothing known of it
    (repo / "models" / "g.pbtxt").unlink()
    code, out, _ = run(capsys, "--baseline", "base.json", "models/ok.pbtxt")
    assert code == 0
    assert out.splitlines() == [
        "base.json: warning: Stale baseline entry: models/g.pbtxt no longer exists (unknown-op (error) on 'a', 1 recorded); prune it with: tflint --prune-baseline PATH... [unused-suppression]",
        "base.json: warning: Stale baseline entry: models/g.pbtxt no longer exists (unresolved-input (error) on 'b', 1 recorded); prune it with: tflint --prune-baseline PATH... [unused-suppression]",
        "Found 2 warnings in 0 of 1 file.",
    ]


def test_prune_removes_stale_entries_and_never_adds(repo, capsys):
    (repo / "models" / "other.pbtxt").write_text(BROKEN)
    run(capsys, "--write-baseline", "base.json", "models")
    (repo / "models" / "g.pbtxt").write_text(BROKEN.replace("Idenity", "NoOp") + NEW_PROBLEM)
    code, out, err = run(capsys, "--baseline", "base.json", "--prune-baseline", "models/g.pbtxt")
    assert code == 1
    assert out.splitlines() == [
        "models/g.pbtxt:11:3: error: Node 'c' has control input '^alsogone' but no node is named 'alsogone' [unresolved-input]",
        "Found 1 error in 1 of 1 file. 1 baselined finding not shown.",
    ]
    assert err == "tflint: pruned 1 stale baseline entry\n"
    assert json.loads((repo / "base.json").read_text())["files"] == {
        "models/g.pbtxt": {"unresolved-input": {"error": {"b": 1}}},  # 'a' pruned, 'c' not added
        "models/other.pbtxt": {"unknown-op": {"error": {"a": 1}}, "unresolved-input": {"error": {"b": 1}}},  # kept
    }


def test_invalid_graph_is_never_baselined(repo, capsys):
    (repo / "models" / "bad.pbtxt").write_text('node {\n  name: "a"\n')
    code, out, _ = run(capsys, "--write-baseline", "base.json", "models")
    assert code == 1
    assert out.splitlines()[0].startswith("models/bad.pbtxt:2:") and out.splitlines()[0].endswith("[invalid-graph]")
    assert "models/bad.pbtxt" not in json.loads((repo / "base.json").read_text())["files"]
    data = json.loads((repo / "base.json").read_text())
    data["files"]["models/bad.pbtxt"] = {"invalid-graph": {"error": {"": 1}}}  # even when someone writes it by hand
    (repo / "base.json").write_text(json.dumps(data))
    code, out, _ = run(capsys, "--baseline", "base.json", "models/bad.pbtxt")
    assert code == 1 and "[invalid-graph]" in out


def test_config_baseline_is_relative_to_the_config_and_the_flag_overrides_it(repo, capsys):
    (repo / "ci").mkdir()
    run(capsys, "--write-baseline", "ci/base.json", "models")
    assert (
        "models/g.pbtxt" in json.loads((repo / "ci" / "base.json").read_text())["files"]
    )  # relative to the repo root, not ci/
    (repo / "models" / ".tflint.yaml").write_text("baseline: ../ci/base.json\n")
    assert run(capsys, "models")[0] == 0
    (repo / "empty.json").write_text('{"version": 1, "files": {}}\n')
    code, out, _ = run(capsys, "--baseline", "empty.json", "models")
    assert code == 1 and out.count("error:") == 2


def test_baseline_paths_are_relative_to_the_repository(repo, capsys, monkeypatch):
    run(capsys, "--write-baseline", "base.json", "models")
    monkeypatch.chdir(repo / "models")  # run from elsewhere: the same entries still match
    assert run(capsys, "--baseline", "../base.json", "g.pbtxt")[:2] == (
        0,
        "All checks passed (1 file). 2 baselined findings not shown.\n",
    )


def test_outside_a_repository_paths_are_relative_to_the_baseline(tmp_path, capsys, monkeypatch):
    (tmp_path / "g.pbtxt").write_text(BROKEN)
    monkeypatch.chdir(tmp_path)
    run(capsys, "--write-baseline", "base.json", "g.pbtxt")
    assert list(json.loads((tmp_path / "base.json").read_text())["files"]) == ["g.pbtxt"]


@pytest.mark.parametrize(
    "content, message",
    [
        pytest.param(
            None,
            "base.json: baseline not found (create it with: tflint --write-baseline base.json PATH...)",
            id="missing",
        ),
        pytest.param("{not json", "base.json: not a tflint baseline: invalid JSON", id="json"),
        pytest.param(
            '{"version": 3, "files": {}}',
            'base.json: not a tflint baseline (expected {"version": 2, "files": {...}})',
            id="version",
        ),
        pytest.param(
            '{"version": 1, "files": {"g.pbtxt": {"unknown-op": {"a": 0}}}}',
            "base.json: files.g.pbtxt.unknown-op: expected a mapping of subject to a positive count"
            " (at most 2,147,483,648)",
            id="count",
        ),
        pytest.param(
            '{"version": 1, "files": {"g.pbtxt": []}}',
            "base.json: files.g.pbtxt: expected a mapping of rule to subjects",
            id="rules",
        ),
        pytest.param(
            '{"version": 2, "files": {"g.pbtxt": {"unknown-op": {"fatal": {"a": 1}}}}}',
            "base.json: files.g.pbtxt.unknown-op: 'fatal' is not a severity (expected info, warning, error)",
            id="severity",
        ),
        pytest.param(
            '{"version": 2, "files": {"g.pbtxt": {"unknown-op": {"error": {"a": -1}}}}}',
            "base.json: files.g.pbtxt.unknown-op.error: expected a mapping of subject to a positive count",
            id="count-v2",
        ),
        pytest.param(
            '{"version": true, "files": {}}',
            'base.json: not a tflint baseline (expected {"version": 2, "files": {...}})',
            id="version-bool",
        ),
    ],
)
def test_bad_baselines_are_exit_2_one_line(repo, capsys, content, message):
    if content is not None:
        (repo / "base.json").write_text(content)
    code, out, err = run(capsys, "--baseline", "base.json", "models")
    assert (code, out) == (2, "")
    assert err.startswith(f"tflint: error: {message}")
    assert err.count("\n") == 1


def test_write_and_read_together_is_a_usage_error(repo, capsys):
    code, out, err = run(capsys, "--baseline", "a.json", "--write-baseline", "b.json", "models")
    assert (code, out) == (2, "")
    assert "not allowed with argument" in err and "Traceback" not in err


def test_unwritable_baseline_is_exit_2(repo, capsys):
    code, _, err = run(capsys, "--write-baseline", "missing-dir/base.json", "models")
    assert code == 2
    assert err.startswith("tflint: error: missing-dir/base.json: cannot write baseline:")


def test_api_applies_a_baseline(repo, capsys):
    import tflint

    run(capsys, "--write-baseline", "base.json", "models")
    (repo / "models" / "g.pbtxt").write_text(BROKEN + NEW_PROBLEM)
    report = tflint.lint_paths(["models"], baseline="base.json")
    assert [(f.rule, f.node, f.line) for f in report.findings] == [("unresolved-input", "c", 11)]
    assert report.baselined == 2 and not report.ok
    assert len(tflint.lint_paths(["models"], baseline=False).findings) == 3


def test_prune_needs_a_baseline_and_excludes_writing(repo, capsys):
    code, out, err = run(capsys, "--prune-baseline", "models")
    assert (code, out) == (2, "")
    assert (
        err
        == "tflint: error: --prune-baseline: no baseline in force (give --baseline FILE, or baseline: in .tflint.yaml)\n"
    )
    code, _, err = run(capsys, "--prune-baseline", "--write-baseline", "b.json", "models")
    assert code == 2 and "not allowed with argument --write-baseline" in err
    assert not (repo / "b.json").exists()


@pytest.mark.parametrize("flag", ["--select", "--ignore"])
def test_entries_of_rules_that_did_not_run_are_neither_stale_nor_pruned(repo, capsys, flag):
    run(capsys, "--write-baseline", "base.json", "models")
    chosen = "unknown-op" if flag == "--select" else "unresolved-input"
    code, out, _ = run(capsys, "--baseline", "base.json", flag, chosen, "models")
    assert (code, out) == (0, "All checks passed (2 files). 1 baselined finding not shown.\n")
    code, _, err = run(capsys, "--baseline", "base.json", "--prune-baseline", flag, chosen, "models")
    assert (code, err) == (0, "tflint: pruned 0 stale baseline entries\n")
    assert json.loads((repo / "base.json").read_text())["files"]["models/g.pbtxt"] == {
        "unknown-op": {"error": {"a": 1}},
        "unresolved-input": {"error": {"b": 1}},
    }


@pytest.mark.parametrize(
    "args, kept",
    [
        pytest.param(["--select", "unknown-op", "models"], "unresolved-input", id="select"),
        pytest.param(["--ignore", "unresolved-input", "models"], "unresolved-input", id="ignore"),
        pytest.param(["models/ok.pbtxt"], "models/g.pbtxt", id="other-file"),
    ],
)
def test_rewriting_a_baseline_keeps_the_entries_the_run_did_not_look_for(repo, capsys, args, kept):
    run(capsys, "--write-baseline", "base.json", "models")
    recorded = json.loads((repo / "base.json").read_text())
    code, _, err = run(capsys, "--write-baseline", "base.json", *args)
    assert code == 0 and err.startswith("tflint: wrote base.json: ")
    assert json.loads((repo / "base.json").read_text()) == recorded  # was: `kept` dropped, back next run
    assert kept in (repo / "base.json").read_text()
    code, out, _ = run(capsys, "--baseline", "base.json", "models")
    assert (code, out) == (0, "All checks passed (2 files). 2 baselined findings not shown.\n")


def test_rewriting_a_baseline_drops_what_the_run_looked_for_and_did_not_find(repo, capsys):
    run(capsys, "--write-baseline", "base.json", "models")
    (repo / "models" / "g.pbtxt").write_text(BROKEN.replace('  input: "^gone"\n', ""))  # b fixed
    (repo / "models" / "gone.pbtxt").write_text(BROKEN)
    run(capsys, "--write-baseline", "base.json", "--select", "unresolved-input", "models/gone.pbtxt")
    (repo / "models" / "gone.pbtxt").unlink()
    run(capsys, "--write-baseline", "base.json", "models")
    assert json.loads((repo / "base.json").read_text())["files"] == {
        "models/g.pbtxt": {"unknown-op": {"error": {"a": 1}}}
    }


def test_entries_of_rules_the_config_turns_off_are_neither_stale_nor_pruned(repo, capsys):
    run(capsys, "--write-baseline", "base.json", "models")
    (repo / ".tflint.yaml").write_text("rules:\n  unresolved-input: off\n")
    code, out, _ = run(capsys, "--baseline", "base.json", "--prune-baseline", "models")
    assert (code, out) == (0, "All checks passed (2 files). 1 baselined finding not shown.\n")
    assert "unresolved-input" in json.loads((repo / "base.json").read_text())["files"]["models/g.pbtxt"]


def test_an_error_baselined_then_lowered_to_a_warning_is_a_new_finding(repo, capsys):
    run(capsys, "--write-baseline", "base.json", "models")
    (repo / ".tflint.yaml").write_text("rules:\n  unresolved-input: warning\n")
    code, out, _ = run(capsys, "--baseline", "base.json", "models/g.pbtxt")
    assert code == 0
    assert "warning: Node 'b' has control input '^gone'" in out
    assert "Stale baseline entry: unresolved-input (error) on 'b'" in out


def test_a_warning_raised_to_error_is_reported(repo, capsys):
    (repo / ".tflint.yaml").write_text("rules:\n  unresolved-input: warning\n")
    run(capsys, "--write-baseline", "base.json", "models")
    assert run(capsys, "--baseline", "base.json", "models")[0] == 0
    (repo / ".tflint.yaml").write_text("rules:\n  unresolved-input: error\n")
    code, out, _ = run(capsys, "--baseline", "base.json", "models")
    assert code == 1
    assert "models/g.pbtxt:6:3: error: Node 'b' has control input '^gone'" in out


def test_a_version_1_baseline_still_hides_at_any_severity(repo, capsys):
    (repo / "base.json").write_text(
        json.dumps({"version": 1, "files": {"models/g.pbtxt": {"unknown-op": {"a": 1}, "unresolved-input": {"b": 1}}}})
    )
    assert run(capsys, "--baseline", "base.json", "models")[:2] == (
        0,
        "All checks passed (2 files). 2 baselined findings not shown.\n",
    )
    run(capsys, "--baseline", "base.json", "--prune-baseline", "models")
    assert json.loads((repo / "base.json").read_text()) == {
        "version": 2,
        "files": {"models/g.pbtxt": {"unknown-op": {"any": {"a": 1}}, "unresolved-input": {"any": {"b": 1}}}},
    }


def _asset_meta(*filenames):
    from serving_graphs import meta, placeholder

    assets = " ".join(
        f'asset_file_def {{ tensor_info {{ name: "{name}_path:0" }} filename: "{name}.txt" }}' for name in filenames
    )
    return meta(placeholder("vocab_path", "DT_STRING"), extra=assets)


def test_findings_without_a_node_are_keyed_on_what_they_point_at(repo, capsys):
    (repo / "models" / "m.pbtxt").write_text(_asset_meta("labels"))
    run(capsys, "--write-baseline", "base.json", "models/m.pbtxt")
    entries = json.loads((repo / "base.json").read_text())["files"]["models/m.pbtxt"]
    assert entries["missing-asset"] == {"error": {"Asset 'labels.txt'": 1}}
    (repo / "models" / "m.pbtxt").write_text(_asset_meta("labels", "classes"))
    code, out, _ = run(capsys, "--baseline", "base.json", "models/m.pbtxt")
    assert code == 1
    assert "Asset 'classes.txt' is fed to the tensor" in out and "labels.txt" not in out


@pytest.mark.parametrize(
    "message, key",
    [
        ("Asset 'a.txt' is listed by the meta graph but m/assets/a.txt does not exist", "Asset 'a.txt'"),
        ("Function 'f' (library entry 2) is defined differently", "Function 'f'"),
        (
            "The SaverDef's restore_op_name names 'save/x'; the loader cannot",
            "The SaverDef's restore_op_name names 'save/x'",
        ),
        ("GraphDef versions: min_consumer 3 is above producer 2", "GraphDef versions"),
        ("input_map: Attempted to map inputs that were not found in graph_def: [a:0]", "input_map"),
        ("The graph is empty (no nodes, no functions)", "The graph is empty (no nodes, no functions)"),
    ],
)
def test_the_target_of_a_finding_without_a_node(message, key):
    from tflint.baseline import target
    from tflint.finding import Finding, Severity

    assert target(Finding("r", Severity.ERROR, message, "f.pbtxt")) == key
    assert target(Finding("r", Severity.ERROR, message, "f.pbtxt", node="n")) == "n"
    in_meta_graph = Finding("r", Severity.ERROR, message, "f.pbtxt", graph="meta graph [serve]")
    assert target(in_meta_graph) == f"meta graph [serve] > {key}"


def test_no_baseline_shows_everything(repo, capsys):
    run(capsys, "--write-baseline", "base.json", "models")
    (repo / ".tflint.yaml").write_text("baseline: base.json\n")
    assert run(capsys, "models")[0] == 0
    code, out, _ = run(capsys, "--no-baseline", "models")
    assert code == 1 and out.count("error:") == 2 and "baselined" not in out
    code, _, err = run(capsys, "--no-baseline", "--baseline", "base.json", "models")
    assert code == 2 and "not allowed with argument" in err
