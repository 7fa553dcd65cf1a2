"""interface-mismatch: the `interface:` of a graph file, checked like a SavedModel signature."""

from __future__ import annotations

import pytest
from conftest import lint_text, pinned

import tflint
from tflint.errors import ConfigError

ID = "interface-mismatch"
GRAPH = (
    'node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } '
    'attr { key: "shape" value { shape { dim { size: -1 } dim { size: 3 } } } } }\n'
    'node { name: "y" op: "Relu" input: "x" attr { key: "T" value { type: DT_FLOAT } } }\n'
    'node { name: "init" op: "NoOp" }\n'
)


def interface(inputs=None, outputs=None, pattern="*"):
    entry = {}
    if inputs is not None:
        entry["inputs"] = inputs
    if outputs is not None:
        entry["outputs"] = outputs
    return {"interface": {pattern: entry}}


@pytest.mark.parametrize(
    "config, expected",
    [
        pytest.param({}, [], id="no-interface"),
        pytest.param(interface(["x:0"], ["y:0", "init"]), [], id="names-only"),
        pytest.param(interface({"x": {"dtype": "float32", "shape": [None, 3]}}), [], id="x-is-x0"),
        pytest.param(interface({"x:0": {"dtype": "DT_FLOAT", "shape": [8, 3]}}), [], id="known-batch-fits-unknown"),
        pytest.param(interface(outputs={"y:0": {"shape": [-1, 3]}}), [], id="inferred-output-shape"),
        pytest.param(interface(outputs={"y:0": {"shape": None}}), [], id="unknown-rank-listed"),
        pytest.param(interface(["input:0"]), [(ID, None, None)], id="missing-input"),
        pytest.param(interface(outputs=["softmax:0"]), [(ID, None, None)], id="missing-output"),
        pytest.param(interface(outputs=["softmax"]), [(ID, None, None)], id="missing-operation"),
        pytest.param(interface(outputs=["y:1"]), [(ID, "y", 2)], id="index-out-of-range"),
        pytest.param(interface({"x:0": {"dtype": "int32"}}), [(ID, "x", 1)], id="input-dtype"),
        pytest.param(interface(outputs={"y:0": "float64"}), [(ID, "y", 2)], id="output-dtype-shorthand"),
        pytest.param(interface({"x:0": {"shape": [None, 4]}}), [(ID, "x", 1)], id="input-shape"),
        pytest.param(interface(outputs={"y:0": {"shape": [None]}}), [(ID, "y", 2)], id="output-rank"),
        pytest.param(interface(["x:a"]), [(ID, None, None)], id="bad-name"),
        pytest.param(interface(["input:0"], pattern="other/*.pb"), [], id="glob-does-not-match"),
    ],
)
def test_interface_mismatch(config, expected):
    assert pinned(lint_text(GRAPH, config or None), rule=ID) == expected


@pytest.mark.parametrize(
    "config, message",
    [
        (interface(["input:0"]), "Interface input 'input:0': the graph has no node 'input'"),
        (interface(outputs=["y:1"]), "Interface output 'y:1': node 'y' (op Relu) has 1 output"),
        (
            interface({"x:0": {"dtype": "int32"}}),
            "Interface input 'x:0' is listed as int32, but the graph's tensor is float",
        ),
        (
            interface({"x:0": {"shape": [None, 4]}}),
            "Interface input 'x:0' is listed with shape [?,4], but the graph's tensor has shape [?,3], which is "
            "incompatible",
        ),
    ],
)
def test_messages(config, message):
    assert [f.message for f in lint_text(GRAPH, config) if f.rule == ID] == [message]


def test_first_matching_glob_applies_relative_to_the_config(tmp_path):
    models = tmp_path / "models"
    models.mkdir()
    (models / "frozen.pbtxt").write_text(GRAPH)
    (tmp_path / ".tflint.yaml").write_text(
        "interface:\n  models/frozen*.pbtxt:\n    inputs: {'input:0': {dtype: float32}}\n  '*':\n    inputs: ['x:0']\n"
    )
    (tmp_path / ".git").mkdir()
    report = tflint.lint_file(models / "frozen.pbtxt")
    assert [(f.rule, f.message) for f in report.findings] == [
        (ID, "Interface input 'input:0': the graph has no node 'input'")
    ]


@pytest.mark.parametrize(
    "value, error",
    [
        ([], "interface: expected a mapping of file glob"),
        ({"*": ["x:0"]}, "interface.*: expected a mapping with inputs and/or outputs"),
        ({"*": {"input": ["x:0"]}}, "interface.*: unknown key 'input' (did you mean 'inputs'?)"),
        ({"*": {"inputs": "x:0"}}, "interface.*.inputs: expected a list of tensor names"),
        ({"*": {"inputs": {"x:0": {"dtype": "float33"}}}}, "interface.*.inputs.x:0: unknown dtype 'float33'"),
        ({"*": {"inputs": {"x:0": {"shape": [1.5]}}}}, "interface.*.inputs.x:0.shape: a size is an integer"),
        ({"*": {"inputs": {"x:0": 3}}}, "interface.*.inputs.x:0: expected a dtype name or a mapping"),
    ],
)
def test_config_errors(value, error):
    with pytest.raises(ConfigError) as raised:
        lint_text(GRAPH, {"interface": value})
    assert error in str(raised.value)
