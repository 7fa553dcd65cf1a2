"""Signals in the `tflint` command: Ctrl-C exits 130 at any moment, and no process outlives a killed run.

No test here waits for a moment to pass: the signal is sent by the process under test itself, at a
named point (a module starting to be imported, a function called, in whichever process), by the
harness in tests/data/signals/sitecustomize.py, which Python loads at start-up when its folder is on
PYTHONPATH. A test that must act while a process exists reads the process id that the harness
writes to a FIFO when the process reaches the point, and blocks there.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc and process groups")

HARNESS = Path(__file__).parent / "data" / "signals"
GRAPH = 'node { name: "a" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }\n'
# Generous: under load a run takes seconds, never this long.
DEADLINE = 120


def _chain(nodes: int) -> str:
    lines = ['node { name: "n0" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }\n']
    for index in range(1, nodes):
        lines.append(
            f'node {{ name: "n{index}" op: "Identity" input: "n{index - 1}" '
            'attr { key: "T" value { type: DT_FLOAT } } }\n'
        )
    return "".join(lines)


def _entry(entry: str) -> list[str]:
    if entry == "module":
        return [sys.executable, "-m", "tflint"]
    script = Path(sys.executable).parent / "tflint"
    if not script.exists():
        pytest.skip("no tflint console script beside this interpreter")
    return [str(script)]


def _run(argv: list[str], cwd: Path, **settings: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(HARNESS), **settings}
    env.pop("PYTHONFAULTHANDLER", None)
    return subprocess.run(
        argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=DEADLINE, start_new_session=True
    )


def _alive(pid: int) -> bool:
    """Whether `pid` is a process that has not ended (a zombie has ended)."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _session_members(session: int) -> list[int]:
    members = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[3]) == session and fields[0] != "Z":  # fields[3]: the session id
            members.append(int(entry))
    return members


def _until_gone(pids: list[int]) -> list[int]:
    """The processes among `pids` still alive once they had every chance to end (a killed process
    lingers until the kernel has reaped its memory): polled, never a fixed sleep."""
    import time

    deadline = time.monotonic() + DEADLINE
    alive = [pid for pid in pids if _alive(pid)]
    while alive and time.monotonic() < deadline:
        time.sleep(0.05)
        alive = [pid for pid in alive if _alive(pid)]
    return alive


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """The modules a plain run imports, in order (recorded once by the harness)."""
    folder = tmp_path_factory.mktemp("imports")
    (folder / "g.pbtxt").write_text(GRAPH)
    record = folder / "imports.txt"
    result = _run(
        [*_entry("module"), "-j", "1", "g.pbtxt"],
        folder,
        TFLINT_TEST_SIGNAL_AT_IMPORT="*",
        TFLINT_TEST_IMPORTS=str(record),
    )
    assert result.returncode == 0, result.stderr
    return list(dict.fromkeys(record.read_text().split()))


# Points of start-up where an interrupt once did harm: the first import after the package's own
# first lines, the command line, and (the SIGSEGV) the modules protobuf's C code imports itself, in
# the middle of building the first message class.
START_UP_POINTS = [
    "tflint.runtime.interrupts",
    "tflint.cli",
    "argparse",
    "google.protobuf",
    "google.protobuf.message",
    "google.protobuf.internal.well_known_types",
    "datetime",
    "tflint.rules",
    "tflint.engine.parallel",
    "tflint.report.text",
]


@pytest.mark.parametrize("entry", ["module", "script"])
@pytest.mark.parametrize("point", START_UP_POINTS)
def test_ctrl_c_during_start_up_exits_130(tmp_path, imported, entry, point):
    assert point in imported  # the point still happens in a run (else this test would test nothing)
    (tmp_path / "g.pbtxt").write_text(GRAPH)
    result = _run([*_entry(entry), "-j", "1", "g.pbtxt"], tmp_path, TFLINT_TEST_SIGNAL_AT_IMPORT=point)
    assert (result.returncode, result.stderr, result.stdout) == (130, "", "")


def test_ctrl_c_at_every_few_imports_exits_130(tmp_path, imported):
    """At any moment: one import in every few of a whole run's, from the first after the package's own."""
    (tmp_path / "g.pbtxt").write_text(GRAPH)
    points = imported[imported.index("tflint.runtime.interrupts") :: 12]
    assert len(points) >= 10
    outcomes = {
        point: _run([*_entry("module"), "-j", "1", "g.pbtxt"], tmp_path, TFLINT_TEST_SIGNAL_AT_IMPORT=point)
        for point in points
    }
    assert {point: (result.returncode, result.stderr) for point, result in outcomes.items()} == {
        point: (130, "") for point in points
    }


@pytest.mark.parametrize(
    "point, jobs",
    [
        pytest.param("tflint.read.load:load_path", "1", id="reading"),
        pytest.param("tflint.engine.findings:run_rules", "1", id="rules"),
        pytest.param("tflint.report.text:render", "1", id="report"),
        pytest.param("tflint.runtime.process:exit_now", "1", id="exiting"),
    ],
)
def test_ctrl_c_while_linting_exits_130(tmp_path, point, jobs):
    (tmp_path / "g.pbtxt").write_text(GRAPH)
    result = _run([*_entry("module"), "-j", jobs, "g.pbtxt"], tmp_path, TFLINT_TEST_SIGNAL_AT_CALL=point)
    assert (result.returncode, result.stderr) == (130, "")


def test_ctrl_c_while_writing_the_report_leaves_no_temporary_file(tmp_path):
    (tmp_path / "g.pbtxt").write_text(GRAPH)
    result = _run(
        [*_entry("module"), "-j", "1", "-o", "report.txt", "g.pbtxt"],
        tmp_path,
        TFLINT_TEST_SIGNAL_AT_CALL="tempfile:mkstemp:after",
    )
    assert (result.returncode, result.stderr) == (130, "")
    assert sorted(path.name for path in tmp_path.iterdir()) == ["g.pbtxt"]


def _many_files(folder: Path) -> None:
    text = _chain(30)
    for number in range(1000):  # 2.7 MB in all: above engine.parallel.PARALLEL_MIN_BYTES, so -j forks a pool
        (folder / f"g{number}.pbtxt").write_text(text)


@pytest.mark.parametrize(
    "mode, point",
    [
        pytest.param("pool", "tflint.engine.parallel:_lint_in_worker", id="jobs-pool"),
        pytest.param("forked-rules", "tflint.engine.parallel:_run_queued_in_child", id="forked-rules"),
    ],
)
def test_ctrl_c_in_every_mode_exits_130_and_leaves_no_process(tmp_path, mode, point):
    """The interrupt comes from a worker, while it works: the parent ends, and ends the workers."""
    if mode == "pool":
        _many_files(tmp_path)
        argv = [*_entry("module"), "-j", "4", "."]
    else:
        (tmp_path / "g.pbtxt").write_text(_chain(20_000))  # engine.parallel.FORK_MIN_NODES
        argv = [*_entry("module"), "-j", "2", "g.pbtxt"]
    env = {**os.environ, "PYTHONPATH": str(HARNESS), "TFLINT_TEST_SIGNAL_AT_CALL": point}
    process = subprocess.Popen(
        argv, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    out, err = process.communicate(timeout=DEADLINE)
    assert (process.returncode, err) == (130, ""), out[-500:]
    assert _until_gone(_session_members(process.pid)) == []


@pytest.mark.parametrize("parent_signal", [signal.SIGKILL, signal.SIGTERM])
@pytest.mark.parametrize(
    "mode, point",
    [
        pytest.param("pool", "tflint.engine.parallel:_lint_in_worker", id="jobs-pool"),
        pytest.param("forked-rules", "tflint.engine.parallel:_run_queued_in_child", id="forked-rules"),
    ],
)
def test_a_killed_run_leaves_no_process(tmp_path, mode, point, parent_signal):
    """kill -9 (or SIGTERM) of the main process while its children work: the children end too."""
    if mode == "pool":
        _many_files(tmp_path)
        argv = [*_entry("module"), "-j", "4", "."]
    else:
        (tmp_path / "g.pbtxt").write_text(_chain(20_000))
        argv = [*_entry("module"), "-j", "2", "g.pbtxt"]
    marker = tmp_path / "busy"
    os.mkfifo(marker)
    env = {
        **os.environ,
        "PYTHONPATH": str(HARNESS),
        "TFLINT_TEST_BLOCK_AT_CALL": point,
        "TFLINT_TEST_MARKER": str(marker),
    }
    process = subprocess.Popen(
        argv, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True
    )
    try:
        with open(marker) as busy:  # blocks until a child reached the point (and now waits there)
            child = int(busy.readline())
        assert child != process.pid and _alive(child)
        members = _session_members(process.pid)
        assert len(members) >= 2
        os.kill(process.pid, parent_signal)
        process.communicate(timeout=DEADLINE)
        assert process.returncode == (-signal.SIGKILL if parent_signal == signal.SIGKILL else 143)
        assert _until_gone(members) == []
    finally:
        for pid in _session_members(process.pid):
            os.kill(pid, signal.SIGKILL)


# A mapped file truncated in place while tflint reads it (tflint.read.mapped).


def _weights_graph() -> bytes:
    """A binary GraphDef of 17 MiB, nearly all one Const's tensor_content: read mapped (MAP_MIN_BYTES)."""
    from tflint import protos

    graph = protos.GraphDef()
    node = graph.node.add(name="w", op="Const")
    node.attr["dtype"].type = 1
    tensor = node.attr["value"].tensor
    tensor.dtype = 1
    tensor.tensor_shape.dim.add(size=17 << 18)
    tensor.tensor_content = bytes(17 << 20)
    graph.node.add(name="x", op="Identity", input=["w"]).attr["T"].type = 1
    return graph.SerializeToString()


@pytest.mark.parametrize(
    "point, size, expected",
    [
        # While the file is walked: the child touching the map dies; the file is read whole, as it is now.
        pytest.param("tflint.read.mapped:strip", 1 << 20, (1, "invalid-graph"), id="walk-truncated"),
        pytest.param("tflint.read.mapped:strip", 0, (0, "empty-graph"), id="walk-emptied"),
        # While a rule reads the content left in the file: one line, exit 2.
        pytest.param(
            "tflint.engine.findings:run_rules", 1 << 20, (2, "the file changed while it was read"), id="rule-reading"
        ),
    ],
)
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_mapped_file_truncated_while_read_is_a_finding_or_one_line(tmp_path, point, size, expected, jobs):
    path = tmp_path / "model.pb"
    path.write_bytes(_weights_graph())
    result = _run(
        [*_entry("module"), "-j", jobs, "--extend-select", "non-finite-constant", "model.pb"],
        tmp_path,
        TFLINT_TEST_TRUNCATE_AT_CALL=point,
        TFLINT_TEST_TRUNCATE=f"{path}:{size}",
    )
    code, text = expected
    assert result.returncode == code, result.stderr
    assert text in (result.stdout if code != 2 else result.stderr)
    assert result.stderr == "" if code != 2 else result.stderr.count("\n") == 1


FIXABLE = """\
node {
  name: "a"
  op: "MatMul"
  input: "x"
  input: "y"
  attr { key: "T" value { type: DT_FLOAT } }
  attr { key: "transpose_a" value { b: false } }
}
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "y" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
"""


def _names_unnamed_files(folder: Path) -> bool:
    if not hasattr(os, "O_TMPFILE"):
        return False
    try:
        descriptor = os.open(folder, os.O_WRONLY | os.O_TMPFILE, 0o600)
    except OSError:
        return False
    try:
        os.link(f"/proc/self/fd/{descriptor}", folder / "named", follow_symlinks=True)
    except OSError:
        return False
    finally:
        os.close(descriptor)
    os.unlink(folder / "named")
    return True


@pytest.mark.parametrize("point", ["tflint.engine.fix:_named:after", "tflint.engine.fix:_temporary:after"])
def test_ctrl_c_during_fix_leaves_the_file_and_no_temporary_file(tmp_path, point):
    """The moments a named temporary file exists: named just before the rename, or named from the start."""
    if point.endswith("_named:after") and not _names_unnamed_files(tmp_path):
        pytest.skip("this system cannot give an O_TMPFILE file a name (--fix then names it when it creates it)")
    path = tmp_path / "g.pbtxt"
    path.write_text(FIXABLE)
    settings = {"TFLINT_TEST_SIGNAL_AT_CALL": point}
    if point.endswith("_temporary:after"):
        settings["TFLINT_TEST_NO_TMPFILE"] = "1"  # no O_TMPFILE: the fallback names it when it is created
    result = _run([*_entry("module"), "--fix", "g.pbtxt"], tmp_path, **settings)
    assert (result.returncode, result.stderr) == (130, "")
    assert sorted(entry.name for entry in tmp_path.iterdir()) == ["g.pbtxt"]
    assert path.read_text() == FIXABLE


def test_compat_on_a_version_truncated_while_read_is_a_finding(tmp_path):
    """`tflint compat` maps each version's file too: in a child, whose death sends it to the whole read."""
    import shutil

    shutil.copytree(Path(__file__).parent / "data" / "compat" / "batch_fixed", tmp_path / "model")
    old = tmp_path / "model" / "1" / "saved_model.pb"  # read first: truncated under its map
    result = _run(
        [*_entry("module"), "compat", "model"],
        tmp_path,
        TFLINT_TEST_TRUNCATE_AT_CALL="tflint.read.interface:_reduced_bytes",
        TFLINT_TEST_TRUNCATE=f"{old}:100",
    )
    assert (result.returncode, result.stderr) == (1, ""), result.stderr
    assert "invalid-graph" in result.stdout and "saved_model.pb" in result.stdout
