#!/usr/bin/env python3
"""Record TensorFlow's own verdict on graph-import cases (maintainer tool; needs TensorFlow).

    python tools/tf_import_cases.py --tf-python PATH/TO/tf-venv/bin/python [--print] [--only ID,ID]
    TF_PYTHON=PATH/TO/tf-venv/bin/python python tools/tf_import_cases.py

The script re-runs itself under that Python (TensorFlow is never a dependency
of tflint) and writes tests/data/tf_import_cases.jsonl, which
tests/test_tf_import_cases.py replays through tflint. Every case is imported
into a brand-new tf.Graph (TF1 graph mode), so cases are independent and the
script is re-runnable. Output: one JSON object per line with id, category,
description, graph_pbtxt, api, import_args, verdict ('imports' | 'rejects'),
error_type, message (first line of the error; the host name TensorFlow puts in
`Op type not registered` messages is written `<host>`), message_full
(truncated), and `observed` (what the import produced: returned elements,
nodes added to the graph, shapes, control inputs).

import_args schema (JSON):
  input_map: null | {key: spec}; spec is
      {"dtype": "float32", "shape": [2] | null}  -> a Placeholder created in
          the destination graph *before* the import, named "mapped_<i>",
      {"python_value": [...]}                     -> a raw (non-Tensor) value.
  return_elements: null | [str]
  name: null | str
  pre_graph_pbtxt: (optional) GraphDef imported with name="" into the graph
      before the case runs (to create existing nodes / name collisions).
  outer_name_scope: (optional) import inside `with tf.name_scope(<it>)`.
  control_dependencies: (optional) [op names of the pre-graph] -> import runs
      inside `with tf.control_dependencies([...])`.
  format: "text" (default) | "binary_empty" (graph is b"" parsed as binary).
api: "import_graph_def" (default) | "import_meta_graph" (graph_pbtxt is a
     MetaGraphDef in text format, or b"" with format binary_empty) |
     "import_graph_def_of_meta" (import_graph_def(meta.graph_def)).
"""

import argparse
import json
import os
import socket
import sys
import traceback

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
_CHILD = "TFLINT_TF_IMPORT_CASES_CHILD"
DEFAULT_OUT = os.path.join(
    os.path.dirname(os.path.abspath(__file__)), os.pardir, "tests", "data", "tf_import_cases.jsonl"
)

if __name__ == "__main__" and os.environ.get(_CHILD) != "1":
    # Run again under the TensorFlow virtualenv's Python, which alone can import tensorflow.
    _parser = argparse.ArgumentParser(add_help=False)
    _parser.add_argument("--tf-python", default=os.environ.get("TF_PYTHON"))
    _known, _rest = _parser.parse_known_args()
    if not _known.tf_python:
        sys.exit("tf_import_cases.py: give the Python of a TensorFlow virtualenv: --tf-python PATH or $TF_PYTHON")
    os.execve(
        _known.tf_python,
        [_known.tf_python, os.path.abspath(__file__), *_rest],
        dict(os.environ, **{_CHILD: "1"}),
    )

import tensorflow as tf  # noqa: E402
from google.protobuf import text_format  # noqa: E402
from tensorflow.core.framework import graph_pb2  # noqa: E402
from tensorflow.core.protobuf import meta_graph_pb2  # noqa: E402

tf1 = tf.compat.v1

GDV = tf.version.GRAPH_DEF_VERSION  # 2474 for TF 2.21.0

# --------------------------------------------------------------------------
# Tiny pbtxt builders (the emitted pbtxt is what gets recorded).
# --------------------------------------------------------------------------


def attr_type(k, t):
    return 'attr { key: "%s" value { type: %s } }' % (k, t)


def attr_shape(k, dims):
    if dims is None:
        return 'attr { key: "%s" value { shape { unknown_rank: true } } }' % k
    return 'attr { key: "%s" value { shape { %s } } }' % (k, " ".join("dim { size: %d }" % d for d in dims))


def shape_proto(dims):
    if dims is None:
        return "shape { unknown_rank: true }"
    return "shape { %s }" % " ".join("dim { size: %d }" % d for d in dims)


def out_shapes(*shapes):
    return 'attr { key: "_output_shapes" value { list { %s } } }' % " ".join(shape_proto(s) for s in shapes)


def node(name, op, inputs=(), attrs=()):
    parts = ['name: "%s"' % name, 'op: "%s"' % op]
    parts += ['input: "%s"' % i for i in inputs]
    parts += list(attrs)
    return "node { %s }" % " ".join(parts)


def ph(name, dtype="DT_FLOAT", shape="absent", extra=()):
    attrs = [attr_type("dtype", dtype)]
    if shape != "absent":
        attrs.append(attr_shape("shape", shape))
    return node(name, "Placeholder", (), attrs + list(extra))


def const(name, dtype, dims, vals, extra=()):
    field = {"DT_FLOAT": "float_val", "DT_INT32": "int_val", "DT_BOOL": "bool_val"}[dtype]
    vs = " ".join("%s: %s" % (field, v) for v in vals)
    t = 'attr { key: "value" value { tensor { dtype: %s tensor_shape { %s } %s } } }' % (
        dtype,
        " ".join("dim { size: %d }" % d for d in dims),
        vs,
    )
    return node(name, "Const", (), [attr_type("dtype", dtype), t] + list(extra))


def ident(name, inp, extra=()):
    return node(name, "Identity", [inp], [attr_type("T", "DT_FLOAT")] + list(extra))


def func(name, body_nodes, ret, in_type="DT_FLOAT", out_type="DT_FLOAT"):
    """FunctionDef with one input `a` and one output `y`."""
    return (
        'function { signature { name: "%s" input_arg { name: "a" type: %s } '
        'output_arg { name: "y" type: %s } } %s ret { key: "y" value: "%s" } }'
        % (name, in_type, out_type, " ".join(body_nodes), ret)
    )


def fnode(name, op, inputs=(), attrs=()):
    parts = ['name: "%s"' % name, 'op: "%s"' % op]
    parts += ['input: "%s"' % i for i in inputs]
    parts += list(attrs)
    return "node_def { %s }" % " ".join(parts)


def lib(*items):
    return "library { %s }" % " ".join(items)


def J(*lines):
    return "\n".join(lines) + "\n"


# Function bodies -------------------------------------------------------------
F_OK = func("f", [fnode("n", "Identity", ["a"], [attr_type("T", "DT_FLOAT")])], "n:output:0")
G_OK = func("g", [fnode("n", "Identity", ["a"], [attr_type("T", "DT_FLOAT")])], "n:output:0")
BAD_BODIES = {
    "unknown_op": func("f", [fnode("n", "NoSuchOpXyz", ["a"])], "n:output:0"),
    "empty_op": func("f", [fnode("n", "", ["a"])], "n:output:0"),
    "dangling_input": func(
        "f", [fnode("n", "Identity", ["nope:output:0"], [attr_type("T", "DT_FLOAT")])], "n:output:0"
    ),
    "dangling_ret": func("f", [fnode("n", "Identity", ["a"], [attr_type("T", "DT_FLOAT")])], "nope:output:0"),
    "wrong_attr_type": func("f", [fnode("n", "Identity", ["a"], ['attr { key: "T" value { i: 3 } }'])], "n:output:0"),
    "missing_attr": func("f", [fnode("n", "Identity", ["a"])], "n:output:0"),
}
# cond function for While: float -> bool (ignores its input)
WCOND = (
    'function { signature { name: "wc" input_arg { name: "a" type: DT_FLOAT } '
    'output_arg { name: "b" type: DT_BOOL } } '
    'node_def { name: "k" op: "Const" attr { key: "dtype" value { type: DT_BOOL } } '
    'attr { key: "value" value { tensor { dtype: DT_BOOL tensor_shape { } bool_val: false } } } } '
    'ret { key: "b" value: "k:output:0" } }'
)
# g calls f directly (op: "f") inside its body
G_CALLS_F = func("g", [fnode("n", "f", ["a"])], "n:y:0")  # f's output arg is named y

X = ph("x")


def call_direct(fname="f", name="call"):
    return node(name, fname, ["x"])


def call_pc(fname="f", op="PartitionedCall", name="call"):
    return node(
        name,
        op,
        ["x"],
        [
            'attr { key: "Tin" value { list { type: DT_FLOAT } } }',
            'attr { key: "Tout" value { list { type: DT_FLOAT } } }',
            'attr { key: "f" value { func { name: "%s" } } }' % fname,
        ],
    )


def call_if(then_f="f", else_f="g"):
    return J(
        ph("p", "DT_BOOL"),
        node(
            "call",
            "If",
            ["p", "x"],
            [
                attr_type("Tcond", "DT_BOOL"),
                'attr { key: "Tin" value { list { type: DT_FLOAT } } }',
                'attr { key: "Tout" value { list { type: DT_FLOAT } } }',
                'attr { key: "then_branch" value { func { name: "%s" } } }' % then_f,
                'attr { key: "else_branch" value { func { name: "%s" } } }' % else_f,
            ],
        ),
    )


def call_while(body="f", cond="wc"):
    return node(
        "call",
        "While",
        ["x"],
        [
            'attr { key: "T" value { list { type: DT_FLOAT } } }',
            'attr { key: "cond" value { func { name: "%s" } } }' % cond,
            'attr { key: "body" value { func { name: "%s" } } }' % body,
        ],
    )


def call_case(branches=("g", "f")):
    return J(
        const("bi", "DT_INT32", [], [0]),
        node(
            "call",
            "Case",
            ["bi", "x"],
            [
                'attr { key: "Tin" value { list { type: DT_FLOAT } } }',
                'attr { key: "Tout" value { list { type: DT_FLOAT } } }',
                'attr { key: "branches" value { list { %s } } }'
                % " ".join('func { name: "%s" }' % b for b in branches),
            ],
        ),
    )


# Base graph for the import-contract cases.
BASE = J(X, ident("y", "x"), node("z", "Identity", ["y", "^x"], [attr_type("T", "DT_FLOAT")]))
BASE_SHAPED = J(ph("x", shape=[2]), ident("y", "x"), node("z", "Identity", ["y", "^x"], [attr_type("T", "DT_FLOAT")]))
PRE_C = J(node("c", "NoOp"))


def A(input_map=None, return_elements=None, name=None, **kw):
    d = {"input_map": input_map, "return_elements": return_elements, "name": name}
    d.update(kw)
    return d


F32 = {"dtype": "float32", "shape": None}

CASES = []


def case(cid, cat, desc, pbtxt, args=None, api="import_graph_def", note=None):
    d = dict(id=cid, category=cat, description=desc, graph_pbtxt=pbtxt, api=api, import_args=args or A())
    if note:
        d["note"] = note
    CASES.append(d)


# ---------------------------------------------------------------- 1. empty
case("empty_binary_0_bytes", "empty", "GraphDef parsed from 0 bytes of binary", "", A(format="binary_empty"))
case("empty_text", "empty", "GraphDef parsed from an empty text file", "")
case("empty_comment_only", "empty", "text GraphDef containing only a comment", "# nothing but a comment\n")
case("empty_versions_only", "empty", "GraphDef with only versions { producer: 10 }", "versions { producer: 10 }\n")
case(
    "empty_min_consumer_too_new",
    "empty",
    "empty GraphDef whose min_consumer exceeds TF's GRAPH_DEF_VERSION",
    "versions { producer: 10 min_consumer: 100000 }\n",
)
case(
    "empty_bad_consumer_current",
    "empty",
    "empty GraphDef listing the current GRAPH_DEF_VERSION (%d) in bad_consumers" % GDV,
    "versions { producer: 10 bad_consumers: %d }\n" % GDV,
)
case(
    "empty_producer_far_future",
    "empty",
    "empty GraphDef with producer far ahead of TF (no error to decorate)",
    "versions { producer: 100000 }\n",
)
case(
    "empty_return_elements_missing", "empty", "empty GraphDef with return_elements=['x']", "", A(return_elements=["x"])
)
case(
    "empty_input_map_unused",
    "empty",
    "empty GraphDef with input_map {'x:0': placeholder}",
    "",
    A(input_map={"x:0": F32}),
)
case("empty_library_only", "empty", "GraphDef with no nodes, only a library holding one valid function", J(lib(F_OK)))
case(
    "meta_empty_binary",
    "empty",
    "import_meta_graph on a MetaGraphDef from 0 bytes",
    "",
    A(format="binary_empty"),
    api="import_meta_graph",
)
case(
    "meta_empty_graph_def",
    "empty",
    "import_meta_graph on MetaGraphDef with an empty graph_def",
    "graph_def { }\n",
    api="import_meta_graph",
)
case(
    "meta_versions_only",
    "empty",
    "import_meta_graph on MetaGraphDef whose graph_def has only versions",
    'meta_info_def { tensorflow_version: "2.21.0" } graph_def { versions { producer: 10 } }\n',
    api="import_meta_graph",
)
case(
    "meta_stale_output_shapes",
    "empty",
    "import_meta_graph on a graph_def with L2Loss _output_shapes [[43]]",
    "graph_def { %s %s }\n" % (X, node("l", "L2Loss", ["x"], [attr_type("T", "DT_FLOAT"), out_shapes([43])])),
    api="import_meta_graph",
)
case(
    "meta_uncalled_bad_function",
    "empty",
    "import_meta_graph on a graph_def whose library has an uncalled function with an unknown op",
    "graph_def { %s %s }\n" % (X, lib(BAD_BODIES["unknown_op"])),
    api="import_meta_graph",
)
case(
    "meta_empty_graph_collection_missing_node",
    "empty",
    "import_meta_graph: empty graph_def, collection_def node_list names a missing node",
    'graph_def { } collection_def { key: "train_op" value { node_list { value: "nope" } } }\n',
    api="import_meta_graph",
)


# import_meta_graph restores every collection after the import: node_list entries are looked up in the graph
# (Graph.as_graph_element), other kinds are kept as they are.
def meta_collections(*collections, graph=X):
    items = " ".join('collection_def { key: "%s" value { %s } }' % (key, value) for key, value in collections)
    return "graph_def { %s } %s\n" % (graph, items)


def node_list(*values):
    return "node_list { %s }" % " ".join('value: "%s"' % value for value in values)


for cid, desc, collections in [
    ("ok", "node_list entries naming an op and its tensor", [("train_op", node_list("x", "x:0"))]),
    ("missing_tensor", "node_list entry naming a tensor of a missing op", [("outputs", node_list("nope:0"))]),
    ("output_out_of_range", "node_list entry naming output 1 of a one-output op", [("outputs", node_list("x:1"))]),
    ("negative_output", "node_list entry naming output -1 (a Python index)", [("outputs", node_list("x:-1"))]),
    ("bad_tensor_name", "node_list entry with two colons", [("outputs", node_list("x:0:1"))]),
    ("non_numeric_output", "node_list entry with a non-numeric output", [("outputs", node_list("x:out"))]),
    ("control_name", "node_list entry written as a control input", [("train_op", node_list("^x"))]),
    ("empty_entry", "node_list entry that is empty", [("train_op", node_list(""))]),
    ("unbound_inputs", "unbound_inputs naming a missing op (never restored)", [("unbound_inputs", node_list("nope"))]),
    (
        "unbound_inputs_bytes",
        "unbound_inputs as a bytes_list (any kind with values is refused)",
        [("unbound_inputs", 'bytes_list { value: "x" }')],
    ),
    ("unbound_inputs_ints", "unbound_inputs as an int64_list", [("unbound_inputs", "int64_list { value: 1 }")]),
    ("unbound_inputs_empty", "unbound_inputs as an empty node_list", [("unbound_inputs", "node_list { }")]),
    ("local_variables", "local_variables as a node_list naming a missing op", [("local_variables", node_list("nope"))]),
    ("model_variables", "model_variables as a node_list naming a missing op", [("model_variables", node_list("nope"))]),
    ("variables", "variables as a node_list naming a missing op", [("variables", node_list("nope"))]),
    ("bytes_list", "a bytes_list naming a missing op (kept as strings)", [("names", 'bytes_list { value: "nope" }')]),
    ("no_kind", "a collection with no kind set", [("empty", "")]),
    (
        "second_of_two",
        "a valid collection, then one naming a missing op",
        [("a", node_list("x")), ("b", node_list("y"))],
    ),
]:
    case(
        "meta_collection_" + cid,
        "collections",
        "import_meta_graph: " + desc,
        meta_collections(*collections),
        api="import_meta_graph",
    )


# Variable collections hold serialized VariableDefs (bytes_list); restoring one looks up its variable,
# initializer, snapshot and initial value (Variable.from_proto).
def variable_def(variable="v:0", initializer="v/Assign", snapshot="v/read:0", initial_value="", resource=False):
    def field(number, text):
        data = text.encode()
        return bytes([number << 3 | 2, len(data)]) + data

    data = field(1, variable) + field(2, initializer) + field(3, snapshot)
    if resource:
        data += bytes([5 << 3, 1])
    if initial_value:
        data += field(6, initial_value)
    return "".join("\\%03o" % byte for byte in data)


def bytes_list(*values):
    return "bytes_list { %s }" % " ".join('value: "%s"' % value for value in values)


F32_SCALAR = [attr_type("dtype", "DT_FLOAT"), attr_shape("shape", [])]
REF_VARIABLE = [
    node("v", "VariableV2", (), F32_SCALAR),
    const("c", "DT_FLOAT", [], [1.0]),
    node("v/Assign", "Assign", ("v", "c"), [attr_type("T", "DT_FLOAT")]),
    node("v/read", "Identity", ("v",), [attr_type("T", "DT_FLOAT")]),
]
RESOURCE_VARIABLE = [
    node("v", "VarHandleOp", (), F32_SCALAR),
    const("c", "DT_FLOAT", [], [1.0]),
    node("v/Assign", "AssignVariableOp", ("v", "c"), [attr_type("dtype", "DT_FLOAT")]),
    node("v/Read/ReadVariableOp", "ReadVariableOp", ("v",), [attr_type("dtype", "DT_FLOAT")]),
]
RESOURCE_DEF = dict(snapshot="v/Read/ReadVariableOp:0", resource=True)
for cid, desc, nodes, collections in [
    ("ok", "a VariableV2 with its VariableDef", REF_VARIABLE, [("variables", bytes_list(variable_def()))]),
    (
        "missing_initializer",
        "the VariableDef's initializer is gone",
        REF_VARIABLE[:2] + REF_VARIABLE[3:],
        [("variables", bytes_list(variable_def()))],
    ),
    (
        "missing_snapshot",
        "the VariableDef's snapshot is gone",
        REF_VARIABLE[:3],
        [("variables", bytes_list(variable_def()))],
    ),
    (
        "missing_variable",
        "the VariableDef names a missing variable",
        REF_VARIABLE,
        [("variables", bytes_list(variable_def(variable="w:0")))],
    ),
    (
        "missing_initial_value",
        "the VariableDef's initial value is gone",
        REF_VARIABLE,
        [("variables", bytes_list(variable_def(initial_value="nope:0")))],
    ),
    (
        "frozen",
        "frozen: the variable is a Const, its Assign is gone",
        [const("v", "DT_FLOAT", [], [1.0]), REF_VARIABLE[3]],
        [("variables", bytes_list(variable_def()))],
    ),
    (
        "trainable_missing_initializer",
        "trainable_variables: the initializer is gone",
        REF_VARIABLE[:2] + REF_VARIABLE[3:],
        [("trainable_variables", bytes_list(variable_def()))],
    ),
    (
        "resource_ok",
        "a resource variable with its VariableDef",
        RESOURCE_VARIABLE,
        [("variables", bytes_list(variable_def(**RESOURCE_DEF)))],
    ),
    (
        "resource_missing_snapshot",
        "a resource variable's snapshot is gone",
        RESOURCE_VARIABLE[:3],
        [("variables", bytes_list(variable_def(**RESOURCE_DEF)))],
    ),
    (
        "empty_snapshot",
        "a VariableDef without a snapshot name",
        REF_VARIABLE,
        [("variables", bytes_list(variable_def(snapshot="")))],
    ),
    (
        "resource_empty_snapshot",
        "a resource variable's VariableDef without a snapshot name",
        RESOURCE_VARIABLE,
        [("variables", bytes_list(variable_def(snapshot="", resource=True)))],
    ),
    (
        "global_step_missing_initializer",
        "global_step: the initializer is gone",
        REF_VARIABLE[:2] + REF_VARIABLE[3:],
        [("global_step", bytes_list(variable_def()))],
    ),
    ("garbage", "a variables entry that is no VariableDef", REF_VARIABLE, [("variables", bytes_list("\\377\\377"))]),
    (
        "unregistered_garbage",
        "bytes in a collection no proto is registered for",
        REF_VARIABLE,
        [("variables", bytes_list(variable_def())), ("mine", bytes_list("\\377\\377"))],
    ),
]:
    case(
        "meta_variables_" + cid,
        "collections",
        "import_meta_graph: " + desc,
        meta_collections(*collections, graph=" ".join(nodes)),
        api="import_meta_graph",
    )


# The other collections TensorFlow registers a proto for (`ops.register_proto_function`): queue runners,
# cond and while contexts (control_flow_ops), savers. Restoring one rebuilds its Python object from
# the proto: QueueRunner and the contexts look their names up in the graph, a Saver only checks that
# two names are set.
def message(*fields):
    """Serialized protobuf fields: (number, str | bytes | int | tuple of fields) -> escaped text-format bytes."""

    def varint(number):
        out = b""
        while number >= 0x80:
            out += bytes([number & 0x7F | 0x80])
            number >>= 7
        return out + bytes([number])

    def encode(items):
        data = b""
        for number, value in items:
            if isinstance(value, int) and not isinstance(value, bool):
                data += varint(number << 3) + varint(value)
            else:
                body = value.encode() if isinstance(value, str) else value
                body = encode(body) if isinstance(body, tuple) else body
                data += varint(number << 3 | 2) + varint(len(body)) + body
        return data

    return encode(fields)


def escaped(data):
    return "".join("\\%03o" % byte for byte in data)


def queue_runner(queue="q", enqueue=("enq",), close="close", cancel="cancel", codes=()):
    fields = [(1, queue)] + [(2, name) for name in enqueue] + [(3, close), (4, cancel)]
    return message(*fields, *[(5, code) for code in codes])


def values_def(values=(), external=()):
    return tuple([(1, value) for value in values] + [(2, ((1, key), (2, value))) for key, value in external])


def cond_context(pred="p:0", pivot="t:0", values=("p:0", "t:0", "x:0"), external=(("p:0", "p:0"),), nested=()):
    fields = [(1, "cond/cond_text"), (2, pred), (3, pivot), (4, 1), (5, values_def(values, external))]
    return message(*fields, *[(6, context) for context in nested])


def while_context(
    pivot="piv:0", for_pred="pred", for_body="body", exits=("exit:0",), enters=("enter:0",), maximum="", nested=()
):
    fields = [(1, "while/while_context"), (2, 10), (3, 1), (5, pivot), (6, for_pred), (7, for_body)]
    fields += [(8, name) for name in exits] + [(9, values_def(("v:0",)))] + [(10, name) for name in enters]
    if maximum:
        fields.append((11, maximum))
    return message(*fields, *[(12, context) for context in nested])


def saver(filename="save/Const:0", save="save/control_dependency:0", restore="save/restore_all"):
    return message(*[(number, name) for number, name in ((1, filename), (2, save), (3, restore)) if name])


def scalar_consts(*names):
    return [const(name, "DT_FLOAT", [], [1.0]) for name in names]


QUEUE_NODES = [node(name, "NoOp") for name in ("q", "enq", "close", "cancel")]
COND_NODES = scalar_consts("p", "t", "x")
WHILE_NODES = scalar_consts("piv", "exit", "enter", "max", "v") + [node("pred", "NoOp"), node("body", "NoOp")]
for cid, desc, nodes, key, data in [
    ("queue_runner_ok", "a QueueRunnerDef whose ops are all there", QUEUE_NODES, "queue_runners", queue_runner()),
    (
        "queue_runner_missing_queue",
        "the queue runner's queue is gone",
        QUEUE_NODES,
        "queue_runners",
        queue_runner(queue="nope"),
    ),
    (
        "queue_runner_missing_enqueue",
        "the second of its enqueue ops is gone",
        QUEUE_NODES,
        "queue_runners",
        queue_runner(enqueue=("enq", "nope")),
    ),
    ("queue_runner_missing_close", "its close op is gone", QUEUE_NODES, "queue_runners", queue_runner(close="nope")),
    ("queue_runner_empty_cancel", "its cancel op name is empty", QUEUE_NODES, "queue_runners", queue_runner(cancel="")),
    (
        "queue_runner_queue_tensor",
        "its queue names output 0 of an op without outputs",
        QUEUE_NODES,
        "queue_runners",
        queue_runner(queue="q:0"),
    ),
    (
        "queue_runner_codes_ok",
        "closed-queue exception codes OUT_OF_RANGE and NOT_FOUND",
        QUEUE_NODES,
        "queue_runners",
        queue_runner(codes=(11, 5)),
    ),
    (
        "queue_runner_code_ok_status",
        "closed-queue exception code 0 (OK, no exception)",
        QUEUE_NODES,
        "queue_runners",
        queue_runner(codes=(0,)),
    ),
    (
        "queue_runner_code_unknown",
        "closed-queue exception code 99",
        QUEUE_NODES,
        "queue_runners",
        queue_runner(codes=(11, 99)),
    ),
    (
        "queue_runner_garbage",
        "a queue_runners entry that is no QueueRunnerDef",
        QUEUE_NODES,
        "queue_runners",
        b"\377\377",
    ),
    ("cond_context_ok", "a CondContextDef whose names are all there", COND_NODES, "cond_context", cond_context()),
    (
        "cond_context_missing_pred",
        "the cond's predicate is gone",
        COND_NODES,
        "cond_context",
        cond_context(pred="nope:0"),
    ),
    (
        "cond_context_pred_output",
        "the cond's predicate names output 1 of a one-output op",
        COND_NODES,
        "cond_context",
        cond_context(pred="p:1"),
    ),
    (
        "cond_context_missing_pivot",
        "the cond's pivot is gone",
        COND_NODES,
        "cond_context",
        cond_context(pivot="nope:0"),
    ),
    (
        "cond_context_missing_value",
        "a value of the cond is gone",
        COND_NODES,
        "cond_context",
        cond_context(values=("p:0", "t:0", "y:0")),
    ),
    (
        "cond_context_value_output",
        "a value names output 7 of a one-output op (only its op is looked up)",
        COND_NODES,
        "cond_context",
        cond_context(values=("p:0", "t:0", "x:7")),
    ),
    (
        "cond_context_empty_value",
        "a value of the cond is empty",
        COND_NODES,
        "cond_context",
        cond_context(values=("p:0", "")),
    ),
    (
        "cond_context_missing_external",
        "an external value maps to a missing tensor",
        COND_NODES,
        "cond_context",
        cond_context(external=(("p:0", "nope:0"),)),
    ),
    (
        "cond_context_external_key",
        "a value missing from the graph that is an external value's key",
        COND_NODES,
        "cond_context",
        cond_context(values=("t:0", "y:0"), external=(("y:0", "p:0"),)),
    ),
    (
        "cond_context_nested_missing",
        "a nested cond whose pivot is gone",
        COND_NODES,
        "cond_context",
        cond_context(nested=(((1, cond_context(pivot="nope:0")),),)),
    ),
    (
        "cond_context_nested_empty",
        "a nested context that is neither a cond nor a while",
        COND_NODES,
        "cond_context",
        cond_context(nested=((),)),
    ),
    ("cond_context_empty", "an empty CondContextDef", COND_NODES, "cond_context", b""),
    ("while_context_ok", "a WhileContextDef whose names are all there", WHILE_NODES, "while_context", while_context()),
    (
        "while_context_missing_pivot",
        "the loop's pivot is gone",
        WHILE_NODES,
        "while_context",
        while_context(pivot="nope:0"),
    ),
    (
        "while_context_missing_pivot_for_pred",
        "the loop's pivot for the predicate is gone",
        WHILE_NODES,
        "while_context",
        while_context(for_pred="nope"),
    ),
    (
        "while_context_missing_pivot_for_body",
        "the loop's pivot for the body is gone",
        WHILE_NODES,
        "while_context",
        while_context(for_body="nope"),
    ),
    (
        "while_context_missing_exit",
        "a loop exit is gone",
        WHILE_NODES,
        "while_context",
        while_context(exits=("exit:0", "nope:0")),
    ),
    (
        "while_context_missing_enter",
        "a loop enter is gone",
        WHILE_NODES,
        "while_context",
        while_context(enters=("nope:0",)),
    ),
    (
        "while_context_maximum_ok",
        "the loop's maximum iterations tensor is there",
        WHILE_NODES,
        "while_context",
        while_context(maximum="max:0"),
    ),
    (
        "while_context_missing_maximum",
        "the loop's maximum iterations tensor is gone",
        WHILE_NODES,
        "while_context",
        while_context(maximum="nope:0"),
    ),
    (
        "while_context_nested_missing",
        "a nested while whose exit is gone",
        WHILE_NODES,
        "while_context",
        while_context(nested=(((2, while_context(exits=("nope:0",))),),)),
    ),
    ("while_context_empty", "an empty WhileContextDef", WHILE_NODES, "while_context", b""),
    ("savers_ok", "a SaverDef naming ops the graph lacks (names are not looked up)", [X], "savers", saver()),
    ("savers_no_save_tensor", "a SaverDef without save_tensor_name", [X], "savers", saver(save="")),
    ("savers_no_restore_op", "a SaverDef without restore_op_name", [X], "savers", saver(restore="")),
    ("savers_no_filename", "a SaverDef without filename_tensor_name", [X], "savers", saver(filename="")),
    ("savers_garbage", "a savers entry that is no SaverDef", [X], "savers", b"\377\377"),
]:
    case(
        "meta_" + cid,
        "collections",
        "import_meta_graph: " + desc,
        meta_collections((key, bytes_list(escaped(data))), graph=" ".join(nodes)),
        api="import_meta_graph",
    )
# The MetaGraphDef's own saver_def: import_meta_graph makes a Saver of it, with the same check.
SAVER_NAMES = {
    "filename_tensor_name": "save/Const:0",
    "save_tensor_name": "save/control_dependency:0",
    "restore_op_name": "save/restore_all",
}
SAVER_NODES = scalar_consts("save/Const", "save/control_dependency") + [node("save/restore_all", "NoOp")]
for cid, desc, nodes, left_out in [
    ("ok", "whose ops are all there", SAVER_NODES, None),
    ("missing_ops", "naming ops the graph lacks (looked up when a checkpoint is restored)", [X], None),
    ("no_save_tensor", "without save_tensor_name", SAVER_NODES, "save_tensor_name"),
    ("no_restore_op", "without restore_op_name", SAVER_NODES, "restore_op_name"),
]:
    fields = " ".join('%s: "%s"' % (field, name) for field, name in SAVER_NAMES.items() if field != left_out)
    case(
        "meta_saver_def_" + cid,
        "collections",
        "import_meta_graph: a saver_def " + desc,
        "graph_def { %s } saver_def { %s }\n" % (" ".join(nodes), fields),
        api="import_meta_graph",
    )

case(
    "meta_graph_def_to_import_graph_def",
    "empty",
    "import_graph_def(meta.graph_def) for a MetaGraphDef with empty graph_def",
    "graph_def { }\n",
    api="import_graph_def_of_meta",
)

# ----------------------------------------------------- 2. functions
case("fn_uncalled_valid", "functions", "valid function f in library, no caller", J(X, lib(F_OK)))
for kind, body in BAD_BODIES.items():
    case(
        "fn_uncalled_%s" % kind,
        "functions",
        "function f with %s in body, no node calls it" % kind.replace("_", " "),
        J(X, lib(body)),
    )
case("fn_direct_call_valid", "functions", 'node with op: "f" calling valid f', J(X, call_direct(), lib(F_OK)))
for kind, body in BAD_BODIES.items():
    case(
        "fn_direct_call_%s" % kind,
        "functions",
        'node op: "f" (direct call) where f has %s in body' % kind.replace("_", " "),
        J(X, call_direct(), lib(body)),
    )
case("fn_partitionedcall_valid", "functions", "PartitionedCall f=valid f", J(X, call_pc(), lib(F_OK)))
for kind in ("unknown_op", "dangling_input", "missing_attr"):
    case(
        "fn_partitionedcall_%s" % kind,
        "functions",
        "PartitionedCall whose f has %s in body" % kind.replace("_", " "),
        J(X, call_pc(), lib(BAD_BODIES[kind])),
    )
case(
    "fn_statefulpartitionedcall_unknown_op",
    "functions",
    "StatefulPartitionedCall whose f has an unknown op in body",
    J(X, call_pc(op="StatefulPartitionedCall"), lib(BAD_BODIES["unknown_op"])),
)
case(
    "fn_statefulpartitionedcall_wrong_attr_type",
    "functions",
    "StatefulPartitionedCall whose f has an attr of the wrong type in body",
    J(X, call_pc(op="StatefulPartitionedCall"), lib(BAD_BODIES["wrong_attr_type"])),
)
case(
    "fn_partitionedcall_missing_function",
    "functions",
    "PartitionedCall whose f attr names a function absent from the library",
    J(X, call_pc("nosuchfn")),
)
case(
    "fn_direct_call_missing_function",
    "functions",
    'node op: "nosuchfn" with no such op or function',
    J(X, call_direct("nosuchfn")),
)
case(
    "fn_direct_call_disable_shape_inference",
    "functions",
    "direct call of f (unknown op in body) with _disable_call_shape_inference=true",
    J(
        X,
        node("call", "f", ["x"], ['attr { key: "_disable_call_shape_inference" value { b: true } }']),
        lib(BAD_BODIES["unknown_op"]),
    ),
)
case(
    "fn_partitionedcall_disable_shape_inference",
    "functions",
    "PartitionedCall of f (dangling input in body) with _disable_call_shape_inference=true",
    J(
        X,
        node(
            "call",
            "PartitionedCall",
            ["x"],
            [
                'attr { key: "Tin" value { list { type: DT_FLOAT } } }',
                'attr { key: "Tout" value { list { type: DT_FLOAT } } }',
                'attr { key: "f" value { func { name: "f" } } }',
                'attr { key: "_disable_call_shape_inference" value { b: true } }',
            ],
        ),
        lib(BAD_BODIES["dangling_input"]),
    ),
)
case(
    "fn_direct_call_body_shape_error",
    "functions",
    "direct call of f whose body MatMuls two [2,3] Consts (shape-fn error inside body)",
    J(
        X,
        call_direct(),
        lib(
            func(
                "f",
                [
                    fnode(
                        "c",
                        "Const",
                        [],
                        [
                            attr_type("dtype", "DT_FLOAT"),
                            'attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } dim { size: 3 } } float_val: 1 } } }',
                        ],
                    ),
                    fnode("m", "MatMul", ["c:output:0", "c:output:0"], [attr_type("T", "DT_FLOAT")]),
                ],
                "m:product:0",
            )
        ),
    ),
)
case(
    "fn_uncalled_body_shape_error",
    "functions",
    "uncalled f whose body MatMuls two [2,3] Consts",
    J(
        X,
        lib(
            func(
                "f",
                [
                    fnode(
                        "c",
                        "Const",
                        [],
                        [
                            attr_type("dtype", "DT_FLOAT"),
                            'attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } dim { size: 3 } } float_val: 1 } } }',
                        ],
                    ),
                    fnode("m", "MatMul", ["c:output:0", "c:output:0"], [attr_type("T", "DT_FLOAT")]),
                ],
                "m:product:0",
            )
        ),
    ),
)
case(
    "fn_direct_call_wrong_output_type",
    "functions",
    "direct call of f whose signature says float output but ret is an int32 Const",
    J(
        X,
        call_direct(),
        lib(
            func(
                "f",
                [
                    fnode(
                        "c",
                        "Const",
                        [],
                        [
                            attr_type("dtype", "DT_INT32"),
                            'attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { } int_val: 1 } } }',
                        ],
                    )
                ],
                "c:output:0",
            )
        ),
    ),
)
case("fn_if_valid", "functions", "If with valid then/else branches", J(X, call_if("f", "g"), lib(F_OK, G_OK)))
case(
    "fn_if_then_unknown_op",
    "functions",
    "If whose then_branch has an unknown op",
    J(X, call_if("f", "g"), lib(BAD_BODIES["unknown_op"], G_OK)),
)
case(
    "fn_if_missing_branch",
    "functions",
    "If whose then_branch names a missing function",
    J(X, call_if("nosuchfn", "g"), lib(G_OK)),
)
case("fn_while_valid", "functions", "While with valid cond/body", J(X, call_while("f", "wc"), lib(F_OK, WCOND)))
case(
    "fn_while_body_unknown_op",
    "functions",
    "While whose body has an unknown op",
    J(X, call_while("f", "wc"), lib(BAD_BODIES["unknown_op"], WCOND)),
)
case("fn_case_valid", "functions", "Case with valid branches", J(X, call_case(("g", "f")), lib(F_OK, G_OK)))
case(
    "fn_case_branch_dangling_input",
    "functions",
    "Case whose second branch has a dangling input",
    J(X, call_case(("g", "f")), lib(BAD_BODIES["dangling_input"], G_OK)),
)
case(
    "fn_nested_called_unknown_op",
    "functions",
    "node calls g (direct); g's body calls f; f has an unknown op",
    J(X, call_direct("g"), lib(BAD_BODIES["unknown_op"], G_CALLS_F)),
)
case(
    "fn_nested_pc_unknown_op",
    "functions",
    "PartitionedCall g; g's body calls f; f has an unknown op",
    J(X, call_pc("g"), lib(BAD_BODIES["unknown_op"], G_CALLS_F)),
)
case(
    "fn_if_branch_calls_bad_nested",
    "functions",
    "If whose then_branch g (direct-)calls f which has an unknown op",
    J(X, call_if("g", "g"), lib(BAD_BODIES["unknown_op"], G_CALLS_F)),
)
case(
    "fn_transitively_uncalled_unknown_op",
    "functions",
    "g (uncalled) calls f which has an unknown op; no node calls g",
    J(X, lib(BAD_BODIES["unknown_op"], G_CALLS_F)),
)
case(
    "fn_gradient_only_unknown_op",
    "functions",
    "f has an unknown op and is only the gradient_func of valid g; node calls g",
    J(X, call_direct("g"), lib(BAD_BODIES["unknown_op"], G_OK, 'gradient { function_name: "g" gradient_func: "f" }')),
)
case(
    "fn_gradient_missing_grad_func",
    "functions",
    "library gradient entry whose gradient_func is absent from the library",
    J(X, lib(G_OK, 'gradient { function_name: "g" gradient_func: "nosuchgrad" }')),
)
case(
    "fn_gradient_missing_function",
    "functions",
    "library gradient entry whose function_name is absent from the library",
    J(X, lib(G_OK, 'gradient { function_name: "nosuchfn" gradient_func: "g" }')),
)
case(
    "fn_gradient_only_no_functions",
    "functions",
    "library with only a gradient entry (no FunctionDefs at all), both names missing",
    J(X, lib('gradient { function_name: "nosuchfn" gradient_func: "nosuchgrad" }')),
)
case(
    "fn_gradient_conflict",
    "functions",
    "two gradient entries give g different gradient functions (f and h)",
    J(
        X,
        lib(
            G_OK,
            F_OK,
            func("h", [fnode("n", "Identity", ["a"], [attr_type("T", "DT_FLOAT")])], "n:output:0"),
            'gradient { function_name: "g" gradient_func: "f" }',
            'gradient { function_name: "g" gradient_func: "h" }',
        ),
    ),
)
case(
    "fn_gradient_cycle",
    "functions",
    "f's gradient is g and g's gradient is f (no function without a gradient)",
    J(
        X,
        lib(
            F_OK,
            G_OK,
            'gradient { function_name: "f" gradient_func: "g" }',
            'gradient { function_name: "g" gradient_func: "f" }',
        ),
    ),
)
case(
    "fn_name_collides_with_op",
    "functions",
    "library function named Identity (a registered op), uncalled",
    J(X, lib(func("Identity", [fnode("n", "Identity", ["a"], [attr_type("T", "DT_FLOAT")])], "n:output:0"))),
)
case(
    "fn_duplicate_different_bodies",
    "functions",
    "library with two different FunctionDefs both named f, uncalled",
    J(X, lib(F_OK, BAD_BODIES["missing_attr"])),
)
case(
    "fn_direct_call_wrong_input_dtype",
    "functions",
    "direct call of f(a: float) fed an int32 tensor",
    J(ph("x", "DT_INT32"), call_direct(), lib(F_OK)),
)

# ------------------------------------------------ 3. _output_shapes
case(
    "shape_l2loss_stale_43",
    "output_shapes",
    "L2Loss(x unknown shape) with _output_shapes [[43]] (L2Loss is always scalar)",
    J(X, node("l", "L2Loss", ["x"], [attr_type("T", "DT_FLOAT"), out_shapes([43])])),
)
case(
    "shape_l2loss_scalar_ok",
    "output_shapes",
    "L2Loss with correct _output_shapes [[]]",
    J(X, node("l", "L2Loss", ["x"], [attr_type("T", "DT_FLOAT"), out_shapes([])])),
)
case(
    "shape_l2loss_unknown_rank_ok",
    "output_shapes",
    "L2Loss with _output_shapes [unknown_rank]",
    J(X, node("l", "L2Loss", ["x"], [attr_type("T", "DT_FLOAT"), out_shapes(None)])),
)
case(
    "shape_l2loss_rank1_unknown_dim",
    "output_shapes",
    "L2Loss with _output_shapes [[-1]] (rank 1, unknown dim)",
    J(X, node("l", "L2Loss", ["x"], [attr_type("T", "DT_FLOAT"), out_shapes([-1])])),
)
case(
    "shape_shape_scalar",
    "output_shapes",
    "Shape(x unknown rank) with _output_shapes [[]] (Shape output is rank 1)",
    J(X, node("s", "Shape", ["x"], [attr_type("T", "DT_FLOAT"), attr_type("out_type", "DT_INT32"), out_shapes([])])),
)
case(
    "shape_shape_refine_ok",
    "output_shapes",
    "Shape(x unknown rank) with _output_shapes [[5]] (refines unknown length)",
    J(X, node("s", "Shape", ["x"], [attr_type("T", "DT_FLOAT"), attr_type("out_type", "DT_INT32"), out_shapes([5])])),
)
case(
    "shape_shape_known_input_stale",
    "output_shapes",
    "Shape(x shape [2,3]) with _output_shapes [[3]] (inferred [2])",
    J(
        ph("x", shape=[2, 3]),
        node("s", "Shape", ["x"], [attr_type("T", "DT_FLOAT"), attr_type("out_type", "DT_INT32"), out_shapes([3])]),
    ),
)
case(
    "shape_size_stale",
    "output_shapes",
    "Size(x) with _output_shapes [[1]]",
    J(X, node("s", "Size", ["x"], [attr_type("T", "DT_FLOAT"), attr_type("out_type", "DT_INT32"), out_shapes([1])])),
)
case(
    "shape_rank_stale",
    "output_shapes",
    "Rank(x) with _output_shapes [[2]]",
    J(X, node("r", "Rank", ["x"], [attr_type("T", "DT_FLOAT"), out_shapes([2])])),
)
case(
    "shape_const_transposed",
    "output_shapes",
    "Const with value of shape [2,3] but _output_shapes [[3,2]]",
    J(const("c", "DT_FLOAT", [2, 3], [1, 2, 3, 4, 5, 6], [out_shapes([3, 2])])),
)
case(
    "shape_const_partial_ok",
    "output_shapes",
    "Const with value of shape [2,3] and _output_shapes [[2,-1]]",
    J(const("c", "DT_FLOAT", [2, 3], [1, 2, 3, 4, 5, 6], [out_shapes([2, -1])])),
)
case(
    "shape_placeholder_stale",
    "output_shapes",
    "Placeholder shape attr [2] but _output_shapes [[3]]",
    J(ph("x", shape=[2], extra=[out_shapes([3])])),
)
case(
    "shape_placeholder_unknown_refined",
    "output_shapes",
    "Placeholder without shape attr and _output_shapes [[3]]",
    J(ph("x", extra=[out_shapes([3])])),
)
case(
    "shape_zeroslike_stale",
    "output_shapes",
    "ZerosLike(x shape [2,3]) with _output_shapes [[3,2]]",
    J(ph("x", shape=[2, 3]), node("zl", "ZerosLike", ["x"], [attr_type("T", "DT_FLOAT"), out_shapes([3, 2])])),
)
case(
    "shape_zeroslike_unknown_input_any",
    "output_shapes",
    "ZerosLike(x unknown) with _output_shapes [[3,2]]",
    J(X, node("zl", "ZerosLike", ["x"], [attr_type("T", "DT_FLOAT"), out_shapes([3, 2])])),
)
case(
    "shape_sum_full_reduce_stale",
    "output_shapes",
    "Sum(x [2,3], axes const [0,1]) with _output_shapes [[43]] (inferred scalar)",
    J(
        ph("x", shape=[2, 3]),
        const("ax", "DT_INT32", [2], [0, 1]),
        node("s", "Sum", ["x", "ax"], [attr_type("T", "DT_FLOAT"), attr_type("Tidx", "DT_INT32"), out_shapes([43])]),
    ),
)
case(
    "shape_sum_unknown_input_any",
    "output_shapes",
    "Sum(x unknown, axes const [0]) with _output_shapes [[43]]",
    J(
        X,
        const("ax", "DT_INT32", [1], [0]),
        node("s", "Sum", ["x", "ax"], [attr_type("T", "DT_FLOAT"), attr_type("Tidx", "DT_INT32"), out_shapes([43])]),
    ),
)
case(
    "shape_too_few_entries",
    "output_shapes",
    "Placeholder with empty _output_shapes list (0 shapes for 1 output)",
    J(ph("x", extra=['attr { key: "_output_shapes" value { list { } } }'])),
)
case(
    "shape_too_many_entries",
    "output_shapes",
    "Identity with 2 _output_shapes entries for 1 output",
    J(X, ident("y", "x", [out_shapes([3], [4])])),
)
case(
    "shape_negative_dim_invalid",
    "output_shapes",
    "Placeholder with _output_shapes [[-5]] (invalid dim size)",
    J(ph("x", extra=[out_shapes([-5])])),
)
case(
    "shape_attr_wrong_type",
    "output_shapes",
    "Placeholder whose _output_shapes is a list of ints (not shapes)",
    J(ph("x", extra=['attr { key: "_output_shapes" value { list { i: 3 } } }'])),
)
case(
    "shape_propagates_downstream",
    "output_shapes",
    "Identity(x unknown) _output_shapes [[3]] then AddV2 with a [2] const: "
    "declared shape is propagated and breaks AddV2 shape inference",
    J(
        X,
        ident("y", "x", [out_shapes([3])]),
        const("c", "DT_FLOAT", [2], [1, 2]),
        node("s", "AddV2", ["y", "c"], [attr_type("T", "DT_FLOAT")]),
    ),
)
case(
    "shape_inference_error_no_attr",
    "output_shapes",
    "MatMul of two [2,3] Consts, no _output_shapes (plain shape-fn error)",
    J(
        const("a", "DT_FLOAT", [2, 3], [1] * 6),
        const("b", "DT_FLOAT", [2, 3], [1] * 6),
        node("m", "MatMul", ["a", "b"], [attr_type("T", "DT_FLOAT")]),
    ),
)
case(
    "shape_partitionedcall_any",
    "output_shapes",
    "PartitionedCall output with _output_shapes [[43]] (call output shape unknown)",
    J(
        X,
        node(
            "call",
            "PartitionedCall",
            ["x"],
            [
                'attr { key: "Tin" value { list { type: DT_FLOAT } } }',
                'attr { key: "Tout" value { list { type: DT_FLOAT } } }',
                'attr { key: "f" value { func { name: "f" } } }',
                out_shapes([43]),
            ],
        ),
        lib(F_OK),
    ),
)
case(
    "shape_direct_call_any",
    "output_shapes",
    "direct call of f(identity) on x [2] with _output_shapes [[43]]",
    J(ph("x", shape=[2]), node("call", "f", ["x"], [out_shapes([43])]), lib(F_OK)),
)
case(
    "shape_in_function_body_stale",
    "output_shapes",
    "uncalled function whose body L2Loss has _output_shapes [[43]]",
    J(X, lib(func("f", [fnode("n", "L2Loss", ["a"], [attr_type("T", "DT_FLOAT"), out_shapes([43])])], "n:output:0"))),
)

# ------------------------------------------------ 4. import contract
case(
    "im_valid",
    "input_map",
    "map x:0 to a float placeholder; return z:0",
    BASE,
    A(input_map={"x:0": F32}, return_elements=["z:0"]),
)
case(
    "im_key_without_index",
    "input_map",
    "input_map key 'x' (no :index) means x:0",
    BASE,
    A(input_map={"x": F32}, return_elements=["y"]),
)
case("im_missing_node", "input_map", "input_map key names a node not in the graph", BASE, A(input_map={"nope:0": F32}))
case("im_index_out_of_range", "input_map", "input_map key x:5 (x has 1 output)", BASE, A(input_map={"x:5": F32}))
case(
    "im_existing_but_unconsumed",
    "input_map",
    "input_map key z:0: exists, in range, but nothing consumes it",
    BASE,
    A(input_map={"z:0": F32}),
)
case(
    "im_two_bad_keys_short",
    "input_map",
    "two bad short keys zz:0, aa:1 (order of report)",
    BASE,
    A(input_map={"zz:0": F32, "aa:1": F32}),
    note="TF 2.21 bug: with >=2 missing keys whose node names are short (SSO strings) "
    "every name but the last one in the report is garbage (e.g. 'rror:1' or ''); "
    "only count, indices and order are reliable",
)
case(
    "im_two_bad_keys_long",
    "input_map",
    "two bad long keys (report order = sorted by (node name, index))",
    BASE,
    A(input_map={"zzzz_missing_node_name:0": F32, "aaaa_missing_node_name:1": F32, "^cccc_missing_control_name": F32}),
)
case(
    "im_dtype_mismatch",
    "input_map",
    "map float x:0 to an int32 placeholder",
    BASE,
    A(input_map={"x:0": {"dtype": "int32", "shape": None}}),
)
case(
    "im_dtype_mismatch_unconsumed",
    "input_map",
    "map float z:0 (no consumers) to an int32 placeholder",
    BASE,
    A(input_map={"z:0": {"dtype": "int32", "shape": None}}),
)
case(
    "im_shape_mismatch",
    "input_map",
    "map x:0 (shape [2]) to a float placeholder [3]",
    BASE_SHAPED,
    A(input_map={"x:0": {"dtype": "float32", "shape": [3]}}, return_elements=["z:0"]),
)
case(
    "im_shape_mismatch_vs_output_shapes",
    "input_map",
    "map x:0 to float [3] when consumer y has _output_shapes [[2]]",
    J(ph("x", shape=[2]), ident("y", "x", [out_shapes([2])])),
    A(input_map={"x:0": {"dtype": "float32", "shape": [3]}}),
)
case(
    "im_control_remap",
    "input_map",
    "input_map '^x' -> placeholder op (control remap)",
    BASE,
    A(input_map={"^x": F32}, return_elements=["z"]),
)
case(
    "im_control_unused_existing",
    "input_map",
    "input_map '^y': y exists but nobody has ^y as input",
    BASE,
    A(input_map={"^y": F32}),
)
case("im_control_missing", "input_map", "input_map '^nope': no such node", BASE, A(input_map={"^nope": F32}))
case(
    "im_data_key_for_control_input",
    "input_map",
    "graph has only ^x control use of x plus data use; map x:0 (data) - control edge kept",
    J(X, node("n", "NoOp", ["^x"])),
    A(input_map={"x:0": F32}, return_elements=["n"]),
)
case(
    "im_mapped_node_still_imported",
    "input_map",
    "map y:0; y itself is still imported (no skip_mapped_nodes)",
    BASE,
    A(input_map={"y:0": F32}, return_elements=["y", "z:0"]),
)
case("im_key_bad_syntax", "input_map", "input_map key 'x:a'", BASE, A(input_map={"x:a": F32}))
case(
    "im_python_value_empty_name",
    "input_map",
    "non-Tensor input_map value with name=''",
    BASE,
    A(input_map={"x:0": {"python_value": [1.0]}}, name=""),
)
case(
    "im_python_value_default_name",
    "input_map",
    "non-Tensor input_map value with name=None (converted in import/_inputs)",
    BASE,
    A(input_map={"x:0": {"python_value": [1.0]}}, return_elements=["z:0"]),
)
case(
    "im_maps_missing_input",
    "input_map",
    "y's input 'nope' is not in the graph but is mapped by input_map -> no unknown-input error",
    J(ident("y", "nope")),
    A(input_map={"nope:0": F32}, return_elements=["y"]),
)
case(
    "im_maps_missing_input_other_index",
    "input_map",
    "y's input 'nope:1' not in graph; input_map maps only nope:0",
    J(ident("y", "nope:1")),
    A(input_map={"nope:0": F32}),
)
case(
    "im_control_remap_covers_missing_control_input",
    "input_map",
    "y has control input '^nope' (no such node); input_map remaps '^nope' -> not looked up",
    J(X, node("y", "Identity", ["x", "^nope"], [attr_type("T", "DT_FLOAT")])),
    A(input_map={"^nope": F32}, return_elements=["y"]),
)
case(
    "im_data_key_index_minus_one",
    "input_map",
    "input_map key 'x:-1' (index -1 written as a data key: a control edge mapped to a tensor)",
    BASE,
    A(input_map={"x:-1": F32}),
)
case(
    "im_data_key_index_minus_two",
    "input_map",
    "input_map key 'x:-2' (below -1; x exists, nothing reads it)",
    BASE,
    A(input_map={"x:-2": F32}),
)
case(
    "re_tensor_and_op",
    "return_elements",
    "return ['z:0', 'y'] -> Tensor, Operation",
    BASE,
    A(return_elements=["z:0", "y"]),
)
case("re_missing_op", "return_elements", "return ['nope']", BASE, A(return_elements=["nope"]))
case("re_missing_tensor", "return_elements", "return ['nope:0']", BASE, A(return_elements=["nope:0"]))
case("re_index_out_of_range", "return_elements", "return ['x:5']", BASE, A(return_elements=["x:5"]))
case("re_index_minus_one", "return_elements", "return ['x:-1']", BASE, A(return_elements=["x:-1"]))
case("re_control_syntax", "return_elements", "return ['^x']", BASE, A(return_elements=["^x"]))
case(
    "re_duplicates",
    "return_elements",
    "return ['y','y','y:0','y:0']",
    BASE,
    A(return_elements=["y", "y", "y:0", "y:0"]),
)
case("re_empty_list", "return_elements", "return_elements=[]", BASE, A(return_elements=[]))
case(
    "re_mapped_tensor",
    "return_elements",
    "return ['x:0'] when x:0 is in input_map -> the replacement tensor",
    BASE,
    A(input_map={"x:0": F32}, return_elements=["x:0", "x"]),
)
case("re_bad_syntax", "return_elements", "return ['y:0:1']", BASE, A(return_elements=["y:0:1"]))
case(
    "re_missing_plus_bad_input_map",
    "return_elements",
    "return ['nope'] AND input_map key 'zz:0' (which error wins)",
    BASE,
    A(input_map={"zz:0": F32}, return_elements=["nope"]),
)
case("re_index_minus_two", "return_elements", "return ['x:-2']", BASE, A(return_elements=["x:-2"]))
case("re_missing_minus_one", "return_elements", "return ['nope:-1']", BASE, A(return_elements=["nope:-1"]))
case("name_default", "name", "name=None -> prefix 'import'", BASE, A(return_elements=["z:0"]))
case("name_empty", "name", "name='' -> no prefix", BASE, A(return_elements=["z:0"], name=""))
case(
    "name_empty_collision",
    "name",
    "name='' while the graph already holds a node named x (uniquified)",
    BASE,
    A(return_elements=["x", "z:0"], name="", pre_graph_pbtxt=J(X)),
)
case("name_space", "name", "name='a b'", BASE, A(name="a b"))
case("name_leading_underscore", "name", "name='_a'", BASE, A(name="_a"))
case("name_leading_slash", "name", "name='/a'", BASE, A(name="/a"))
case("name_leading_dash", "name", "name='-a'", BASE, A(name="-a"))
case(
    "name_trailing_slash",
    "name",
    "name='a/' (absolute scope, reused as is)",
    BASE,
    A(return_elements=["z:0"], name="a/"),
)
case(
    "name_trailing_slash_collision",
    "name",
    "name='a/' when a/x, a/y, a/z already exist (names uniquified inside a/)",
    BASE,
    A(return_elements=["x", "z:0"], name="a/", pre_graph_pbtxt=J(ph("a/x"), ident("a/y", "a/x"), ident("a/z", "a/y"))),
)
case(
    "name_repeat",
    "name",
    "name='a' when node 'a/x' already exists -> 'a_1'",
    BASE,
    A(return_elements=["z:0"], name="a", pre_graph_pbtxt=J(ph("a/x"))),
)
case("name_gt", "name", "name='a>b'", BASE, A(return_elements=["z:0"], name="a>b"))
case(
    "name_nested_underscore",
    "name",
    "name='_a' inside tf.name_scope('outer')",
    BASE,
    A(return_elements=["z:0"], name="_a", outer_name_scope="outer"),
)
case("name_dot", "name", "name='.'", BASE, A(return_elements=["z:0"], name="."))
case(
    "name_backslash",
    "name",
    "name='a\\\\b' (allowed by Python's scope regex, not by C++ IsValidNodeName)",
    BASE,
    A(return_elements=["z:0"], name="a\\b"),
)
case(
    "ctrl_deps_context",
    "control_dependencies",
    "import inside tf.control_dependencies([c]) where c is an existing NoOp",
    BASE,
    A(return_elements=["x", "y", "z"], pre_graph_pbtxt=PRE_C, control_dependencies=["c"]),
)
case(
    "ctrl_deps_missing",
    "control_dependencies",
    "tf.control_dependencies(['nope']) (missing op) around the import",
    BASE,
    A(control_dependencies=["nope"]),
)

# ------------------------------------------------ 5. general graph checks
case("gen_unknown_input", "general", "Identity input names a missing node", J(ident("y", "nope")))
case("gen_invalid_name", "general", "node name with a space", J(ph("a b")))
case("gen_underscore_name", "general", "node name starting with '_'", J(ph("_x")))
case("gen_duplicate_name", "general", "two nodes named x", J(X, X))
case("gen_empty_op", "general", "node with op ''", J(node("x", "")))
case(
    "gen_control_before_data",
    "general",
    "control input before data input",
    J(X, node("y", "Identity", ["^x", "x"], [attr_type("T", "DT_FLOAT")])),
)
case("gen_unknown_op", "general", "node with unregistered op", J(node("x", "NoSuchOpXyz")))
case("gen_cycle", "general", "two Identity nodes feeding each other", J(ident("a", "b"), ident("b", "a")))
case("gen_output_index_oob", "general", "Identity input x:3 (x has 1 output)", J(X, ident("y", "x:3")))
case(
    "gen_order_empty_op_after_unknown_input",
    "general",
    "node 1 has an unknown input, node 2 has empty op (which check wins)",
    J(ident("y", "nope"), node("w", "")),
)
case(
    "gen_unknown_op_future_producer",
    "general",
    "unknown op with versions.producer 100000 (forward-compat note appended)",
    J(node("x", "NoSuchOpXyz"), "versions { producer: 100000 }"),
)
case(
    "gen_colocation_missing",
    "general",
    "node with _class loc:@nope colocation to a missing node",
    J(X, ident("y", "x", ['attr { key: "_class" value { list { s: "loc:@nope" } } }'])),
)
case(
    "gen_unknown_attr",
    "general",
    "Identity with an extra attr 'foo'",
    J(X, ident("y", "x", ['attr { key: "foo" value { i: 1 } }'])),
)
case(
    "gen_unknown_underscore_attr",
    "general",
    "Identity with an extra attr '_foo' (internal attrs allowed)",
    J(X, ident("y", "x", ['attr { key: "_foo" value { i: 1 } }'])),
)
case(
    "gen_deprecated_op_new_producer",
    "general",
    "BatchNormWithGlobalNormalization (removed in GraphDef version 9) with producer 10",
    J(
        X,
        node(
            "b",
            "BatchNormWithGlobalNormalization",
            ["x", "x", "x", "x", "x"],
            [
                attr_type("T", "DT_FLOAT"),
                'attr { key: "variance_epsilon" value { f: 0.001 } }',
                'attr { key: "scale_after_normalization" value { b: true } }',
            ],
        ),
        "versions { producer: 10 }",
    ),
)
case(
    "gen_deprecated_op_old_producer",
    "general",
    "same BatchNormWithGlobalNormalization node with producer 8 (before removal)",
    J(
        X,
        node(
            "b",
            "BatchNormWithGlobalNormalization",
            ["x", "x", "x", "x", "x"],
            [
                attr_type("T", "DT_FLOAT"),
                'attr { key: "variance_epsilon" value { f: 0.001 } }',
                'attr { key: "scale_after_normalization" value { b: true } }',
            ],
        ),
        "versions { producer: 8 }",
    ),
)
case("gen_missing_attr", "general", "Identity without T attr", J(X, node("y", "Identity", ["x"])))
case(
    "gen_type_mismatch",
    "general",
    "Identity(T=int32) fed float x",
    J(X, node("y", "Identity", ["x"], [attr_type("T", "DT_INT32")])),
)

# --------------------------------------------------------------------------


def first_line(s):
    s = s.strip()
    return s.splitlines()[0] if s else ""


def describe(obj):
    if isinstance(obj, tf.Operation):
        return {"kind": "Operation", "name": obj.name, "type": obj.type}
    if isinstance(obj, tf.Tensor):
        return {"kind": "Tensor", "name": obj.name, "dtype": obj.dtype.name, "shape": str(obj.shape)}
    if obj is None or isinstance(obj, (str, int, float, bool)):
        return repr(obj)
    return {"kind": type(obj).__name__}  # an object (import_meta_graph's Saver): its address changes every run


def _anonymous(text):
    """`text` without this machine's name (TensorFlow puts it in `Op type not registered` messages)."""
    if not text:
        return text
    return text.replace("running on %s." % socket.gethostname(), "running on <host>.")


def run_case(c):
    args = c["import_args"]
    fmt = args.get("format", "text")
    g = tf.Graph()
    obs = {}
    with g.as_default():
        if args.get("pre_graph_pbtxt"):
            pre = text_format.Parse(args["pre_graph_pbtxt"], graph_pb2.GraphDef())
            tf.graph_util.import_graph_def(pre, name="")
        before = {op.name for op in g.get_operations()}
        input_map = None
        if args.get("input_map") is not None:
            input_map = {}
            for i, (k, spec) in enumerate(args["input_map"].items()):
                if "python_value" in spec:
                    input_map[k] = spec["python_value"]
                else:
                    input_map[k] = tf1.placeholder(tf.as_dtype(spec["dtype"]), spec.get("shape"), name="mapped_%d" % i)
            before = {op.name for op in g.get_operations()}
        try:
            if c["api"] in ("import_meta_graph", "import_graph_def_of_meta"):
                msg = meta_graph_pb2.MetaGraphDef()
                if fmt == "binary_empty":
                    msg.ParseFromString(b"")
                else:
                    text_format.Parse(c["graph_pbtxt"], msg)
            else:
                msg = graph_pb2.GraphDef()
                if fmt == "binary_empty":
                    msg.ParseFromString(b"")
                else:
                    text_format.Parse(c["graph_pbtxt"], msg)

            def do_import():
                if c["api"] == "import_meta_graph":
                    return tf1.train.import_meta_graph(msg)
                gd = msg.graph_def if c["api"] == "import_graph_def_of_meta" else msg
                kw = dict(input_map=input_map, return_elements=args.get("return_elements"))
                if args.get("name") is not None:
                    kw["name"] = args["name"]
                return tf.graph_util.import_graph_def(gd, **kw)

            def with_ctrl():
                if args.get("control_dependencies"):
                    with g.control_dependencies(args["control_dependencies"]):
                        return do_import()
                return do_import()

            if args.get("outer_name_scope"):
                with tf.name_scope(args["outer_name_scope"]):
                    res = with_ctrl()
            else:
                res = with_ctrl()
            verdict, etype, message, full = "imports", None, None, None
            if isinstance(res, (list, tuple)):
                obs["returned"] = [describe(r) for r in res]
            else:
                obs["returned"] = describe(res)
        except Exception as e:  # noqa: BLE001
            verdict, etype = "rejects", type(e).__name__
            full = str(e)
            if etype == "KeyError" and e.args:
                full = str(e.args[0])
            message = first_line(full)
        new_ops = [op for op in g.get_operations() if op.name not in before]
        obs["new_nodes"] = [op.name for op in new_ops]
        obs["shapes"] = {t.name: str(t.shape) for op in new_ops for t in op.outputs}
        ctrl = {op.name: [ci.name for ci in op.control_inputs] for op in new_ops if op.control_inputs}
        if ctrl:
            obs["control_inputs"] = ctrl
        inputs = {op.name: [t.name for t in op.inputs] for op in new_ops if op.inputs}
        if inputs:
            obs["inputs"] = inputs
        try:
            fns = sorted(f.signature.name for f in g.as_graph_def().library.function)
        except Exception:  # noqa: BLE001
            fns = []
        if fns:
            obs["graph_functions"] = fns
    out = dict(c)
    out.update(
        verdict=verdict,
        error_type=etype,
        message=_anonymous(message),
        message_full=_anonymous(full[:1500] if full else None),
        observed=obs,
        tf_version=tf.__version__,
    )
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=DEFAULT_OUT)
    ap.add_argument("--tf-python", help="the Python of a TensorFlow virtualenv (default: $TF_PYTHON)")
    ap.add_argument("--only", default="")
    ap.add_argument("--print", action="store_true")
    a = ap.parse_args()
    only = set(filter(None, a.only.split(",")))
    ids = [c["id"] for c in CASES]
    assert len(ids) == len(set(ids)), "duplicate case ids"
    results = []
    for c in CASES:
        if only and c["id"] not in only:
            continue
        try:
            r = run_case(c)
        except Exception:  # harness bug, not a TF verdict
            traceback.print_exc()
            raise
        results.append(r)
        if a.print:
            print("%-45s %-8s %s" % (r["id"], r["verdict"], r["message"] or ""))
    if not only:
        with open(a.out, "w") as f:
            for r in results:
                f.write(json.dumps(r, sort_keys=False) + "\n")
        print("wrote %d cases to %s" % (len(results), a.out), file=sys.stderr)


if __name__ == "__main__":
    main()
