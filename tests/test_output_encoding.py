"""Output that the terminal's encoding cannot hold (issue 29): escaped, never an internal error.

`PYTHONIOENCODING=ascii` (or cp1252, a Windows pipe) and a graph, path or model directory with
characters outside it: every command prints its findings, summary and answers with those
characters escaped. Run as a subprocess, since the encoding of stdout is fixed at start-up.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest
from conftest import DATA

from tflint.cli import main
from tflint.read.interface import is_version_number, latest_versions

GRAPH = 'node {\n  name: "caf\u00e9\u2603"\n  op: "Idenity"\n}\n'


def _run(encoding: str, *args: str, cwd: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONIOENCODING=encoding)
    return subprocess.run(
        [sys.executable, "-m", "tflint", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        encoding="utf-8",
        errors="replace",
        timeout=120,
    )


@pytest.fixture
def snowman(tmp_path):
    base = tmp_path / "mod\u2603"
    shutil.copytree(DATA / "compat" / "input_renamed", base)
    (base / "g\u2603.pbtxt").write_text(GRAPH, encoding="utf-8")
    return base


@pytest.mark.parametrize("encoding", ["ascii", "cp1252"])
@pytest.mark.parametrize(
    "args, code, expected",
    [
        pytest.param(["mod\u2603/g\u2603.pbtxt"], 1, "Node 'caf", id="lint"),
        pytest.param(["compat", "mod\u2603"], 1, "[input-removed]", id="compat"),
        pytest.param(["--min-tf", "mod\u2603/1"], 0, "TF 2.", id="min-tf"),
        pytest.param(["--statistics", "mod\u2603/g\u2603.pbtxt"], 1, "Found 2 errors", id="summary"),
    ],
)
def test_unencodable_output_is_escaped(snowman, encoding, args, code, expected):
    result = _run(encoding, *args, cwd=str(snowman.parent))
    assert "internal error" not in result.stderr
    assert result.returncode == code, result.stdout + result.stderr
    assert expected in result.stdout
    assert "\\u2603" in result.stdout  # the snowman, escaped


def test_a_version_directory_named_with_a_superscript_digit_is_not_a_version(tmp_path, capsys):
    base = tmp_path / "m"
    shutil.copytree(DATA / "compat" / "input_renamed" / "1", base / "1")
    shutil.copytree(DATA / "compat" / "input_renamed" / "2", base / "\u00b2")
    assert not is_version_number("\u00b2") and not is_version_number("\u0663") and is_version_number("12")
    assert main(["compat", str(base)]) == 2
    _, err = capsys.readouterr()
    assert "needs two numeric version directories to compare (only 1/)" in err and "internal error" not in err
    shutil.copytree(DATA / "compat" / "input_renamed" / "2", base / "2")
    assert latest_versions(str(base)) == (str(base / "1"), str(base / "2"))
