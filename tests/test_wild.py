"""Agree with TensorFlow 2.21 on every labelled graph in ../shared/wild.

A file TensorFlow imports gets no error; a file it rejects (or cannot parse)
gets at least one. The exception, documented in the wild README: TensorFlow
checks a function body only when the function is instantiated, so files whose
only broken content is a function body are labelled `imports`, and an error
*inside a function* there is right (listed in FUNCTION_BODY_BROKEN).
"""

from __future__ import annotations

import json

import pytest
from conftest import WILD

from tflint.api import lint_file
from tflint.finding import Severity

# Files TF labels `imports` whose function bodies are broken on purpose (TF's importer tests).
FUNCTION_BODY_BROKEN = {
    # An op-less node inside a function body; TF builds bodies only when they run.
    "tensorflow__tensorflow__core__ir__importexport__tests__graphdef_to_mlir__invalid_empty_op_type.pbtxt",
    # A function body that fails to instantiate.
    "tensorflow__tensorflow__core__ir__importexport__tests__graphdef_to_mlir__invalid_function_import.pbtxt",
    # Calls a function the library lacks from inside a function body: TF fails on first run.
    "tensorflow__tensorflow__core__ir__importexport__tests__roundtrip__test25.pbtxt",
}


def _labels():
    path = WILD / "labels.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@pytest.mark.parametrize("label", _labels(), ids=lambda label: label["file"][:90])
def test_agrees_with_tensorflow(label):
    report = lint_file(WILD / label["file"])
    errors = [f for f in report.findings if f.severity >= Severity.ERROR]
    shown = "\n".join(f"{f.location()} {f.rule}: {f.message} node={f.node} fn={f.function}" for f in errors[:10])
    if label["tf_verdict"] == "imports":
        if label["file"] in FUNCTION_BODY_BROKEN:
            assert errors and all(f.function is not None for f in errors), shown
        else:
            assert not errors, shown
    else:
        assert errors, f"TensorFlow says {label['tf_verdict']}: {label['tf_message']}"
