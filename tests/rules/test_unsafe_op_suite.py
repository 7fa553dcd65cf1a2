"""unsafe-op on the malicious and benign SavedModels of tools/gen_security_suite.py (TensorFlow 2.21).

Every malicious model's side effect was shown with TensorFlow in a sandbox
(the file really written, the secret really read, the connection really
made; tests/data/security/verdicts.json keeps the evidence); the dormant one
was served and left the sandbox untouched. tflint must report each with its
trigger and capability, and none of the benign ones at warning or above.
"""

from __future__ import annotations

import json
import shutil

import pytest
from conftest import DATA

from tflint.api import lint_file
from tflint.finding import Severity

SUITE = DATA / "security"
VERDICTS = json.loads((SUITE / "verdicts.json").read_text())
CONFIG = {"extends": "serving"}


def _lint(name, tmp_path):
    model = SUITE / name
    link = VERDICTS[name]["symlink_asset"]
    if link:  # the link itself is not kept in the repository: put it back, to a file outside the model
        model = tmp_path / name
        shutil.copytree(SUITE / name, model)
        outside = tmp_path / "secret.txt"
        outside.write_text("s3cr3t-token\n")
        (model / "assets" / link).unlink()
        (model / "assets" / link).symlink_to(outside)
    return [f for f in lint_file(model, CONFIG).findings if f.rule == "unsafe-op"]


@pytest.mark.parametrize("name", sorted(name for name, verdict in VERDICTS.items() if verdict["malicious"]))
def test_every_malicious_model_is_caught_with_its_trigger(name, tmp_path):
    verdict = VERDICTS[name]
    found = {
        (dict(f.properties)["trigger"], dict(f.properties)["capability"], f.severity) for f in _lint(name, tmp_path)
    }
    level = Severity.INFO if verdict["trigger"] == "dormant" else Severity.ERROR
    assert (verdict["trigger"], verdict["capability"], level) in found, found


@pytest.mark.parametrize("name", sorted(name for name, verdict in VERDICTS.items() if not verdict["malicious"]))
def test_no_benign_model_is_flagged_at_warning_or_above(name, tmp_path):
    assert [f.message for f in _lint(name, tmp_path) if f.severity >= Severity.WARNING] == []


def test_the_suite_covers_the_issue():
    malicious = [verdict for verdict in VERDICTS.values() if verdict["malicious"]]
    capabilities = {verdict["capability"] for verdict in malicious}
    assert capabilities >= {"file-read", "file-write", "directory-listing", "network", "code-execution"}
    places = {verdict["where"] for verdict in malicious}
    assert places >= {
        "top level",
        "1 function deep",
        "3 functions deep",
        "control-flow branch",
        "init op",
        "asset initializer",
        "nested GraphDef",
        "GraphDef in the checkpoint",
        "dormant",
    }
    assert {verdict["target"] for verdict in malicious} >= {"constant", "signature input"}
    assert all(verdict["evidence"] for verdict in VERDICTS.values())
