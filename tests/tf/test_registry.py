"""The op registry (tflint.tf.registry): the bundled snapshot, its lazy index, and layered lookup.

The snapshot is TensorFlow 2.21's registry: GraphDef version 2474 (min producer and consumer 0, as
`tf.version` reports), and DataType names as in types.proto (`DT_FLOAT` is 1, named `float`).
"""

from __future__ import annotations

from tflint import protos
from tflint.tf.registry import BundledOps, OpRegistry, bundled_ops, ops_index, snapshot_info, user_registry


def _op_list(*names: str) -> protos.OpList:
    op_list = protos.OpList()
    for name in names:
        op = op_list.op.add(name=name)
        op.output_arg.add(name="out", type=1)
    return op_list


def test_snapshot_is_tensorflow_2_21():
    info = snapshot_info()
    assert info.tensorflow_version == "2.21.0"
    assert (info.graph_def_version, info.min_producer, info.min_consumer) == (2474, 0, 0)
    assert {number: info.data_types[number] for number in (1, 2, 3, 7, 9, 10, 14, 19)} == {
        1: "float",
        2: "double",
        3: "int32",
        7: "string",
        9: "int64",
        10: "bool",
        14: "bfloat16",
        19: "half",
    }
    ops = bundled_ops()
    assert "Conv2D" in ops and "NoSuchOp" not in ops and ops.get("NoSuchOp") is None
    assert {attr.name for attr in ops["MatMul"].attr} >= {"transpose_a", "transpose_b", "T", "grad_a", "grad_b"}


def test_bundled_ops_parse_from_the_index_and_survive_a_stale_or_missing_one():
    data = _op_list("A", "B", "C").SerializeToString()
    index = ops_index(data)
    assert [line.split()[0] for line in index.splitlines()] == ["A", "B", "C"]
    lazy = BundledOps(data, index)
    assert list(lazy) == ["A", "B", "C"] and lazy._parsed == {}
    assert lazy["B"].name == "B" and set(lazy._parsed) == {"B"}  # only what is asked for is parsed
    # An index whose spans point at the wrong op: every op is parsed, and the answer is still right.
    swapped = index.replace("A ", "X ").replace("B ", "A ").replace("X ", "B ")
    assert BundledOps(data, swapped)["A"].name == "A"
    for broken in ("", "A 0", "garbage index of words", index.rsplit(" ", 1)[0] + " 999999"):
        assert BundledOps(data, broken)["C"].name == "C"


def test_user_op_lists_come_before_the_bundled_registry():
    registry = user_registry([("mine.pbtxt", _op_list("Conv2D", "MyOp")), ("other.pbtxt", _op_list("MyOp"))])
    assert registry.schema("Conv2D").source == "mine.pbtxt"  # shadows TensorFlow's
    assert registry.schema("MyOp").source == "mine.pbtxt"  # the first layer wins
    assert registry.schema("MatMul").source == "tensorflow"
    assert registry.schema("NoSuchOp") is None
    assert registry.schema("MyOp") is registry.schema("MyOp")  # built once
    assert [source for source, _ in registry.layers()] == ["mine.pbtxt", "other.pbtxt", "tensorflow"]
    names = list(registry.names())
    assert names.count("MyOp") == 1 and names.count("Conv2D") == 1 and "MatMul" in names


def test_a_registry_without_the_bundled_layer():
    registry = OpRegistry([("only", {"A": _op_list("A").op[0]})], include_bundled=False)
    assert registry.schema("MatMul") is None and list(registry.names()) == ["A"]
