"""Whole SavedModels TensorFlow 2.21 built and broke (tools/serving_load_cases.py), replayed without TensorFlow.

tests/data/serving_load/verdicts.json records, per case, the base model, the mutation (files
replaced, deleted, truncated, a byte flipped) and what TensorFlow did: the C++ loader TF Serving
runs (`cpp_load`), TF Serving's warm-up emulated on its session (`warmup`), a first predict
request (`first_request`), and the Python loaders. Each case is rebuilt here from its base and
linted with `--verify-checksums`: a model that TensorFlow refuses at load or at warm-up gets an
error from the rule the table names, and no other case gets any warning or error.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import DATA

from tflint.api import lint_file
from tflint.finding import Severity

CASES = DATA / "serving_load"
VERDICTS = json.loads((CASES / "verdicts.json").read_text(encoding="utf-8"))

# What tflint reports for each kind of case (the case name's suffix after the base's name).
EXPECTED = {
    "": set(),
    "index-truncated": {"checkpoint-index"},
    "index-garbage": {"checkpoint-index"},
    "warmup-bad-crc": {"warmup-record"},
    "warmup-truncated": {"warmup-record"},
    "warmup-garbage-record": {"warmup-record"},
    "warmup-empty": set(),
    "shard-deleted": {"missing-variables"},  # the only shard: no variables.data-* at all
    "shard-truncated": {"checkpoint-shard"},
    "shard-byte-flipped": {"checkpoint-checksum"},
    "warmup-wrong-signature": {"warmup-request"},
    "warmup-wrong-input": {"warmup-request"},
    "warmup-classify-on-predict": {"warmup-request"},
    "warmup-wrong-dtype": {"warmup-request"},
    "warmup-wrong-shape": {"warmup-request"},
    "warmup-rank-1": {"warmup-request"},
    # A typed `*_val` list of any count: TensorFlow's C++ Tensor::FromProto pads a short one with its
    # last value, drops a long one's surplus, and reads another dtype's field as zeros: the request runs.
    "warmup-val-empty": set(),
    "warmup-val-broadcast": set(),
    "warmup-val-short": set(),
    "warmup-val-long": set(),
    "warmup-val-other-field": set(),
    "variables-removed": {"missing-variables"},
    "key-missing": {"checkpoint-key-missing"},
    "unrestored-key-missing": {"checkpoint-key-missing"},
    "shape-swapped": {"checkpoint-mismatch"},
    "dtype-swapped": {"checkpoint-mismatch"},
    "extra-key": set(),  # an info note (checkpoint-unused): TensorFlow loads and serves
    "asset-removed": {"missing-asset"},
    "asset-empty": {"missing-asset"},
    "asset-directory": {"missing-asset"},
    "asset-duplicated": {"missing-asset"},  # the C++ loader fails; the Python loaders load
}
# Cases whose rule differs from their kind's.
OWN = {"tf1_sharded-shard-deleted": {"checkpoint-shard"}}  # one of two shards: the index names it
# Cases where TensorFlow serves but a shape the signature does not declare is fed (it runs fine).
SERVES_ANYWAY = {"tf2_lookup-warmup-wrong-shape"}
CONFIG = {"rules": {"checkpoint-checksum": "error"}}


def _kind(case: dict) -> str:
    return case["case"][len(case["base"]) :].lstrip("-")


def refused(verdict: dict) -> bool:
    """Whether the model TF Serving loads fails: at load, at warm-up, or at its first request."""
    return any(verdict.get(step, "ok").split(" (")[0] != "ok" for step in ("cpp_load", "warmup", "first_request"))


def build(case: dict, work: Path) -> Path:
    """The case's SavedModel, from its base and mutation (as tools/serving_load_cases.py applies them)."""
    shutil.copytree(CASES / "bases" / case["base"], work)
    overlay = CASES / "variants" / case["case"]
    if overlay.is_dir():
        for source in overlay.rglob("*"):
            if source.is_file():
                target = work / source.relative_to(overlay)
                if target.parent.name == "variables" and source.parent.name == "variables":
                    for stale in target.parent.glob("variables.*"):
                        stale.unlink()
                target.parent.mkdir(parents=True, exist_ok=True)
        for source in overlay.rglob("*"):
            if source.is_file():
                shutil.copyfile(source, work / source.relative_to(overlay))
    for relative in case.get("delete", []):
        path = work / relative
        shutil.rmtree(path) if path.is_dir() else path.unlink()
    for relative in case.get("mkdir", []):
        (work / relative).mkdir(parents=True)
    for relative, keep in case.get("truncate", {}).items():
        path = work / relative
        size = path.stat().st_size
        with open(path, "r+b") as f:
            f.truncate(int(size * keep) if isinstance(keep, float) else (size + keep if keep < 0 else keep))
    for relative, where in case.get("flip", {}).items():
        path = work / relative
        data = bytearray(path.read_bytes())
        data[where] ^= 0xFF
        path.write_bytes(bytes(data))
    for relative in case.get("garbage", []):
        path = work / relative
        path.write_bytes(bytes((index * 131 + 7) % 256 for index in range(path.stat().st_size)))
    if case.get("duplicate_asset"):
        from tflint.protos import SavedModel

        saved = SavedModel.FromString((work / "saved_model.pb").read_bytes())
        meta = saved.meta_graphs[0]
        meta.asset_file_def.add().CopyFrom(meta.asset_file_def[0])
        (work / "saved_model.pb").write_bytes(saved.SerializeToString())
    return work


@pytest.mark.parametrize("case", VERDICTS["cases"], ids=lambda case: case["case"])
def test_tflint_reports_what_tensorflow_refuses(case, tmp_path):
    model = build(case, tmp_path / "model")
    findings = lint_file(model, config=CONFIG).findings
    errors = {finding.rule for finding in findings if finding.severity >= Severity.WARNING}
    expected = OWN.get(case["case"], EXPECTED[_kind(case)])
    if case["case"] in SERVES_ANYWAY:
        expected = set()
    assert errors == expected, [(f.rule, f.message) for f in findings]
    assert refused(case["tf"]) == bool(expected), case["tf"]


def test_every_kind_of_case_is_in_the_table():
    assert {_kind(case) for case in VERDICTS["cases"]} == set(EXPECTED)
