"""tflint --target-tf agrees with what real older TensorFlows did with the same graphs (recorded, no TF here).

tests/data/target_tf/verdicts.jsonl was written by tools/check_target_tf.py, which imported
each graph into the real release (see its docstring for how); a row per (release, graph).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tflint.api import lint_paths
from tflint.finding import Severity
from tflint.tf.releases import known_releases

DATA = Path(__file__).parent / "data"
VERDICTS = DATA / "target_tf" / "verdicts.jsonl"


def _rows():
    if not VERDICTS.exists():
        return []
    rows = [json.loads(line) for line in VERDICTS.read_text().splitlines() if line.strip()]
    return [row for row in rows if row["tf"] in ("imports", "rejects")]


@pytest.mark.parametrize("row", _rows(), ids=lambda row: f"{row['release']}:{row['file']}")
def test_tflint_agrees_with_the_release(row):
    if row["release"] not in known_releases():
        pytest.skip(f"TF {row['release']} is not bundled")
    report = lint_paths([DATA / row["file"]], {}, target_tf=row["release"], baseline=False)
    errors = [f for f in report.findings if f.severity >= Severity.ERROR]
    ours = "rejects" if errors else "imports"
    expected = row["tf"]
    assert ours == expected, f"TF {row['release']} said: {row['tf_message']}; tflint: {[f.message for f in errors[:3]]}"


def test_the_recorded_verdicts_cover_old_and_new_releases():
    rows = _rows()
    releases = {row["release"] for row in rows}
    assert {"1.15", "2.4", "2.5", "2.8", "2.11", "2.15", "2.18", "2.21"} <= releases
    assert sum(row["tf"] == "rejects" for row in rows) >= 50
    assert sum(row["tf"] == "imports" for row in rows) >= 50
