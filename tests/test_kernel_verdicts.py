"""missing-kernel agrees with TensorFlow 2.21's placer on mutated nodes of real graphs (recorded, no TF here).

tests/data/kernels/verdicts_tf221.jsonl was written by tools/check_kernels_tf.py: each row is a
node of a real graph (tests/data, ../shared/corpus, ../shared/wild) with a type attr mutated
within its OpDef, or pinned to /device:CPU:0, /device:GPU:0 or /device:CPU:1, placed by
TensorFlow 2.21 (tensorflow-cpu, no GPU) in a Session with and without soft placement. `fails`
is a placer error (`No OpKernel was registered`, `Cannot assign a device`), `runs` a graph placed.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
VERDICTS = REPO / "tests" / "data" / "kernels" / "verdicts_tf221.jsonl"
# Ops with no CPU or GPU kernel in either TF 2.21 wheel: TPU ops (and passes' ops), which the rule
# does not judge (no device it has data for runs them); TF fails them on a CPU-only machine.
UNJUDGED = {"TPUReplicatedInput", "TPUReplicatedOutput", "TPUCompilationResult", "TPUExecute", "_TPUCompileMlir"}


def _tool():
    spec = importlib.util.spec_from_file_location("check_kernels_tf", REPO / "tools" / "check_kernels_tf.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


TOOL = _tool()


def _rows():
    return [json.loads(line) for line in VERDICTS.read_text(encoding="utf-8").splitlines() if line]


ROWS = _rows()


def _row_id(row):
    attrs = ",".join(f"{key}={next(iter(value.values()))}" for key, value in row["attrs"].items())
    return f"{row['op']}[{attrs}]{row['device']}{'~soft' if row['soft'] else ''}"


@pytest.mark.parametrize("row", ROWS, ids=_row_id)
def test_tflint_agrees_with_tensorflow(row):
    flagged = TOOL.tflint_flags(row)
    if row["op"] in UNJUDGED:
        # TF fails on the missing kernel before it looks at the pin; tflint reports at most the pin.
        assert row["tf"] == "fails" and not TOOL.judged(row["op"])
        assert not flagged or row["device"]
    else:
        assert flagged == (row["tf"] == "fails"), row.get("message", "TensorFlow placed it")


def test_the_recorded_verdicts_cover_kernels_and_pins():
    fails = [row for row in ROWS if row["tf"] == "fails"]
    assert sum("No OpKernel" in row["message"] for row in fails) >= 100
    assert sum(row["device"] == "/device:GPU:0" and not row["soft"] for row in fails) >= 20
    assert sum(row["tf"] == "runs" and row["soft"] for row in ROWS) >= 20
    assert sum(row["tf"] == "runs" for row in ROWS) >= 1000
    assert {row["op"] for row in fails if not TOOL.judged(row["op"])} <= UNJUDGED
