"""missing-kernel agrees with TensorFlow 2.21's placer on mutated nodes of real graphs (recorded, no TF here).

tests/data/kernels/verdicts_tf221.jsonl was written by tools/check_kernels_tf.py: each row is a
node of a real graph (tests/data, ../shared/corpus, ../shared/wild) with a type attr mutated
within its OpDef, or pinned to /device:CPU:0, /device:GPU:0 or /device:CPU:1, placed by
TensorFlow 2.21 (tensorflow-cpu, no GPU) in a Session with and without soft placement. `fails`
is a placer error (`No OpKernel was registered`, `Cannot assign a device`), `runs` a graph placed.
verdicts_tf215.jsonl holds a sample of the same cases placed by TensorFlow 2.15, judged with
`--target-tf 2.15`.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
VERDICTS = REPO / "tests" / "data" / "kernels" / "verdicts_tf221.jsonl"
# The same kind of cases placed by TensorFlow 2.15 (tensorflow-cpu), judged with --target-tf 2.15.
VERDICTS_215 = REPO / "tests" / "data" / "kernels" / "verdicts_tf215.jsonl"
# Ops with no CPU or GPU kernel in either TF 2.21 wheel: TPU ops (and passes' ops), which the rule
# does not judge (no device it has data for runs them); TF fails them on a CPU-only machine.
UNJUDGED = {
    "TPUReplicatedInput",
    "TPUReplicatedOutput",
    "TPUCompilationResult",
    "TPUExecute",
    "_TPUCompileMlir",
    "MlirPassthroughOp",
}


def _tool():
    spec = importlib.util.spec_from_file_location("check_kernels_tf", REPO / "tools" / "check_kernels_tf.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


TOOL = _tool()


def _rows(path: Path = VERDICTS):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


ROWS = _rows()
ROWS_215 = _rows(VERDICTS_215)


def _row_id(row):
    attrs = ",".join(f"{key}={next(iter(value.values()))}" for key, value in row["attrs"].items())
    return f"{row['op']}[{attrs}]{row['device']}{'~soft' if row['soft'] else ''}"


@pytest.mark.parametrize(
    "row, target",
    [*((row, None) for row in ROWS), *((row, "2.15") for row in ROWS_215)],
    ids=[*(_row_id(row) for row in ROWS), *(f"2.15:{_row_id(row)}" for row in ROWS_215)],
)
def test_tflint_agrees_with_tensorflow(row, target):
    flagged = TOOL.tflint_flags(row, target)
    if row["op"] in UNJUDGED:
        # TF fails on the missing kernel before it looks at the pin; tflint reports at most the pin.
        assert row["tf"] == "fails" and not TOOL.judged(row["op"])
        assert not flagged or row["device"] or row.get("colocate")
    else:
        assert flagged == (row["tf"] == "fails"), row.get("message", "TensorFlow placed it")


def test_the_recorded_verdicts_cover_kernels_and_pins():
    fails = [row for row in ROWS if row["tf"] == "fails"]
    assert sum("No OpKernel" in row["message"] for row in fails) >= 100
    assert sum(row["device"] == "/device:GPU:0" and not row["soft"] for row in fails) >= 20
    assert sum(row["tf"] == "runs" and row["soft"] for row in ROWS) >= 20
    assert sum(row["tf"] == "runs" for row in ROWS) >= 800
    assert {row["op"] for row in fails if not TOOL.judged(row["op"])} <= UNJUDGED


def test_the_older_release_is_judged_by_its_own_kernels():
    # Range gained its bfloat16 and half CPU kernels after 2.15: the newest kernels alone would pass it.
    (row,) = [row for row in ROWS_215 if row["op"] == "Range" and row["tf"] == "fails"]
    assert TOOL.tflint_flags(row, "2.15") and not TOOL.tflint_flags(row)


def test_the_recorded_verdicts_cover_colocation():
    colocated = [row for row in ROWS if "colocate" in row]
    assert sum(row["tf"] == "fails" for row in colocated) >= 20
    assert sum(row["tf"] == "runs" and not row["soft"] for row in colocated) >= 20
    # A resource's pin wins over its user's: TF places these without soft placement.
    assert any(
        row["tf"] == "runs" and not row["soft"] and row["device"] == "/device:GPU:0" and row["colocate"]
        for row in colocated
    )
