"""missing-variables: a meta graph with a SaverDef has a variables/ checkpoint and a restore op that exists.

Verified with TensorFlow 2.21 on SavedModel directories without `variables/`:
TF1 and TF2 models with variables and a TF2 model without any fail both
`tf.saved_model.load` (`Unsuccessful TensorSliceReader constructor`) and
`tf.compat.v1.saved_model.load` (`The passed save_path is not a valid
checkpoint`); a TF1 Builder export without variables has no SaverDef and
loads fine without the directory.
"""

from __future__ import annotations

import shutil

import pytest
from conftest import lint_text, pinned, require
from serving_graphs import (
    REAL_DIRS,
    SERVING,
    copy_model,
    edit_saved_model,
    line_of,
    meta,
    node,
)

from tflint.api import lint_file

RULE = "missing-variables"
FILENAME = 'node { name: "save/Const" op: "Const" attr { key: "dtype" value { type: DT_STRING } } attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape { } string_val: "model" } } } }'
RESTORE = node("save/restore_all", "NoOp")


def _saver(restore: str = "save/restore_all", filename: str = "save/Const:0") -> str:
    return f'saver_def {{\n  filename_tensor_name: "{filename}"\n  restore_op_name: "{restore}"\n}}'


def _cases():
    yield pytest.param(meta(FILENAME, RESTORE, extra=_saver()), [], id="resolves")
    text = meta(FILENAME, extra=_saver())
    yield pytest.param(text, [(RULE, None, line_of(text, "restore_op_name"))], id="restore-op-missing")
    text = meta(FILENAME, RESTORE, extra=_saver(filename="save/Const:3"))
    yield pytest.param(text, [(RULE, "save/Const", line_of(text, "filename_tensor_name"))], id="filename-index")
    yield pytest.param(
        meta(FILENAME, RESTORE, extra=_saver(restore="^save/restore_all")), [], id="restore-op-as-control-name"
    )
    yield pytest.param(meta(FILENAME), [], id="no-saver")
    yield pytest.param(
        meta(FILENAME, extra='saver_def { filename_tensor_name: "save/Const:0" }'), [], id="saver-without-restore-op"
    )


@pytest.mark.parametrize("pbtxt, expected", list(_cases()))
def test_rule(pbtxt, expected):
    assert pinned(lint_text(pbtxt), rule=RULE) == expected


@pytest.mark.parametrize(
    "source",
    [
        SERVING / "tf1_legacy_init_op",
        SERVING / "tf2_module_signatures",
        SERVING / "tf2_keras_export",
        REAL_DIRS / "tf2_module_signatures",
    ],
    ids=lambda p: f"{p.parent.name}/{p.name}",
)
def test_removed_variables_directory(source, tmp_path):
    model = copy_model(require(source), tmp_path)
    assert [f for f in lint_file(model).findings if f.rule == RULE] == []
    shutil.rmtree(model / "variables")
    findings = [f for f in lint_file(model).findings if f.rule == RULE]
    assert len(findings) == 1
    assert (
        "but variables/ does not exist: TF Serving's requests fail; Python loaders fail"
        in findings[0].message
    )


@pytest.mark.parametrize(
    "removed, what",
    [
        ("variables.index", "/variables.index does not exist"),
        ("variables.data-00000-of-00001", "/ has no variables.data-* shard"),
    ],
)
def test_incomplete_checkpoint(removed, what, tmp_path):
    model = copy_model(require(SERVING / "tf2_module_signatures"), tmp_path)
    (model / "variables" / removed).unlink()
    assert [f.message.split("but ")[1].split(": ")[0] for f in lint_file(model).findings if f.rule == RULE] == [
        f"variables{what}"
    ]


def test_reported_once_for_several_meta_graphs(tmp_path):
    model = copy_model(require(REAL_DIRS / "tf1_builder_lookup_asset"), tmp_path)
    shutil.rmtree(model / "variables")
    findings = [f for f in lint_file(model).findings if f.rule == RULE]
    assert [(f.graph, f.message.split(" but ")[0]) for f in findings] == [
        (
            "meta graph [serve]",
            "The SavedModel restores variables (restore op 'save/restore_all', meta graphs { serve }, { train })",
        ),
    ]


def test_graph_without_saver_needs_no_variables(tmp_path):
    model = copy_model(require(SERVING / "tf1_legacy_init_op"), tmp_path)
    edit_saved_model(model, lambda saved: saved.meta_graphs[0].ClearField("saver_def"))
    shutil.rmtree(model / "variables")
    assert [f for f in lint_file(model).findings if f.rule == RULE] == []
