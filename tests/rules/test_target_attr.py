"""target-attr and target-attr-ignored: attrs an older release refuses, or imports without."""

from __future__ import annotations

import pytest
from conftest import lint_bytes, lint_text, pinned

from tflint import protos

VAR = (
    'node { name: "v" op: "VarHandleOp" attr { key: "dtype" value { type: DT_FLOAT } }'
    ' attr { key: "shape" value { shape { } } }%s }'
)
TPU = 'node { name: "m" op: "TPUReplicateMetadata" attr { key: "num_replicas" value { i: 1 } }%s }'


@pytest.mark.parametrize(
    "pbtxt, targets, expected",
    [
        pytest.param(VAR % "", "1.15", [], id="plain"),
        # debug_name is newer than 2.4: refused up to 2.4, whatever its value.
        pytest.param(
            VAR % ' attr { key: "debug_name" value { s: "v" } }', "2.4", [("target-attr", "v", 1)], id="unknown"
        ),
        pytest.param(
            VAR % ' attr { key: "debug_name" value { s: "" } }', "2.4", [("target-attr", "v", 1)], id="unknown-default"
        ),
        # From 2.5 on an unknown attr is dropped: harmless when default, a warning otherwise.
        pytest.param(
            TPU % ' attr { key: "use_shardy_partitioner" value { b: false } }', "2.15", [], id="ignored-default"
        ),
        pytest.param(
            TPU % ' attr { key: "use_shardy_partitioner" value { b: true } }',
            "2.15",
            [("target-attr-ignored", "m", 1)],
            id="ignored-not-default",
        ),
        # Known to the target: nothing.
        pytest.param(VAR % ' attr { key: "debug_name" value { s: "v" } }', "2.18", [], id="known"),
        # Unknown to the newest TF too: unknown-attr's business.
        pytest.param(VAR % ' attr { key: "no_such" value { s: "v" } }', "1.15", [], id="unknown-everywhere"),
        # Internal attrs are never checked.
        pytest.param(VAR % ' attr { key: "_class" value { s: "v" } }', "1.15", [], id="internal"),
    ],
)
def test_rule(pbtxt, targets, expected):
    found = [t for t in pinned(lint_text(pbtxt, {"target-tf": targets})) if t[0].startswith("target-")]
    assert found == expected


def test_unknown_attr_message_says_whether_stripping_fixes_it():
    default = lint_text(VAR % ' attr { key: "debug_name" value { s: "" } }', {"target-tf": "2.4"})
    other = lint_text(VAR % ' attr { key: "debug_name" value { s: "v" } }', {"target-tf": "2.4"})
    assert default[0].message.endswith("unknown attr 'debug_name' = \"\" there; it is the default: --fix strips it")
    assert "attr 'debug_name' = \"v\"" in other[0].message and "not the default" in other[0].message


def test_meta_graph_import_drops_default_valued_unknown_attrs():
    # import_meta_graph removes top-level unknown attrs equal to the stripped_op_list's default.
    meta = protos.MetaGraphDef()
    node = meta.graph_def.node.add(name="v", op="VarHandleOp")
    node.attr["dtype"].type = 1
    node.attr["shape"].shape.SetInParent()
    node.attr["debug_name"].s = b""
    bare = [f.rule for f in lint_bytes(meta.SerializeToString(), {"target-tf": "2.4"}, name="m.meta")]
    assert "target-attr" in bare
    op = meta.meta_info_def.stripped_op_list.op.add(name="VarHandleOp")
    attr = op.attr.add(name="debug_name", type="string")
    attr.default_value.s = b""
    for name, kind in (("dtype", "type"), ("shape", "shape")):
        op.attr.add(name=name, type=kind)
    op.output_arg.add(name="resource", type=20)
    stripped = [f.rule for f in lint_bytes(meta.SerializeToString(), {"target-tf": "2.4"}, name="m.meta")]
    assert "target-attr" not in stripped
    node.attr["debug_name"].s = b"v"  # not the default: still refused
    assert "target-attr" in [f.rule for f in lint_bytes(meta.SerializeToString(), {"target-tf": "2.4"}, name="m.meta")]


def test_several_targets_name_each_release_in_one_finding():
    found = [f for f in lint_text(VAR % ' attr { key: "debug_name" value { s: "v" } }', {"target-tf": "1.15,2.4,2.18"})]
    assert [f.message.split(":")[0] for f in found if f.rule == "target-attr"] == ["TF 1.15, 2.4"]


FUNCTION_VAR = (
    'library {\n  function {\n    signature { name: "f" }\n'
    '    node_def { name: "v" op: "VarHandleOp" attr { key: "dtype" value { type: DT_FLOAT } }'
    ' attr { key: "shape" value { shape { } } } attr { key: "debug_name" value { s: "v" } } }\n  }\n}\n'
)


def test_function_body_of_a_graph_def_is_a_warning_and_of_a_saved_model_an_error():
    graph = [f for f in lint_text(FUNCTION_VAR, {"target-tf": "2.4"}) if f.rule == "target-attr"]
    assert [(f.severity.name, f.line) for f in graph] == [("WARNING", 4)]
    assert "running the function fails" in graph[0].message
    model = protos.SavedModel()
    meta = model.meta_graphs.add()
    function = meta.graph_def.library.function.add()
    function.signature.name = "f"
    node = function.node_def.add(name="v", op="VarHandleOp")
    node.attr["dtype"].type = 1
    node.attr["shape"].shape.SetInParent()
    node.attr["debug_name"].s = b"v"
    found = [f for f in lint_bytes(model.SerializeToString(), {"target-tf": "2.4"}, name="saved_model.pb")]
    assert [(f.rule, f.severity.name) for f in found if f.rule == "target-attr"] == [("target-attr", "ERROR")]
