"""Function bodies are shape-checked with the caller's shapes, where TensorFlow 2.21's importer does it.

data/shapes/function_calls_tf221.jsonl holds small graphs whose library function has, or is
called with, a shape problem, and what `tf.graph_util.import_graph_def` did with each
(tools/function_shape_cases.py; no TensorFlow here): a rejection must be a shape-mismatch error
on the node TensorFlow names, inside the function when that node is a body node; an import must
give no error or warning, and the call nodes' output shapes must be TensorFlow's.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import lint_text

from tflint.api import registry_for
from tflint.config.settings import default_config
from tflint.engine.run import build_index
from tflint.finding import Severity
from tflint.read.load import load_bytes
from tflint.tf.shapes import infer_shapes
from tflint.tf.shapes import inference as inference_module
from tflint.tf.shapes.calls import build_body

CASES = {
    case["id"]: case
    for case in (
        json.loads(line)
        for line in (Path(__file__).parents[1] / "data" / "shapes" / "function_calls_tf221.jsonl")
        .read_text()
        .splitlines()
        if line.strip()
    )
}
# The nodes of the cases' bodies (every other node named in a message is a top-level node).
BODY_NODES = {"m", "rd", "inner"}


def _index(text: str):
    artifact = load_bytes(text.encode(), "case.pbtxt")
    return build_index(artifact.graphs[0], registry_for(default_config()), artifact)


def _tf_shape(text: str):
    """TensorFlow's printed TensorShape as tflint's shape: None for unknown rank, -1 for an unknown dim."""
    if text == "<unknown>":
        return None
    return tuple(-1 if part.strip() == "None" else int(part) for part in text.strip("()").split(",") if part.strip())


@pytest.mark.parametrize("case", CASES.values(), ids=list(CASES))
def test_tensorflow_verdict(case):
    findings = [f for f in lint_text(case["graph_pbtxt"]) if f.severity >= Severity.WARNING]
    if case["verdict"] == "imports":
        assert findings == []
        index = _index(case["graph_pbtxt"])
        inference = infer_shapes(index)
        for name, shapes in case["shapes"].items():
            for position, shape in enumerate(shapes):
                mine = inference.output_shape(index.node(name), position)
                if name in ("if", "wh"):  # not a call: tflint may know less, never more
                    assert mine is None or mine == _tf_shape(shape), name
                else:
                    assert mine == _tf_shape(shape), name
        return
    named = re.search(r"\{\{node (\S+)\}\}|^Node '(\S+)'", case["message"])
    node = named.group(1) or named.group(2)
    errors = [(f.rule, f.node, f.function) for f in findings if f.severity == Severity.ERROR]
    function = "r" if case["id"].startswith("constant_argument") else "rv" if "resource" in case["id"] else "f"
    assert errors == [("shape-mismatch", node, function if node in BODY_NODES else None)], case["message"]


def test_the_message_names_the_function_and_its_caller():
    findings = lint_text(CASES["nested_partitioned_call"]["graph_pbtxt"])
    assert [f.message for f in findings if f.rule == "shape-mismatch"] == [
        "Node 'm' in function 'f' (called by 'inner'): Dimensions must be equal, but are 5 and 3 for MatMul with "
        "input shapes [2,5], [3,4]; TensorFlow rejects the graph at import"
    ]
    findings = lint_text(CASES["constant_argument"]["graph_pbtxt"])
    [message] = [f.message for f in findings if f.rule == "shape-mismatch"]
    assert "with constant input 'shape' = [4,4]" in message and "in function 'r' (called by 'call')" in message


def test_a_body_error_is_reported_once_however_many_calls_reach_it():
    text = CASES["called_twice"]["graph_pbtxt"].replace(
        'node { name: "c2"', 'node { name: "c3" op: "f" input: "z" }\nnode { name: "c2"'
    )
    assert [(f.rule, f.node) for f in lint_text(text) if f.rule == "shape-mismatch"] == [("shape-mismatch", "m")]


def test_recursion_is_unknown_not_a_crash():
    # TensorFlow's importer overflows its stack on this graph; tflint reports the recursion only.
    text = CASES["nested_partitioned_call"]["graph_pbtxt"].replace('func { name: "f" }', 'func { name: "g" }')
    assert sorted({f.rule for f in lint_text(text)}) == ["recursive-function"]


def test_calls_beyond_the_budget_are_unknown(monkeypatch):
    # Each distinct call costs its body's size; past the budget calls count as unknown (no finding).
    text = CASES["partitioned_call"]["graph_pbtxt"]
    assert [f.rule for f in lint_text(text)] == ["shape-mismatch"]
    monkeypatch.setattr(inference_module, "BODY_BUDGET_MINIMUM", 1)
    monkeypatch.setattr(inference_module, "BODY_BUDGET_FACTOR", 0)
    assert lint_text(text) == []


def test_a_call_with_arguments_other_than_the_signature_is_left_to_call_signature():
    # Two arguments for a one-argument function: call-signature's finding, no inference of the body.
    text = CASES["partitioned_call"]["graph_pbtxt"].replace(
        'input: "x" attr { key: "Tin" value { list { type: DT_FLOAT } } }',
        'input: "x" input: "x" attr { key: "Tin" value { list { type: DT_FLOAT type: DT_FLOAT } } }',
    )
    assert [f.rule for f in lint_text(text)] == ["call-signature"]


def test_a_body_input_addresses_its_producers_flattened_output():
    # `u:idx:0` is Unique's second output (after `y`); `s:output:1` the second value of Split's list.
    text = """
    node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "call" op: "f" input: "x" }
    library { function {
      signature { name: "f" input_arg { name: "a" type: DT_FLOAT } output_arg { name: "y" type: DT_INT32 } }
      node_def { name: "u" op: "Unique" input: "a" attr { key: "T" value { type: DT_FLOAT } }
        attr { key: "out_idx" value { type: DT_INT32 } } }
      node_def { name: "d" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
        attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { } int_val: 0 } } } }
      node_def { name: "s" op: "Split" input: "d:output:0" input: "a" attr { key: "T" value { type: DT_FLOAT } }
        attr { key: "num_split" value { i: 2 } } }
      node_def { name: "n" op: "Identity" input: "s:output:1" input: "u:idx:0" input: "u:nope:0" input: "s:output:2"
        input: "a" input: "^u" attr { key: "T" value { type: DT_FLOAT } } }
      ret { key: "y" value: "u:idx:0" }
    } }
    """
    index = _index(text)
    body = build_body(index, index.function_scopes[0])
    node = next(node for node in body.nodes if node.name == "n")
    assert [(item.node, item.index) for item in node.inputs if not item.is_control] == [
        ("s", 1),
        ("u", 1),
        ("\x00", 0),  # no such output arg: unresolvable
        ("\x00", 0),  # past the end of the list
        ("a", 0),
    ]
    assert [(item.node, item.index) for item in body.returns] == [("u", 1)]
    assert [arg.op for arg in body.args] == ["_Arg"] and body.by_name["a"] is body.args[0]
    # The body's original nodes are where findings go.
    assert body.originals[node.ordinal] is index.function_scopes[0].nodes[node.ordinal]


def test_functions_with_list_arguments_are_not_inferred():
    text = CASES["partitioned_call"]["graph_pbtxt"].replace(
        'input_arg { name: "a0" type: DT_FLOAT }', 'input_arg { name: "a0" type: DT_FLOAT number_attr: "N" }'
    )
    index = _index(text)
    assert build_body(index, index.function_scopes[0]) is None
    assert not [f for f in lint_text(text) if f.rule == "shape-mismatch"]
