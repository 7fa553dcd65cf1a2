"""opdef-wellformed: TensorFlow's ValidateOpDef on stripped_op_lists and user OpDefs.

The OpDef verdicts below were checked against TensorFlow 2.21's own C++
`ValidateOpDef` (called through ctypes on libtensorflow_framework): every
case listed as valid passes it, every other case fails it.
"""

from __future__ import annotations

import pytest
from conftest import lint_bytes, lint_text, pinned
from google.protobuf import text_format

from tflint import protos
from tflint.api import lint_graph
from tflint.finding import Severity
from tflint.rules import opdef_wellformed

ID = opdef_wellformed.ID
NAMES = opdef_wellformed._data_type_names()


def problems(text: str) -> list[str]:
    op_def = protos.OpDef()
    text_format.Parse(text, op_def, descriptor_pool=protos.POOL)
    return opdef_wellformed.opdef_problems(op_def, NAMES)


VALID = [
    pytest.param("name: 'Foo' input_arg { name: 'x' type_attr: 'T' } attr { name: 'T' type: 'type' }", id="plain"),
    pytest.param("name: 'Foo>Bar_2'", id="nested-name"),
    pytest.param("name: '_lower-case!'", id="underscore-name-skips-name-check"),
    pytest.param(
        "name: 'Foo' attr { name: 'T' type: 'type' } attr { name: 'tensor' type: 'int' }",
        id="type-words-are-not-dtypes",
    ),
    pytest.param("name: 'Foo' input_arg { name: 'x' type: DT_FLOAT is_ref: true }", id="is-ref"),
    pytest.param(
        "name: 'Foo' attr { name: 'a' type: 'int' allowed_values { list { i: 1 } } }",
        id="allowed-on-int-without-default",
    ),
    pytest.param("name: 'Foo' attr { name: 'a' type: 'type' allowed_values { } }", id="empty-allowed-values"),
    pytest.param("name: 'Foo' attr { name: 'a' type: 'list(int)' default_value { } }", id="unset-list-default"),
    pytest.param("name: 'Foo' attr { name: 'a' type: 'int' has_minimum: true minimum: -5 }", id="negative-int-minimum"),
    pytest.param(
        "name: 'Foo' attr { name: 'a' type: 'shape' default_value { shape { dim { size: -5 } } } }",
        id="default-shape-unchecked",
    ),
    pytest.param(
        "name: 'Foo' input_arg { name: 'x' type_attr: 'T' number_attr: 'N' } attr { name: 'T' type: 'type' } attr { name: 'N' type: 'int' has_minimum: true }",
        id="number-attr",
    ),
    pytest.param("name: 'Foo' input_arg { name: 'x' type: DT_UINT2 }", id="newest-dtype"),
    pytest.param(
        "name: 'Foo' attr { name: 'a' type: 'list(string)' has_minimum: true minimum: 1 allowed_values { list { s: 'x' s: 'y' } } default_value { list { s: 'y' } } }",
        id="list-string-all-constraints",
    ),
]


@pytest.mark.parametrize("text", VALID)
def test_valid_opdefs(text):
    assert problems(text) == []


INVALID = [
    pytest.param("name: 'foo'", "not CamelCase", id="lower-case"),
    pytest.param("name: 'Foo>bar'", "not CamelCase", id="lower-after-gt"),
    pytest.param("name: 'Foo-Bar'", "not CamelCase", id="dash"),
    pytest.param("name: ''", "not CamelCase", id="empty"),
    pytest.param(
        "name: '_foo' attr { name: 'float' type: 'int' }", "named like a DataType", id="underscore-op-still-checked"
    ),
    pytest.param(
        "name: 'Foo' attr { name: 'float16_ref' type: 'int' }", "named like a DataType", id="alias-ref-dtype-name"
    ),
    pytest.param(
        "name: 'Foo' attr { name: 'T' type: 'type' } attr { name: 'T' type: 'int' }",
        "declared twice",
        id="duplicate-attr",
    ),
    pytest.param(
        "name: 'Foo' input_arg { name: 'T' type_attr: 'T' } attr { name: 'T' type: 'type' }",
        "reuses the name",
        id="arg-named-like-attr",
    ),
    pytest.param(
        "name: 'Foo' input_arg { name: 'x' type: DT_FLOAT } output_arg { name: 'x' type: DT_FLOAT }",
        "reuses the name",
        id="output-named-like-input",
    ),
    pytest.param("name: 'Foo' attr { name: 'a' type: 'any' }", "not an attr type", id="type-any"),
    pytest.param("name: 'Foo' attr { name: 'a' type: 'list(int' }", "missing its ')'", id="list-unclosed"),
    pytest.param("name: 'Foo' attr { name: 'a' type: 'integer' }", "'eger' left over", id="type-extra"),
    pytest.param(
        "name: 'Foo' attr { name: 'a' type: 'float' has_minimum: true minimum: 1 }",
        "only int and list attrs",
        id="minimum-on-float",
    ),
    pytest.param(
        "name: 'Foo' attr { name: 'a' type: 'list(int)' has_minimum: true minimum: -1 }",
        "cannot be negative",
        id="negative-list-minimum",
    ),
    pytest.param(
        "name: 'Foo' attr { name: 'a' type: 'int' minimum: 3 }",
        "has_minimum is false",
        id="minimum-without-has-minimum",
    ),
    pytest.param(
        "name: 'Foo' attr { name: 'a' type: 'type' allowed_values { list { s: 'x' } } }",
        "allowed_values holds a list(string)",
        id="allowed-wrong-kind",
    ),
    pytest.param(
        "name: 'Foo' attr { name: 'a' type: 'type' allowed_values { list { type: DT_FLOAT_REF } } }",
        "reference type",
        id="allowed-ref",
    ),
    pytest.param(
        "name: 'Foo' attr { name: 'a' type: 'int' default_value { f: 1 } }",
        "default_value holds a float",
        id="default-wrong-kind",
    ),
    pytest.param(
        "name: 'Foo' attr { name: 'a' type: 'int' default_value { } }", "default_value has no value", id="default-empty"
    ),
    pytest.param(
        "name: 'Foo' attr { name: 'a' type: 'int' default_value { placeholder: 'x' } }",
        "placeholder",
        id="default-placeholder",
    ),
    pytest.param(
        "name: 'Foo' attr { name: 'a' type: 'int' has_minimum: true minimum: 1 default_value { i: 0 } }",
        "below its minimum 1",
        id="default-below-minimum",
    ),
    pytest.param(
        "name: 'Foo' attr { name: 'a' type: 'list(int)' has_minimum: true minimum: 1 default_value { list { } } }",
        "needs at least 1",
        id="default-list-too-short",
    ),
    pytest.param(
        "name: 'Foo' attr { name: 'a' type: 'type' default_value { type: DT_INT32 } allowed_values { list { type: DT_FLOAT } } }",
        "allowed values are float",
        id="default-not-allowed",
    ),
    pytest.param(
        "name: 'Foo' attr { name: 'a' type: 'type' default_value { type: DT_INVALID } }",
        "DT_INVALID",
        id="default-dt-invalid",
    ),
    pytest.param(
        "name: 'Foo' attr { name: 'a' type: 'shape' allowed_values { list { shape { } } } default_value { shape { } } }",
        "allowed_values only on type and string",
        id="allowed-on-shape-with-default",
    ),
    pytest.param("name: 'Foo' input_arg { name: 'x' }", "has no type", id="arg-without-type"),
    pytest.param(
        "name: 'Foo' input_arg { name: 'x' type: DT_FLOAT type_attr: 'T' } attr { name: 'T' type: 'type' }",
        "exactly one of type, type_attr, type_list_attr",
        id="arg-two-types",
    ),
    pytest.param(
        "name: 'Foo' input_arg { name: 'x' type: DT_FLOAT number_attr: 'N' }",
        "does not declare",
        id="number-attr-missing",
    ),
    pytest.param(
        "name: 'Foo' input_arg { name: 'x' type: DT_FLOAT number_attr: 'N' } attr { name: 'N' type: 'float' }",
        "it must be an int",
        id="number-attr-not-int",
    ),
    pytest.param(
        "name: 'Foo' input_arg { name: 'x' type: DT_FLOAT number_attr: 'N' } attr { name: 'N' type: 'int' }",
        "has no minimum",
        id="number-attr-no-minimum",
    ),
    pytest.param(
        "name: 'Foo' input_arg { name: 'x' type: DT_FLOAT number_attr: 'N' } attr { name: 'N' type: 'int' has_minimum: true minimum: -1 }",
        "is negative",
        id="number-attr-negative-minimum",
    ),
    pytest.param(
        "name: 'Foo' input_arg { name: 'x' type_list_attr: 'L' number_attr: 'N' } attr { name: 'N' type: 'int' has_minimum: true } attr { name: 'L' type: 'list(type)' }",
        "both number_attr and type_list_attr",
        id="number-and-list",
    ),
    pytest.param(
        "name: 'Foo' input_arg { name: 'x' type: DT_FLOAT type_attr: 'T' number_attr: 'N' } attr { name: 'T' type: 'type' } attr { name: 'N' type: 'int' has_minimum: true }",
        "both type and type_attr",
        id="number-with-two-types",
    ),
    pytest.param("name: 'Foo' output_arg { name: 'y' type_attr: 'T' }", "does not declare", id="type-attr-missing"),
    pytest.param(
        "name: 'Foo' input_arg { name: 'x' type_attr: 'T' } attr { name: 'T' type: 'list(type)' }",
        "it must be a type",
        id="type-attr-is-list",
    ),
    pytest.param(
        "name: 'Foo' input_arg { name: 'x' type_list_attr: 'T' } attr { name: 'T' type: 'type' }",
        "it must be a list(type)",
        id="type-list-attr-is-type",
    ),
    pytest.param(
        "name: 'Foo' input_arg { name: 'x' type: DT_FLOAT_REF }", "reference type float_ref", id="fixed-ref-type"
    ),
]


@pytest.mark.parametrize("text, fragment", INVALID)
def test_invalid_opdefs(text, fragment):
    found = problems(text)
    assert len(found) == 1, found
    assert fragment in found[0]


def test_all_problems_of_one_opdef_are_reported():
    found = problems("name: 'bad' attr { name: 'int32' type: 'nope' } input_arg { name: 'int32' }")
    # the name, the DataType-named attr, its type, the arg reusing its name, the arg without a type
    assert len(found) == 5
    assert [
        next(i for i, item in enumerate(found) if fragment in item)
        for fragment in ("CamelCase", "named like a DataType", "not an attr type", "reuses the name", "has no type")
    ] == [0, 1, 2, 3, 4]


META = """\
meta_info_def {
  stripped_op_list {
    op { name: "NoOp" }
    op {
      name: "Broken"
      input_arg { name: "x" type_attr: "T" }
    }
    op { name: "_Internal" attr { name: "bool" type: "int" } }
  }
}
graph_def { node { name: "a" op: "NoOp" } }
"""


def test_stripped_op_list_warnings_point_at_the_opdef():
    findings = [f for f in lint_text(META) if f.rule == ID]
    assert [(f.line, f.severity, f.node) for f in findings] == [
        (4, Severity.WARNING, None),
        (8, Severity.WARNING, None),
    ]
    assert findings[0].message == (
        "OpDef 'Broken' in the graph's stripped_op_list: input 'x' takes its type from attr 'T' (type_attr), "
        "which the OpDef does not declare"
    )


def test_stripped_op_list_in_binary_has_no_line():
    meta = protos.MetaGraphDef()
    text_format.Parse(META, meta, descriptor_pool=protos.POOL)
    findings = [f for f in lint_bytes(meta.SerializeToString(), name="graph.meta") if f.rule == ID]
    assert [(f.line, f.severity) for f in findings] == [(None, Severity.WARNING), (None, Severity.WARNING)]


SAVED_MODEL = """\
saved_model_schema_version: 1
meta_graphs {
  meta_info_def { tags: "serve" stripped_op_list { op { name: "NoOp" } } }
  graph_def { node { name: "a" op: "NoOp" } }
}
meta_graphs {
  meta_info_def {
    tags: "train"
    stripped_op_list {
      op { name: "NoOp" }
      op { name: "lowercase" }
    }
  }
  graph_def { node { name: "a" op: "NoOp" } }
}
"""


def test_saved_model_positions_per_meta_graph():
    findings = [f for f in lint_text(SAVED_MODEL) if f.rule == ID]
    assert [(f.line, f.graph) for f in findings] == [(11, "meta graph [train]")]


def test_real_tensorflow_stripped_op_lists_are_clean():
    # A stripped_op_list exactly as TensorFlow writes it (descriptions stripped).
    text = (
        "meta_info_def { stripped_op_list {\n"
        '  op { name: "Const" output_arg { name: "output" type_attr: "dtype" } attr { name: "value" type: "tensor" } attr { name: "dtype" type: "type" } }\n'
        '  op { name: "Identity" input_arg { name: "input" type_attr: "T" } output_arg { name: "output" type_attr: "T" } attr { name: "T" type: "type" } }\n'
        '  op { name: "ConcatV2" input_arg { name: "values" type_attr: "T" number_attr: "N" } input_arg { name: "axis" type_attr: "Tidx" } '
        'output_arg { name: "output" type_attr: "T" } attr { name: "N" type: "int" has_minimum: true minimum: 2 } attr { name: "T" type: "type" } '
        'attr { name: "Tidx" type: "type" default_value { type: DT_INT32 } allowed_values { list { type: DT_INT32 type: DT_INT64 } } } }\n'
        "} }\n"
        'graph_def { node { name: "a" op: "NoOp" } }\n'
    )
    assert pinned(lint_text(text), rule=ID) == []


USER_OPS = """\
op { name: "MyOp" input_arg { name: "x" type_attr: "T" } attr { name: "T" type: "typ" } }
op { name: "UnusedBroken" attr { name: "float" type: "int" } }
op { name: "Shadowed" attr { name: "a" type: "bogus" } }
"""

GRAPH = """\
node { name: "p" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "m" op: "MyOp" input: "p" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "m2" op: "MyOp" input: "p" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "s" op: "Shadowed" }
library { function { signature { name: "Shadowed" } } }
"""


@pytest.fixture
def user_ops(tmp_path):
    path = tmp_path / "ops.pbtxt"
    path.write_text(USER_OPS)
    return path


def test_user_opdefs_used_by_the_graph_are_errors(user_ops):
    findings = [f for f in lint_text(GRAPH, {"op-defs": [str(user_ops)]}) if f.rule == ID]
    assert [(f.severity, f.node, f.line) for f in findings] == [(Severity.ERROR, None, None)] * 2
    # MyOp once although two nodes use it; UnusedBroken is unused; Shadowed resolves to the function.
    assert all(f.message.startswith("OpDef 'MyOp' ") for f in findings)


def test_user_opdef_message(user_ops):
    findings = [f for f in lint_text(GRAPH, {"op-defs": [str(user_ops)]}) if f.rule == ID]
    assert sorted(f.message for f in findings) == sorted(
        [
            f"OpDef 'MyOp' from {user_ops} (used by node 'm'): attr 'T' has type 'typ', which is not an attr type "
            "(the 16 types are string, int, float, bool, type, shape, tensor, func and list(...) of each)",
            f"OpDef 'MyOp' from {user_ops} (used by node 'm'): input 'x' takes its type from attr 'T', which has type typ; it must be a type",
        ]
    )


def test_user_opdef_used_in_a_function_body(tmp_path):
    path = tmp_path / "ops.pbtxt"
    path.write_text('op { name: "Odd" attr { name: "a" type: "int" minimum: 1 } }\n')
    graph = (
        "library {\n"
        "  function {\n"
        '    signature { name: "f" }\n'
        '    node_def { name: "n" op: "Odd" attr { key: "a" value { i: 1 } } }\n'
        "  }\n"
        "}\n"
    )
    findings = [f for f in lint_text(graph, {"op-defs": [str(path)]}) if f.rule == ID]
    assert [f.message for f in findings] == [
        f"OpDef 'Odd' from {path} (used by node 'n' in function f): attr 'a' has minimum 1 but has_minimum is false (the minimum must then be 0)"
    ]


def test_in_memory_op_list_through_the_api():
    op_list = protos.OpList()
    text_format.Parse('op { name: "mine" }', op_list, descriptor_pool=protos.POOL)
    graph = protos.GraphDef()
    text_format.Parse('node { name: "n" op: "mine" }', graph, descriptor_pool=protos.POOL)
    report = lint_graph(graph, op_defs=[op_list])
    assert [(f.rule, f.severity, f.message) for f in report.findings if f.rule == ID] == [
        (
            ID,
            Severity.ERROR,
            "OpDef 'mine' from the OpLists passed as op_defs (used by node 'n'): the op name 'mine' is not "
            "CamelCase (each '>'-separated part must start with A-Z, then letters, digits or '_'; TensorFlow: `Invalid name`)",
        )
    ]


def test_bundled_registry_is_not_checked():
    assert pinned(lint_text('node { name: "a" op: "NoOp" }\nnode { name: "b" op: "_Arg" }\n'), rule=ID) == []
