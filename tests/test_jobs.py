"""-j: files linted in worker processes give exactly the report of one process."""

from __future__ import annotations

import pytest

from conftest import CORPUS, require
from tflint import api
from tflint.cli import main


@pytest.fixture
def graphs(tmp_path):
    require(CORPUS)
    paths = []
    for index, name in enumerate(sorted(p.name for p in CORPUS.glob("*.pb*"))):
        target = tmp_path / f"{index}_{name}"
        data = (CORPUS / name).read_bytes()
        if index % 3 == 0 and name.endswith(".pbtxt"):
            data = data.replace(b'op: "Identity"', b'op: "Identiti"', 1)  # some findings to compare
        target.write_bytes(data)
        paths.append(str(target))
    return paths


def test_parallel_report_is_identical(graphs, monkeypatch):
    monkeypatch.setattr(api, "PARALLEL_MIN_BYTES", 0)
    assert api._worker_count(graphs, 2) == 2
    serial = api.lint_paths(graphs, jobs=1)
    parallel = api.lint_paths(graphs, jobs=2)
    assert serial.findings  # the comparison is about something
    assert parallel.findings == serial.findings
    assert parallel.files == serial.files


def test_small_runs_and_stdin_stay_in_one_process(graphs):
    assert api._worker_count(graphs[:1], 4) == 1
    assert api._worker_count(graphs, 4) == 1  # a few hundred KB: not worth starting processes
    assert api._worker_count(graphs + ["-"], 4) == 1


def test_crash_in_a_worker_is_one_line_exit_2(graphs, monkeypatch, capsys):
    from tflint.rules import all_rules

    def explode(graph, options):
        raise ValueError("boom")

    monkeypatch.setattr(api, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(all_rules()["empty-op"], "check", explode)
    code = main(["-j", "2", *graphs])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1
    assert "internal error in rule empty-op" in err and "ValueError: boom" in err
