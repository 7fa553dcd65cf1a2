"""Shape inference agrees with TensorFlow 2.21 on recorded fuzz cases (no TensorFlow at test time).

Each case in data/shapes/tf_verdicts.jsonl is a small graph around one op ("op") and what
TensorFlow's import did with it (tools/record_shape_verdicts.py picks them from
tools/fuzz_shapes_tf.py's output): a rejection by the op's shape function must be a
shape-mismatch error on "op"; an import must give no shape-mismatch finding, and no inferred
output shape more precise than TensorFlow's.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import lint_text

from tflint.api import registry_for
from tflint.config.settings import default_config
from tflint.engine.run import build_index
from tflint.read.load import load_bytes
from tflint.tf.shapes import infer_shapes

CASES = [
    json.loads(line)
    for line in (Path(__file__).parent / "data" / "shapes" / "tf_verdicts.jsonl").read_text().splitlines()
    if line.strip()
]


def _finer_than(mine, tf) -> bool:
    if mine is None:
        return False
    if tf is None or len(mine) != len(tf):
        return True
    return any(m >= 0 and m != t for m, t in zip(mine, tf))


def _case_id(position: int, case: dict) -> str:
    return f"{case['op']}-{'imports' if case['tf_imports'] else 'rejects'}-{position}"


@pytest.mark.parametrize("case", CASES, ids=[_case_id(position, case) for position, case in enumerate(CASES)])
def test_tensorflow_verdict(case):
    findings = [f for f in lint_text(case["text"]) if f.rule == "shape-mismatch"]
    if case["tf_imports"]:
        assert findings == []
        artifact = load_bytes(case["text"].encode(), "case.pbtxt")
        index = build_index(artifact.graphs[0], registry_for(default_config()), artifact)
        inference = infer_shapes(index)
        node = index.node("op")
        for position, tf_shape in enumerate(case["tf_shapes"]):
            assert not _finer_than(inference.output_shape(node, position), tf_shape), (position, tf_shape)
    else:
        assert ("op", "error") in [(f.node, str(f.severity)) for f in findings], case["tf_error"]


def test_every_family_is_covered():
    ops = {case["op"] for case in CASES}
    for op in ("StridedSlice", "Conv2DBackpropInput", "Einsum", "OneHot", "ScatterNd", "SplitV", "Pad", "Reshape"):
        assert op in ops
