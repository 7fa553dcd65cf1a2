"""Big binary graphs read in place (tflint.read.mapped): the same findings as reading them whole, weights never copied.

The thresholds are lowered so that tiny graphs take the mapped path; every
case is linted both ways and the findings compared whole (rule, severity,
message, node, position), and the mapped reading is checked to have really
left the bytes in the file.
"""

from __future__ import annotations

import struct
from pathlib import Path
from typing import Any

import pytest
from conftest import CORPUS, require

import tflint
from tflint import protos
from tflint.read import mapped
from tflint.read.load import _load_mapped, load_path
from tflint.tf import tensors
from tflint.tf.tensors import MappedBytes, mapped_content, tensor_content

DT_FLOAT, DT_INT32, DT_STRING, DT_BOOL, DT_DOUBLE = 1, 3, 7, 10, 2
ALL_TENSOR_RULES = {"rules": {"non-finite-constant": "warning", "large-constant": {"level": "info", "max-bytes": 1000}}}


def _const(graph, name: str, dtype: int, dims: tuple[int, ...], content: bytes = b"", **values) -> None:
    node = graph.node.add(name=name, op="Const")
    node.attr["dtype"].type = dtype
    tensor = node.attr["value"].tensor
    tensor.dtype = dtype
    for size in dims:
        tensor.tensor_shape.dim.add(size=size)
    if content:
        tensor.tensor_content = content
    for field, items in values.items():
        getattr(tensor, field).extend(items)


def _floats(*values: float) -> bytes:
    return struct.pack(f"<{len(values)}f", *values)


def _weights_graph() -> Any:
    graph = protos.GraphDef()
    graph.versions.producer = 1882
    x = graph.node.add(name="x", op="Placeholder")
    x.attr["dtype"].type = DT_FLOAT
    _const(graph, "w", DT_FLOAT, (16, 16), _floats(*range(256)))  # 1 KiB: contents under 512 bytes are never mapped
    matmul = graph.node.add(name="y", op="MatMul", input=["x", "w"])
    matmul.attr["T"].type = DT_FLOAT
    return graph


def _function(graph: Any, name: str, content: bytes) -> None:
    """A library function returning a float Const of `content` (256 values), and a node calling it."""
    function = graph.library.function.add()
    function.signature.name = name
    function.signature.output_arg.add(name="out", type=DT_FLOAT)
    body = protos.GraphDef()
    _const(body, "c", DT_FLOAT, (256,), content)
    function.node_def.extend(body.node)
    function.ret["out"] = "c:output:0"
    graph.node.add(name=f"call_{name}", op=name)


def _case(name: str) -> bytes:
    graph = _weights_graph()
    if name == "valid":
        pass
    elif name == "short-content":
        _const(graph, "short", DT_FLOAT, (16, 16), _floats(*range(255)))
    elif name == "bool-content":
        _const(graph, "flags", DT_BOOL, (1024,), b"\x01" * 700 + b"\x02" + b"\x00" * 323)
    elif name == "string-content":
        _const(graph, "words", DT_STRING, (2,), b"\x02\xff\x03" + b"a" * 600)
    elif name == "content-and-values":
        _const(graph, "both", DT_FLOAT, (256,), _floats(*range(256)), float_val=[3.0])
    elif name == "non-finite":
        values = [1.0] * 41 + [float("nan")] + [2.0] * 213 + [float("-inf")]
        _const(graph, "nan", DT_FLOAT, (256,), _floats(*values))
        _const(graph, "inf", DT_DOUBLE, (100,), struct.pack("<100d", *range(99), float("inf")))
    elif name == "shape-from-content":
        # Reshapes whose shape Consts keep their values in tensor_content: shape inference reads them.
        for shape_name, dims in (("fits", [2] * 8 + [1] * 120), ("does-not-fit", [3] + [1] * 127)):
            _const(graph, shape_name, DT_INT32, (128,), struct.pack("<128i", *dims))
            reshape = graph.node.add(name=f"reshape-{shape_name}", op="Reshape", input=["w", shape_name])
            reshape.attr["T"].type = DT_FLOAT
            reshape.attr["Tshape"].type = DT_INT32
    elif name == "function-bodies":
        # Constants in function bodies (tf.function's SavedModels keep them there); two functions of one name
        # are compared by content: the same weights are a harmless duplicate, other weights a conflict.
        values = _floats(*range(255), float("nan"))
        _function(graph, "f", values)
        _function(graph, "g", values)
        _function(graph, "f", values)
        _function(graph, "g", _floats(*range(256)))
    elif name == "repeated-value-key":
        # Two `value` entries: protobuf keeps the last; the node is kept whole.
        node = protos.message_class("tensorflow.NodeDef")(name="twice", op="Const")
        node.attr["dtype"].type = DT_FLOAT
        node.attr["value"].tensor.dtype = DT_FLOAT
        node.attr["value"].tensor.tensor_content = _floats(*range(256))
        second = protos.message_class("tensorflow.NodeDef")()
        second.attr["value"].tensor.dtype = DT_INT32
        return graph.SerializeToString() + _field(1, node.SerializeToString() + second.SerializeToString())
    return graph.SerializeToString()


def _field(number: int, value: bytes) -> bytes:
    """A length-delimited field, written by hand (a message would merge what the test repeats on purpose)."""
    header = bytearray([number << 3 | 2])
    length = len(value)
    while length >= 0x80:
        header.append(length & 0x7F | 0x80)
        length >>= 7
    header.append(length)
    return bytes(header) + value


CASES = [
    "valid",
    "short-content",
    "bool-content",
    "string-content",
    "content-and-values",
    "non-finite",
    "shape-from-content",
    "function-bodies",
    "repeated-value-key",
]


def _as(kind: str, graph: bytes) -> bytes:
    """The serialized GraphDef `graph` as a `kind` (a SavedModel of two meta graphs)."""
    if kind == "GraphDef":
        return graph
    metas = []
    for tag in ("serve", "train"):
        head = protos.MetaGraphDef()
        head.meta_info_def.tags.append(tag)
        metas.append(head.SerializeToString() + _field(2, graph))
    if kind == "MetaGraphDef":
        return metas[0]
    return protos.SavedModel(saved_model_schema_version=1).SerializeToString() + b"".join(
        _field(2, meta) for meta in metas
    )


def _findings(path: Path, config=ALL_TENSOR_RULES) -> list[tuple]:
    report = tflint.lint_file(path, config=config)
    return [(f.rule, f.severity, f.message, f.node, f.line, f.column) for f in report.findings]


@pytest.fixture
def map_everything(monkeypatch):
    """Every binary file mapped, every tensor_content of 512 bytes or more left in it; scans read 16 bytes at a time."""
    monkeypatch.setattr(mapped, "MAP_MIN_BYTES", 1)
    monkeypatch.setattr(mapped, "STRIP_MIN_BYTES", 1)
    monkeypatch.setattr(tensors, "CHUNK_BYTES", 16)


def _lint_both(path: Path, monkeypatch, config=ALL_TENSOR_RULES) -> tuple[list[tuple], list[tuple]]:
    whole = _findings(path, config)
    with monkeypatch.context() as patch:
        patch.setattr(mapped, "MAP_MIN_BYTES", 1)
        patch.setattr(mapped, "STRIP_MIN_BYTES", 1)
        patch.setattr(tensors, "CHUNK_BYTES", 16)  # a scan crosses pieces
        in_place = _findings(path, config)
    return whole, in_place


@pytest.mark.parametrize("kind", ["GraphDef", "MetaGraphDef", "SavedModel"])
@pytest.mark.parametrize("case", CASES)
def test_mapped_reading_finds_what_reading_whole_finds(tmp_path, monkeypatch, kind, case):
    path = tmp_path / ("saved_model.pb" if kind == "SavedModel" else "model.pb")
    path.write_bytes(_as(kind, _case(case)))
    whole, in_place = _lint_both(path, monkeypatch)
    assert in_place == whole
    with monkeypatch.context() as patch:
        patch.setattr(mapped, "STRIP_MIN_BYTES", 1)
        artifact = _load_mapped(path, str(path), None, map_min=1)
    assert artifact is not None and artifact.message_type == kind  # the mapped path was taken
    if case == "valid":
        graphs = 2 if kind == "SavedModel" else 1
        assert [(rule, node) for rule, _, _, node, _, _ in whole] == [("large-constant", "w")] * graphs  # > 1000 bytes


def test_findings_pinned_on_the_mapped_path(tmp_path, map_everything):
    """The comparison above could pass with nothing found both ways: these findings come from mapped bytes."""
    path = tmp_path / "model.pb"
    path.write_bytes(
        b"".join(_case(name) for name in ("non-finite", "short-content", "bool-content", "function-bodies"))
    )
    found = {(rule, node): message for rule, _, message, node, _, _ in _findings(path)}
    assert "element 41 is nan" in found[("non-finite-constant", "nan")]
    assert "2 NaN or infinite values" in found[("non-finite-constant", "nan")]
    assert "element 99 is inf" in found[("non-finite-constant", "inf")]
    assert "tensor_content of 1020 bytes" in found[("tensor-content", "short")]
    assert "bytes other than 0 and 1" in found[("tensor-content", "flags")]
    assert "1.0 KiB" in found[("large-constant", "nan")]
    assert "element 255 is nan" in found[("non-finite-constant", "c")]  # in a function body
    assert [node for rule, node in found if rule == "function-name-conflict"] == [None]  # g: other weights


def test_tensor_bytes_stay_in_the_file(tmp_path):
    graph = _weights_graph()
    weights = _floats(*range(4096))
    _const(graph, "big", DT_FLOAT, (64, 64), weights)
    _const(graph, "small", DT_FLOAT, (200,), _floats(*range(200)))
    path = tmp_path / "model.pb"
    path.write_bytes(graph.SerializeToString())
    artifact = _load_mapped(path, str(path), None, map_min=1, strip_min=1024)
    assert artifact is not None
    nodes = {node.name: node for node in artifact.graphs[0].nodes}
    big = nodes["big"].attr["value"].tensor
    # Parsed without its 16 KiB; reading the field itself gives a notice, never an empty content.
    assert big.tensor_content == mapped.MAPPED_NOTICE and big.ByteSize() < 200
    content = tensor_content(big)
    assert isinstance(content, MappedBytes) and mapped_content(big) is content
    assert len(content) == len(weights) and content.offset == path.read_bytes().index(weights)
    assert bytes(content) == weights and b"".join(content.chunks(1000)) == weights
    small = nodes["small"].attr["value"].tensor
    assert mapped_content(small) is None and tensor_content(small) == _floats(*range(200))  # under strip_min


def test_contents_are_forgotten_with_their_artifact(tmp_path):
    path = tmp_path / "model.pb"
    path.write_bytes(_weights_graph().SerializeToString())
    before = len(tensors._MAPPED)
    artifact = _load_mapped(path, str(path), None, map_min=1, strip_min=1)
    assert artifact is not None and len(tensors._MAPPED) == before + 1
    del artifact
    assert len(tensors._MAPPED) == before


def test_a_big_file_is_mapped_by_default(tmp_path):
    graph = _weights_graph()
    _const(graph, "big", DT_FLOAT, (mapped.MAP_MIN_BYTES // 4,), bytes(mapped.MAP_MIN_BYTES))
    path = tmp_path / "model.pb"
    path.write_bytes(graph.SerializeToString())
    artifact = load_path(str(path))
    big = artifact.graphs[0].nodes[-1].attr["value"].tensor
    assert isinstance(tensor_content(big), MappedBytes)
    assert tflint.lint_file(path).findings == ()


@pytest.mark.parametrize(
    "reason, data",
    [
        ("not a graph's wire format", b"\x0a\x05abc"),  # a node longer than the file
        ("text", b'node { name: "a" op: "NoOp" }\n'),
        (
            "no tensor_content",
            protos.GraphDef(node=[protos.message_class("tensorflow.NodeDef")(name="a")]).SerializeToString(),
        ),
    ],
)
def test_what_the_walk_does_not_take_is_read_whole(tmp_path, reason, data):
    path = tmp_path / "model.pb"
    path.write_bytes(data)
    assert _load_mapped(path, str(path), None, map_min=1, strip_min=1) is None, reason


def test_a_node_heavy_graph_is_not_walked_to_the_end():
    def graph_of(small_nodes: int) -> bytes:
        graph = protos.GraphDef()
        for index in range(small_nodes):
            graph.node.add(name=f"n{index}", op="NoOp")
        _const(graph, "w", DT_FLOAT, (256,), _floats(*range(256)))
        return graph.SerializeToString()

    assert mapped.strip(graph_of(10), "GraphDef", 1) is not None
    assert mapped.strip(graph_of(mapped._GIVE_UP_FIELDS + 10), "GraphDef", 1) is None  # given up before "w"


def test_corpus_graphs_read_the_same_mapped(tmp_path, monkeypatch):
    for path in sorted(require(CORPUS).glob("*.pb")):
        whole, in_place = _lint_both(path, monkeypatch)
        assert in_place == whole, path.name


def test_function_bodies_keep_their_weights_in_the_file(tmp_path):
    from tflint.tf.index import GraphIndex
    from tflint.tf.registry import user_registry

    path = tmp_path / "model.pb"
    path.write_bytes(_case("function-bodies"))
    artifact = _load_mapped(path, str(path), None, map_min=1, strip_min=1)
    assert artifact is not None
    source = artifact.graphs[0]
    index = GraphIndex(source.graph, user_registry(), nodes=source.nodes)
    bodies = [scope.nodes[0] for scope in index.scopes() if scope.function is not None]
    assert [node.name for node in bodies] == ["c"] * 4
    contents = [tensor_content(node.attr["value"].tensor) for node in bodies]  # as the rules reach them
    assert all(isinstance(content, MappedBytes) for content in contents)
    assert [bytes(content)[-4:] for content in contents] == [_floats(float("nan"))] * 3 + [_floats(255)]


def _every_rule() -> dict:
    from tflint.rules import all_rules

    return {"rules": {rule_id: "info" for rule_id in all_rules()}}


@pytest.mark.parametrize("kind", ["GraphDef", "SavedModel"])
def test_every_rule_finds_the_same_mapped_and_whole(tmp_path, monkeypatch, kind):
    """A rule (or shared analysis) reading tensor bytes past the accessor sees MAPPED_NOTICE, not the bytes:
    with every rule on, the two readings' findings would differ."""
    path = tmp_path / ("saved_model.pb" if kind == "SavedModel" else "model.pb")
    path.write_bytes(_as(kind, b"".join(_case(name) for name in CASES)))
    whole, in_place = _lint_both(path, monkeypatch, _every_rule())
    assert in_place == whole
    assert len({rule for rule, *_ in whole}) >= 5  # the graph gives the rules something to say


def test_reading_the_field_itself_is_never_an_empty_content(tmp_path):
    path = tmp_path / "model.pb"
    path.write_bytes(_weights_graph().SerializeToString())
    artifact = _load_mapped(path, str(path), None, map_min=1, strip_min=1)
    assert artifact is not None
    tensor = {node.name: node for node in artifact.graphs[0].nodes}["w"].attr["value"].tensor
    assert mapped_content(tensor) is not None
    assert tensor.tensor_content == mapped.MAPPED_NOTICE
    assert b"tflint.tf.tensors.tensor_content()" in tensor.tensor_content  # says where the bytes are
    assert bytes(tensor_content(tensor)) == _floats(*range(256))


def test_a_tensor_holding_the_notice_itself_is_its_own_content(tmp_path):
    """Content that happens to equal the notice (too short to be mapped) is read as the bytes it is."""
    graph = _weights_graph()
    _const(graph, "odd", DT_STRING, (1,), mapped.MAPPED_NOTICE)
    path = tmp_path / "model.pb"
    path.write_bytes(graph.SerializeToString())
    artifact = _load_mapped(path, str(path), None, map_min=1, strip_min=1)
    assert artifact is not None
    tensor = {node.name: node for node in artifact.graphs[0].nodes}["odd"].attr["value"].tensor
    assert mapped_content(tensor) is None and tensor_content(tensor) == mapped.MAPPED_NOTICE


# Where `.tensor_content` may be read: the accessor, and the reader that leaves contents in the file.
TENSOR_BYTES_READERS = {"lint/tf/tensors.py", "lint/read/mapped.py"}


def test_only_the_accessor_reads_tensor_content():
    """Code outside tflint.tf.tensors reads tensor bytes through `tensor_content(tensor)`, never the field."""
    import ast

    from conftest import REPO

    readers = []
    for folder in ("lint", "rules", "examples"):
        for path in sorted((REPO / folder).rglob("*.py")):
            relative = path.relative_to(REPO).as_posix()
            if relative in TENSOR_BYTES_READERS:
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                named = (
                    isinstance(node, ast.Attribute) and node.attr == "tensor_content" and isinstance(node.ctx, ast.Load)
                ) or (
                    isinstance(node, ast.Call)
                    and getattr(node.func, "id", None) in ("getattr", "HasField")
                    and any(isinstance(arg, ast.Constant) and arg.value == "tensor_content" for arg in node.args)
                )
                if named:
                    readers.append(f"{relative}:{node.lineno}")
    assert readers == [], "read tensor bytes with tflint.tf.tensors.tensor_content(tensor)"


# -- a file truncated while it is read: a finding or one line, never a death by SIGBUS ------------


def test_a_child_killed_by_sigbus_under_the_map_is_reported_as_none(tmp_path):
    """The map is touched in a child only: truncated under it, the child dies, this process carries on."""
    path = tmp_path / "model.pb"
    path.write_bytes(b"\x0a" * (1 << 20))

    def truncate_then_touch(buffer):
        path.write_bytes(b"")  # in place: the map now reaches past the end of the file
        return buffer[(1 << 20) - 1]  # SIGBUS in the child

    with open(path, "rb") as file:
        assert mapped.walk_in_child(file, truncate_then_touch) is None
        path.write_bytes(b"abc")
        assert mapped.walk_in_child(file, lambda buffer: bytes(buffer[:])) == b"abc"  # what the file holds now


def test_a_content_in_a_file_grown_shorter_is_file_changed(tmp_path):
    path = tmp_path / "model.pb"
    path.write_bytes(bytes(range(256)) * 64)
    with open(path, "rb") as file:
        source = mapped.FileSource(file, "model.pb", 16384)
        content = MappedBytes(None, source, 1000, 10_000)
        assert bytes(content) == (bytes(range(256)) * 64)[1000:11_000]
        assert [len(chunk) for chunk in content.chunks(4096)] == [4096, 4096, 1808]
        with open(path, "r+b") as writer:
            writer.truncate(5000)
        with pytest.raises(mapped.FileChanged, match=r"^model.pb: the file changed while it was read: it ends before"):
            bytes(content)


def test_a_content_read_into_a_buffer_from_a_file_grown_shorter_is_file_changed(tmp_path):
    path = tmp_path / "model.pb"
    path.write_bytes(bytes(range(256)) * 64)
    with open(path, "rb") as file:
        content = MappedBytes(None, mapped.FileSource(file, "model.pb", 16384), 1000, 10_000)
        buffer = bytearray(4000)
        content.read_into(6000, memoryview(buffer))
        assert bytes(buffer) == (bytes(range(256)) * 64)[7000:11_000]
        with open(path, "r+b") as writer:
            writer.truncate(9000)
        with pytest.raises(mapped.FileChanged, match=r"^model.pb: the file changed while it was read: it ends before"):
            content.read_into(6000, memoryview(buffer))
