"""The placer's verdicts (tflint.tf.placement) on a tiny graph, per server, with and without soft placement.

Pinned TensorFlow 2.21 behaviour (see also tests/test_kernel_verdicts.py, which replays TensorFlow's
own verdicts): MatMul has no uint8 kernel on CPU or GPU, which soft placement cannot help; a pin to a
device type the process lacks, or to a CPU other than CPU:0 (a session has one CPU device), fails
without soft placement and is moved with it; TensorFlow stops at the first node pinned to a missing
device, so one problem stands for every node pinned to the same string.
"""

from __future__ import annotations

import pytest

from tflint.api import registry_for
from tflint.config.settings import default_config
from tflint.engine.run import build_index
from tflint.read.load import load_bytes
from tflint.tf.kernels import build_for
from tflint.tf.placement import NO_DEVICE, NO_KERNEL, Server, device_pin, placement_problems

GRAPH = b"""
node { name: "a" op: "Placeholder" attr { key: "dtype" value { type: DT_UINT8 } } }
node { name: "m" op: "MatMul" input: "a" input: "a" attr { key: "T" value { type: DT_UINT8 } } }
node { name: "f" op: "Placeholder" device: "/device:GPU:0" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "g" op: "Neg" input: "f" device: "/device:GPU:0" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "c1" op: "Neg" input: "f" device: "/device:CPU:1" attr { key: "T" value { type: DT_FLOAT } } }
"""

# server devices, soft placement -> (kind, node) of each problem
VERDICTS = [
    (("CPU",), False, [(NO_KERNEL, "m"), (NO_DEVICE, "f"), (NO_DEVICE, "c1")]),  # f stands for g too
    (("CPU",), True, [(NO_KERNEL, "m")]),
    (("CPU", "GPU"), False, [(NO_KERNEL, "m"), (NO_DEVICE, "c1")]),
    (("CPU", "GPU"), True, [(NO_KERNEL, "m")]),
]


@pytest.fixture(scope="module")
def index():
    artifact = load_bytes(GRAPH, "graph.pbtxt")
    return build_index(artifact.graphs[0], registry_for(default_config()), artifact)


@pytest.mark.parametrize(("devices", "soft", "expected"), VERDICTS)
def test_placement_problems(index, devices, soft, expected):
    server = Server(build_for("2.21", devices), devices, soft)
    found = placement_problems(index, server)
    assert [(problem.kind, problem.node.name) for problem in found] == expected
    assert all(len(problem.text) < 200 for problem in found)


def test_one_problem_per_missing_device_counts_the_others(index):
    server = Server(build_for("2.21", ("CPU",)), ("CPU",), False)
    texts = {problem.node.name: problem.text for problem in placement_problems(index, server)}
    assert texts["f"].endswith("(and 1 more nodes pinned there)")
    assert texts["m"].startswith("No OpKernel was registered to support Op 'MatMul' used by node 'm'")


@pytest.mark.parametrize(
    ("device", "pin"),
    [
        ("", (None, None)),
        ("/device:GPU:1", ("GPU", 1)),
        ("/gpu:0", ("GPU", 0)),
        ("/job:w/cpu:3", ("CPU", 3)),
        ("/device:CPU:*", ("CPU", None)),
        ("/device:*:0", (None, 0)),
        ("/device:xla_gpu:0", ("xla_gpu", 0)),  # only CPU and GPU are case-folded
    ],
)
def test_device_pin(device, pin):
    assert device_pin(device) == pin
