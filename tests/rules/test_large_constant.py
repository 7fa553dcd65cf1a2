"""large-constant: Const tensors whose in-memory size passes `max-bytes`."""

from __future__ import annotations

import pytest
from conftest import lint_text, pinned

from tflint import protos
from tflint.errors import ConfigError
from tflint.rules.large_constant import human_bytes, tensor_bytes

RULE = "large-constant"


def _on(limit: int | None = None) -> dict:
    setting: dict = {"level": "info"}
    if limit is not None:
        setting["max-bytes"] = limit
    return {"rules": {RULE: setting}}


def const(name: str, dtype: str, dims: tuple[int, ...], values: str = "", op: str = "Const") -> str:
    shape = " ".join(f"dim {{ size: {size} }}" for size in dims)
    return f'node {{ name: "{name}" op: "{op}" attr {{ key: "dtype" value {{ type: {dtype} }} }} attr {{ key: "value" value {{ tensor {{ dtype: {dtype} tensor_shape {{ {shape} }} {values} }} }} }} }}'


@pytest.mark.parametrize(
    "dims, dtype, values, expected",
    [
        ((4, 4), 1, {}, 64),
        ((1024, 1024), 2, {}, 8 * 1024 * 1024),
        ((), 19, {}, 2),
        ((0, 7), 1, {}, 0),
        ((3,), 7, {"string_val": [b"ab", b"c"]}, 2 + 1 + 1),  # the last string repeats
        ((2,), 7, {"tensor_content": b"\x02\x01abc"}, 5),
        ((-1, 2), 1, {}, None),
        ((2,), 21, {}, None),  # variant: no fixed size
    ],
)
def test_tensor_bytes(dims, dtype, values, expected):
    tensor = protos.TensorProto(dtype=dtype)
    for size in dims:
        tensor.tensor_shape.dim.add(size=size)
    for key, items in values.items():
        if isinstance(items, bytes):
            setattr(tensor, key, items)
        else:
            getattr(tensor, key).extend(items)
    assert tensor_bytes(tensor) == expected


def _cases():
    yield pytest.param(const("w", "DT_FLOAT", (1024, 1024)) + "\n", None, [], id="4MiB-under-default")
    # A splat constant: one stored value, 64 MiB once loaded.
    yield pytest.param(
        const("w", "DT_FLOAT", (4096, 4096), "float_val: 0.5") + "\n", None, [(RULE, "w", 1)], id="splat-over-default"
    )
    yield pytest.param(
        const("w", "DT_FLOAT", (16,)) + "\n" + const("v", "DT_DOUBLE", (16,)) + "\n",
        100,
        [(RULE, "v", 2)],
        id="threshold-option",
    )
    yield pytest.param(const("h", "DT_FLOAT", (64,), op="HostConst") + "\n", 100, [(RULE, "h", 1)], id="host-const")
    yield pytest.param(
        const("p", "DT_FLOAT", (64,), op="PlaceholderWithDefault") + "\n", 100, [], id="other-ops-not-checked"
    )
    body = 'library {\n  function { signature { name: "f" } node_def { name: "k" op: "Const" attr { key: "value" value { tensor { dtype: DT_INT64 tensor_shape { dim { size: 64 } } } } } } }\n}\n'
    yield pytest.param(body, 100, [(RULE, "k", 2)], id="function-body")


@pytest.mark.parametrize("pbtxt, limit, expected", list(_cases()))
def test_rule(pbtxt, limit, expected):
    assert pinned(lint_text(pbtxt, _on(limit)), rule=RULE) == expected


def test_message_and_level():
    findings = [f for f in lint_text(const("w", "DT_FLOAT", (4096, 4096)) + "\n", _on()) if f.rule == RULE]
    assert [(str(f.severity), f.message) for f in findings] == [
        ("info", "Node 'w' (op Const) holds a float [4096,4096] tensor of 64.0 MiB, more than 16.0 MiB")
    ]


def test_off_by_default():
    assert pinned(lint_text(const("w", "DT_FLOAT", (4096, 4096)) + "\n"), rule=RULE) == []


def test_non_positive_threshold_is_a_config_error():
    with pytest.raises(ConfigError, match="max-bytes: expected a positive number of bytes"):
        lint_text('node { name: "a" op: "NoOp" }\n', _on(0))


@pytest.mark.parametrize(
    "size, text", [(512, "512 bytes"), (1536, "1.5 KiB"), (16 << 20, "16.0 MiB"), (3 << 30, "3.0 GiB")]
)
def test_human_bytes(size, text):
    assert human_bytes(size) == text
