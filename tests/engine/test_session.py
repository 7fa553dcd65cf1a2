"""engine/session: a run over many files gathers what the API's Report is made of."""

from __future__ import annotations

import pytest

from tflint.config.resolve import ConfigCache
from tflint.engine import session
from tflint.errors import UsageError
from tflint.finding import Severity
from tflint.records import replace

CLEAN = b'node { name: "a" op: "NoOp" }\n'
DUPLICATE = b'node { name: "a" op: "NoOp" }\nnode { name: "a" op: "NoOp" }\n'


@pytest.mark.parametrize(
    ("given", "parsed"),
    [(None, None), ("warning", Severity.WARNING), (Severity.INFO, Severity.INFO)],
)
def test_failing_level(given, parsed):
    assert session.failing_level(given) is parsed


def _run(tmp_path, override=None, fail_on="error"):
    (tmp_path / "clean.pbtxt").write_bytes(CLEAN)
    (tmp_path / "dup.pbtxt").write_bytes(DUPLICATE)
    files = [str(tmp_path / name) for name in ("dup.pbtxt", "clean.pbtxt")]
    configs = ConfigCache({"fail-on": fail_on})
    common = {"op_defs": (), "input_type": None, "stdin_name": "<stdin>", "target_tf": None, "progress": None}
    return session.lint_files(files, configs, None, jobs=1, override=override, **common)


def test_lint_files_gathers_findings_files_and_levels(tmp_path):
    run = _run(tmp_path, fail_on="warning")
    dup, clean = str(tmp_path / "dup.pbtxt"), str(tmp_path / "clean.pbtxt")
    assert run.shown == (dup, clean)  # the order files were given in
    assert [shown for shown, _ in run.files] == [dup, clean]
    assert run.skipped == ()
    assert [(f.rule, f.file, f.line) for f in run.findings if f.rule == "duplicate-node-name"] == [
        ("duplicate-node-name", dup, 2)
    ]
    assert run.fail_on is Severity.WARNING
    assert run.file_fail_on == {dup: Severity.WARNING, clean: Severity.WARNING}
    assert "duplicate-node-name" in run.rules


def test_lint_files_override_beats_each_config(tmp_path):
    run = _run(tmp_path, override=Severity.INFO, fail_on="warning")
    assert run.fail_on is Severity.INFO
    assert set(run.file_fail_on.values()) == {Severity.INFO}


@pytest.mark.parametrize(
    ("baseline", "named", "write", "prune", "configured", "in_force"),
    [
        (None, None, None, False, False, False),  # nothing named, nothing configured
        (None, None, None, False, True, True),  # a config's `baseline:`
        (False, None, None, False, True, False),  # --no-baseline beats the config
        ("b.json", object(), None, False, False, True),  # a named, loaded baseline
        (False, None, "b.json", False, False, True),  # writing one
        (False, None, None, True, False, True),  # pruning
    ],
)
def test_baseline_in_force(tmp_path, baseline, named, write, prune, configured, in_force):
    run = _run(tmp_path)
    if configured:
        files = [(shown, replace(resolved, baseline="b.json")) for shown, resolved in run.files]
        run = replace(run, files=files)
    assert run.baseline_in_force(baseline, named, write, prune) is in_force


def test_version_pair(tmp_path):
    assert session.version_pair("a/1", "a/2") == ("a/1", "a/2")
    (tmp_path / "1").mkdir()
    with pytest.raises(UsageError):
        session.version_pair(str(tmp_path), None)
