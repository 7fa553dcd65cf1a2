"""A model's review view: what makes two renderings equal (and what does not), on tiny graphs."""

from __future__ import annotations

import textwrap

import pytest

from tflint.api import registry_for, resolve_config
from tflint.engine.model_diff import diff_views
from tflint.engine.review import view_of
from tflint.read.load import load_bytes
from tflint.report.review import show_dict, show_text

REGISTRY = registry_for(resolve_config(None))

BASE = """
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "c" op: "NoOp" }
node { name: "d" op: "NoOp" }
node { name: "y" op: "Relu" input: "x:0" input: "^c" input: "^d" attr { key: "T" value { type: DT_FLOAT } } }
"""


def _view(text):
    return view_of(load_bytes(textwrap.dedent(text).encode(), "g.pbtxt"), REGISTRY)


def _changed(old, new):
    return diff_views(_view(old), _view(new)).changed


@pytest.mark.parametrize(
    "other, changed",
    [
        pytest.param(BASE, False, id="same"),
        pytest.param("\n".join(reversed(BASE.strip().splitlines())), False, id="node-order"),
        pytest.param(BASE.replace('input: "x:0"', 'input: "x"'), False, id="x-is-x:0"),
        pytest.param(BASE.replace('input: "^c" input: "^d"', 'input: "^d" input: "^c"'), False, id="control-order"),
        pytest.param(
            BASE.replace(
                'op: "Placeholder"', 'op: "Placeholder" attr { key: "shape" value { shape { unknown_rank: true } } }'
            ),
            False,
            id="default-attr-spelt-out",
        ),
        pytest.param(BASE.replace('"Relu"', '"Relu6"'), True, id="op"),
        pytest.param(BASE.replace('input: "^d"', ""), True, id="control-removed"),
        pytest.param(
            BASE.replace('DT_FLOAT } } }\nnode { name: "c"', 'DT_HALF } } }\nnode { name: "c"'), True, id="dtype"
        ),
        pytest.param(BASE.replace('op: "Relu"', 'op: "Relu" device: "/device:CPU:0"'), True, id="device"),
    ],
)
def test_what_is_a_change(other, changed):
    assert _changed(BASE, other) is changed


def test_a_renamed_node_and_its_consumers():
    renamed = BASE.replace('name: "y"', 'name: "relu"')
    diff = diff_views(_view(BASE), _view(renamed))
    (graph,) = diff.graphs
    assert graph.nodes_added == graph.nodes_removed == []
    assert [(change.old_name, change.new_name, change.fields) for change in graph.nodes_changed] == [("y", "relu", ())]


FUNCTIONS = """
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "call" op: "PartitionedCall" input: "x"
  attr { key: "Tin" value { list { type: DT_FLOAT } } } attr { key: "Tout" value { list { type: DT_FLOAT } } }
  attr { key: "f" value { func { name: "__inference_f_%d" } } } }
library {
  function {
    signature { name: "__inference_f_%d" input_arg { name: "a" type: DT_FLOAT } output_arg { name: "out" type: DT_FLOAT } }
    node_def { name: "r" op: "Relu" input: "a" attr { key: "T" value { type: DT_FLOAT } } }
    ret { key: "out" value: "r:activations:0" }
  }
}
"""


def test_function_numbers_are_not_part_of_the_model():
    old, new = _view(FUNCTIONS % (12, 12)), _view(FUNCTIONS % (1380, 1380))
    assert not diff_views(old, new).changed
    assert show_text(old) == show_text(new)
    assert "f = __inference_f" in show_text(old)
    assert list(old.graphs[0].functions) == ["__inference_f"]


def test_show_json_lists_nodes_functions_and_costs():
    document = show_dict(_view(FUNCTIONS % (7, 7)))
    (graph,) = document["graphs"]
    assert [node["name"] for node in graph["nodes"]] == ["call", "x"]
    assert [node["op"] for node in graph["functions"]["__inference_f"]] == ["Relu"]
    (cost,) = graph["costs"]
    assert cost["signature"] is None and cost["flops"] == 0


def test_weights_are_summarised_never_dumped():
    values = ", ".join(["1.5"] * 64)
    text = f"""
    node {{ name: "w" op: "Const" attr {{ key: "dtype" value {{ type: DT_FLOAT }} }}
      attr {{ key: "value" value {{ tensor {{ dtype: DT_FLOAT tensor_shape {{ dim {{ size: 64 }} }}
        float_val: [{values}] }} }} }} }}
    """
    rendered = show_text(_view(text))
    assert "1.5" not in rendered
    assert "value = float[64] (weight)" in rendered
    assert "  w  float [64]  256 B  #" in rendered


def test_how_a_text_spells_values_is_not_part_of_the_model():
    """What two protobuf releases (or hands) write differently: float spelling, attr order, enum vs number."""
    one = """
    node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
      attr { key: "shape" value { shape { dim { size: -1 } dim { size: 2 } } } } }
    node { name: "y" op: "LeakyRelu" input: "x" attr { key: "T" value { type: DT_FLOAT } }
      attr { key: "alpha" value { f: 0.5 } } }
    """
    other = """
    node { name: "x" op: "Placeholder"
      attr { key: "shape" value { shape { dim { size: -1 } dim { size: 2 } } } }
      attr { key: "dtype" value { type: 1 } } }
    node { name: "y" op: "LeakyRelu" input: "x:0" attr { key: "alpha" value { f: 5e-1 } }
      attr { key: "T" value { type: DT_FLOAT } } }
    """
    assert show_text(_view(one)) == show_text(_view(other))


def test_an_unknown_shape_makes_the_estimate_a_bound():
    text = """
    node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
      attr { key: "shape" value { shape { dim { size: -1 } dim { size: -1 } } } } }
    node { name: "w" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
      attr { key: "shape" value { shape { dim { size: 4 } dim { size: 2 } } } } }
    node { name: "y" op: "MatMul" input: "x" input: "w" attr { key: "T" value { type: DT_FLOAT } } }
    """
    (cost,) = _view(text).graphs[0].costs
    assert not cost.exact
    # x is fed as [1,?]: the product's shape [1,2] is known, the steps it sums over are not.
    assert cost.unknown == ("1 node(s) with FLOPs on unknown shapes",)
    assert "a lower bound: 1 node(s) with FLOPs on unknown shapes" in show_text(_view(text))


def test_a_renamed_weight_is_a_rename_twice_over():
    values = ", ".join(str(number) for number in range(64))
    text = """
    node {{ name: "{name}" op: "Const" attr {{ key: "dtype" value {{ type: DT_FLOAT }} }}
      attr {{ key: "value" value {{ tensor {{ dtype: DT_FLOAT tensor_shape {{ dim {{ size: 64 }} }}
        float_val: [{values}] }} }} }} }}
    node {{ name: "y" op: "Relu" input: "{name}" attr {{ key: "T" value {{ type: DT_FLOAT }} }} }}
    """
    old, new = _view(text.format(name="w", values=values)), _view(text.format(name="kernel", values=values))
    old_weights, new_weights = dict(old.weights), dict(new.weights)
    diff = diff_views(old, new)
    (graph,) = diff.graphs
    assert [(change.old_name, change.new_name) for change in graph.nodes_changed] == [("w", "kernel")]
    assert [(a.name, b.name) for a, b in diff.weights_renamed] == [("w", "kernel")]
    assert diff.weights_added == diff.weights_removed == [] and old_weights and new_weights
