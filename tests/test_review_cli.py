"""`tflint show`, `diff`, `stats` and `git-setup`: the commands, and git showing graphs (real git)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import DATA

from tflint import protos
from tflint.cli import main
from tflint.config.git_driver import setup

PAIRS = DATA / "review"
GRAPH = """
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "shape" value { shape { dim { size: -1 } dim { size: 4 } } } } }
node { name: "w" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 4 } dim { size: 2 } }
    tensor_content: "%s" } } } }
node { name: "y" op: "MatMul" input: "x" input: "w:0" attr { key: "T" value { type: DT_FLOAT } } }
"""


def _graph_text(weights: bytes = bytes(32)) -> str:
    content = "".join(f"\\{byte:03o}" for byte in weights)
    return GRAPH % content


def _binary(text: str) -> bytes:
    from google.protobuf import text_format

    message = protos.GraphDef()
    text_format.Parse(text, message)
    return message.SerializeToString()


def test_show_is_the_same_for_text_and_binary(tmp_path, capsys):
    (tmp_path / "g.pbtxt").write_text(_graph_text())
    (tmp_path / "g.pb").write_bytes(_binary(_graph_text()))
    assert main(["show", str(tmp_path / "g.pbtxt")]) == 0
    text = capsys.readouterr().out
    assert main(["show", str(tmp_path / "g.pb")]) == 0
    assert capsys.readouterr().out == text
    assert "y = MatMul(x, w)" in text  # `w:0` is `w`
    assert "w  float [4,2]  32 B  #" in text  # a weight: summarised, never dumped
    assert "cost: graph: 16 FLOPs" in text  # 2*4*2 at batch 1
    assert str(tmp_path) not in text  # git hands textconv a temporary file: the rendering never names it


def test_show_textconv_never_fails_git(tmp_path, capsys):
    (tmp_path / "labels.pbtxt").write_text("item { id: 1 name: 'cat' }\n")
    assert main(["show", "--textconv", str(tmp_path / "labels.pbtxt")]) == 0
    assert "cat" in capsys.readouterr().out
    (tmp_path / "junk.pb").write_bytes(b"\xff\x00\x13" * 10)
    assert main(["show", "--textconv", str(tmp_path / "junk.pb")]) == 0
    assert "not a TensorFlow graph" in capsys.readouterr().out


def test_show_of_something_that_is_not_a_graph_is_one_line(tmp_path, capsys):
    (tmp_path / "junk.pb").write_bytes(b"\xff\x00\x13" * 10)
    assert main(["show", str(tmp_path / "junk.pb")]) == 1  # as `tflint junk.pb`: invalid-graph
    err = capsys.readouterr().err
    assert err.startswith("tflint: ") and err.endswith("[invalid-graph]\n") and err.count("\n") == 1
    assert main(["show", str(tmp_path / "missing.pb")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tflint: error:") and "no such file" in err and err.count("\n") == 1


def test_diff_text_json_markdown_and_exit_code(tmp_path, capsys):
    (tmp_path / "a.pbtxt").write_text(_graph_text())
    (tmp_path / "b.pbtxt").write_text(_graph_text(bytes(31) + b"\x01"))
    old, new = str(tmp_path / "a.pbtxt"), str(tmp_path / "b.pbtxt")
    assert main(["diff", old, new]) == 0
    assert main(["diff", "--exit-code", old, new]) == 1
    capsys.readouterr()
    assert main(["diff", "--format", "json", old, new]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["changed"] is True
    (changed,) = document["weights"]["changed"]
    assert changed["name"] == "w" and changed["fraction_changed"] == 0.125
    assert main(["diff", "--format", "markdown", old, new]) == 0
    markdown = capsys.readouterr().out
    assert markdown.startswith("### Model diff:") and "`w: content changed" in markdown
    assert main(["diff", "--exit-code", old, old]) == 0
    assert "no changes" in capsys.readouterr().out


def test_diff_colours_only_when_asked(tmp_path, capsys):
    (tmp_path / "a.pbtxt").write_text(_graph_text())
    (tmp_path / "b.pbtxt").write_text(_graph_text().replace('"y"', '"z"').replace("MatMul", "MatMul"))
    assert main(["diff", "--color", "always", str(tmp_path / "a.pbtxt"), str(tmp_path / "b.pbtxt")]) == 0
    assert "\033[" in capsys.readouterr().out
    assert main(["diff", str(tmp_path / "a.pbtxt"), str(tmp_path / "b.pbtxt")]) == 0
    out = capsys.readouterr().out
    assert "\033[" not in out
    assert "~ y -> z: renamed" in out  # same op, attrs and inputs: a rename, not a removal and an addition


def test_hostile_names_are_escaped(tmp_path, capsys):
    hostile = _graph_text().replace('"y"', '"y\\033[2J\\n::error::x"')
    (tmp_path / "a.pbtxt").write_text(hostile)
    assert main(["show", str(tmp_path / "a.pbtxt")]) == 0
    out = capsys.readouterr().out
    assert "\033[2J" not in out and "\n::error" not in out


def test_stats_json_has_flops_per_graph(tmp_path, capsys):
    (tmp_path / "g.pbtxt").write_text(_graph_text())
    assert main(["stats", "--format", "json", "--batch", "3", str(tmp_path / "g.pbtxt")]) == 0
    document = json.loads(capsys.readouterr().out)
    (graph,) = document["graphs"]
    (cost,) = graph["costs"]
    assert (cost["flops"], cost["batch"], cost["exact"]) == (48, 3, True)  # x [?,4] fed as [3,4]
    assert document["parameters"] == 8 and document["ops"] == {"Const": 1, "MatMul": 1, "Placeholder": 1}
    assert main(["stats", "--batch", "0", str(tmp_path / "g.pbtxt")]) == 2


def test_stats_of_a_saved_model_per_signature(capsys):
    assert main(["stats", "--format", "json", "--batch", "2", str(PAIRS / "retrained" / "old")]) == 0
    document = json.loads(capsys.readouterr().out)
    (cost,) = document["graphs"][0]["costs"]
    assert (cost["signature"], cost["flops"], cost["exact"]) == ("serving_default", 808, True)
    assert document["parameters"] == 212 and document["parameter_bytes"] == {"float": 848}


# -- git -----------------------------------------------------------------------------------------

pytestmark_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def _git_env(home: Path) -> dict[str, str]:
    env = dict(os.environ, HOME=str(home), GIT_CONFIG_NOSYSTEM="1", GIT_PAGER="cat", PAGER="cat")
    env.update(GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.com", GIT_COMMITTER_NAME="t")
    env.update(GIT_COMMITTER_EMAIL="t@example.com")
    return env


def _git(cwd: Path, env: dict[str, str], *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytestmark_git
def test_git_diff_shows_the_rendering_of_a_changed_pb(tmp_path, monkeypatch):
    env = _git_env(tmp_path / "home")
    (tmp_path / "home").mkdir()
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, env, "init", "-q")
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    # The driver runs this interpreter's tflint (the installed `tflint` script may be another one).
    done = setup(str(repo), command=f"{sys.executable} -m tflint show --textconv")
    assert any(".gitattributes" in line for line in done)
    assert "*.pb diff=tflint" in (repo / ".gitattributes").read_text()
    (repo / "model.pb").write_bytes(_binary(_graph_text()))
    _git(repo, env, "add", "-A")
    _git(repo, env, "commit", "-q", "-m", "model")
    (repo / "model.pb").write_bytes(_binary(_graph_text().replace('"y"', '"logits"')))
    diff = _git(repo, env, "diff")
    assert "Binary files" not in diff
    assert "-    y = MatMul(x, w)" in diff
    assert "+    logits = MatMul(x, w)" in diff
    _git(repo, env, "commit", "-qam", "rename")
    log = _git(repo, env, "log", "-p", "-1")
    assert "+    logits = MatMul(x, w)" in log
    # tflint diff REV:PATH compares revisions of a path.
    monkeypatch.chdir(repo)
    assert main(["diff", "--format", "json", "HEAD~1:model.pb", "HEAD:model.pb"]) == 0


@pytestmark_git
def test_git_setup_command(tmp_path, monkeypatch, capsys):
    env = _git_env(tmp_path)
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, env, "init", "-q")
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.chdir(repo)
    (repo / ".gitattributes").write_text("*.png binary")  # kept, and a newline added before ours
    assert main(["git-setup"]) == 0
    assert (repo / ".gitattributes").read_text().splitlines() == [
        "*.png binary",
        "*.pb diff=tflint",
        "*.pbtxt diff=tflint",
        "*.meta diff=tflint",
    ]
    assert _git(repo, env, "config", "diff.tflint.textconv").strip() == "tflint show --textconv"
    assert main(["git-setup"]) == 0  # twice: nothing added twice
    assert (repo / ".gitattributes").read_text().count("*.pb diff=tflint") == 1
    monkeypatch.chdir(tmp_path)
    assert main(["git-setup"]) == 2  # not in a repository: one line
    assert "git rev-parse" in capsys.readouterr().err


@pytestmark_git
def test_diff_of_saved_model_revisions(tmp_path, monkeypatch, capsys):
    env = _git_env(tmp_path)
    repo = tmp_path / "repo"
    shutil.copytree(PAIRS / "retrained" / "old", repo / "model")
    _git(repo, env, "init", "-q")
    _git(repo, env, "add", "-A")
    _git(repo, env, "commit", "-qm", "v1")
    shutil.rmtree(repo / "model")
    shutil.copytree(PAIRS / "retrained" / "new", repo / "model")
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.chdir(repo)
    assert main(["diff", "--format", "json", "HEAD:model", "model"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["changed"] and len(document["weights"]["changed"]) == 4
    assert main(["diff", "HEAD:nothing", "model"]) == 2
    assert "no such path" in capsys.readouterr().err


def test_a_graph_that_does_not_parse_is_invalid_graph(tmp_path, capsys):
    (tmp_path / "broken.pbtxt").write_text('node { name: "a" op: \n')
    (tmp_path / "good.pbtxt").write_text(_graph_text())
    assert main(["show", str(tmp_path / "broken.pbtxt")]) == 1
    assert main(["diff", str(tmp_path / "good.pbtxt"), str(tmp_path / "broken.pbtxt")]) == 1
    assert main(["stats", str(tmp_path / "broken.pbtxt")]) == 1
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 3 and all(line.endswith("[invalid-graph]") and "broken.pbtxt:2:" in line for line in err)


def test_a_revision_is_never_a_git_option(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["diff", "--output=x:model.pb", "HEAD:model.pb"]) == 2  # an unknown option of tflint diff
    assert main(["diff", "--", "--output=x:model.pb", "HEAD:model.pb"]) == 2
    assert "cannot start with '-'" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()


def test_show_reads_standard_input(monkeypatch, capsys):
    """`git show HEAD~1:model.pb | tflint show -`."""
    import io

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(_binary(_graph_text()))))
    assert main(["show", "-"]) == 0
    assert "y = MatMul(x, w)" in capsys.readouterr().out
