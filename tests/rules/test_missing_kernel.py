"""missing-kernel: nodes TensorFlow's placer cannot put on the server's devices.

The expectations follow TensorFlow 2.21's placer (tools/check_kernels_tf.py
records its verdicts on mutated real graphs; tests/test_kernel_verdicts.py
replays them): a uint8 MatMul has no CPU kernel, a GPU pin fails on a CPU-only
server without soft placement, and so on.
"""

from __future__ import annotations

import pytest
from conftest import lint_text, pinned

RULE = "missing-kernel"


def _node(name: str, op: str, inputs: tuple[str, ...] = (), device: str = "", **attrs: str) -> str:
    parts = [f'name: "{name}"', f'op: "{op}"', *(f'input: "{item}"' for item in inputs)]
    if device:
        parts.append(f'device: "{device}"')
    parts.extend(f'attr {{ key: "{key}" value {{ {value} }} }}' for key, value in attrs.items())
    return "node { " + " ".join(parts) + " }"


def _placeholder(name: str, dtype: str = "DT_FLOAT", device: str = "") -> str:
    return _node(name, "Placeholder", device=device, dtype=f"type: {dtype}")


def _graph(*nodes: str) -> str:
    return "\n".join(nodes) + "\n"


def _config(devices=("CPU",), soft=False) -> dict:
    return {"rules": {RULE: {"level": "error", "devices": list(devices), "soft-placement": soft}}}


UINT8_MATMUL = _graph(_placeholder("x", "DT_UINT8"), _node("m", "MatMul", ("x", "x"), T="type: DT_UINT8"))
FLOAT_MATMUL = _graph(_placeholder("x"), _node("m", "MatMul", ("x", "x"), T="type: DT_FLOAT"))
GPU_PIN = _graph(_node("g", "NoOp", device="/device:GPU:0"))
LEGACY_GPU_PIN = _graph(_placeholder("p", device="/gpu:0"))
CPU_PIN = _graph(_placeholder("p", device="/job:localhost/replica:0/task:0/device:CPU:0"))
# Relu has no qint8 kernel on CPU, but the GPU build registers one.
QINT8_RELU = _graph(_placeholder("x", "DT_QINT8"), _node("r", "Relu", ("x",), T="type: DT_QINT8"))
# A colocated pair: the Placeholder runs anywhere, MatMul uint8 nowhere on CPU (reported as such only).
COLOCATED = _graph(
    _placeholder("x", "DT_UINT8"),
    _node("m", "MatMul", ("x", "x"), T="type: DT_UINT8", _class='list { s: "loc:@x" }'),
)
# Two members of a group pinned to different device types.
SPLIT_PINS = _graph(
    _placeholder("a", device="/device:CPU:0"),
    _node("b", "Identity", ("a",), device="/device:GPU:0", T="type: DT_FLOAT", _class='list { s: "loc:@a" }'),
)
UNKNOWN_LABEL = _graph(_node("n", "NoOp", _kernel='s: "nobody"'))
# A function body is placed softly: its GPU pin is not an error, its uint8 MatMul is.
FUNCTION = """
node { name: "call" op: "f" }
library { function {
  signature { name: "f" }
  node_def { name: "g" op: "NoOp" device: "/device:GPU:0" }
  node_def { name: "p" op: "Placeholder" attr { key: "dtype" value { type: DT_UINT8 } } }
  node_def { name: "m" op: "MatMul" input: "p:output:0" input: "p:output:0" attr { key: "T" value { type: DT_UINT8 } } }
} }
"""
UNCALLED = FUNCTION.replace('node { name: "call" op: "f" }', "")


@pytest.mark.parametrize(
    "pbtxt, config, expected",
    [
        pytest.param(FLOAT_MATMUL, _config(), [], id="float-matmul"),
        pytest.param(UINT8_MATMUL, _config(), [(RULE, "m", 2)], id="uint8-matmul"),
        pytest.param(UINT8_MATMUL, _config(soft=True), [(RULE, "m", 2)], id="uint8-matmul-soft"),
        pytest.param(GPU_PIN, _config(), [(RULE, "g", 1)], id="gpu-pin-cpu-server"),
        pytest.param(GPU_PIN, _config(soft=True), [], id="gpu-pin-soft"),
        pytest.param(GPU_PIN, _config(devices=("CPU", "GPU")), [], id="gpu-pin-gpu-server"),
        pytest.param(LEGACY_GPU_PIN, _config(), [(RULE, "p", 1)], id="legacy-gpu-pin"),
        pytest.param(CPU_PIN, _config(), [], id="cpu-pin"),
        pytest.param(CPU_PIN.replace("CPU:0", "CPU:1"), _config(), [(RULE, "p", 1)], id="second-cpu-pin"),
        pytest.param(CPU_PIN.replace("CPU:0", "CPU:1"), _config(soft=True), [], id="second-cpu-pin-soft"),
        pytest.param(QINT8_RELU, _config(), [(RULE, "r", 2)], id="qint8-relu-cpu"),
        pytest.param(QINT8_RELU, _config(devices=("CPU", "GPU")), [], id="qint8-relu-gpu-build"),
        pytest.param(COLOCATED, _config(), [(RULE, "m", 2)], id="colocated-no-kernel"),
        pytest.param(SPLIT_PINS, _config(devices=("CPU", "GPU")), [(RULE, "b", 2)], id="split-pins"),
        pytest.param(SPLIT_PINS, _config(devices=("CPU", "GPU"), soft=True), [], id="split-pins-soft"),
        pytest.param(UNKNOWN_LABEL, _config(), [(RULE, "n", 1)], id="unknown-label"),
        pytest.param(FUNCTION, _config(), [(RULE, "m", 7)], id="function-body"),
        pytest.param(UNCALLED, _config(), [], id="uncalled-function"),
    ],
)
def test_missing_kernel(pbtxt, config, expected):
    assert pinned(lint_text(pbtxt, config), RULE) == expected


def test_message_names_the_dtypes_with_kernels():
    (finding,) = [f for f in lint_text(UINT8_MATMUL, _config()) if f.rule == RULE]
    assert finding.message.startswith(
        "No OpKernel was registered to support Op 'MatMul' used by node 'm' with these attrs: [T=uint8]; "
        "T has kernels on CPU for: "
    )
    assert "float" in finding.message and "uint8" not in finding.message.split("for: ")[1]
    assert len(finding.message) < 200


def test_message_for_an_unsatisfiable_pin():
    (finding,) = [f for f in lint_text(GPU_PIN, _config()) if f.rule == RULE]
    assert finding.message == (
        "Cannot assign a device for operation 'g': it is explicitly assigned to '/device:GPU:0' "
        "but the server's devices are CPU:0"
    )


def test_a_node_other_rules_reject_is_left_to_them():
    # Sqrt has no int32 in its OpDef: allowed-values reports it, the placer never sees it.
    text = _graph(_placeholder("x", "DT_INT32"), _node("s", "Sqrt", ("x",), T="type: DT_INT32"))
    assert pinned(lint_text(text, _config()), RULE) == []


@pytest.mark.parametrize(
    "options, code, reported",
    [
        pytest.param([], 0, False, id="default-soft"),
        pytest.param(["--no-soft-placement"], 1, True, id="hard"),
        pytest.param(["--no-soft-placement", "--devices", "cpu,GPU"], 0, False, id="gpu-server"),
        pytest.param(["--preset", "serving"], 1, True, id="serving-preset-is-hard"),
        pytest.param(["--preset", "serving", "--soft-placement"], 0, False, id="operator-sets-soft"),
    ],
)
def test_command_line_options(tmp_path, capsys, options, code, reported):
    from tflint.cli import main

    path = tmp_path / "g.pbtxt"
    path.write_text(GPU_PIN)
    assert main(["--select", RULE, *options, str(path)]) == code
    assert (f"[{RULE}]" in capsys.readouterr().out) == reported


def test_an_unknown_device_type_is_a_usage_error(tmp_path, capsys):
    from tflint.cli import main

    path = tmp_path / "g.pbtxt"
    path.write_text(GPU_PIN)
    assert main(["--devices", "TPU", str(path)]) == 2
    assert "devices: TPU; missing-kernel knows the device types CPU, GPU" in capsys.readouterr().err


# Range gained its half kernel on CPU in TF 2.18: a target release with bundled kernels is judged too.
HALF_RANGE = _graph(
    _placeholder("x", "DT_HALF"),
    _node("r", "Range", ("x", "x", "x"), Tidx="type: DT_HALF"),
)


@pytest.mark.parametrize(
    "target, expected",
    [
        pytest.param(None, [], id="newest"),
        pytest.param("2.15", [(RULE, "r", 2)], id="target-with-kernels"),
        pytest.param("1.15", [(RULE, "r", 2)], id="oldest-target"),
        pytest.param("2.4", [(RULE, "r", 2)], id="old-target-with-kernels"),
        pytest.param("2.11", [(RULE, "r", 2)], id="older-target-with-kernels"),
        pytest.param("2.17", [(RULE, "r", 2)], id="last-release-without-the-kernel"),
        pytest.param("2.18", [], id="first-release-with-the-kernel"),
    ],
)
def test_target_releases_with_bundled_kernels(target, expected):
    config = _config()
    if target is not None:
        config["target-tf"] = target
    findings = [f for f in lint_text(HALF_RANGE, config) if f.rule == RULE]
    assert pinned(findings) == expected
    assert all(f.message.endswith(f"(TF {target})") for f in findings)


# The releases whose two wheels (tensorflow-cpu, GPU-built tensorflow) tools/gen_kernels.py dumped, oldest first.
BUNDLED_KERNEL_RELEASES = (
    "1.15",
    "2.0",
    "2.1",
    "2.2",
    "2.3",
    "2.4",
    "2.5",
    "2.6",
    "2.7",
    "2.8",
    "2.9",
    "2.10",
    "2.11",
    "2.12",
    "2.13",
    "2.14",
    "2.15",
    "2.16",
    "2.17",
    "2.18",
    "2.19",
    "2.20",
    "2.21",
)


def test_bundled_kernel_releases():
    from tflint.tf.kernels import build_for, builds, releases_with_kernels

    assert releases_with_kernels() == BUNDLED_KERNEL_RELEASES
    assert builds() == tuple(f"{release}-{build}" for release in BUNDLED_KERNEL_RELEASES for build in ("cpu", "gpu"))
    assert build_for("2.21", ("CPU", "GPU")) == "2.21-gpu"
    assert build_for("1.14", ("CPU",)) is None


def test_one_finding_per_device_string_the_server_lacks():
    text = _graph(
        _placeholder("a", device="/job:localhost/replica:0/task:0/device:GPU:0"),
        _placeholder("b", device="/job:localhost/replica:0/task:0/device:GPU:0"),
        _placeholder("c", device="/device:GPU:1"),
    )
    findings = [f for f in lint_text(text, _config()) if f.rule == RULE]
    assert pinned(findings) == [(RULE, "a", 1), (RULE, "c", 3)]
    assert findings[0].message == (
        "Cannot assign a device for operation 'a': it is explicitly assigned to '...calhost/replica:0/task:0/device:GPU:0' "
        "but the server's devices are CPU:0 (and 1 more nodes pinned there)"
    )


def test_min_tf_takes_the_bundled_kernels_into_account(tmp_path):
    from tflint.api import min_tf

    path = tmp_path / "range.pbtxt"
    path.write_text(HALF_RANGE)
    result = min_tf(path)
    assert result.release == "2.18"  # the CPU kernels of 2.17 and older lack it, 2.18's have it
    assert ("2.18", ("kernel Range[Tidx=half] on CPU",)) in result.needs
    off = min_tf(path, {"rules": {RULE: "off"}})
    assert all("kernel" not in reason for _, reasons in off.needs for reason in reasons)
    nowhere = tmp_path / "matmul.pbtxt"
    nowhere.write_text(UINT8_MATMUL)
    assert min_tf(nowhere).blockers == (RULE,)


VARIABLE = 'node { name: "v" op: "VarHandleOp" %s attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape {} } } }'
READ = 'node { name: "r" op: "ReadVariableOp" input: "v" device: "/device:GPU:0" attr { key: "dtype" value { type: DT_FLOAT } } }'


@pytest.mark.parametrize(
    "variable_device, expected",
    [
        # Across a resource edge the user's pin gives way to the variable's (TF 2.21 places it on the CPU).
        pytest.param('device: "/device:CPU:0"', [], id="variable-pinned"),
        pytest.param("", [(RULE, "r", 2)], id="variable-unpinned"),
    ],
)
def test_a_resource_users_pin_gives_way_to_the_resources(variable_device, expected):
    text = _graph(VARIABLE % variable_device, READ)
    assert pinned(lint_text(text, _config()), RULE) == expected
