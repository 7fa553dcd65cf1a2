"""read/saved_model: a SavedModel directory's files are read once, at load; the rules read them from the artifact."""

from __future__ import annotations

import shutil

from conftest import DATA, default_config
from savedmodel_files import flip

from tflint.api import registry_for
from tflint.engine.run import lint_artifact
from tflint.read.load import load_path

BASE = DATA / "serving_load" / "bases" / "tf2_module"


def test_the_directory_is_read_at_load_and_the_rules_read_nothing(tmp_path, monkeypatch):
    model = tmp_path / "m"
    shutil.copytree(BASE, model)
    flip(model / "assets.extra" / "tf_serving_warmup_requests", -1)
    artifact = load_path(str(model))
    files = artifact.derived["saved_model_files"]
    assert files.checkpoint is not None and files.checkpoint.problem is None
    assert files.object_graph is not None
    assert files.warmup is not None and files.warmup.problem == "corrupted record at 0"
    assert files.listing.variable_sizes["variables.index"] == (model / "variables" / "variables.index").stat().st_size

    def again(*args, **kwargs):
        raise AssertionError("the directory was read a second time")

    from tflint.read import saved_model

    for name in ("_listing", "read_bundle_index", "read_warmup_file", "read_entry_bytes"):
        monkeypatch.setattr(saved_model, name, again)
    config = default_config()
    findings = lint_artifact(artifact, config, registry_for(config))
    assert [f.rule for f in findings if f.rule.startswith(("checkpoint-", "warmup-"))] == ["warmup-record"]


def test_a_lone_graph_file_has_no_directory_files(tmp_path):
    lone = tmp_path / "model.pb"
    shutil.copy(BASE / "saved_model.pb", lone)
    artifact = load_path(str(lone))
    assert artifact.saved_model_files() is None
