"""-j: files linted in worker processes give exactly the report of one process."""

from __future__ import annotations

import pytest
from conftest import CORPUS, require

from tflint import api
from tflint.cli import main
from tflint.engine import parallel


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
    monkeypatch.setattr(parallel, "PARALLEL_MIN_BYTES", 0)
    assert parallel.worker_count(graphs, 2) == 2
    serial = api.lint_paths(graphs, jobs=1)
    pooled = api.lint_paths(graphs, jobs=2)
    assert serial.findings  # the comparison is about something
    assert pooled.findings == serial.findings
    assert pooled.files == serial.files


def test_small_runs_and_stdin_stay_in_one_process(graphs):
    assert parallel.worker_count(graphs[:1], 4) == 1
    assert parallel.worker_count(graphs, 4) == 1  # a few hundred KB: not worth starting processes
    assert parallel.worker_count(graphs + ["-"], 4) == 1


def test_crash_in_a_worker_is_one_line_exit_2(graphs, monkeypatch, capsys):
    from tflint.rules import all_rules

    def explode(graph, options):
        raise ValueError("boom")

    monkeypatch.setattr(parallel, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(all_rules()["empty-op"], "check", explode)
    code = main(["-j", "2", *graphs])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1
    assert "internal error in rule empty-op" in err and "ValueError: boom" in err


# -- one big graph: its rules split over forked processes ------------------------------------


def test_forked_rules_give_the_findings_of_one_process(graphs, monkeypatch):

    monkeypatch.setattr(parallel, "FORK_MIN_NODES", 0)
    for path in graphs:
        serial = api.lint_paths([path], jobs=1).findings
        forked = api.lint_paths([path], jobs=3).findings  # one file: three rule workers
        assert forked == serial, path
    assert any(api.lint_paths([path], jobs=1).findings for path in graphs)


def test_rule_units_costliest_first_attr_family_together():
    from tflint.config.settings import default_config

    config = default_config()
    enabled = sorted(rule for rule, _ in config.enabled())
    units = parallel.rule_units(enabled, config.modules)
    assert sorted(rule for unit in units for rule in unit) == enabled
    assert units[0] == ["shape-mismatch"]
    attr_family = [unit for unit in units if "missing-attr" in unit][0]
    assert set(attr_family) == {"missing-attr", "unknown-attr", "attr-type-mismatch", "allowed-values", "attr-minimum"}
    assert all(len(unit) == 1 for unit in units if unit is not attr_family)


def test_forked_rules_with_more_units_than_the_queue_holds(graphs, monkeypatch):

    monkeypatch.setattr(parallel, "FORK_MIN_NODES", 0)
    monkeypatch.setattr(parallel, "_MAX_QUEUED", 3)
    for path in graphs:
        assert api.lint_paths([path], jobs=2).findings == api.lint_paths([path], jobs=1).findings, path


def test_crash_in_a_rule_worker_is_one_line_exit_2(graphs, monkeypatch, capsys):
    from tflint.rules import all_rules

    def explode(graph, options):
        raise ValueError("boom")

    monkeypatch.setattr(parallel, "FORK_MIN_NODES", 0)
    monkeypatch.setattr(all_rules()["shape-mismatch"], "check", explode)  # the heaviest rule: it runs in this process
    monkeypatch.setattr(all_rules()["empty-op"], "check", explode)
    code = main(["-j", "2", graphs[0]])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1
    assert "internal error in rule" in err and "ValueError: boom" in err


def test_crash_in_a_forked_rule_worker_is_one_line_exit_2(graphs, monkeypatch, capsys):
    import os
    import select

    from tflint.rules import all_rules

    parent = os.getpid()
    check = all_rules()["empty-op"].check
    exploded, tell_parent = os.pipe()
    waited = []

    def explode_in_a_child(graph, options):
        if os.getpid() == parent:
            if not waited:  # hold the parent's first unit until the child has taken one: no clock involved
                waited.append(select.select([exploded], [], [], 120))  # 120 s: a guard against a hang only
            return check(graph, options)
        os.write(tell_parent, b"!")
        raise ValueError("boom")

    monkeypatch.setattr(parallel, "FORK_MIN_NODES", 0)
    for module in all_rules().values():
        monkeypatch.setattr(module, "check", explode_in_a_child)
    try:
        code = main(["-j", "2", graphs[0]])
    finally:
        os.close(exploded)
        os.close(tell_parent)
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1
    assert "internal error in rule" in err and "ValueError: boom" in err


def test_no_fork_by_default_in_a_process_running_threads():
    import threading

    assert parallel.core_count(3) == 3
    stop = threading.Event()
    worker = threading.Thread(target=stop.wait)
    worker.start()
    try:
        assert parallel.core_count(None) == 1
        assert parallel.core_count(0) == 1
        assert parallel.core_count(2) == 2  # asked for explicitly
    finally:
        stop.set()
        worker.join()
