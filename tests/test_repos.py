"""tflint in a real repository, through the command line: what it walks, what it skips, what the user selects.

The repository below is what an ML project looks like: graphs beside label
maps and MediaPipe graphs, a TF 2.21 SavedModel (with fingerprint.pb), a
virtualenv, build output, a .gitignore, a bazel-style symlink out of the tree.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from conftest import DATA

from tflint.cli import main

GOOD = 'node {\n  name: "a"\n  op: "NoOp"\n}\n'
BROKEN = 'node {\n  name: "a"\n  op: "NoOp"\n}\nnode {\n  name: "b"\n  op: "NoOp"\n  input: "^missing"\n}\n'
SAVED_MODEL = DATA / "real" / "savedmodel_dirs" / "tf2_module_signatures"  # TF 2.21, with fingerprint.pb
NONGRAPHS = DATA / "nongraphs"
SKIPPED_3 = "3 files skipped: not TensorFlow graphs \u2014 `--show-files` lists them."

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(["--color", "never", "-j", "1", *args])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def _git(repo: Path, *args: str) -> None:
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, env=env)


@pytest.fixture
def repo(tmp_path, monkeypatch):
    """An ML repository; every broken graph in it sits where a walk must not go."""
    root = tmp_path / "repo"
    _write(root / "models" / "good.pbtxt", GOOD)
    shutil.copy(NONGRAPHS / "label_map.pbtxt", _write(root / "models" / "label_map.pbtxt", ""))
    shutil.copy(NONGRAPHS / "hand_tracking_desktop.pbtxt", _write(root / "mediapipe" / "graphs" / "hand.pbtxt", ""))
    shutil.copytree(SAVED_MODEL, root / "models" / "export" / "1")
    # A label map called saved_model.pbtxt at the root: not a SavedModel, so the walk goes on below.
    shutil.copy(NONGRAPHS / "label_map.pbtxt", root / "saved_model.pbtxt")
    _write(root / ".gitignore", "outputs/\n*.tmp.pbtxt\n")
    _write(root / "outputs" / "broken.pbtxt", BROKEN)
    _write(root / "models" / "scratch.tmp.pbtxt", BROKEN)
    _write(root / ".venv" / "lib" / "site-packages" / "tensorflow" / "broken.pbtxt", BROKEN)
    _write(root / "env" / "pyvenv.cfg", "home = /usr/bin\n")  # a virtualenv by any other name
    _write(root / "env" / "lib" / "python3.11" / "site-packages" / "pkg" / "broken.pbtxt", BROKEN)
    _write(root / "build" / "lib" / "broken.pbtxt", BROKEN)
    _write(root / "node_modules" / "pkg" / "broken.pbtxt", BROKEN)
    _write(root / "src" / "__pycache__" / "broken.pbtxt", BROKEN)
    _write(tmp_path / "generated" / "broken.pbtxt", BROKEN)
    (root / "bazel-out").symlink_to(tmp_path / "generated", target_is_directory=True)
    if shutil.which("git"):
        _git(root, "init", "-q")
    else:
        (root / ".git").mkdir()  # a work tree all the same: its .gitignore files are read by tflint
    monkeypatch.chdir(root)
    return root


@needs_git
def test_a_walk_lints_the_graphs_and_skips_everything_else(capsys, repo):
    code, out, err = run(capsys, ".")
    assert (code, err) == (0, "")
    assert out == f"All checks passed (2 files). {SKIPPED_3}\n"


@needs_git
def test_show_files_lists_what_is_linted_and_what_is_skipped(capsys, repo):
    code, out, err = run(capsys, "--show-files", ".")
    assert (code, err) == (0, "")
    shown = [line.split("  (skipped")[0] for line in out.splitlines()]
    assert shown == [  # a directory's files, then its subdirectories
        "./saved_model.pbtxt",
        "./mediapipe/graphs/hand.pbtxt",
        "./models/good.pbtxt",
        "./models/label_map.pbtxt",
        "./models/export/1",
    ]
    skipped = [line for line in out.splitlines() if "(skipped, not a TensorFlow graph: " in line]
    assert [line.split("  ")[0] for line in skipped] == [
        "./saved_model.pbtxt",
        "./mediapipe/graphs/hand.pbtxt",
        "./models/label_map.pbtxt",
    ]
    assert "Object Detection label map (StringIntLabelMap); top-level fields item" in skipped[0]
    assert "MediaPipe CalculatorGraphConfig" in skipped[1]


def _scanned(monkeypatch) -> list[str]:
    """Every directory the walk lists, recorded."""
    seen: list[str] = []
    real_scandir = os.scandir

    def scandir(path="."):
        seen.append(os.fspath(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    return seen


@needs_git
def test_a_walk_never_enters_a_virtualenv_or_what_git_ignores(capsys, repo, monkeypatch):
    scanned = _scanned(monkeypatch)
    assert run(capsys, ".")[0] == 0
    relative = {os.path.relpath(path, repo) for path in scanned}
    assert "env" in relative  # listed once, to see pyvenv.cfg
    assert not any(
        path.startswith(("env/", "outputs", ".venv", "build", "node_modules", "bazel-out")) for path in relative
    )


def test_without_git_the_gitignore_files_are_read(capsys, repo, monkeypatch, tmp_path):
    empty = tmp_path / "no-git-here"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    code, out, _ = run(capsys, ".")
    assert (code, out) == (0, f"All checks passed (2 files). {SKIPPED_3}\n")


@needs_git
def test_no_respect_gitignore_walks_what_git_ignores(capsys, repo):
    code, out, _ = run(capsys, "--no-respect-gitignore", ".")
    assert code == 1
    assert out.count("[unresolved-input]") == 2  # outputs/broken.pbtxt, models/scratch.tmp.pbtxt
    assert "./outputs/broken.pbtxt:6:3:" in out and "./models/scratch.tmp.pbtxt:6:3:" in out


@needs_git
def test_a_directory_git_ignores_is_searched_when_named(capsys, repo):
    _write(repo / "outputs" / "run1" / "good.pbtxt", GOOD)
    _write(repo / "outputs" / "run1" / "scratch.tmp.pbtxt", BROKEN)  # still ignored inside it
    for path in ("outputs", "outputs/run1"):
        code, out, _ = run(capsys, path)
        assert code == (1 if path == "outputs" else 0), out
    code, out, _ = run(capsys, "outputs")
    assert "outputs/broken.pbtxt:6:3:" in out and "scratch" not in out


@needs_git
def test_dot_ignore_files_are_respected_too(capsys, repo):
    _write(repo / "legacy" / "broken.pbtxt", BROKEN)
    assert run(capsys, ".")[0] == 1
    _write(repo / "legacy" / ".ignore", "*.pbtxt\n")
    assert run(capsys, ".")[0] == 0


def test_exclude_and_extend_exclude_on_the_command_line(capsys, repo):
    _write(repo / "legacy" / "broken.pbtxt", BROKEN)
    assert run(capsys, "--extend-exclude", "legacy/", ".")[:2] == (0, f"All checks passed (2 files). {SKIPPED_3}\n")
    # --exclude replaces the defaults: build/, node_modules/ and __pycache__/ are searched again.
    code, out, _ = run(capsys, "--exclude", "legacy,*.tmp.pbtxt,outputs", ".")
    assert code == 1
    found = sorted(line.split(":")[0] for line in out.splitlines() if "[unresolved-input]" in line)
    assert found == ["./build/lib/broken.pbtxt", "./node_modules/pkg/broken.pbtxt", "./src/__pycache__/broken.pbtxt"]


def test_exclude_in_the_config_is_relative_to_it(capsys, repo):
    _write(repo / "legacy" / "broken.pbtxt", BROKEN)
    _write(repo / "outputs" / "broken.pbtxt", GOOD)
    _write(repo / "models" / "scratch.tmp.pbtxt", GOOD)
    _write(repo / ".tflint.yaml", "extend-exclude: [/legacy]\n")
    assert run(capsys, ".")[0] == 0
    assert run(capsys, "models")[0] == 0
    _write(repo / "models" / "legacy" / "broken.pbtxt", BROKEN)  # /legacy is anchored at the config
    code, out, _ = run(capsys, "models")
    assert code == 1 and "models/legacy/broken.pbtxt:6:3:" in out


def test_force_exclude_and_a_walk_agree_outside_the_configs_directory(capsys, repo, tmp_path):
    # A config named with --config lives elsewhere: its unanchored excludes apply by name, to a walk's entries
    # and to the directories above a file named explicitly alike.
    config = _write(tmp_path / "ci" / "tflint.yaml", "extend-exclude: ['generated/']\n")
    outside = tmp_path / "checkout"
    _write(outside / "generated" / "deep" / "broken.pbtxt", BROKEN)
    _write(outside / "good.pbtxt", GOOD)
    code, out, _ = run(capsys, "--config", str(config), str(outside))
    assert (code, out) == (0, "All checks passed (1 file).\n")
    named = str(outside / "generated" / "deep" / "broken.pbtxt")
    code, out, _ = run(capsys, "--config", str(config), "--force-exclude", named, str(outside / "good.pbtxt"))
    assert (code, out) == (0, "All checks passed (1 file).\n")
    code, out, _ = run(capsys, "--config", str(config), named)  # named without --force-exclude: linted
    assert code == 1 and "broken.pbtxt:6:3:" in out


def test_an_explicit_path_is_linted_even_when_excluded_unless_force_exclude(capsys, repo):
    code, out, _ = run(capsys, "build/lib/broken.pbtxt")
    assert code == 1 and "build/lib/broken.pbtxt:6:3:" in out
    code, out, err = run(capsys, "--force-exclude", "build/lib/broken.pbtxt", "models/good.pbtxt")
    assert (code, out, err) == (0, "All checks passed (1 file).\n", "")
    _write(repo / ".tflint.yaml", "extend-exclude: ['legacy_*.pbtxt']\n")
    _write(repo / "models" / "legacy_v1.pbtxt", BROKEN)
    (repo / "empty-dir").mkdir()
    code, out, err = run(capsys, "--force-exclude", "models/legacy_v1.pbtxt")
    assert (code, out) == (0, "No TensorFlow graphs linted.\n")
    assert err == "tflint: warning: excluded by the configuration (--force-exclude): models/legacy_v1.pbtxt\n"
    code, out, err = run(capsys, "--force-exclude", "models/legacy_v1.pbtxt", "empty-dir")
    assert err == (
        "tflint: warning: excluded by the configuration (--force-exclude): models/legacy_v1.pbtxt\n"
        "tflint: warning: No TensorFlow graphs found under empty-dir\n"
    )
    code, out, err = run(capsys, "--force-exclude", "--show-files", "models/legacy_v1.pbtxt")
    assert (code, out) == (0, "")
    assert err == "tflint: warning: excluded by the configuration (--force-exclude): models/legacy_v1.pbtxt\n"


def test_directory_symlinks_are_not_followed(capsys, repo):
    code, out, _ = run(capsys, "--exclude", "nothing", ".")
    assert "bazel-out" not in out and "generated" not in out
    assert run(capsys, "bazel-out")[0] == 1  # named explicitly, it is walked


def test_per_file_ignores(capsys, repo):
    _write(repo / "legacy" / "sub" / "broken.pbtxt", BROKEN)
    _write(repo / ".tflint.yaml", "per-file-ignores:\n  'legacy/**': [unresolved-input]\n")
    assert run(capsys, ".")[0] == 0
    assert run(capsys, "legacy/sub/broken.pbtxt")[0] == 0
    _write(repo / ".tflint.yaml", "per-file-ignores:\n  'legacy/**': [unresolved-inptu]\n")
    code, _, err = run(capsys, ".")
    assert code == 2
    assert "per-file-ignores.legacy/**: unknown rule 'unresolved-inptu' (did you mean 'unresolved-input'?)" in err
    _write(repo / ".tflint.yaml", "per-file-ignores:\n  'legacy/**': [invalid-graph]\n")
    code, _, err = run(capsys, ".")
    assert code == 2 and "invalid-graph cannot be switched off" in err


def test_config_in_pyproject_unless_a_tflint_yaml_is_nearer(capsys, repo):
    _write(repo / "legacy" / "broken.pbtxt", BROKEN)
    _write(repo / "pyproject.toml", '[project]\nname = "x"\n\n[tool.tflint]\nextend-exclude = ["legacy/"]\n')
    assert run(capsys, ".")[0] == 0
    code, out, _ = run(capsys, "--show-settings", "legacy/broken.pbtxt")
    assert code == 0 and f"config: {repo / 'pyproject.toml'}" in out
    _write(repo / "legacy" / ".tflint.yaml", "rules:\n  unresolved-input: warning\n")
    code, out, _ = run(capsys, "legacy/broken.pbtxt")
    assert code == 0 and "warning: Node 'b' has control input" in out
    _write(repo / "pyproject.toml", "[tool.tflint]\nrules = {unresolved-input = 'nope'}\n")
    code, _, err = run(capsys, "models")
    assert code == 2 and "pyproject.toml: rules.unresolved-input: unknown level 'nope'" in err
    _write(repo / "pyproject.toml", "[tool.tflint]\nrules = {\n")
    code, _, err = run(capsys, "models")
    assert code == 2 and "pyproject.toml: invalid TOML" in err


def test_stdin_filename_drives_config_and_per_file_ignores(capsys, repo, monkeypatch):
    _write(repo / ".tflint.yaml", "per-file-ignores:\n  'legacy/**': [unresolved-input]\nextend-exclude: [vendor/]\n")
    for name, code in (("legacy/g.pbtxt", 0), ("models/g.pbtxt", 1)):
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(BROKEN.encode())))
        got, out, _ = run(capsys, "--stdin-filename", name, "-")
        assert got == code, out
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(BROKEN.encode())))
    got, out, _ = run(capsys, "--force-exclude", "--stdin-filename", "vendor/g.pbtxt", "-")
    assert (got, out) == (0, "No TensorFlow graphs linted.\n")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO((NONGRAPHS / "label_map.pbtxt").read_bytes())))
    got, out, _ = run(capsys, "--stdin-filename", "models/label_map.pbtxt", "-")
    assert got == 0 and "1 file skipped: not a TensorFlow graph" in out


@pytest.mark.parametrize(
    "args, code, rules",
    [
        pytest.param([], 1, {"unresolved-input"}, id="default"),
        pytest.param(["--ignore", "unresolved-input"], 0, set(), id="ignore"),
        pytest.param(["--select", "unknown-op,duplicate-node-name"], 0, set(), id="select-others"),
        pytest.param(["--select", "unresolved-input"], 1, {"unresolved-input"}, id="select"),
        pytest.param(
            ["--select", "unknown-op", "--select", "unresolved-input"], 1, {"unresolved-input"}, id="repeated"
        ),
        pytest.param(
            ["--extend-select", "hardcoded-device"], 1, {"unresolved-input", "hardcoded-device"}, id="extend-select"
        ),
        pytest.param(["--select", "unresolved-input", "--ignore", "unresolved-input"], 0, set(), id="ignore-wins"),
    ],
)
def test_select_extend_select_ignore(capsys, repo, args, code, rules):
    _write(repo / "g.pbtxt", BROKEN.replace('op: "NoOp"\n}', 'op: "NoOp"\n  device: "/device:GPU:0"\n}', 1))
    got, out, _ = run(capsys, "--format", "json", *args, "g.pbtxt")
    assert got == code
    assert {finding["rule"] for finding in json.loads(out)} == rules


@pytest.mark.parametrize(
    "args, message",
    [
        (
            ["--select", "unresolved-inptu"],
            "--select: unknown rule 'unresolved-inptu' (did you mean 'unresolved-input'?)",
        ),
        (["--extend-select", "dead-nod"], "--extend-select: unknown rule 'dead-nod' (did you mean 'dead-node'?)"),
        (["--ignore", "invalid-graph"], "--ignore: invalid-graph cannot be switched off"),
        (["--preset", "servin"], "--preset: unknown preset 'servin' (did you mean 'serving'?)"),
    ],
)
def test_unknown_rules_and_presets_are_usage_errors(capsys, repo, args, message):
    code, out, err = run(capsys, *args, "models/good.pbtxt")
    assert (code, out) == (2, "")
    assert err.startswith(f"tflint: error: {message}")


def test_select_never_hides_a_file_that_does_not_parse(capsys, repo):
    _write(repo / "g.pbtxt", 'node { name: "a" op: "NoOp"\n')
    code, out, _ = run(capsys, "--select", "unknown-op", "g.pbtxt")
    assert code == 1 and "[invalid-graph]" in out


def test_preset_on_the_command_line_is_extends(capsys, repo):
    _write(repo / "g.pbtxt", 'node { name: "a" op: "NoOp" device: "/device:GPU:0" }\n')
    assert run(capsys, "g.pbtxt")[:2] == (0, "All checks passed (1 file).\n")
    code, out, _ = run(capsys, "--preset", "serving", "g.pbtxt")
    assert "g.pbtxt:1:8: warning: " in out and "[hardcoded-device]" in out
    # The preset places as TF Serving does, without soft placement: a CPU server cannot run the pin.
    assert code == 1 and "g.pbtxt:1:8: error: " in out and "[missing-kernel]" in out
    code, out, _ = run(capsys, "--preset", "serving", "--show-settings", "g.pbtxt")
    assert code == 0 and "  unsafe-op:\n    level: error\n" in out and "  dead-node: info\n" in out


def test_show_settings(capsys, repo):
    _write(repo / ".tflint.yaml", "rules:\n  unknown-attr: warning\nper-file-ignores:\n  'models/*': [unknown-op]\n")
    code, out, err = run(capsys, "--show-settings", "models/good.pbtxt", "--ignore", "cycle")
    assert (code, err) == (0, "")
    assert out.startswith("file: models/good.pbtxt\n")
    assert f"config: {repo / '.tflint.yaml'}\n" in out
    for line in ("  unknown-attr: warning\n", "  unknown-op: 'off'\n", "  cycle: 'off'\n", "- build/\n"):
        assert line in out
    code, out, _ = run(capsys, "--show-settings", "other.pbtxt")
    assert "  unknown-op: error\n" in out  # per-file-ignores apply to the models/ files only


def test_show_settings_names_the_interface_that_applies(capsys, repo):
    _write(
        repo / ".tflint.yaml",
        "uncalled-functions: error\ntarget-tf: ['2.4']\ninterface:\n  'models/*.pbtxt':\n"
        "    inputs: {'input:0': {dtype: float32, shape: [null, 3]}}\n    outputs: [softmax]\n",
    )
    code, out, _ = run(capsys, "--show-settings", "models/good.pbtxt")
    assert code == 0
    shown = yaml.safe_load(out)
    assert shown["interface"] == {
        f"models/*.pbtxt  (in {repo})": {
            "inputs": {"input:0": {"dtype": "float", "shape": [None, 3]}},
            "outputs": {"softmax": {}},
        }
    }
    assert (shown["uncalled-functions"], shown["target-tf"]) == ("error", ["2.4"])
    assert yaml.safe_load(run(capsys, "--show-settings", "models/sub/good.pbtxt")[1])["interface"] == {}


def test_a_lone_saved_model_pb_is_its_saved_model_directory_once(capsys, repo):
    export = "models/export/1"
    args = [f"{export}/saved_model.pb", f"{export}/fingerprint.pb", export, f"{export}/saved_model.pb"]
    code, out, _ = run(capsys, *args)
    assert (code, out) == (
        0,
        "All checks passed (1 file). 1 file skipped: not a TensorFlow graph \u2014 `--show-files` lists them.\n",
    )
    shutil.rmtree(repo / export / "variables")
    code, out, _ = run(capsys, f"{export}/saved_model.pb", f"{export}/fingerprint.pb")
    assert code == 1
    assert f"{export}/saved_model.pb" in out and "variables/ does not exist" in out and out.count("[missing-variables]") == 1


def test_a_chunked_saved_model_is_not_supported_yet(capsys, repo):
    chunked = repo / "models" / "big"
    chunked.mkdir()
    shutil.copy(NONGRAPHS / "saved_model.cpb", chunked / "saved_model.cpb")
    code, out, _ = run(capsys, "models/big")
    assert code == 0
    assert "models/big/saved_model.cpb: warning: a chunked SavedModel (saved_model.cpb" in out
    assert "[unsupported-format]" in out
    assert run(capsys, "--fail-on", "warning", "models/big")[0] == 1
    assert run(capsys, "--fail-on", "warning", "models/big/saved_model.cpb")[0] == 1


def test_a_strict_user_makes_a_non_graph_fail(capsys, repo):
    _write(repo / ".tflint.yaml", "rules:\n  not-a-graph: error\n")
    code, out, _ = run(capsys, "models")
    assert code == 1
    assert (
        "models/label_map.pbtxt:1:1: error: not a TensorFlow graph: Object Detection label map (StringIntLabelMap);"
        " not linted [not-a-graph]" in out
    )
    assert "[not-a-graph]" in out and "skipped: not a TensorFlow graph" in out


def test_skipped_files_in_json_and_sarif(capsys, repo):
    code, out, _ = run(capsys, "--format", "json", "models")
    assert code == 0
    (record,) = json.loads(out)
    assert (record["rule"], record["severity"], record["file"]) == ("not-a-graph", "info", "models/label_map.pbtxt")
    code, out, _ = run(capsys, "--format", "sarif", "models")
    (sarif_run,) = json.loads(out)["runs"]
    assert sarif_run["results"] == []  # no code-scanning alert for a label map
    (note,) = sarif_run["invocations"][0]["toolExecutionNotifications"]
    assert note["descriptor"] == {"id": "not-a-graph"} and note["level"] == "note"
    assert note["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "models/label_map.pbtxt"
    code, out, _ = run(capsys, "--format", "junit", "models")
    assert '<testsuite name="models/label_map.pbtxt" tests="1" failures="0" errors="0" skipped="1">' in out
    assert '<skipped message="not a TensorFlow graph"/>' in out
    code, out, _ = run(capsys, "--format", "github", "models")
    assert "label_map" not in out.split("::notice")[0]  # no annotation per skipped file
    assert "1 file skipped: not a TensorFlow graph" in out


def test_nothing_to_lint_says_so(capsys, repo, tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    code, out, err = run(capsys, str(empty))
    assert (code, out) == (0, "No TensorFlow graphs linted.\n")
    assert err == f"tflint: warning: No TensorFlow graphs found under {empty}\n"
    code, out, err = run(capsys, "models/label_map.pbtxt")
    assert code == 0 and out.startswith("No TensorFlow graphs linted. 1 file skipped")
    assert "No TensorFlow graphs found under models/label_map.pbtxt" in err
    code, out, err = run(capsys, "models/absent.pb")
    assert (code, out, err) == (2, "", "tflint: error: models/absent.pb: no such file or directory\n")


@needs_git
def test_a_repositorys_git_config_runs_no_command(capsys, repo, tmp_path):
    # git ls-files would run core.fsmonitor, which the repository's own .git/config can set.
    marker = tmp_path / "fsmonitor-ran"
    _git(repo, "config", "core.fsmonitor", f"touch {marker}; true")
    assert run(capsys, ".")[0] == 0
    assert not marker.exists()


def test_a_baseline_records_no_skipped_file(capsys, repo):
    code, _, err = run(capsys, "--write-baseline", "baseline.json", "models")
    assert code == 0 and "0 findings recorded" in err
    assert json.loads((repo / "baseline.json").read_text())["files"] == {}
    assert run(capsys, "--baseline", "baseline.json", "models")[:2] == (
        0,
        "All checks passed (2 files). 1 file skipped: not a TensorFlow graph \u2014 `--show-files` lists them.\n",
    )
