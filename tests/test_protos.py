"""Tests for tflint's own TensorFlow schema (protos/) and the op registry snapshot (lint/data/)."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from types import ModuleType

import pytest
from google.protobuf import descriptor_pb2, descriptor_pool, text_format
from google.protobuf.message import Message

import tflint.protos as tp
from tflint.tf.registry import OPS_INDEX, BundledOps, ops_index

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO / "tests" / "data" / "corpus"
PROTO_DIR = REPO / "protos"
DATA_DIR = REPO / "lint" / "tf" / "data"


def load_tool(name: str) -> ModuleType:
    # tools/ is not a package; load a generator so that the test runs it exactly as it does.
    spec = importlib.util.spec_from_file_location(name, REPO / "tools" / f"{name}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def read_set(path: Path) -> dict[str, descriptor_pb2.FileDescriptorProto]:
    fds = descriptor_pb2.FileDescriptorSet.FromString(path.read_bytes())
    files = {}
    for f in fds.file:
        f.ClearField("source_code_info")
        if f.name.startswith("google/protobuf/"):
            # Only the types matter; the bundled copy's file options move with grpcio-tools releases.
            f.ClearField("options")
        files[f.name] = f
    return files


def assert_no_unknown_fields(msg: Message) -> None:
    # ByteSize() counts unknown fields, so any drop means the schema missed something on the wire.
    before = msg.ByteSize()
    msg.DiscardUnknownFields()
    assert msg.ByteSize() == before, "message carries fields the schema does not know"


# --------------------------------------------------------------------------- descriptor set


def test_descriptor_set_in_sync_with_proto_sources(tmp_path: Path) -> None:
    if importlib.util.find_spec("grpc_tools") is None:
        pytest.skip("grpcio-tools not installed: cannot run protoc to rebuild the descriptor set")
    gen = load_tool("gen_protos")
    fresh = tmp_path / "tflint_schema.binpb"
    gen.build_descriptor_set(fresh, PROTO_DIR)
    committed, rebuilt = read_set(PROTO_DIR / "tflint_schema.binpb"), read_set(fresh)
    assert sorted(committed) == sorted(rebuilt)
    for name in rebuilt:
        assert committed[name] == rebuilt[name], f"{name} is stale: run tools/gen_protos.py --descriptor-only"


def test_every_proto_source_is_in_the_descriptor_set() -> None:
    names = set(read_set(PROTO_DIR / "tflint_schema.binpb"))
    sources = {p.name for p in PROTO_DIR.glob("*.proto")}
    assert sources and sources <= names
    assert {"google/protobuf/any.proto", "google/protobuf/wrappers.proto"} <= names


def test_full_names_match_tensorflow() -> None:
    # Full names and Any type URLs must be TF's, whatever our file layout.
    assert tp.GraphDef.DESCRIPTOR.full_name == "tensorflow.GraphDef"
    assert tp.SavedObjectGraph.DESCRIPTOR.full_name == "tensorflow.SavedObjectGraph"
    assert tp.POOL.FindMessageTypeByName("tensorflow.MetaGraphDef").fields_by_number[7].message_type is (
        tp.SavedObjectGraph.DESCRIPTOR
    )
    assert tp.DATA_TYPE.full_name == "tensorflow.DataType"
    assert tp.DATA_TYPE.values_by_name["DT_FLOAT"].number == 1
    assert tp.DATA_TYPE.values_by_name["DT_FLOAT_REF"].number == 101


# --------------------------------------------------------------------------- private pool


def test_message_classes_come_from_a_private_pool() -> None:
    assert tp.GraphDef.DESCRIPTOR.file.pool is not descriptor_pool.Default()
    assert tp.GraphDef.DESCRIPTOR.file.pool is tp.POOL
    assert tp.message_class("tensorflow.SavedObject").DESCRIPTOR.file.pool is tp.POOL


@pytest.mark.parametrize("tflint_first", [True, False], ids=["tflint-first", "other-first"])
def test_coexists_with_tensorflow_names_in_default_pool(tflint_first: bool) -> None:
    # Stand in for TensorFlow: another tensorflow.GraphDef in the default pool, in a fresh process.
    script = textwrap.dedent(f"""
        from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
        def register_other():
            f = descriptor_pb2.FileDescriptorProto(name="tensorflow/core/framework/graph.proto",
                                                   package="tensorflow", syntax="proto3")
            m = f.message_type.add(name="GraphDef")
            m.field.add(name="other", number=1, type=9, label=1)
            descriptor_pool.Default().AddSerializedFile(f.SerializeToString())
            return message_factory.GetMessageClass(
                descriptor_pool.Default().FindMessageTypeByName("tensorflow.GraphDef"))
        if {tflint_first}:
            import tflint.protos as tp
            Other = register_other()
        else:
            Other = register_other()
            import tflint.protos as tp
        g = tp.GraphDef()
        g.node.add(name="a", op="Const")
        assert tp.GraphDef.FromString(g.SerializeToString()) == g
        assert "node" not in Other.DESCRIPTOR.fields_by_name
        print("ok")
    """)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


def test_is_repeated_works_across_protobuf_versions() -> None:
    fields = tp.NodeDef.DESCRIPTOR.fields_by_name
    assert tp.is_repeated(fields["input"]) and tp.is_repeated(fields["attr"])
    assert not tp.is_repeated(fields["name"])


def test_any_type_url_resolves_in_text_format() -> None:
    text = (
        'collection_def { key: "savers" value { any_list { value { '
        '[type.googleapis.com/tensorflow.SaverDef] { filename_tensor_name: "save/Const:0" version: V2 } '
        "} } } }"
    )
    meta = text_format.Parse(text, tp.MetaGraphDef(), descriptor_pool=tp.POOL)
    packed = meta.collection_def["savers"].any_list.value[0]
    assert packed.type_url == "type.googleapis.com/tensorflow.SaverDef"
    saver = tp.SaverDef()
    assert packed.Unpack(saver)
    assert saver.filename_tensor_name == "save/Const:0"
    assert saver.version == tp.SaverDef.V2


def test_graph_def_round_trip() -> None:
    g = tp.GraphDef()
    node = g.node.add(name="c", op="Const", device="/cpu:0")
    node.attr["dtype"].type = tp.DATA_TYPE.values_by_name["DT_FLOAT"].number
    node.attr["value"].tensor.dtype = 1
    node.attr["value"].tensor.float_val.extend([1.5, 2.5])
    node.attr["value"].tensor.tensor_shape.dim.add(size=2)
    node.experimental_debug_info.original_node_names.append("orig")
    g.versions.producer = 2474
    g.library.function.add().signature.name = "f"
    assert tp.GraphDef.FromString(g.SerializeToString()) == g


# --------------------------------------------------------------------------- real TF files


def corpus_files(*suffixes: str) -> list[Path]:
    return sorted(p for p in CORPUS.iterdir() if p.name.endswith(suffixes))


def message_type_for(path: Path) -> type[Message]:
    return tp.MetaGraphDef if ".meta" in path.name else tp.GraphDef


@pytest.mark.parametrize("path", corpus_files(".pb", ".meta"), ids=lambda p: p.name)
def test_binary_corpus_parses_without_unknown_fields(path: Path) -> None:
    msg = message_type_for(path).FromString(path.read_bytes())
    graph = msg.graph_def if isinstance(msg, tp.MetaGraphDef) else msg
    assert len(graph.node) > 0
    assert_no_unknown_fields(msg)


@pytest.mark.parametrize("path", corpus_files(".pbtxt"), ids=lambda p: p.name)
def test_text_corpus_parses(path: Path) -> None:
    msg = text_format.Parse(path.read_text(), message_type_for(path)(), descriptor_pool=tp.POOL)
    graph = msg.graph_def if isinstance(msg, tp.MetaGraphDef) else msg
    assert len(graph.node) > 0


@pytest.mark.parametrize(
    "stem", ["a_tf1_saver_ref.graph", "a_tf1_saver_ref.meta", "b_keras_cnn_frozen", "d_tf1_control_flow_v1"]
)
def test_text_and_binary_corpus_agree(stem: str) -> None:
    binary = CORPUS / (stem if stem.endswith(".meta") else stem + ".pb")
    text = CORPUS / (stem + ".pbtxt")
    cls = message_type_for(binary)
    assert text_format.Parse(text.read_text(), cls(), descriptor_pool=tp.POOL) == cls.FromString(binary.read_bytes())


# --------------------------------------------------------------------------- registry snapshot


@pytest.fixture(scope="module")
def op_list() -> Message:
    return tp.OpList.FromString((DATA_DIR / "ops.binpb").read_bytes())


def test_registry_snapshot_parses(op_list: Message) -> None:
    assert len(op_list.op) > 1000
    names = [op.name for op in op_list.op]
    assert names == sorted(names)
    assert len(set(names)) == len(names)
    assert {"Const", "MatMul", "_Arg", "_Retval", "Merge", "Switch", "VarHandleOp"} <= set(names)
    assert_no_unknown_fields(op_list)


def test_registry_index_is_in_sync_with_the_snapshot(op_list: Message) -> None:
    # tools/gen_registry.py writes both; tflint reads each op from the span the index gives.
    data = (DATA_DIR / "ops.binpb").read_bytes()
    assert (DATA_DIR / OPS_INDEX).read_text() == ops_index(data) == load_tool("gen_registry").ops_index(op_list)
    bundled = BundledOps(data, ops_index(data))
    assert list(bundled) == [op.name for op in op_list.op]
    assert all(bundled[op.name] == op for op in op_list.op[::50])


@pytest.mark.parametrize(
    "index",
    [
        pytest.param("", id="missing"),
        pytest.param("Const 2 14\n", id="short"),
        pytest.param("A 2 14\nAbort 16", id="torn"),
        pytest.param(None, id="shifted"),
    ],
)
def test_a_bad_registry_index_costs_time_not_correctness(op_list: Message, index: str | None) -> None:
    data = (DATA_DIR / "ops.binpb").read_bytes()
    if index is None:  # every span names the op after it: caught at the first lookup
        lines = ops_index(data).splitlines()
        names = [line.split()[0] for line in lines]
        index = "".join(f"{name} {line.split(' ', 1)[1]}\n" for name, line in zip(names[1:] + names[:1], lines))
    bundled = BundledOps(data, index)
    assert bundled.get("MatMul") == next(op for op in op_list.op if op.name == "MatMul")
    assert "Const" in bundled and "NoSuchOp" not in bundled and bundled.get("NoSuchOp") is None
    assert len(bundled) == len(op_list.op) and set(bundled) == {op.name for op in op_list.op}


def test_registry_snapshot_has_no_prose(op_list: Message) -> None:
    for op in op_list.op:
        assert not op.summary and not op.description, op.name
        for arg in (*op.input_arg, *op.output_arg):
            assert not arg.description, f"{op.name}.{arg.name}"
        for attr in op.attr:
            assert not attr.description, f"{op.name}.{attr.name}"


def test_registry_snapshot_keeps_semantics(op_list: Message) -> None:
    ops = {op.name: op for op in op_list.op}
    assert ops["VariableV2"].is_stateful
    assert {a.name: a.type for a in ops["Const"].attr} == {"value": "tensor", "dtype": "type"}
    assert any(op.HasField("deprecation") for op in op_list.op)
    assert any(op.allows_uninitialized_input for op in op_list.op)
    matmul_t = next(a for a in ops["MatMul"].attr if a.name == "T")
    assert tp.DATA_TYPE.values_by_name["DT_FLOAT"].number in matmul_t.allowed_values.list.type


def test_registry_json(op_list: Message) -> None:
    meta = json.loads((DATA_DIR / "registry.json").read_text())
    assert meta["op_count"] == len(op_list.op)
    assert meta["generated_by"] == "tools/gen_registry.py"
    assert meta["tensorflow_version"].count(".") == 2
    assert meta["graph_def_version"] >= meta["graph_def_version_min_producer"] >= 0
    assert meta["graph_def_version_min_consumer"] >= 0
    types = {int(k): v for k, v in meta["data_types"].items()}
    assert sorted(types) == list(range(1, max(types) + 1))
    assert types[1] == "float" and types[3] == "int32" and types[19] == "half"
    # Every non-reference DataType the schema defines is named, and nothing else.
    assert set(types) == {v.number for v in tp.DATA_TYPE.values if 0 < v.number < 100}
