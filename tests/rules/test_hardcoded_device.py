"""hardcoded-device: accelerator and cluster-job pins, one finding per device string and scope.

Verified with TensorFlow 2.21 on a CPU-only machine: a tf.compat.v1.Session
refuses a node pinned to /device:GPU:0 unless allow_soft_placement is set, and
a node pinned to /job:worker/task:1 even with it (`Cannot assign a device for
operation add: ... was explicitly assigned to /job:worker/task:1 but available
devices are [ /job:localhost/replica:0/task:0/device:CPU:0 ]`); /device:CPU:0
runs either way.
"""

from __future__ import annotations

import pytest
from conftest import DATA, lint_text, pinned, require
from serving_graphs import SERVING, line_of, node

from tflint.api import lint_file
from tflint.rules.hardcoded_device import pin_problem

RULE = "hardcoded-device"
ON = {"rules": {RULE: "warning"}}
CPU = frozenset({"CPU"})


@pytest.mark.parametrize(
    "device, reported",
    [
        ("/device:CPU:0", False),
        ("/cpu:0", False),
        ("/CPU:*", False),
        ("/device:CPU:*", False),
        ("/job:localhost/replica:0/task:0/device:CPU:0", False),
        ("/job:localhost", False),
        ("/job:*/device:CPU:0", False),
        ("/device:*:0", False),
        ("/replica:0/task:0", False),
        ("/device:GPU:0", True),
        ("/gpu:1", True),
        ("/GPU:*", True),
        ("/device:TPU_REPLICATED_CORE", True),
        ("/device:XLA_CPU:0", True),
        ("/job:worker/task:1", True),
        ("/job:ps/replica:0/task:0/device:CPU:0", True),
        # Malformed strings are device-spec-syntax's findings, not this rule's.
        ("GPU:0", False),
        ("1", False),
        ("/device:GPU:", False),
        ("tpu", False),
    ],
)
def test_pin_problem(device, reported):
    assert (pin_problem(device, CPU) is not None) == reported


def _cases():
    text = (
        "\n".join(
            [
                node("a", "NoOp", device="/device:GPU:0"),
                node("b", "NoOp", device="/device:GPU:0"),
                node("c", "NoOp", device="/device:GPU:1"),
                node("d", "NoOp", device="/cpu:0"),
            ]
        )
        + "\n"
    )
    yield pytest.param(text, [(RULE, "a", 1), (RULE, "c", 3)], id="one-per-device-string")
    lib = 'library {\n  function { signature { name: "f" } node_def { name: "g" op: "NoOp" device: "/device:GPU:0" } }\n}\n'
    text = node("a", "NoOp", device="/device:GPU:0") + "\n" + lib
    yield pytest.param(text, [(RULE, "a", 1), (RULE, "g", line_of(text, '"g"'))], id="per-scope")
    yield pytest.param(node("a", "NoOp") + "\n", [], id="no-device")


@pytest.mark.parametrize("pbtxt, expected", list(_cases()))
def test_rule(pbtxt, expected):
    assert pinned(lint_text(pbtxt, ON), rule=RULE) == expected


def test_allowed_types_option():
    text = node("a", "NoOp", device="/device:GPU:0") + "\n" + node("b", "NoOp", device="/device:TPU:0") + "\n"
    config = {"rules": {RULE: {"level": "warning", "allowed-types": ["cpu", "gpu"]}}}
    assert pinned(lint_text(text, config), rule=RULE) == [(RULE, "b", 2)]


def test_messages():
    text = (
        "\n".join(
            [
                node("a", "NoOp", device="/device:GPU:0"),
                node("b", "NoOp", device="/device:GPU:0"),
                node("c", "NoOp", device="/job:worker/task:1"),
            ]
        )
        + "\n"
    )
    assert [f.message for f in lint_text(text, ON) if f.rule == RULE] == [
        "Node 'a' (and 1 more) is pinned to '/device:GPU:0': a server needs a GPU device to run it",
        "Node 'c' is pinned to '/job:worker/task:1': a model server runs as job 'localhost' and cannot place it, even with soft placement",
    ]


def test_tf_saver_cpu_pins_are_fine():
    # TF2 SavedModels pin their saver ops to /device:CPU:0.
    for name in ("tf2_module_signatures", "tf2_keras_export", "tf1_legacy_init_op"):
        assert [f for f in lint_file(require(SERVING / name), ON).findings if f.rule == RULE] == []


def test_real_graph_with_job_pin():
    findings = [f for f in lint_file(require(DATA / "real" / "tf1_misc_ops.pbtxt"), ON).findings if f.rule == RULE]
    assert [f.node for f in findings] == ["dev_job_only"]
