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


# -- one big graph: its rules split over forked processes ------------------------------------


def test_forked_rules_give_the_findings_of_one_process(graphs, monkeypatch):
    from tflint import engine

    monkeypatch.setattr(engine, "FORK_MIN_NODES", 0)
    for path in graphs:
        serial = api.lint_paths([path], jobs=1).findings
        forked = api.lint_paths([path], jobs=3).findings  # one file: three rule workers
        assert forked == serial, path
    assert any(api.lint_paths([path], jobs=1).findings for path in graphs)


def test_rules_split_into_groups_of_similar_cost():
    from tflint import engine
    from tflint.config import default_config

    enabled = sorted(rule for rule, _ in default_config().enabled())
    groups = engine.split_rules(enabled, 3)
    assert len(groups) == 3 and all(groups)
    assert sorted(rule for group in groups for rule in group) == enabled
    assert "shape-mismatch" in groups[0]
    attr_family = [group for group in groups if "missing-attr" in group][0]
    assert {"unknown-attr", "attr-type-mismatch", "allowed-values", "attr-minimum"} <= set(attr_family)
    assert sorted(engine.split_rules(enabled, 1)[0]) == enabled


def test_crash_in_a_rule_worker_is_one_line_exit_2(graphs, monkeypatch, capsys):
    from tflint import engine
    from tflint.rules import all_rules

    def explode(graph, options):
        raise ValueError("boom")

    monkeypatch.setattr(engine, "FORK_MIN_NODES", 0)
    monkeypatch.setattr(all_rules()["shape-mismatch"], "check", explode)  # the heaviest rule: it runs in this process
    monkeypatch.setattr(all_rules()["empty-op"], "check", explode)
    code = main(["-j", "2", graphs[0]])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1
    assert "internal error in rule" in err and "ValueError: boom" in err


def test_crash_in_a_forked_rule_worker_is_one_line_exit_2(graphs, monkeypatch, capsys):
    from tflint import engine
    from tflint.config import default_config
    from tflint.rules import all_rules

    def explode(graph, options):
        raise ValueError("boom")

    monkeypatch.setattr(engine, "FORK_MIN_NODES", 0)
    child_rule = engine.split_rules([rule for rule, _ in default_config().enabled()], 2)[1][0]
    monkeypatch.setattr(all_rules()[child_rule], "check", explode)
    code = main(["-j", "2", graphs[0]])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1
    assert f"internal error in rule {child_rule}" in err and "ValueError: boom" in err


def test_no_fork_by_default_in_a_process_running_threads():
    import threading

    assert api._core_count(3) == 3
    stop = threading.Event()
    worker = threading.Thread(target=stop.wait)
    worker.start()
    try:
        assert api._core_count(None) == 1
        assert api._core_count(0) == 1
        assert api._core_count(2) == 2  # asked for explicitly
    finally:
        stop.set()
        worker.join()
