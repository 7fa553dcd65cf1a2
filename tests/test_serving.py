"""`tflint.validate` before serving, and the `serving` preset: real SavedModels pass, broken copies raise.

The broken variants mirror what was checked with TensorFlow 2.21 on the same
kinds of models (see each rule's tests): a removed variables/ directory or
asset file, or a signature retargeted to a missing tensor, makes
`tf.saved_model.load` / `tf.compat.v1.saved_model.load` (or the first run of
the signature) fail; a SavedModel retagged `train` cannot be loaded with
`serve`.
"""

from __future__ import annotations

import shutil

import pytest
from conftest import DATA, WILD, require, shared
from serving_graphs import (
    REAL_DIRS,
    SERVING,
    copy_model,
    edit_saved_model,
    meta,
    node,
    placeholder,
    saved_model,
    signature,
    tensor,
)

import tflint
from tflint import protos
from tflint.config.serving_preset import looks_like_saved_model, with_serving_preset
from tflint.config.settings import config_from_mapping, load_config, preset_names

SERVING_RULES = {
    "signature-unresolved",
    "signature-dtype",
    "signature-shape",
    "missing-serving-tags",
    "missing-asset",
    "missing-variables",
    "unsafe-op",
    "training-op-in-serving",
    "dead-node",
    "hardcoded-device",
    "large-constant",
    "non-finite-constant",
    "import-contract",
    "interface-mismatch",
    "checkpoint-index",
    "checkpoint-key-missing",
    "checkpoint-mismatch",
    "checkpoint-shard",
    "checkpoint-checksum",
    "checkpoint-unused",
    "warmup-record",
    "warmup-request",
}
GOOD = [SERVING / "tf1_legacy_init_op", SERVING / "tf2_module_signatures", SERVING / "tf2_keras_export"] + sorted(
    REAL_DIRS.glob("*")
)


def test_serving_rules_form_the_serving_category():
    from tflint.rules import RULES

    assert {rule_id for rule_id, module in RULES.items() if module.CATEGORY == "serving"} == SERVING_RULES


def test_preset_is_shipped_and_turns_on_the_policy_rules():
    assert "serving" in preset_names()
    preset = config_from_mapping({"extends": "serving"})
    levels = {rule_id: str(preset.rules[rule_id].severity) for rule_id in SERVING_RULES}
    assert levels == {
        "signature-unresolved": "error",
        "signature-dtype": "error",
        "signature-shape": "warning",
        "missing-serving-tags": "error",
        "missing-asset": "error",
        "missing-variables": "error",
        "unsafe-op": "error",
        "training-op-in-serving": "warning",
        "hardcoded-device": "warning",
        "non-finite-constant": "warning",
        "dead-node": "info",
        "large-constant": "info",
        "import-contract": "error",
        "interface-mismatch": "error",
        "checkpoint-index": "error",
        "checkpoint-key-missing": "error",
        "checkpoint-mismatch": "error",
        "checkpoint-shard": "error",
        "checkpoint-checksum": "off",
        "checkpoint-unused": "warning",
        "warmup-record": "error",
        "warmup-request": "error",
    }
    # signature-dtype keeps its per-finding levels (outputs are warnings) under the preset.
    assert not preset.rules["signature-dtype"].level_set


@pytest.mark.parametrize("model", GOOD, ids=lambda p: p.name)
def test_validate_returns_quietly_on_real_saved_models(model):
    report = tflint.validate(require(model))
    assert report.ok
    assert [f for f in report.findings if f.severity >= tflint.Severity.WARNING] == []


def _variants():
    def no_variables(model):
        shutil.rmtree(model / "variables")

    def no_asset(model):
        (model / "assets" / "vocab.txt").unlink()

    def retarget(model):
        edit_saved_model(
            model,
            lambda saved: setattr(saved.meta_graphs[0].signature_def["serving_default"].outputs["y"], "name", "nope:0"),
        )

    def retag(model):
        def change(saved):
            del saved.meta_graphs[0].meta_info_def.tags[:]
            saved.meta_graphs[0].meta_info_def.tags.append("train")

        edit_saved_model(model, change)

    def read_file(model):
        def change(saved):
            graph = saved.meta_graphs[0].graph_def
            graph.node.add(name="leak", op="ReadFile", input=["words"])
            saved.meta_graphs[0].signature_def["serving_default"].outputs["leak"].name = "leak:0"
            saved.meta_graphs[0].signature_def["serving_default"].outputs["leak"].dtype = 7

        edit_saved_model(model, change)

    yield pytest.param(no_variables, "missing-variables", "serve", id="no-variables")
    yield pytest.param(no_asset, "missing-asset", "serve", id="no-asset")
    yield pytest.param(retarget, "signature-unresolved", "serve", id="missing-tensor")
    yield pytest.param(retag, "missing-serving-tags", "train", id="tags-train")
    yield pytest.param(read_file, "unsafe-op", "serve", id="readfile")


@pytest.mark.parametrize("break_it, rule, tags", list(_variants()))
def test_validate_raises_on_broken_copies(break_it, rule, tags, tmp_path):
    model = copy_model(require(SERVING / "tf1_legacy_init_op"), tmp_path)
    break_it(model)
    with pytest.raises(tflint.GraphValidationError) as raised:
        tflint.validate(model)
    assert [f.rule for f in raised.value.findings] == [rule]
    assert f"[{rule}]" in str(raised.value)
    assert raised.value.findings[0].graph == f"meta graph [{tags}]"


def test_validate_serving_false_skips_the_policy_rules(tmp_path):
    model = copy_model(require(SERVING / "tf1_legacy_init_op"), tmp_path)
    edit_saved_model(model, lambda saved: saved.meta_graphs[0].meta_info_def.tags.append("gpu"))
    with pytest.raises(tflint.GraphValidationError):
        tflint.validate(model)
    assert tflint.validate(model, serving=False).ok
    # The structural serving rules are on in every run.
    shutil.rmtree(model / "variables")
    with pytest.raises(tflint.GraphValidationError, match="missing-variables"):
        tflint.validate(model, serving=False)


def test_configuration_wins_over_the_preset(tmp_path):
    model = copy_model(require(SERVING / "tf1_legacy_init_op"), tmp_path)
    edit_saved_model(model, lambda saved: saved.meta_graphs[0].meta_info_def.tags.append("gpu"))
    assert tflint.validate(model, config={"rules": {"missing-serving-tags": {"tags": ["serve", "gpu"]}}}).ok
    assert tflint.validate(model, config={"rules": {"missing-serving-tags": "off"}}).ok
    (tmp_path / ".tflint.yaml").write_text("rules:\n  missing-serving-tags: warning\n")
    with pytest.raises(tflint.GraphValidationError):  # a config found beside the model is not trusted
        tflint.validate(model)
    report = tflint.validate(model, trust_model_config=True)
    assert [(f.rule, str(f.severity)) for f in report.findings] == [("missing-serving-tags", "warning")]


def test_with_serving_preset_keeps_configured_rules():
    user = config_from_mapping(
        {"rules": {"unsafe-op": {"level": "warning", "extra-ops": ["MyOp"]}, "dead-node": "off"}}
    )
    layered = with_serving_preset(user)
    assert (
        str(layered.rules["unsafe-op"].severity) == "warning"
        and "MyOp" in layered.rules["unsafe-op"].options["extra-ops"]
    )
    assert str(layered.rules["dead-node"].severity) == "off"
    assert str(layered.rules["hardcoded-device"].severity) == "warning"
    assert layered.rules["unknown-op"] == user.rules["unknown-op"]


def test_validate_in_memory_saved_model_message():
    text = saved_model(
        meta(
            placeholder("x", "DT_STRING"),
            node("leak", "ReadFile", "x"),
            tags=["serve"],
            signatures=[signature("serving_default", tensor("outputs", "y", "leak:0", "DT_STRING"))],
        )
    )
    from google.protobuf import text_format

    message = text_format.Parse(text, protos.SavedModel(), descriptor_pool=protos.POOL)
    with pytest.raises(tflint.GraphValidationError, match="unsafe-op"):
        tflint.validate(message)
    with pytest.raises(tflint.GraphValidationError, match="unsafe-op"):
        tflint.validate(message.SerializeToString())
    # The same graph as a plain GraphDef is not a SavedModel: the preset is not applied.
    assert tflint.validate(message.meta_graphs[0].graph_def).ok


def test_graphdefs_do_not_get_the_preset_unless_asked(tmp_path):
    path = require(DATA / "real" / "tf1_py_func.pb")
    assert tflint.validate(path).ok
    with pytest.raises(tflint.GraphValidationError, match="unsafe-op"):
        tflint.validate(path, serving=True)


@pytest.mark.parametrize(
    "path, expected",
    [
        (SERVING / "tf2_keras_export", True),
        (SERVING / "tf2_keras_export" / "saved_model.pb", True),
        (DATA / "real" / "tf2_module_signatures.saved_model.pbtxt", True),
        (DATA / "real" / "tf2_keras_functional.saved_model.pb", True),
        (DATA / "real" / "tf1_lookup_tables.meta", False),
        (DATA / "real" / "tf1_lookup_tables.meta.pbtxt", False),
        (DATA / "real" / "tf2_frozen_keras.pb", False),
        (DATA / "real" / "tf2_frozen_keras.pbtxt", False),
        (DATA / "real", False),
    ],
)
def test_looks_like_saved_model(path, expected):
    assert looks_like_saved_model(require(path)) is expected
    assert looks_like_saved_model(str(path)) is expected


def test_extends_serving_in_a_config_file(tmp_path):
    model = copy_model(require(SERVING / "tf1_legacy_init_op"), tmp_path)
    (tmp_path / ".tflint.yaml").write_text(
        "extends: serving\nrules:\n  missing-serving-tags:\n    tags: [serve, gpu]\n"
    )
    config = load_config(tmp_path / ".tflint.yaml")
    assert str(config.rules["unsafe-op"].severity) == "error"
    report = tflint.lint_file(model)
    assert [(f.rule, f.message) for f in report.findings if f.rule == "missing-serving-tags"] == [
        (
            "missing-serving-tags",
            "No meta graph has the tag set { gpu, serve } a model server loads; the SavedModel has { serve }",
        ),
    ]


def test_cli_reports_serving_findings_with_meta_graph_and_signature(tmp_path, capsys):
    from tflint.cli import main

    model = copy_model(require(SERVING / "tf2_module_signatures"), tmp_path)
    edit_saved_model(
        model, lambda saved: setattr(saved.meta_graphs[0].signature_def["lookup"].outputs["ids"], "name", "gone:0")
    )
    assert main([str(model)]) == 1
    out = capsys.readouterr().out
    assert "Signature 'lookup' output 'ids' names 'gone:0', but the graph has no node 'gone'" in out
    assert "meta graph [serve]" in out
    assert "[signature-unresolved]" in out


@shared
def test_wild_saved_models_tensorflow_imports_pass_validate_except_known_policy_findings():
    import json

    labels = WILD / "labels.jsonl"
    # Findings the serving preset makes on purpose (TensorFlow imports these files; a model
    # server would still refuse or should not run them):
    expected = {
        # (AssetModule's serving_default reads its own asset with ReadFile at request time: since #32 that
        # is an `unsafe-op` info, two levels below the rule, like a vocabulary table's read of its asset.)
        # A TF1 model pinned to /device:GPU:0: a CPU-only server without soft placement (TF Serving's
        # default session config) cannot place it (#34's missing-kernel under the serving preset).
        "serving__tensorflow_serving__servables__tensorflow__testdata__saved_model_half_plus_two_gpu_trt__00000123__saved_model.pb": {
            "missing-kernel"
        },
        # TensorFlow's Go test model has an empty tag set: a server asking for { serve } cannot load it.
        "tensorflow__tensorflow__go__testdata__saved_model__half_plus_two_empty_tags__00000123__saved_model.pb": {
            "missing-serving-tags"
        },
    }
    for line in labels.read_text().splitlines():
        label = json.loads(line)
        if label["message_type"] != "SavedModel" or label["tf_verdict"] != "imports":
            continue
        try:
            tflint.validate(WILD / label["file"])
            rules: set[str] = set()
        except tflint.GraphValidationError as error:
            rules = {f.rule for f in error.findings}
        assert rules == expected.get(label["file"], set()), label["file"]
