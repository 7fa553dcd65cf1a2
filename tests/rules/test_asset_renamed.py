"""asset-renamed: asset file names (asset_file_def, or the TF1 saved_model_assets collection) kept across versions."""

from __future__ import annotations

import pytest
from compat_models import model, pins

RULE = "asset-renamed"


def _asset(filename, tensor="Const:0"):
    return f'asset_file_def {{ tensor_info {{ name: "{tensor}" }} filename: "{filename}" }}'


@pytest.mark.parametrize(
    "old, new, expected",
    [
        pytest.param(_asset("vocab.txt"), _asset("vocab.txt", "Const_7:0"), [], id="same-name-other-tensor"),
        pytest.param(_asset("vocab.txt"), _asset("vocab_v2.txt"), [(RULE, None, 1, "warning")], id="renamed"),
        pytest.param(_asset("vocab.txt"), "", [(RULE, None, 1, "warning")], id="removed"),
        pytest.param("", _asset("vocab.txt"), [], id="added"),
    ],
)
def test_rule(old, new, expected):
    assert pins(RULE, model(extra=old), model(extra=new)) == expected
