"""Agree with TensorFlow 2.21 on every labelled graph in ../shared/wild.

A file TensorFlow imports gets no error; a file it rejects (or cannot parse)
gets at least one. TensorFlow checks a function body only when the function
is instantiated, so files whose only broken content is a function body are
labelled `imports` (the wild README). A function nothing instantiates is
never checked, and tflint's findings inside it are warnings that say so
(UNCALLED_BODY_BROKEN); a function a node reaches through a function-valued
attr (If, While, Case, a dataset's branches) runs with the node, and an error
inside it is right (REACHED_BODY_BROKEN): TensorFlow fails on the first run.
"""

from __future__ import annotations

import json

import pytest
from conftest import WILD, shared

from tflint.api import lint_file
from tflint.engine.run import NEVER_CALLED
from tflint.finding import Severity

pytestmark = shared

# Files TF labels `imports` whose broken function bodies nothing calls (TF's importer tests).
UNCALLED_BODY_BROKEN = {
    # An op-less node inside a function body.
    "tensorflow__tensorflow__core__ir__importexport__tests__graphdef_to_mlir__invalid_empty_op_type.pbtxt",
    # A function body that fails to instantiate.
    "tensorflow__tensorflow__core__ir__importexport__tests__graphdef_to_mlir__invalid_function_import.pbtxt",
}
# Files TF labels `imports` whose broken function bodies run with a node: TF fails on first run.
REACHED_BODY_BROKEN = {
    # ChooseFastestBranchDataset's branches run MapDatasets naming functions the library lacks.
    "tensorflow__tensorflow__core__ir__importexport__tests__roundtrip__test25.pbtxt",
}

# Files TF labels `imports` with a call whose Tin/Tout differ from the called function's signature:
# TF fails on first run (checked: InvalidArgumentError "Type mismatch: actual float vs. expect
# resource", and "cond function argument #0 type ... is not compatible").
CALL_MISMATCH = {
    "tensorflow__tensorflow__compiler__mlir__lite__tests__end2end__disallow_stateful_partitioned_call.pbtxt",
    "tensorflow__tensorflow__core__grappler__costs__graph_properties_testdata__function_functional_while.pbtxt",
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
        if label["file"] in REACHED_BODY_BROKEN:
            assert errors and all(f.function is not None for f in errors), shown
        elif label["file"] in CALL_MISMATCH:
            assert errors and all(f.rule == "call-signature" for f in errors), shown
        else:
            assert not errors, shown
        if label["file"] in UNCALLED_BODY_BROKEN:
            inside = [f for f in report.findings if f.function is not None]
            assert inside and all(f.severity == Severity.WARNING and NEVER_CALLED in f.message for f in inside)
    else:
        assert errors, f"TensorFlow says {label['tf_verdict']}: {label['tf_message']}"
