"""Resource limits: without processes, file descriptors or semaphores, a run falls back to one process.

Pool workers (-j, and the default run over 2 MB of files), forked rule workers and reader children
are a speed-up: what a machine's limits withhold from them (RLIMIT_NPROC, RLIMIT_NOFILE, a read-only
or missing /dev/shm) makes tflint do the work in one process, with the same findings, never an
"internal error". Limits are set in the child process (`preexec_fn`); what root is exempt from, or
what needs a mount, is taken away by the harness of tests/data/signals as the kernel would.
"""

from __future__ import annotations

import os
import resource
import sys
from pathlib import Path

import pytest
from test_signals import _chain, _entry

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux limits and /dev/shm")

BROKEN = 'node { name: "a" op: "NotAnOp" }\n'


@pytest.fixture(scope="module")
def many(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """2.7 MB of files (above engine.parallel.PARALLEL_MIN_BYTES: the default run forks a pool), one broken."""
    folder = tmp_path_factory.mktemp("many")
    text = _chain(30)
    for number in range(1000):
        (folder / f"g{number}.pbtxt").write_text(text)
    (folder / "z.pbtxt").write_text(BROKEN)
    return folder


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A graph big enough for forked rule workers and a forked reader (engine.parallel.FORK_MIN_NODES)."""
    folder = tmp_path_factory.mktemp("big")
    (folder / "g.pbtxt").write_text(_chain(20_000) + BROKEN)
    return folder


@pytest.fixture(scope="module")
def in_one_process():
    """The findings of a folder linted with -j 1, computed once per folder."""
    known: dict[Path, list[tuple[str, str, str, int]]] = {}

    def findings(folder: Path) -> list[tuple[str, str, str, int]]:
        if folder not in known:
            known[folder] = _findings(_lint(folder, ["-j", "1"]))
        return known[folder]

    return findings


def _lint(folder: Path, jobs: list[str], preexec=None, **settings: str):
    import subprocess

    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parent / "data" / "signals"), **settings}
    return subprocess.run(
        [*_entry("module"), *jobs, "--format", "json", "."],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        preexec_fn=preexec,
    )


def _findings(result) -> list[tuple[str, str, str, int]]:
    import json

    assert (result.returncode, result.stderr) == (1, ""), result.stderr[-2000:]
    return sorted((f["rule"], os.path.basename(f["file"]), f["node"], f["line"]) for f in json.loads(result.stdout))


def _low_nofile(count: int):
    return lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (count, count))


@pytest.mark.parametrize(
    "fixture, jobs",
    [
        pytest.param("many", [], id="default-run"),  # one worker a core: a pool where there are two
        pytest.param("many", ["-j", "4"], id="jobs-pool"),
        pytest.param("big", ["-j", "2"], id="forked-rules-and-reader"),
    ],
)
@pytest.mark.parametrize(
    "limit",
    [
        pytest.param({"preexec": _low_nofile(8)}, id="nofile-8"),
        pytest.param({"TFLINT_TEST_UNAVAILABLE": "fork"}, id="nproc"),
        pytest.param({"TFLINT_TEST_UNAVAILABLE": "semaphores"}, id="dev-shm-read-only"),
        pytest.param({"TFLINT_TEST_UNAVAILABLE": "semaphores-missing"}, id="dev-shm-missing"),
    ],
)
def test_a_limit_falls_back_to_one_process_with_the_same_findings(request, in_one_process, fixture, jobs, limit):
    folder = request.getfixturevalue(fixture)
    expected = in_one_process(folder)
    assert expected  # the broken node: a run that read nothing would not pass
    assert _findings(_lint(folder, jobs, **limit)) == expected


@pytest.mark.skipif(os.geteuid() == 0, reason="root is exempt from RLIMIT_NPROC (the harness stands in: nproc)")
def test_a_low_process_limit_falls_back_to_one_process(many, in_one_process):
    expected = in_one_process(many)
    running = len([entry for entry in os.listdir("/proc") if entry.isdigit()])
    limit = lambda: resource.setrlimit(resource.RLIMIT_NPROC, (running, running))  # noqa: E731
    assert _findings(_lint(many, ["-j", "4"], preexec=limit)) == expected
