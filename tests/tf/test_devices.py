"""The two device-string grammars (tflint.tf.devices): C++ `ParseFullName` and Python `DeviceSpec`.

The Python column was checked against `tf.DeviceSpec.from_string(s).to_string()` of TensorFlow 2.21
(None where it raised ValueError); the C++ column follows `DeviceNameUtils::ParseFullName` as the
reference describes it (job names `[A-Za-z][A-Za-z0-9_]*`, numbers in 64 bits, legacy `/cpu:` and
`/CPU:` only). The grammars disagree, which is the point of having both.
"""

from __future__ import annotations

import pytest

from tflint.tf.devices import cpp_device_error, python_canonical_name, python_device_error

# device, C++ accepts it, what Python's DeviceSpec makes of it (None: ValueError)
GRAMMARS = [
    ("", True, ""),
    ("/", True, ""),
    ("/cpu:0", True, "/device:CPU:0"),
    ("/CPU:0", True, "/device:CPU:0"),
    ("/Cpu:0", False, "/device:CPU:0"),  # C++ knows only /cpu: and /CPU:; Python upper-cases
    ("/gpu:*", True, "/device:GPU:*"),
    ("/job:worker/replica:0/task:1/device:GPU:0", True, "/job:worker/replica:0/task:1/device:GPU:0"),
    ("/job:*", True, "/job:*"),
    ("/job:1worker", False, "/job:1worker"),  # a C++ job name starts with a letter
    ("/job:w-x", False, "/job:w-x"),
    ("/job:a b", False, "/job:a b"),
    ("/task:x", False, None),
    ("/replica:01", True, "/replica:1"),  # leading zeros: both accept, Python drops them
    ("/replica:1/replica:2", True, "/replica:2"),  # the last one wins
    ("/task:18446744073709551616", False, "/task:18446744073709551616"),  # 2**64: C++ overflows, Python int
    ("/device:GPU:0", True, "/device:GPU:0"),
    ("/device:GPU:*", True, "/device:GPU:*"),
    ("/device:GPU", True, None),  # C++ allows a type without an index; Python needs one
    ("/device:gpu:0", True, "/device:GPU:0"),
    ("/device:XLA_CPU:0", True, "/device:XLA_CPU:0"),
    ("/device:CPU:0/device:GPU:0", True, None),  # Python: more than one device type
    ("cpu:0", False, "/device:CPU:0"),  # C++ components start with '/'
    ("gpu:0/cpu:0", False, None),
    ("/cpu", False, "/device:CPU:*"),  # legacy C++ form needs an index; Python reads any index
    ("/tpu:0", False, "/device:TPU:0"),  # only cpu and gpu have a C++ short form
    ("/job:w/task:0/cpu:0", True, "/job:w/task:0/device:CPU:0"),
    ("/job:worker/", False, "/job:worker"),  # Python ignores empty pieces, C++ a trailing '/'
    ("//cpu:0", False, "/device:CPU:0"),
    ("/device:CPU:0 ", False, "/device:CPU:0"),  # Python's int() strips the space
]


@pytest.mark.parametrize(("device", "cpp_ok", "canonical"), GRAMMARS)
def test_both_grammars(device, cpp_ok, canonical):
    assert (cpp_device_error(device) is None) == cpp_ok
    assert python_canonical_name(device) == canonical
    assert (python_device_error(device) is None) == (canonical is not None)


@pytest.mark.parametrize(
    ("device", "reason"),
    [
        ("/Cpu:0", "'/Cpu:0' is not a device component; the legacy form is spelled /cpu: or /CPU: exactly"),
        ("/cpu", "'/cpu' is not a device component; the legacy form needs an index: /cpu:0 or /cpu:*"),
        ("/tpu:0", "'/tpu:0' is not a device component; write /device:TPU:0 (only cpu and gpu have a short form)"),
        ("cpu:0", "'cpu:0' is not a device component; components start with '/'"),
        ("/job:1worker", "job name '1worker' does not start with a letter"),
        ("/task:x", "the task number must be digits or '*', not 'x'"),
        ("/task:18446744073709551616", "the task number 18446744073709551616 does not fit in 64 bits"),
        (
            "/job:worker/",
            "'/' (at offset 11) starts none of /job:, /replica:, /task:, /device:, /cpu:, /gpu:, /CPU: or /GPU:",
        ),
    ],
)
def test_cpp_reason_names_the_failing_component(device, reason):
    assert cpp_device_error(device) == reason


def test_python_reasons():
    assert python_device_error("/task:x") == "the task 'x' is not an integer"
    assert "needs an index" in python_device_error("/device:GPU")
    assert "more than one device type" in python_device_error("/device:CPU:0/device:GPU:0")


def test_pluggable_device_types_extend_python_grammar_only():
    # A pluggable device registered in the process is a device type for DeviceSpec's short form.
    assert python_device_error("/MY_DEV:0") is not None
    assert python_canonical_name("/MY_DEV:0", frozenset({"MY_DEV"})) == "/device:MY_DEV:0"
    assert cpp_device_error("/device:MY_DEV:0") is None
