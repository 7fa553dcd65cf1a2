"""tflint's typed API: the package and a consumer (docs/examples/typed_consumer.py) pass `mypy --strict`."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from conftest import REPO

CONSUMER = REPO / "docs" / "examples" / "typed_consumer.py"


@pytest.fixture(scope="module")
def package_tree(tmp_path_factory):
    """The import package `tflint` as a folder (the repository maps lint/, rules/, protos/ into it)."""
    root = tmp_path_factory.mktemp("typed")
    package = root / "tflint"
    package.mkdir()
    for entry in (REPO / "lint").iterdir():
        if entry.name != "__pycache__":
            (package / entry.name).symlink_to(entry)
    (package / "rules").symlink_to(REPO / "rules")
    (package / "protos").symlink_to(REPO / "protos")
    return root


def mypy(root, *args: str) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "MYPYPATH": str(root)}
    config = str(REPO / "pyproject.toml")  # [tool.mypy]: strict; protobuf, yaml and regex as untyped
    command = [
        sys.executable,
        "-m",
        "mypy",
        "--config-file",
        config,
        "--strict",
        "--cache-dir",
        str(root / ".mypy_cache"),
    ]
    command += args
    return subprocess.run(command, cwd=root, env=environment, capture_output=True, text=True, timeout=600)


def test_the_package_ships_its_type_marker():
    assert (REPO / "lint" / "py.typed").is_file()
    assert '"tflint" = ["py.typed"]' in (REPO / "pyproject.toml").read_text()


def test_the_package_type_checks_strictly(package_tree):
    result = mypy(package_tree, "-p", "tflint")
    assert result.returncode == 0, result.stdout + result.stderr


def test_a_consumer_type_checks_strictly(package_tree):
    # tflint's own modules are checked by the test above; here only what a consumer sees counts.
    result = mypy(package_tree, "--follow-imports=silent", str(CONSUMER))
    assert result.returncode == 0, result.stdout + result.stderr


def test_a_consumer_mistake_is_caught(package_tree, tmp_path):
    wrong = tmp_path / "wrong.py"
    wrong.write_text("import tflint\n\nreport: tflint.Report = tflint.lint_file(3)\nn: str = report.findings\n")
    result = mypy(package_tree, "--follow-imports=silent", str(wrong))
    assert result.returncode == 1
    assert 'Argument 1 to "lint_file" has incompatible type "int"' in result.stdout
    assert 'Incompatible types in assignment (expression has type "tuple[Finding, ...]"' in result.stdout


def test_type_checkers_read_records_as_dataclasses(package_tree, tmp_path):
    """`@record` carries the dataclass_transform marker: a frozen record refuses assignment to a type checker too,
    and its fields are known (what @dataclass would give static tools, without its start-up cost)."""
    wrong = tmp_path / "frozen.py"
    wrong.write_text(
        "from tflint.finding import Finding, Severity\n\n"
        "finding = Finding('r', Severity.ERROR, 'm', 'f')\n"
        "finding.line = 3\n"
        "count: int = finding.message\n"
    )
    result = mypy(package_tree, "--follow-imports=silent", str(wrong))
    assert result.returncode == 1
    assert 'Property "line" defined in "Finding" is read-only' in result.stdout
    assert 'Incompatible types in assignment (expression has type "str", variable has type "int")' in result.stdout


def test_validate_is_typed_precisely(package_tree, tmp_path):
    # validate() takes a path, a graph message or its bytes: anything else is a type error, not `Any`.
    consumer = tmp_path / "wrong_consumer.py"
    consumer.write_text("import tflint\n\ntflint.validate(42)\ntflint.lint_graph([1, 2])\n")
    result = mypy(package_tree, "--follow-imports=silent", str(consumer))
    assert result.returncode == 1, result.stdout + result.stderr
    assert result.stdout.count('Argument 1 to "validate" has incompatible type "int"') == 1, result.stdout
    assert 'Argument 1 to "lint_graph" has incompatible type "list[int]"' in result.stdout, result.stdout
