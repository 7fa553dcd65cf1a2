"""tflint.read.walk: which files a run reads; ignore files are read through the guarded open."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tflint.read.walk import WalkOptions, iter_graph_files

GRAPH = 'node { name: "a" op: "NoOp" }\n'


def _tree(tmp_path, ignore_file: str) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "kept.pbtxt").write_text(GRAPH)
    (tmp_path / "hidden.pbtxt").write_text(GRAPH)
    (tmp_path / ignore_file).write_text("hidden.pbtxt\n")


@pytest.mark.parametrize("ignore_file", [".gitignore", ".ignore"])
def test_ignore_files_hide_what_they_list(tmp_path, ignore_file):
    _tree(tmp_path, ignore_file)
    found = [os.path.basename(path) for path in iter_graph_files([str(tmp_path)], WalkOptions())]
    assert found == ["kept.pbtxt"]


@pytest.mark.parametrize("ignore_file", [".gitignore", ".ignore"])
def test_an_ignore_file_that_is_a_fifo_is_not_waited_on(tmp_path, ignore_file):
    """A plain open() of a named pipe blocks until something writes to it: the walk would hang."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "kept.pbtxt").write_text(GRAPH)
    os.mkfifo(tmp_path / ignore_file)
    code = "import sys; from tflint.read.walk import WalkOptions, iter_graph_files as f; print(list(f([sys.argv[1]])))"
    # The timeout only stops a hang (the result is checked, not the time): the walk reads nothing from the pipe.
    result = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "kept.pbtxt" in result.stdout
