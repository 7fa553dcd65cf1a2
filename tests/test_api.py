"""The Python API, and living beside TensorFlow in one process (either import order)."""

from __future__ import annotations

import gc
import subprocess
import sys
import textwrap

import pytest
from conftest import CORPUS, require

import tflint
from tflint import protos

BROKEN = 'node { name: "a" op: "NoOp" }\nnode { name: "b" op: "NoOp" input: "^gone" }\n'


def test_lint_file_reports_and_ok(tmp_path):
    path = tmp_path / "g.pbtxt"
    path.write_text(BROKEN)
    report = tflint.lint_file(path)
    assert not report.ok
    assert [(f.rule, f.node, f.line) for f in report.findings] == [("unresolved-input", "b", 2)]
    assert '"rule": "unresolved-input"' in report.to_json()


def test_lint_graph_accepts_messages_and_bytes():
    graph = protos.GraphDef()
    graph.node.add(name="a", op="NoOp")
    graph.node.add(name="a", op="NoOp")
    for value in (graph, graph.SerializeToString()):
        report = tflint.lint_graph(value)
        assert [(f.rule, f.node, f.line) for f in report.findings] == [("duplicate-node-name", "a", None)]


def test_lint_graph_rejects_other_objects():
    with pytest.raises(TypeError, match="expected a GraphDef"):
        tflint.lint_graph({"node": []})


def test_validate_raises_with_findings_and_returns_quietly(tmp_path):
    path = tmp_path / "g.pbtxt"
    path.write_text(BROKEN)
    with pytest.raises(tflint.GraphValidationError) as error:
        tflint.validate(str(path))
    assert [f.rule for f in error.value.findings] == ["unresolved-input"]
    assert "unresolved-input" in str(error.value)
    report = tflint.validate(str(require(CORPUS / "b_keras_cnn_frozen.pb")))
    assert report.ok


def test_validate_honours_config_mapping(tmp_path):
    path = tmp_path / "g.pbtxt"
    path.write_text(BROKEN)
    report = tflint.validate(str(path), config={"rules": {"unresolved-input": "warning"}})
    assert [str(f.severity) for f in report.findings] == ["warning"]
    with pytest.raises(tflint.GraphValidationError):
        tflint.validate(str(path), config={"fail-on": "warning"})


def test_custom_op_defs(tmp_path):
    (tmp_path / "ops.pbtxt").write_text('op { name: "MyCustomOp" output_arg { name: "y" type: DT_FLOAT } }\n')
    graph = 'node { name: "c" op: "MyCustomOp" }\n'
    path = tmp_path / "g.pbtxt"
    path.write_text(graph)
    assert [f.rule for f in tflint.lint_file(path).findings] == ["unknown-op"]
    assert tflint.lint_file(path, op_defs=[str(tmp_path / "ops.pbtxt")]).findings == ()
    (tmp_path / ".tflint.yaml").write_text("op-defs: [ops.pbtxt]\n")
    assert tflint.lint_file(path).findings == ()


def test_bad_op_defs_file_is_a_usage_error(tmp_path):
    (tmp_path / "ops.pbtxt").write_text("op { nme: 'x' }")
    with pytest.raises(tflint.UsageError, match="ops.pbtxt:1:6: not an OpList"):
        tflint.lint_graph(b"", op_defs=[str(tmp_path / "ops.pbtxt")])


COEXIST = textwrap.dedent(
    """
    import sys
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

    def register_tensorflow_like_schema():
        # What `import tensorflow` does: tensorflow.GraphDef etc. in the DEFAULT pool.
        from importlib import resources
        data = resources.files("tflint.protos").joinpath("tflint_schema.binpb").read_bytes()
        files = descriptor_pb2.FileDescriptorSet.FromString(data)
        pool = descriptor_pool.Default()
        for file in files.file:
            try:
                pool.Add(file)
            except TypeError:
                pass  # well-known types that are there already
        return message_factory.GetMessageClass(pool.FindMessageTypeByName("tensorflow.GraphDef"))

    order = sys.argv[1]
    if order == "tensorflow-first":
        TFGraphDef = register_tensorflow_like_schema()
        import tflint
    else:
        import tflint
        tflint.lint_graph(b"")
        TFGraphDef = register_tensorflow_like_schema()
    graph = TFGraphDef()
    graph.node.add(name="a", op="NoOp")
    graph.node.add(name="b", op="NoOp", input=["^missing"])
    report = tflint.lint_graph(graph)
    print(",".join(f.rule for f in report.findings))
    report = tflint.lint_graph(graph.SerializeToString())
    print(",".join(f.rule for f in report.findings))
    """
)


@pytest.mark.parametrize("order", ["tensorflow-first", "tflint-first"])
def test_coexists_with_tensorflow_schema_in_default_pool(order):
    result = subprocess.run([sys.executable, "-c", COEXIST, order], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["unresolved-input", "unresolved-input"]


def test_conflicting_default_pool_definition_does_not_matter():
    code = textwrap.dedent(
        """
        from google.protobuf import descriptor_pb2, descriptor_pool
        fdp = descriptor_pb2.FileDescriptorProto(name="other/graph.proto", package="tensorflow")
        message = fdp.message_type.add(name="GraphDef")
        message.field.add(name="bogus", number=1, type=descriptor_pb2.FieldDescriptorProto.TYPE_INT32,
                          label=descriptor_pb2.FieldDescriptorProto.LABEL_OPTIONAL)
        descriptor_pool.Default().Add(fdp)
        import tflint
        report = tflint.lint_graph(b'\\n\\x0b\\n\\x01a\\x12\\x06Bogus_')
        print([f.rule for f in report.findings])
        """
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "['unknown-op']"


@pytest.mark.parametrize("name", ["b_keras_cnn_frozen.pbtxt", "b_keras_cnn_frozen.pb", "a_tf1_saver_ref.meta"])
def test_a_linted_graph_is_freed_without_the_cycle_collector(name):
    # The CLI pauses the collector while it lints; a graph left in reference cycles would
    # cost a collection over every node once it resumes (0.4 s at 100k nodes).
    path = require(CORPUS / name)
    tflint.lint_file(path)  # warm: registry, schemas and protobuf's descriptor wrappers
    gc.collect()
    gc.disable()
    try:
        tflint.lint_file(path)
        left = gc.collect()
    finally:
        gc.enable()
    assert left < 50


def test_a_graph_kept_till_exit_is_out_of_the_collectors_reach(monkeypatch):
    # The CLI keeps the last graph alive until it exits (retain_last_graph); the collector's
    # first collection after linting would walk every object of it (80 ms at 100k nodes).
    from tflint.runtime import process

    path = require(CORPUS / "b_keras_cnn_frozen.pb")
    monkeypatch.setattr(process, "_retained", [])
    try:
        tflint.lint_file(path)
        kept = process._retained[0]
        node = kept.graphs[0].node_list()[0]
        assert gc.get_freeze_count() > 0
        assert not any(obj is node for obj in gc.get_objects())  # frozen objects are not listed
    finally:
        gc.unfreeze()


def test_files_that_are_not_graphs_are_skipped_and_listed(tmp_path):
    from conftest import DATA

    from tflint.api import GraphValidationError, lint_graph, lint_paths, validate

    (tmp_path / "label_map.pbtxt").write_bytes((DATA / "nongraphs" / "label_map.pbtxt").read_bytes())
    (tmp_path / "g.pbtxt").write_text('node { name: "a" op: "NoOp" }\n')
    report = lint_paths([tmp_path], jobs=1)
    assert report.files == (str(tmp_path / "g.pbtxt"),)
    assert report.skipped == ((str(tmp_path / "label_map.pbtxt"), "Object Detection label map (StringIntLabelMap)"),)
    assert report.ok and [f.rule for f in report.findings] == ["not-a-graph"]
    with pytest.raises(GraphValidationError, match="not a TensorFlow graph: Object Detection label map"):
        validate(tmp_path / "label_map.pbtxt")
    fingerprint = (DATA / "nongraphs" / "fingerprint.pb").read_bytes()
    report = lint_graph(fingerprint, name="fingerprint.pb")
    assert report.skipped == (("fingerprint.pb", "SavedModel fingerprint (FingerprintDef)"),) and report.ok
    with pytest.raises(GraphValidationError, match="not a TensorFlow graph: SavedModel fingerprint"):
        validate(fingerprint)


@pytest.mark.parametrize(
    "content, where",
    [
        pytest.param("//registry.npmjs.org/:_authToken=npm_SECRET1234\n", "1:1", id="npmrc"),
        pytest.param("token: SECRET1234\n", "1:1", id="field"),
        pytest.param("op { name: 'X' }\nop { name: 'SECRET1234' attr { nam: 'SECRET1234' } }\n", "2:32", id="typo"),
        pytest.param('op { name: "X" type: "SECRET1234" }', "1:16", id="quoted"),
    ],
)
def test_an_op_defs_file_that_is_not_an_oplist_is_never_echoed(tmp_path, content, where):
    path = tmp_path / "ops.pbtxt"
    path.write_text(content)
    with pytest.raises(tflint.UsageError) as raised:
        tflint.lint_graph('node { name: "a" op: "NoOp" }', op_defs=[str(path)])
    message = str(raised.value)
    assert f"ops.pbtxt:{where}: not an OpList" in message
    assert "SECRET" not in message


def test_an_empty_select_override_is_a_usage_error_not_a_silent_pass(tmp_path):
    """`--select ""` is refused on the command line; the API's Overrides(select=()) is refused too."""
    from tflint.api import Overrides, lint_paths

    path = tmp_path / "g.pbtxt"
    path.write_text('node { name: "b" op: "Identity" input: "missing" attr { key: "T" value { type: DT_FLOAT } } }\n')
    assert [f.rule for f in lint_paths([path], overrides=Overrides(select=("unresolved-input",))).findings] == [
        "unresolved-input"
    ]
    with pytest.raises(tflint.UsageError, match=r"^--select: no rule named; every rule would be off"):
        lint_paths([path], overrides=Overrides(select=()))
