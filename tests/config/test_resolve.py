"""Which configuration applies to each path of a run, and the op registry built once per configuration."""

from __future__ import annotations

import pytest

from tflint.config import resolve
from tflint.config.resolve import ConfigCache, validation_config
from tflint.config.settings import default_config
from tflint.finding import Severity
from tflint.tf.imports import import_args


@pytest.fixture
def tree(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / ".tflint.yaml").write_text("fail-on: warning\n")
    for folder in ("a", "b"):
        for name in ("x.pbtxt", "y.pbtxt"):
            (tmp_path / folder / name).write_text("")
    return tmp_path


def test_each_path_gets_its_nearest_config_and_one_registry_per_config(tree, monkeypatch):
    built = []
    real = resolve.registry_for
    monkeypatch.setattr(resolve, "registry_for", lambda config, *args: built.append(config) or real(config, *args))
    configs = ConfigCache(None)
    runs = {name: configs.for_run(str(tree / name)) for name in ("a/x.pbtxt", "a/y.pbtxt", "b/x.pbtxt", "b/y.pbtxt")}
    assert [config.fail_on for config, _ in runs.values()] == [Severity.ERROR] * 2 + [Severity.WARNING] * 2
    assert runs["a/x.pbtxt"][1] is runs["a/y.pbtxt"][1]
    assert runs["b/x.pbtxt"][1] is runs["b/y.pbtxt"][1]
    assert runs["a/x.pbtxt"][1] is not runs["b/x.pbtxt"][1]
    assert len(built) == 2


def test_a_given_config_applies_everywhere_with_the_runs_import_args(tree):
    contract = import_args(return_elements=["x:0"])
    configs = ConfigCache({"fail-on": "info"})
    config, _ = configs.for_run(str(tree / "b" / "x.pbtxt"), contract)
    assert config.fail_on == Severity.INFO
    assert config.import_args is contract


def test_the_excludes_of_a_walk_follow_each_directorys_config(tree):
    (tree / "b" / ".tflint.yaml").write_text("exclude: ['y.pbtxt']\n")
    excludes = ConfigCache(None).excludes()
    assert excludes.excluded(str(tree / "b" / "y.pbtxt"), False)
    assert not excludes.excluded(str(tree / "a" / "y.pbtxt"), False)


def test_validation_makes_an_empty_graph_fail_and_turns_off_inline_suppressions():
    config = validation_config(default_config(), trust_model_config=False)
    assert config.rules["empty-graph"].severity == Severity.ERROR
    assert not config.inline_suppressions.allowed
    assert validation_config(default_config(), trust_model_config=True).inline_suppressions.allowed
