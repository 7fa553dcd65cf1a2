"""Shared helpers: lint inline pbtxt and pin findings as (rule, node, line)."""

from __future__ import annotations

import os
import sys
import textwrap
from pathlib import Path

import pytest

from tflint.api import registry_for
from tflint.config.settings import config_from_mapping, default_config
from tflint.engine.run import lint_artifact
from tflint.read.load import load_bytes
from tflint.records import replace
from tflint.tf import imports

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "tests" / "data"
# Real graphs TensorFlow wrote (a copy of the shared corpus; see its README.md), all valid.
CORPUS = DATA / "corpus"
# External corpora beside the repository: only the `shared` group reads them (`pytest -m shared`),
# which fails at once when they are missing. TFLINT_SHARED points elsewhere (e.g. from a worktree).
SHARED = Path(os.environ.get("TFLINT_SHARED") or REPO.parent / "shared")
WILD = SHARED / "wild"
shared = pytest.mark.shared


def pytest_configure(config: pytest.Config) -> None:
    expression = config.getoption("markexpr") or ""
    if "shared" in expression and "not shared" not in expression and not (WILD / "labels.jsonl").is_file():
        raise pytest.UsageError(f"the shared test group needs {WILD} (set TFLINT_SHARED to the folder holding wild/)")


@pytest.fixture(autouse=True)
def _only_the_tests_own_plugins(monkeypatch):
    """Plugin discovery sees only the site folders a test makes, not this environment's site-packages.

    A plugin installed where the suite runs (`pip install ./examples/tflint-plugin-example`) must
    not change what other tests find (the installed plugins a message lists, a did-you-mean).
    """
    import site
    import sysconfig
    from importlib import metadata

    environment = {
        os.path.realpath(folder)
        for folder in [*site.getsitepackages(), site.getusersitepackages(), *sysconfig.get_paths().values()]
    }
    distributions = metadata.distributions

    def outside_the_environment(**kwargs):
        path = [entry for entry in kwargs.pop("path", sys.path) if os.path.realpath(entry) not in environment]
        return distributions(path=path, **kwargs)

    monkeypatch.setattr(metadata, "distributions", outside_the_environment)


def lint_text(
    pbtxt: str,
    config: dict | None = None,
    *,
    name: str = "graph.pbtxt",
    input_type: str | None = None,
    import_args: dict | None = None,
):
    """Lint inline text (dedented) and return the sorted findings (`import_args`: as tflint.lint_file's)."""
    resolved = config_from_mapping(config) if config is not None else default_config()
    if import_args is not None:
        resolved = replace(resolved, import_args=imports.import_args(**import_args))
    artifact = load_bytes(textwrap.dedent(pbtxt).encode("utf-8"), name, input_type)
    return lint_artifact(artifact, resolved, registry_for(resolved))


def lint_bytes(data: bytes, config: dict | None = None, *, name: str = "graph.pb", input_type: str | None = None):
    """Lint serialized bytes and return the sorted findings."""
    resolved = config_from_mapping(config) if config is not None else default_config()
    return lint_artifact(load_bytes(data, name, input_type), resolved, registry_for(resolved))


def compat_text(old: str, new: str, config: dict | None = None):
    """Compare two inline MetaGraphDef/SavedModel texts (dedented) as versions 1 and 2; the sorted findings."""
    from tflint.engine.compat import compare_versions
    from tflint.read.interface import ModelVersion

    resolved = config_from_mapping(config) if config is not None else default_config()
    versions = [
        ModelVersion(name, f"version {number}", load_bytes(textwrap.dedent(text).encode("utf-8"), name))
        for number, (name, text) in enumerate((("1.pbtxt", old), ("2.pbtxt", new)), start=1)
    ]
    return compare_versions(versions[0], versions[1], resolved, registry_for(resolved))


def pinned(findings, rule: str | None = None):
    """Findings as (rule, node, line) triples, optionally of one rule only."""
    return [(f.rule, f.node, f.line) for f in findings if rule is None or f.rule == rule]


def require(path: Path) -> Path:
    """`path`, which the test needs: a missing file fails the test (never a silent skip)."""
    if not path.exists():
        pytest.fail(f"{path} is missing")
    return path
