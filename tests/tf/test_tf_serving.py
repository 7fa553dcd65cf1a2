"""What a model server sees in a meta graph (tflint.tf.serving): signature tensors, resolution, what runs.

(Named test_tf_serving: tests/test_serving.py is the serving preset on real SavedModels.) Pinned
TensorFlow facts: a sparse TensorInfo names three tensors; `__saved_model_init_op` names an op to run,
not a tensor; a call node's outputs are its function's output args (its `Tout` is only the caller's
claim); a server runs what is upstream of signature outputs, init ops and the SaverDef's restore op,
and every function those call, never the rest.
"""

from __future__ import annotations

import pytest
from google.protobuf import text_format

from tflint import protos
from tflint.api import registry_for
from tflint.config.settings import default_config
from tflint.engine.run import build_index
from tflint.read.load import load_bytes
from tflint.tf import serving

META = """
graph_def {
  node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
  node { name: "call" op: "StatefulPartitionedCall" input: "x"
    attr { key: "f" value { func { name: "f" } } } attr { key: "Tin" value { list { type: DT_FLOAT } } }
    attr { key: "Tout" value { list { type: DT_FLOAT type: DT_INT32 } } } }
  node { name: "unused" op: "Identity" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "init" op: "NoOp" }
  node { name: "save/Const" op: "Const" attr { key: "dtype" value { type: DT_STRING } }
    attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape {} string_val: "m" } } } }
  node { name: "save/restore_all" op: "NoOp" input: "^save/Const" }
  library { function {
    signature { name: "f" input_arg { name: "a" type: DT_FLOAT }
      output_arg { name: "y" type: DT_FLOAT } output_arg { name: "z" type: DT_INT64 } }
    node_def { name: "n" op: "Neg" input: "a" attr { key: "T" value { type: DT_FLOAT } } }
    node_def { name: "g" op: "PartitionedCall" input: "a" attr { key: "f" value { func { name: "h" } } }
      attr { key: "Tin" value { list { type: DT_FLOAT } } } attr { key: "Tout" value { list { } } } }
    node_def { name: "c" op: "Const" attr { key: "dtype" value { type: DT_INT64 } }
      attr { key: "value" value { tensor { dtype: DT_INT64 tensor_shape {} int64_val: 1 } } } }
    ret { key: "y" value: "n:y:0" } ret { key: "z" value: "c:output:0" } }
   function { signature { name: "h" input_arg { name: "b" type: DT_FLOAT } } }
   function { signature { name: "dead" } } }
}
saver_def { filename_tensor_name: "save/Const:0" restore_op_name: "save/restore_all" save_tensor_name: "save/Const:0" }
signature_def { key: "serving_default" value {
  inputs { key: "x" value { name: "x:0" dtype: DT_FLOAT } }
  outputs { key: "y" value { name: "call:0" dtype: DT_FLOAT } }
  outputs { key: "s" value { coo_sparse {
    values_tensor_name: "call:1" indices_tensor_name: "x:0" dense_shape_tensor_name: "x" } } } } }
signature_def { key: "__saved_model_init_op" value {
  outputs { key: "__saved_model_init_op" value { name: "init" } } } }
"""


@pytest.fixture(scope="module")
def meta():
    return text_format.Parse(META, protos.MetaGraphDef())


@pytest.fixture(scope="module")
def index(meta):
    artifact = load_bytes(meta.SerializeToString(), "model.meta")
    return build_index(artifact.graphs[0], registry_for(default_config()), artifact)


def test_signature_tensors_in_stable_order_with_sparse_parts(meta):
    found = [
        (item.signature, item.direction, item.key, item.part, item.name) for item in serving.signature_tensors(meta)
    ]
    assert found == [
        ("__saved_model_init_op", "outputs", "__saved_model_init_op", "", "init"),
        ("serving_default", "inputs", "x", "", "x:0"),
        ("serving_default", "outputs", "s", "values", "call:1"),
        ("serving_default", "outputs", "s", "indices", "x:0"),
        ("serving_default", "outputs", "s", "dense_shape", "x"),
        ("serving_default", "outputs", "y", "", "call:0"),
    ]
    first, second = list(serving.signature_tensors(meta))[:2]
    assert first.is_op and not second.is_op
    assert second.describe() == "signature 'serving_default' input 'x'"


DT_FLOAT, DT_INT64 = 1, 9
RESOLVE = [
    ("x:0", False, "x", (DT_FLOAT,), None),
    ("call:1", False, "call", (DT_FLOAT, DT_INT64), None),  # the function's output args, not Tout's int32
    (
        "call:2",
        False,
        "call",
        (DT_FLOAT, DT_INT64),
        "names 'call:2', but node 'call' (op StatefulPartitionedCall) has outputs 0 to 1",
    ),
    ("x:1", False, "x", (DT_FLOAT,), "names 'x:1', but node 'x' (op Placeholder) has only output 0"),
    ("ghost:0", False, None, None, "names 'ghost:0', but the graph has no node 'ghost'"),
    ("^x", False, "x", None, "names '^x', a control input, not a tensor"),
    ("", False, None, None, "names no tensor (the name is empty)"),
    ("^init", True, "init", None, None),  # an op to run: only the node must exist
]


@pytest.mark.parametrize(("name", "operation", "node", "types", "problem"), RESOLVE)
def test_resolve_tensor(index, name, operation, node, types, problem):
    resolved = serving.resolve_tensor(index, name, operation=operation)
    assert (resolved.node.name if resolved.node else None, resolved.types, resolved.problem) == (node, types, problem)


def test_what_the_server_runs(index):
    served = serving.served(index)
    # `unused` feeds no signature, and function `dead` is never called; `h` is called from inside `f`.
    assert served.nodes == {"x", "call", "init", "save/Const", "save/restore_all"}
    assert served.functions == {"f", "h"}
    requests = serving.signature_reach(index)
    assert (requests.nodes, requests.functions) == ({"x", "call"}, {"f", "h"})
    restore = serving.restore_reach(index)
    assert (restore.nodes, restore.functions) == ({"save/Const", "save/restore_all"}, set())
    assert "unused" not in serving.alive_nodes(index)
    saver = serving.saver_nodes(index)
    assert [node.name for node in index.all_nodes() if saver.covers(node)] == ["save/Const", "save/restore_all"]


def test_a_graphdef_has_no_entry_points():
    artifact = load_bytes(b'node { name: "x" op: "NoOp" }', "graph.pbtxt")
    index = build_index(artifact.graphs[0], registry_for(default_config()), artifact)
    assert serving.entry_points(index) == [] and serving.served(index) is None
    assert serving.meta_graph_ordinal(index) is None and not serving.is_saved_model(index)


def test_tag_sets_are_written_like_the_loader():
    assert serving.tag_set_text(["serve", "gpu", "serve"]) == "{ gpu, serve }"
    assert serving.tag_set_text([]) == "{ }"
