"""missing-serving-tags: a meta graph with exactly the served tag set exists, and tag sets are unique.

Verified with TensorFlow 2.21: a SavedModel retagged `train` fails
`tf.compat.v1.saved_model.load(sess, ["serve"], dir)` (`MetaGraphDef
associated with tags 'serve' could not be found in SavedModel, with available
tags '[{'train'}]'`); with two meta graphs tagged `serve`, both loaders take
the first (the second's extra signature is never seen).
"""

from __future__ import annotations

import pytest
from conftest import lint_text, pinned, require
from serving_graphs import SERVING, copy_model, edit_saved_model, line_of, saved_model

from tflint.api import lint_file
from tflint.errors import ConfigError

RULE = "missing-serving-tags"
ON = {"rules": {RULE: "error"}}


def _meta(*tags: str) -> str:
    listed = " ".join(f'tags: "{tag}"' for tag in tags)
    return f"meta_info_def {{ {listed} }}\ngraph_def {{ }}\n"


def _cases():
    yield pytest.param(saved_model(_meta("serve")), None, [], id="serve")
    yield pytest.param(saved_model(_meta("train"), _meta("serve")), None, [], id="serve-second")
    yield pytest.param(saved_model(_meta("serve", "serve")), None, [], id="repeated-tag-is-a-set")
    text = saved_model(_meta("train"))
    yield pytest.param(text, None, [(RULE, None, line_of(text, '"train"'))], id="train-only")
    text = saved_model(_meta("serve", "gpu"))
    yield pytest.param(text, None, [(RULE, None, line_of(text, '"gpu"'))], id="superset-is-not-equal")
    yield pytest.param(saved_model(_meta("gpu", "serve")), ["serve", "gpu"], [], id="configured-tags")
    yield pytest.param(saved_model(_meta()), [], [], id="configured-empty-set")
    text = saved_model(_meta())
    yield pytest.param(text, None, [(RULE, None, line_of(text, "meta_graphs"))], id="empty-tags")
    text = saved_model(_meta("serve"), _meta("train"), _meta("serve"))
    yield pytest.param(text, None, [(RULE, None, line_of(text, '"serve"', 2))], id="duplicate-tag-set")
    yield pytest.param(_meta("train"), None, [], id="lone-metagraphdef-not-checked")
    yield pytest.param('node { name: "a" op: "NoOp" }\n', None, [], id="graphdef-not-checked")


@pytest.mark.parametrize("pbtxt, tags, expected", list(_cases()))
def test_rule(pbtxt, tags, expected):
    config = {"rules": {RULE: {"level": "error", "tags": tags}}} if tags is not None else ON
    assert pinned(lint_text(pbtxt, config), rule=RULE) == expected


def test_off_by_default():
    assert pinned(lint_text(saved_model(_meta("train"))), rule=RULE) == []


def test_messages_name_the_tag_sets():
    text = saved_model(_meta("train"), _meta("train", "gpu"), _meta("gpu", "train"))
    found = sorted((f.line, f.graph, f.message) for f in lint_text(text, ON) if f.rule == RULE)
    assert [(graph, message) for _, graph, message in found] == [
        (
            "meta graph [train]",
            "No meta graph has the tag set { serve } a model server loads; the SavedModel has { train }, { gpu, train }, { gpu, train }",
        ),
        (
            "meta graph [gpu, train]",
            "Meta graph #2 has the same tag set { gpu, train } as meta graph #1; loaders take the first match, so this one can never be loaded",
        ),
    ]


def test_empty_tag_option_is_a_config_error():
    with pytest.raises(ConfigError, match="tags: a tag must not be empty"):
        lint_text(saved_model(_meta("serve")), {"rules": {RULE: {"tags": [""]}}})


def test_retagged_real_saved_model(tmp_path):
    model = copy_model(require(SERVING / "tf2_keras_export"), tmp_path)
    assert [f for f in lint_file(model, ON).findings if f.rule == RULE] == []

    def retag(saved):
        tags = saved.meta_graphs[0].meta_info_def.tags
        del tags[:]
        tags.append("train")

    edit_saved_model(model, retag)
    assert [f.message for f in lint_file(model, ON).findings if f.rule == RULE] == [
        "No meta graph has the tag set { serve } a model server loads; the SavedModel has { train }",
    ]
