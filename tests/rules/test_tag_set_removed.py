"""tag-set-removed: a meta graph tag set of the old version that the new one lacks (TF's loader: not found)."""

from __future__ import annotations

import pytest
from compat_models import model, pins
from serving_graphs import saved_model

from tflint.tf.compat import tag_set

RULE = "tag-set-removed"
SERVE = model(tags=("serve",))
SERVE_GPU = model(tags=("serve", "gpu"))
GPU_SERVE = model(tags=("gpu", "serve"))


@pytest.mark.parametrize(
    "old, new, expected",
    [
        pytest.param(SERVE, SERVE, [], id="same"),
        pytest.param(SERVE_GPU, GPU_SERVE, [], id="same-set-other-order"),
        pytest.param(SERVE, SERVE_GPU, [(RULE, None, 1, "error")], id="tags-changed"),
        pytest.param(
            saved_model(SERVE, SERVE_GPU), saved_model(SERVE), [(RULE, None, 3, "error")], id="one-of-two-dropped"
        ),
        pytest.param(saved_model(SERVE), saved_model(SERVE, SERVE_GPU), [], id="one-added"),
        pytest.param(model(tags=()), model(tags=()), [], id="untagged-both"),
    ],
)
def test_rule(old, new, expected):
    assert pins(RULE, old, new) == expected


def test_message_names_the_tag_set_and_both_versions():
    from conftest import compat_text

    (finding,) = [f for f in compat_text(SERVE_GPU, SERVE) if f.rule == RULE]
    assert finding.message.startswith("meta graph {gpu, serve} is in version 1 but not in version 2: ")
    assert finding.graph == "meta graph [serve, gpu]"  # the old version's meta graph, which is gone


def test_tag_set_text_is_sorted_and_escaped():
    assert tag_set(frozenset({"serve", "g\npu"})) == "{g\\npu, serve}"
