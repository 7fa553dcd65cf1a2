"""What an older release's importer does with a newer graph (tflint.tf.target), per bundled release.

Pinned TensorFlow behaviour (measured by tools/check_target_tf.py, summed up in docs/target-tf.md): an op
the release lacks is `Op type not registered`; an attr its OpDef lacks fails import up to TF 2.4 and
is dropped from 2.5 on (harmless only when it held the newer default; MatMul's `grad_a` appeared in
2.16, default false); `CheckVersions` refuses a producer below the minimum, a min_consumer above the
release's GraphDef version, and a release listed in bad_consumers; TF 1.15 refuses `>` in node names.
"""

from __future__ import annotations

import pytest

from tflint.api import registry_for
from tflint.config.settings import default_config
from tflint.engine.run import build_index
from tflint.read.load import load_bytes
from tflint.tf.releases import release
from tflint.tf.target import problems

MATMUL = 'op: "MatMul" input: "x" input: "x" attr { key: "T" value { type: DT_FLOAT } }'
GRAPH = f"""
node {{ name: "x" op: "Placeholder" attr {{ key: "dtype" value {{ type: DT_FLOAT }} }} }}
node {{ name: "g" op: "GlobalIterId" }}
node {{ name: "m" {MATMUL} attr {{ key: "grad_a" value {{ b: false }} }} }}
node {{ name: "n" {MATMUL} attr {{ key: "grad_a" value {{ b: true }} }} }}
node {{ name: "outer>inner" op: "NoOp" }}
versions {{ producer: 2474 min_consumer: 900 bad_consumers: 1205 }}
""".encode()

# release -> (kind, node, field, fixable) of each problem its importer has with GRAPH
EXPECTED = {
    "1.15": [
        ("op-missing", "g", None, False),
        ("attr-unknown", "m", "grad_a", True),  # refused, though equal to the default: stripping fixes it
        ("attr-unknown", "n", "grad_a", False),
        ("node-name", "outer>inner", "name", False),
        ("versions", None, "versions", False),  # min_consumer 900 > 1.15's GraphDef version 134
    ],
    "2.4": [
        ("op-missing", "g", None, False),
        ("attr-unknown", "m", "grad_a", True),
        ("attr-unknown", "n", "grad_a", False),
        ("versions", None, "versions", False),  # 900 > 561
    ],
    "2.10": [
        ("op-missing", "g", None, False),
        ("attr-ignored", "n", "grad_a", False),  # dropped: n would compute something else
        ("versions", None, "versions", False),  # bad_consumers lists 1205
    ],
    "2.15": [("op-missing", "g", None, False), ("attr-ignored", "n", "grad_a", False)],
    "2.16": [],
    "2.21": [],
}


@pytest.fixture(scope="module")
def index():
    artifact = load_bytes(GRAPH, "graph.pbtxt")
    return build_index(artifact.graphs[0], registry_for(default_config()), artifact)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_problems_per_release(index, name):
    found = [
        (problem.kind, problem.node.name if problem.node else None, problem.field, problem.fixable)
        for problem in problems(index, release(name))
    ]
    assert sorted(found, key=str) == sorted(EXPECTED[name], key=str)


def test_messages_name_the_release_that_added_what_is_missing(index):
    texts = {problem.kind: problem.text for problem in problems(index, release("2.10"))}
    assert texts["op-missing"] == "Node 'g': op GlobalIterId is not registered; it was added in TF 2.16"
    assert texts["versions"] == "GraphDef bad_consumers lists its GraphDef version 1205"
    versions = [problem.text for problem in problems(index, release("2.4")) if problem.kind == "versions"]
    assert versions == ["GraphDef min_consumer 900 is above its GraphDef version 561"]


def test_problems_are_computed_once_per_release(index):
    assert problems(index, release("2.10")) is problems(index, release("2.10"))
