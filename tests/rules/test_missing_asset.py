"""missing-asset: AssetFileDefs (field or TF1 collection) name files under assets/ and tensors that exist.

Verified with TensorFlow 2.21: with `assets/vocab.txt` deleted from a TF1
Builder SavedModel and a TF2 one, `tf.saved_model.load` and
`tf.compat.v1.saved_model.load` both fail with NotFoundError while the init op
initializes the lookup table.
"""

from __future__ import annotations

import pytest
from conftest import DATA, lint_text, pinned, require
from serving_graphs import (
    REAL_DIRS,
    SERVING,
    copy_model,
    edit_saved_model,
    line_of,
    meta,
    placeholder,
)

from tflint.api import lint_file

RULE = "missing-asset"
PATH = placeholder("vocab_path", "DT_STRING")


def _asset(tensor: str, filename: str) -> str:
    return f'asset_file_def {{ tensor_info {{ name: "{tensor}" }} filename: "{filename}" }}'


def _cases():
    yield pytest.param(meta(PATH, extra=_asset("vocab_path:0", "vocab.txt")), [], id="resolves")
    text = meta(PATH, extra=_asset("labels_path:0", "labels.txt"))
    yield pytest.param(text, [(RULE, None, line_of(text, "labels.txt"))], id="tensor-missing")
    text = meta(PATH, extra=_asset("vocab_path:1", "vocab.txt"))
    yield pytest.param(text, [(RULE, "vocab_path", line_of(text, "vocab.txt"))], id="tensor-index")
    yield pytest.param(meta(PATH, extra='asset_file_def { filename: "vocab.txt" }'), [], id="no-tensor-name")
    collection = (
        'collection_def { key: "saved_model_assets" value { any_list { value { '
        '[type.googleapis.com/tensorflow.AssetFileDef] { tensor_info { name: "gone:0" } filename: "v.txt" } } } } }'
    )
    text = meta(PATH, extra=collection)
    yield pytest.param(text, [(RULE, None, None)], id="tf1-collection")
    # One tensor fed by two AssetFileDefs: TF Serving's C++ loader refuses it (Python loaders load it).
    text = meta(PATH, extra=_asset("vocab_path:0", "vocab.txt") + "\n" + _asset("vocab_path:0", "other.txt"))
    yield pytest.param(text, [(RULE, None, line_of(text, "other.txt"))], id="fed-twice")
    text = meta(PATH, extra=_asset("vocab_path:0", "vocab.txt") + "\n" + _asset("vocab_path:0", "vocab.txt"))
    yield pytest.param(text, [(RULE, None, line_of(text, "vocab.txt") + 1)], id="listed-twice")


@pytest.mark.parametrize("pbtxt, expected", list(_cases()))
def test_rule(pbtxt, expected):
    assert pinned(lint_text(pbtxt), rule=RULE) == expected


def test_fed_twice_says_which_loader_fails():
    text = meta(PATH, extra=_asset("vocab_path:0", "vocab.txt") + "\n" + _asset("vocab_path:0", "vocab.txt"))
    (finding,) = [f for f in lint_text(text) if f.rule == RULE]
    assert finding.message == (
        "Asset 'vocab.txt' is fed to 'vocab_path:0', which another AssetFileDef feeds too: TF Serving's loader fails "
        "at load ('Endpoint \"vocab_path:0\" fed more than once.'); the Python loaders load"
    )


def test_message_for_dangling_tensor():
    text = meta(PATH, extra=_asset("labels_path:0", "labels.txt"))
    assert [f.message for f in lint_text(text) if f.rule == RULE] == [
        "Asset 'labels.txt' is fed to the tensor its AssetFileDef names 'labels_path:0', but the graph has no node 'labels_path'",
    ]


@pytest.mark.parametrize(
    "source",
    [
        SERVING / "tf1_legacy_init_op",
        SERVING / "tf2_module_signatures",
        REAL_DIRS / "tf1_builder_lookup_asset",
        REAL_DIRS / "tf2_assets_hashtable",
    ],
    ids=lambda p: p.name,
)
def test_deleted_asset_file(source, tmp_path):
    model = copy_model(require(source), tmp_path)
    assert [f for f in lint_file(model).findings if f.rule == RULE] == []
    (model / "assets" / "vocab.txt").unlink()
    findings = [f for f in lint_file(model).findings if f.rule == RULE]
    # One finding per meta graph that lists the file (tf1_builder_lookup_asset has serve and train).
    assert findings and all(
        f.message
        == f"Asset 'vocab.txt' is listed by the meta graph but {model}/assets/vocab.txt does not exist; loading fails when the init op reads it"
        for f in findings
    )
    assert len({f.graph for f in findings}) == len(findings)


def test_lone_saved_model_file_checks_no_files(tmp_path):
    # Without the directory there is nothing to compare with: only tensor names are checked.
    assert [
        f for f in lint_file(require(DATA / "real" / "tf2_assets_hashtable.saved_model.pb")).findings if f.rule == RULE
    ] == []


def test_renamed_asset_in_saved_model(tmp_path):
    model = copy_model(require(SERVING / "tf2_module_signatures"), tmp_path)
    edit_saved_model(model, lambda saved: setattr(saved.meta_graphs[0].asset_file_def[0], "filename", "vocab_v2.txt"))
    assert [f.message.split(" is listed")[0] for f in lint_file(model).findings if f.rule == RULE] == [
        "Asset 'vocab_v2.txt'"
    ]
