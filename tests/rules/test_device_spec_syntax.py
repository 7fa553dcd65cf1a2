"""device-spec-syntax: both of TensorFlow's device grammars, pinned against TensorFlow 2.21's verdicts."""

from __future__ import annotations

import pytest
from conftest import lint_text, pinned

from tflint.tf.devices import (
    cpp_device_error,
    python_canonical_name,
    python_device_error,
)

RULE = "device-spec-syntax"

# (device, Python DeviceSpec.from_string accepts, C++ ParseFullName accepts), each verdict
# taken from TensorFlow 2.21 itself (a separate TensorFlow virtualenv): Python by DeviceSpec.from_string (the same
# verdict as tf.import_graph_def), C++ by placing a node with that raw device in a Session
# ("Malformed device specification" or not). 7,600 more random strings agreed too.
TF_VERDICTS = [
    ("", True, True),
    ("/", True, True),
    ("//", True, False),
    ("///", True, False),
    ("/cpu:0", True, True),
    ("/CPU:0", True, True),
    ("/Cpu:0", True, False),
    ("/cpu", True, False),
    ("/CPU", True, False),
    ("/gpu:*", True, True),
    ("/GPU:0", True, True),
    ("/gpu:", False, False),
    ("/tpu:0", True, False),
    ("/TPU:0", True, False),
    ("GPU:0", True, False),
    ("gpu:0", True, False),
    ("cpu", True, False),
    ("CPU", True, False),
    ("tpu", True, False),
    ("1", False, False),
    ("2", False, False),
    ("/device:GPU", False, True),
    ("/device:GPU:", False, False),
    ("/device:GPU:0", True, True),
    ("/device:*:0", True, True),
    ("/device:*", False, True),
    ("/device:XLA_GPU:0", True, True),
    ("/device:TPU_REPLICATED_CORE", False, True),
    ("/device:TPU_REPLICATED_CORE:0", True, True),
    ("/job:a-b", True, False),
    ("/job:*", True, True),
    ("/job:", True, False),
    ("/job:localhost/replica:0/task:0/device:CPU:0", True, True),
    ("/job:localhost/replica:0/task:0/cpu:0", True, True),
    ("/job:localhost/replica:0/task:0", True, True),
    ("/replica:*", False, True),
    ("/task:*", False, True),
    ("/replica:00", True, True),
    ("/replica:-1", True, False),
    ("/replica: 1", True, False),
    ("/replica:1_0", True, False),
    ("/task:٣", True, False),
    ("/device:CPU:٣", True, False),
    ("/device:GPU:-1", True, False),
    ("/cpu:-1", True, False),
    ("/job:a/job:b", True, True),
    ("/cpu:0/gpu:0", False, True),
    ("/device:CPU:0/cpu:1", False, True),
    ("/cpu:0/device:GPU:1", False, True),
    ("/job:a/", True, False),
    ("/cpu:0/", True, False),
    ("job:a", True, False),
    ("/job:a:b", False, False),
    ("/:x", True, False),
    ("/:", True, False),
    (":", True, False),
    ("/:1:2:3", True, False),
    ("/device:GPU:0:1", False, False),
    ("/device:a:b:c", False, False),
    ("/replica:18446744073709551615", True, True),
    ("/replica:18446744073709551616", True, False),
    ("/task:0/task:x", False, False),
    ("/task:x/task:0", True, False),
    ("/job:worker/replica:0/task:1/device:GPU:3", True, True),
    ("/job:w/gpu:0", True, True),
    ("/cpu:*", True, True),
    ("/device:cpu:0", True, True),
    ("/device:gpu:0", True, True),
    ("/device:Gpu:0", True, True),
    ("/device:1GPU:0", True, False),
    ("/device:G-PU:0", True, False),
    ("/device:G PU:0", True, False),
    (" /cpu:0", False, False),
    ("/cpu:0 ", True, False),
    ("/job:ps/task:0", True, True),
    ("/job:ps/task:0/device:CPU:*", True, True),
    ("/custom:0", True, False),
    ("/CUSTOM:0", True, False),
    ("/epu:0", True, False),
    ("/device:CUSTOM:0", True, True),
    ("/replica:0abc", False, False),
    ("/job:*abc", True, False),
    ("/device:*x", False, False),
    ("/device:*:*", True, True),
    ("/device:GPU:*", True, True),
    ("/device:CPU:01", True, True),
    ("/job:a_b/replica:1/task:2/device:XLA_CPU:3", True, True),
    ("/job:A/replica:0/task:0/device:TPU_SYSTEM:0", True, True),
    ("/job:localhost/replica:0/task:0/device:GPU:0/job:other", True, True),
    ("/gpu:0/gpu:1", False, True),
    ("/job:a/replica:0/replica:1", True, True),
    ("/cpu:1/task:-1:é/JOB", False, False),
    ("/epu/task:1/JOB/gpu:1", False, False),
    ("/replica: 1/tpu:1.0", False, False),
    ("/device:a/xla_gpu", False, False),
    ("/foo:gpu/TPU:TPU_REPLICATED_CORE", False, False),
    ("/gpu/tpu:99999999999999999999", False, False),
    ("/device:1_0", False, False),
    ("/epu/task:18446744073709551616:99999999999999999999/xla_gpu:TPU_REPLICATED_CORE/task:A9_:foo.bar", False, False),
    ("/JOB:XLA_GPU:localhost/custom:٣:*/EPU:+1", False, False),
    ("/cpu:GPU/custom:**:007/CPU:A9_", False, False),
    ("/epu:CPU:a_b/cpu/cpu:a_b", False, False),
    ("/GPU:1 :epu:18446744073709551616", False, False),
    ("/EPU:GPU:GPU", False, False),
    ("/replica:a-b:EPU:99999999999999999999:replica:JOB:-1", False, False),
    ("/custom/GPU:é:foo.bar", False, False),
    ("/foo:007:cpu:TPU:foo.bar:CPU:a-b", False, False),
    ("/:007", True, False),
    ("/device:epu/task:2/task:2", False, True),
    ("/job:localhost/task:*", False, True),
    ("/device:TPU", False, True),
    ("/replica:1/device:Custom:*/device:XLA_GPU", False, True),
    ("/job:*/task:*/replica:*", False, True),
    ("/device:TPU_SYSTEM:00/replica:1/device:Custom:1", False, True),
    ("/task:0/device:cpu", False, True),
    ("/device:epu/replica:00/device:epu:10", False, True),
    ("/replica:*/replica:*/job:localhost", False, True),
    ("/device:CPU", False, True),
    ("/replica:1/device:gpu", False, True),
    ("/task:*/job:ps", False, True),
    ("/device:gpu/task:007", False, True),
    ("/device:CPU/task:0", False, True),
]


@pytest.mark.parametrize("device, python_ok, cpp_ok", TF_VERDICTS, ids=[repr(row[0]) for row in TF_VERDICTS])
def test_grammars_agree_with_tensorflow(device, python_ok, cpp_ok):
    assert (python_device_error(device) is None) == python_ok
    assert (cpp_device_error(device) is None) == cpp_ok


@pytest.mark.parametrize(
    "device, canonical",
    [
        # What tf.import_graph_def leaves on the op (checked with TensorFlow).
        ("/cpu:0", "/device:CPU:0"),
        ("GPU:0", "/device:GPU:0"),
        ("/cpu", "/device:CPU:*"),
        ("/tpu:0", "/device:TPU:0"),
        ("/job:w/replica:01/task:2/device:gpu:3", "/job:w/replica:1/task:2/device:GPU:3"),
        ("/device:xla_gpu:0", "/device:xla_gpu:0"),
        ("/job:a-b", "/job:a-b"),
        ("/device:GPU", None),
    ],
)
def test_python_canonical_name(device, canonical):
    assert python_canonical_name(device) == canonical


def test_pluggable_device_types_extend_the_python_grammar():
    assert python_device_error("/xpu:0") is not None
    assert python_device_error("/xpu:0", frozenset({"XPU"})) is None


def _graph(*devices: str) -> str:
    return "\n".join(f'node {{ name: "n{i}" op: "NoOp" device: "{device}" }}' for i, device in enumerate(devices))


@pytest.mark.parametrize(
    "pbtxt, expected",
    [
        pytest.param(
            _graph("", "/", "/cpu:0", "/CPU:0", "/gpu:*", "/GPU:0", "/device:XLA_CPU:0"), [], id="legal-and-legacy"
        ),
        pytest.param(
            _graph("/job:localhost/replica:0/task:0/device:GPU:0", "/job:ps/task:0", "/device:CPU:*"),
            [],
            id="canonical",
        ),
        pytest.param(_graph("/job:a-b", "/cpu:0"), [(RULE, "n0", 1)], id="job-with-dash-cpp-only"),
        pytest.param(_graph("/cpu:0", "/device:GPU"), [(RULE, "n1", 2)], id="device-without-index-python-only"),
        pytest.param(_graph("/foo:1"), [(RULE, "n0", 1)], id="unknown-component-both"),
        pytest.param(
            _graph("GPU:0", "/tpu:0", "/Cpu:0", "/cpu"),
            [(RULE, "n0", 1), (RULE, "n1", 2), (RULE, "n2", 3), (RULE, "n3", 4)],
            id="python-forms-cpp-rejects",
        ),
        pytest.param(_graph("/replica:*"), [(RULE, "n0", 1)], id="replica-star-python-rejects"),
        pytest.param(_graph("/cpu:0/device:GPU:0"), [(RULE, "n0", 1)], id="two-device-types-python-rejects"),
        pytest.param(_graph("/job:a/job:b", "/replica:0/replica:1"), [], id="repeats-last-wins"),
        pytest.param(
            _graph("/device:GPU:", "/replica:18446744073709551616"),
            [(RULE, "n0", 1), (RULE, "n1", 2)],
            id="empty-index-and-overflow",
        ),
        pytest.param(
            # Python skips the device of a colocated node; C++ still reads it.
            'node { name: "a" op: "NoOp" }\n'
            'node { name: "b" op: "NoOp" device: "/device:GPU" attr { key: "_class" value { list { s: "loc:@a" } } } }\n'
            'node { name: "c" op: "NoOp" device: "/job:x-y" attr { key: "_class" value { list { s: "loc:@a" } } } }\n'
            'node { name: "d" op: "NoOp" device: "/device:GPU" attr { key: "_class" value { list { s: "loc:@d" } } } }',
            [(RULE, "c", 3), (RULE, "d", 4)],
            id="colocated-nodes",
        ),
        pytest.param(
            # A GraphDef's function bodies meet only the C++ parser.
            'library { function { signature { name: "f" }\n'
            '  node_def { name: "tpu" op: "NoOp" device: "/device:TPU_REPLICATED_CORE" }\n'
            '  node_def { name: "bad" op: "NoOp" device: "/job:my-job" }\n'
            "} }",
            [(RULE, "bad", 3)],
            id="function-body-graphdef",
        ),
    ],
)
def test_rule(pbtxt, expected):
    assert pinned(lint_text(pbtxt), rule=RULE) == expected


SAVED_MODEL_BODY = """
saved_model_schema_version: 1
meta_graphs {
  graph_def {
    library { function { signature { name: "f" }
      node_def { name: "tpu" op: "NoOp" device: "/device:TPU_REPLICATED_CORE" }
    } }
  }
}
"""


def test_saved_model_function_bodies_meet_the_python_parser():
    # tf.saved_model.load rebuilds every function with function_def_to_graph (verified).
    findings = [f for f in lint_text(SAVED_MODEL_BODY, input_type="SavedModel") if f.rule == RULE]
    assert [(f.node, f.function, f.line) for f in findings] == [("tpu", "f", 6)]
    assert "fails in tf.saved_model.load (Python's DeviceSpec" in findings[0].message


def test_message_names_the_parser_and_the_reason():
    (finding,) = [f for f in lint_text(_graph("/job:my-job")) if f.rule == RULE]
    assert finding.message == (
        "Node 'n0': device \"/job:my-job\" fails at placement (C++ parser): "
        "job name 'my-job' may contain only letters, digits and '_'"
    )


def test_message_says_when_only_cpp_loaders_fail():
    (finding,) = [f for f in lint_text(_graph("GPU:0")) if f.rule == RULE]
    assert finding.message.endswith('tf.import_graph_def rewrites it to "/device:GPU:0", so only C++ loaders fail')


def test_message_for_python_only_rejection():
    (finding,) = [f for f in lint_text(_graph("/device:GPU")) if f.rule == RULE]
    assert finding.message == (
        "Node 'n0': device \"/device:GPU\" fails in tf.import_graph_def (Python's DeviceSpec; placement accepts it): "
        "unknown component 'device:GPU': a device type needs an index ('device:GPU:0' or 'device:GPU:*')"
    )


def test_device_types_option():
    config = {"rules": {RULE: {"device-types": ["XPU"]}}}
    assert pinned(lint_text(_graph("/device:XPU:0/xpu:0")), rule=RULE) == [(RULE, "n0", 1)]
    # With XPU known, Python reads "/xpu:0" as a second device type: still an error, now a different one
    # (the message gives C++'s reason, which both share, when both parsers reject the string).
    assert pinned(lint_text(_graph("/device:XPU:0/xpu:0"), config), rule=RULE) == [(RULE, "n0", 1)]
    from tflint.tf.devices import python_device_error

    assert "more than one device type" in python_device_error("/device:XPU:0/xpu:0", frozenset({"XPU"}))
    assert "unknown component 'xpu:0'" in python_device_error("/device:XPU:0/xpu:0")
