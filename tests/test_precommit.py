"""The pre-commit hook end to end: this checkout as a hook repository, the real pre-commit, real commits.

pre-commit builds the hook's virtualenv by pip-installing the hook repository,
so this test needs PyPI (for protobuf, pyyaml, regex); without it, it is
skipped with the reason, never failed.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import DATA, REPO

# What `pip install .` needs from this checkout (tests, tools and benchmarks are left out to stay quick).
PACKAGE_FILES = ("pyproject.toml", "README.md", "LICENSE", ".pre-commit-hooks.yaml")
PACKAGE_DIRS = ("lint", "rules", "protos")
# pip's words when the index cannot be reached: a reason to skip, not a failure.
OFFLINE_SIGNS = (
    "Could not find a version",
    "No matching distribution",
    "NewConnectionError",
    "Network is unreachable",
    "Temporary failure in name resolution",
    "ProxyError",
)

GOOD = 'node {\n  name: "a"\n  op: "NoOp"\n}\n'
BROKEN = 'node {\n  name: "a"\n  op: "NoOp"\n}\nnode {\n  name: "b"\n  op: "NoOp"\n  input: "^missing"\n}\n'

pytestmark = [
    pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed"),
    pytest.mark.skipif(
        importlib.util.find_spec("pre_commit") is None, reason="pre-commit is not installed (pip install pre-commit)"
    ),
]


def _run(command: list[str], cwd: Path, env: dict[str, str], timeout: float = 180) -> subprocess.CompletedProcess:
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


def _git(cwd: Path, env: dict[str, str], *args: str) -> str:
    result = _run(["git", *args], cwd, env)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def _hook_repository(target: Path, env: dict[str, str]) -> str:
    """Copy the package sources of this checkout (committed or not) into a fresh repository; return its HEAD."""
    target.mkdir()
    for name in PACKAGE_FILES:
        shutil.copy2(REPO / name, target / name)
    for name in PACKAGE_DIRS:
        shutil.copytree(REPO / name, target / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    _git(target, env, "init", "-q")
    _git(target, env, "add", "-A")
    _git(target, env, "commit", "-q", "-m", "hook repository")
    return _git(target, env, "rev-parse", "HEAD")


@pytest.fixture(scope="module")
def pre_commit_home(tmp_path_factory):
    """One pre-commit store for the module: the hook's virtualenv (a pip install of it) is built once."""
    return tmp_path_factory.mktemp("pre-commit-home")


@pytest.fixture(scope="module")
def hook(tmp_path_factory, pre_commit_home):
    """This checkout as a hook repository, shared by the module's tests: (its path, its HEAD)."""
    target = tmp_path_factory.mktemp("hook-repository") / "hook"
    return target, _hook_repository(target, _environment(pre_commit_home))


@pytest.fixture
def env(pre_commit_home):
    return _environment(pre_commit_home)


def _environment(pre_commit_home: Path) -> dict[str, str]:
    environment = {key: value for key, value in os.environ.items() if not key.startswith(("GIT_", "PRE_COMMIT"))}
    environment.update(
        PRE_COMMIT_HOME=str(pre_commit_home),
        GIT_AUTHOR_NAME="tflint test",
        GIT_AUTHOR_EMAIL="test@example.invalid",
        GIT_COMMITTER_NAME="tflint test",
        GIT_COMMITTER_EMAIL="test@example.invalid",
        GIT_CONFIG_NOSYSTEM="1",
        GIT_CONFIG_GLOBAL=os.devnull,
        PIP_DISABLE_PIP_VERSION_CHECK="1",
    )
    return environment


def _project(tmp_path: Path, env: dict[str, str], hook: tuple[Path, str]) -> Path:
    """A git repository whose pre-commit config runs this checkout's hook, installed (skips without PyPI)."""
    hook_path, rev = hook
    project = tmp_path / "project"
    project.mkdir()
    _git(project, env, "init", "-q")
    (project / ".pre-commit-config.yaml").write_text(
        f"repos:\n- repo: {hook_path}\n  rev: {rev}\n  hooks:\n  - id: tflint\n"
    )
    (project / "notes.txt").write_text("not a graph: the hook must not look at it\n")
    _git(project, env, "add", "-A")
    _git(project, env, "commit", "-q", "--no-verify", "-m", "config")
    pre_commit = [sys.executable, "-m", "pre_commit"]
    installed = _run(pre_commit + ["install"], project, env)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    hooks = _run(pre_commit + ["install-hooks"], project, env)
    if hooks.returncode != 0:
        log = hooks.stdout + hooks.stderr
        log_file = Path(env["PRE_COMMIT_HOME"]) / "pre-commit.log"
        if log_file.exists():
            log += log_file.read_text()
        if any(sign in log for sign in OFFLINE_SIGNS):
            pytest.skip("pre-commit could not install the hook: PyPI is not reachable")
        pytest.fail(f"pre-commit install-hooks failed:\n{log}")
    return project


def test_hook_blocks_a_commit_with_a_broken_graph_and_lets_a_good_one_through(tmp_path, env, hook):
    project = _project(tmp_path, env, hook)
    models = project / "models"
    models.mkdir()
    (models / "broken.pbtxt").write_text(BROKEN)
    _git(project, env, "add", "-A")
    rejected = _run(["git", "commit", "-m", "add a broken graph"], project, env)
    output = rejected.stdout + rejected.stderr
    assert rejected.returncode != 0, output
    assert "tflint (TensorFlow graphs)" in output and "Failed" in output
    assert (
        "models/broken.pbtxt:6:3: error: Node 'b' has control input '^missing' but no node is named 'missing' [unresolved-input]"
        in output
    )
    assert _git(project, env, "rev-list", "--count", "HEAD") == "1"  # the commit did not happen

    (models / "broken.pbtxt").write_text(GOOD)
    _git(project, env, "add", "-A")
    accepted = _run(["git", "commit", "-m", "fix the graph"], project, env)
    output = accepted.stdout + accepted.stderr
    assert accepted.returncode == 0, output
    assert "tflint (TensorFlow graphs)" in output and "Passed" in output
    assert _git(project, env, "rev-list", "--count", "HEAD") == "2"


def test_compat_hook_blocks_a_version_that_breaks_clients_of_the_previous_one(tmp_path, env, hook):
    hook_path, rev = hook
    project = tmp_path / "project"
    project.mkdir()
    _git(project, env, "init", "-q")
    (project / ".pre-commit-config.yaml").write_text(
        f"repos:\n- repo: {hook_path}\n  rev: {rev}\n  hooks:\n  - id: tflint-compat\n"
    )
    pairs = REPO / "tests" / "data" / "compat" / "batch_fixed"
    shutil.copytree(pairs / "1", project / "models" / "resnet" / "1")
    _git(project, env, "add", "-A")
    _git(project, env, "commit", "-q", "--no-verify", "-m", "version 1")
    pre_commit = [sys.executable, "-m", "pre_commit"]
    installed = _run(pre_commit + ["install"], project, env)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    hooks = _run(pre_commit + ["install-hooks"], project, env)
    if hooks.returncode != 0:
        log = hooks.stdout + hooks.stderr
        if any(sign in log for sign in OFFLINE_SIGNS):
            pytest.skip("pre-commit could not install the hook: PyPI is not reachable")
        pytest.fail(f"pre-commit install-hooks failed:\n{log}")

    shutil.copytree(pairs / "2", project / "models" / "resnet" / "2")  # the batch dimension pinned at 1
    _git(project, env, "add", "-A")
    rejected = _run(["git", "commit", "-m", "version 2"], project, env)
    output = rejected.stdout + rejected.stderr
    assert rejected.returncode != 0, output
    assert "tflint compat (model versions)" in output and "Failed" in output
    assert (
        "models/resnet/2/saved_model.pb: error: serving_default input 'image': shape [-1,8,8,3] in version 1" in output
    )

    shutil.rmtree(project / "models" / "resnet" / "2")
    shutil.copytree(pairs / "1", project / "models" / "resnet" / "2")  # the same interface again
    _git(project, env, "add", "-A")
    accepted = _run(["git", "commit", "-m", "version 2, compatible"], project, env)
    output = accepted.stdout + accepted.stderr
    assert accepted.returncode == 0, output
    assert "tflint compat (model versions)" in output and "Passed" in output


def test_hook_in_an_ml_repository_with_a_saved_model_and_other_protobufs(tmp_path, env, hook):
    project = _project(tmp_path, env, hook)
    export = project / "models" / "export" / "1"
    shutil.copytree(DATA / "real" / "savedmodel_dirs" / "tf2_module_signatures", export)  # TF 2.21: fingerprint.pb
    for name in ("label_map.pbtxt", "hand_tracking_desktop.pbtxt", "config.pbtxt", "keras_metadata.pb"):
        shutil.copy(DATA / "nongraphs" / name, project / "models" / name)
    (project / "build").mkdir()
    (project / "build" / "broken.pbtxt").write_text(BROKEN)  # excluded by default, even when passed by name
    (project / "third_party").mkdir()
    (project / "third_party" / "broken.pbtxt").write_text(BROKEN)
    (project / ".tflint.yaml").write_text("extend-exclude: [third_party/]\n")
    _git(project, env, "add", "-A")
    _git(project, env, "commit", "-q", "--no-verify", "-m", "a model")
    pre_commit = [sys.executable, "-m", "pre_commit"]

    passed = _run(pre_commit + ["run", "--all-files"], project, env)
    output = passed.stdout + passed.stderr
    assert passed.returncode == 0, output
    assert "tflint (TensorFlow graphs)" in output and "Passed" in output

    _git(project, env, "rm", "-q", "-r", "models/export/1/variables")
    failed = _run(pre_commit + ["run", "--all-files"], project, env)
    output = failed.stdout + failed.stderr
    assert failed.returncode != 0, output
    assert "models/export/1/saved_model.pb: error: The SavedModel restores variables" in output
    assert output.count("[missing-variables]") == 1  # saved_model.pb and fingerprint.pb: one SavedModel, once
