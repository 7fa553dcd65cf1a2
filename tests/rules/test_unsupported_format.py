"""unsupported-format: a chunked SavedModel (saved_model.cpb) is named, not read and not called broken."""

from __future__ import annotations

import pytest
from conftest import DATA, lint_bytes, pinned

from tflint.read.load import load_path

RULE = "unsupported-format"
CHUNKED = (DATA / "nongraphs" / "saved_model.cpb").read_bytes()  # the Riegeli signature of a chunked SavedModel


@pytest.mark.parametrize(
    "data, name, expected",
    [
        pytest.param(CHUNKED, "saved_model.cpb", [(RULE, None, None)], id="chunked"),
        pytest.param(CHUNKED, "model.cpb", [(RULE, None, None)], id="any-cpb-name"),
        pytest.param(CHUNKED, "saved_model.pb", [(RULE, None, None)], id="riegeli-named-saved-model"),
        pytest.param(CHUNKED, "records.pb", [("not-a-graph", None, None)], id="other-riegeli-file"),
    ],
)
def test_rule(data, name, expected):
    assert pinned(lint_bytes(data, name=name)) == expected


def test_the_message_and_level():
    (finding,) = lint_bytes(CHUNKED, name="saved_model.cpb")
    assert str(finding.severity) == "warning"
    assert finding.message.startswith("a chunked SavedModel (saved_model.cpb, TensorFlow 2.13+'s format")
    assert finding.message.endswith("is not supported yet: not linted")


def test_a_directory_with_a_chunked_saved_model(tmp_path):
    (tmp_path / "saved_model.cpb").write_bytes(CHUNKED)
    (tmp_path / "variables").mkdir()
    artifact = load_path(str(tmp_path))
    assert artifact.unsupported is not None and artifact.path == str(tmp_path / "saved_model.cpb")
    assert pinned(lint_bytes(CHUNKED, {"rules": {RULE: "off"}}, name="saved_model.cpb")) == []
