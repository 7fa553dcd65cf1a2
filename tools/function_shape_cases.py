"""Shape errors inside function bodies, with TensorFlow's import verdicts (maintainer tool; needs TensorFlow).

    $TF_PYTHON tools/function_shape_cases.py tests/data/shapes/function_calls_tf221.jsonl

Writes one JSON line per case: a small GraphDef (text) whose library function has, or is called
with, a shape problem, and what `tf.graph_util.import_graph_def` does with it (imports or rejects,
its message, the shapes of the call nodes' outputs). The cases answer where TensorFlow 2.21's
importer shape-checks a body: through PartitionedCall, StatefulPartitionedCall and direct calls,
with the caller's input shapes, constant values and resource handle data, nested calls too, the
call's outputs feeding its consumers and its `_output_shapes`; not in uncalled functions, not in
If/While branches, not with `_disable_call_shape_inference`, and with neither the arg attrs'
`_output_shapes` nor a body node's own `_output_shapes`. tests/tf/test_shapes_calls.py replays
them without TensorFlow. (A recursive call crashes TensorFlow's importer, a stack overflow: not
recorded.)
"""

from __future__ import annotations

import json
import os
import sys

F32 = 'attr { key: "dtype" value { type: DT_FLOAT } }'
T_F32 = 'attr { key: "T" value { type: DT_FLOAT } }'


def _dims(dims: list[int]) -> str:
    return " ".join(f"dim {{ size: {size} }}" for size in dims)


def placeholder(name: str, dims: list[int] | None = None) -> str:
    shape = "" if dims is None else f' attr {{ key: "shape" value {{ shape {{ {_dims(dims)} }} }} }}'
    return f'node {{ name: "{name}" op: "Placeholder" {F32}{shape} }}\n'


def const(
    name: str, dims: list[int], field: str = "float_val: 1", dtype: str = "DT_FLOAT", kind: str = "node_def"
) -> str:
    return (
        f'{kind} {{ name: "{name}" op: "Const" attr {{ key: "dtype" value {{ type: {dtype} }} }} '
        f'attr {{ key: "value" value {{ tensor {{ dtype: {dtype} tensor_shape {{ {_dims(dims)} }} {field} }} }} }} }}\n'
    )


def call(name: str, op: str, inputs: list[str], function: str, extra: str = "", tin: str = "DT_FLOAT") -> str:
    given = " ".join(f'input: "{item}"' for item in inputs)
    if op in ("PartitionedCall", "StatefulPartitionedCall"):
        types = " ".join(f"type: {tin}" for _ in inputs)
        return (
            f'node {{ name: "{name}" op: "{op}" {given} attr {{ key: "Tin" value {{ list {{ {types} }} }} }} '
            f'attr {{ key: "Tout" value {{ list {{ type: DT_FLOAT }} }} }} '
            f'attr {{ key: "f" value {{ func {{ name: "{function}" }} }} }} {extra} }}\n'
        )
    return f'node {{ name: "{name}" op: "{function}" {given} {extra} }}\n'


def function(name: str, body: str, args: int = 1, ret: str = "m:product:0", extra: str = "") -> str:
    inputs = " ".join(f'input_arg {{ name: "a{position}" type: DT_FLOAT }}' for position in range(args))
    return (
        f'function {{ signature {{ name: "{name}" {inputs} output_arg {{ name: "y" type: DT_FLOAT }} }} '
        f'{body} ret {{ key: "y" value: "{ret}" }} {extra} }}\n'
    )


def library(*functions: str) -> str:
    return "library { " + "".join(functions) + " }\n"


INNER_CALL = (
    'node_def { name: "inner" op: "PartitionedCall" input: "a0" attr { key: "Tin" value { list { type: DT_FLOAT } } } '
    'attr { key: "Tout" value { list { type: DT_FLOAT } } } attr { key: "f" value { func { name: "f" } } } }'
)
DIRECT_INNER_CALL = 'node_def { name: "inner" op: "f" input: "a0" }'
MATMUL = f'node_def {{ name: "m" op: "MatMul" input: "a0" input: "w:output:0" {T_F32} }}'
BODY = const("w", [3, 4]) + MATMUL  # a0 [?, 3] x w [3, 4]
BROKEN_BODY = (
    const("c", [2, 3]) + f'node_def {{ name: "m" op: "MatMul" input: "c:output:0" input: "c:output:0" {T_F32} }}'
)
ARG_SHAPE = (
    'arg_attr { key: 0 value { attr { key: "_output_shapes" value { list { shape { dim { size: 2 } dim { size: 5 } } '
    "} } } } }"
)
IF = (
    'node { name: "p" op: "Placeholder" attr { key: "dtype" value { type: DT_BOOL } } '
    'attr { key: "shape" value { shape { } } } }\n'
    'node { name: "if" op: "If" input: "p" input: "x" attr { key: "Tcond" value { type: DT_BOOL } } '
    'attr { key: "Tin" value { list { type: DT_FLOAT } } } attr { key: "Tout" value { list { type: DT_FLOAT } } } '
    'attr { key: "then_branch" value { func { name: "BRANCH" } } } '
    'attr { key: "else_branch" value { func { name: "BRANCH" } } } }\n'
)
WHILE = (
    'node { name: "wh" op: "While" input: "x" attr { key: "T" value { list { type: DT_FLOAT } } } '
    'attr { key: "cond" value { func { name: "c" } } } attr { key: "body" value { func { name: "f" } } } }\n'
)
COND = (
    'function { signature { name: "c" input_arg { name: "a0" type: DT_FLOAT } output_arg { name: "y" type: DT_BOOL } } '
    'node_def { name: "k" op: "Const" attr { key: "dtype" value { type: DT_BOOL } } '
    'attr { key: "value" value { tensor { dtype: DT_BOOL tensor_shape { } bool_val: false } } } } '
    'ret { key: "y" value: "k:output:0" } }\n'
)
SHAPE_CONST = (
    'node { name: "s" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor '
    "{ dtype: DT_INT32 tensor_shape { dim { size: 2 } } int_val: 4 int_val: 4 } } } }\n"
)
RESHAPE = (
    'function { signature { name: "r" input_arg { name: "a0" type: DT_INT32 } '
    'output_arg { name: "y" type: DT_FLOAT } } '
    + const("t", [6])
    + 'node_def { name: "m" op: "Reshape" input: "t:output:0" input: "a0" attr { key: "T" value { type: DT_FLOAT } } '
    'attr { key: "Tshape" value { type: DT_INT32 } } } ret { key: "y" value: "m:output:0" } }\n'
)
VARIABLE = (
    'node { name: "v" op: "VarHandleOp" attr { key: "dtype" value { type: DT_FLOAT } } '
    'attr { key: "shape" value { shape { dim { size: 2 } dim { size: 5 } } } } '
    'attr { key: "container" value { s: "" } } attr { key: "shared_name" value { s: "v" } } }\n'
)
READ = (
    'function { signature { name: "rv" input_arg { name: "a0" type: DT_RESOURCE } '
    'output_arg { name: "y" type: DT_FLOAT } '
    "is_stateful: true } "
    + const("w", [3, 4])
    + 'node_def { name: "rd" op: "ReadVariableOp" input: "a0" attr { key: "dtype" value { type: DT_FLOAT } } } '
    f'node_def {{ name: "m" op: "MatMul" input: "rd:value:0" input: "w:output:0" {T_F32} }} '
    'ret { key: "y" value: "m:product:0" } }\n'
)
DISABLE = 'attr { key: "_disable_call_shape_inference" value { b: true } }'
BAD_OUTPUT_SHAPES = 'attr { key: "_output_shapes" value { list { shape { dim { size: 2 } dim { size: 7 } } } } }'

# id -> (description, GraphDef text)
CASES = {
    "partitioned_call": ("PartitionedCall passes [2,5] to a body MatMul with a [3,4] Const", placeholder("x", [2, 5])
        + call("call", "PartitionedCall", ["x"], "f") + library(function("f", BODY))),
    "partitioned_call_fits": ("the same call with [2,3]: the call's output is [2,4]", placeholder("x", [2, 3])
        + call("call", "PartitionedCall", ["x"], "f") + library(function("f", BODY))),
    "stateful_partitioned_call": ("StatefulPartitionedCall passes [2,5]", placeholder("x", [2, 5])
        + call("call", "StatefulPartitionedCall", ["x"], "f") + library(function("f", BODY))),
    "direct_call": ("a node whose op is the function passes [2,5]", placeholder("x", [2, 5])
        + call("call", "", ["x"], "f") + library(function("f", BODY))),
    "unknown_caller_shape": ("the caller's shape is unknown", placeholder("x")
        + call("call", "PartitionedCall", ["x"], "f") + library(function("f", BODY))),
    "disable_call_shape_inference": ("_disable_call_shape_inference on the call", placeholder("x", [2, 5])
        + call("call", "PartitionedCall", ["x"], "f", DISABLE) + library(function("f", BODY))),
    "uncalled_with_arg_shapes": ("nothing calls f; its arg attrs say [2,5]", placeholder("x", [2, 5])
        + library(function("f", BODY, extra=ARG_SHAPE))),
    "arg_attr_conflicts_with_caller": ("arg attrs say [2,5], the caller passes [2,3]", placeholder("x", [2, 3])
        + call("call", "PartitionedCall", ["x"], "f") + library(function("f", BODY, extra=ARG_SHAPE))),
    "arg_attr_with_unknown_caller": ("arg attrs say [2,5], the caller's shape is unknown", placeholder("x")
        + call("call", "PartitionedCall", ["x"], "f") + library(function("f", BODY, extra=ARG_SHAPE))),
    "nested_partitioned_call": ("g calls f through a PartitionedCall", placeholder("x", [2, 5])
        + call("call", "PartitionedCall", ["x"], "g")
        + library(function("f", BODY), function("g", INNER_CALL, ret="inner:output:0"))),
    "nested_direct_call": ("g calls f directly", placeholder("x", [2, 5]) + call("call", "PartitionedCall", ["x"], "g")
        + library(function("f", BODY), function("g", DIRECT_INNER_CALL, ret="inner:y:0"))),
    "call_output_to_consumer": ("the call's [2,4] output is added to a [2,5]", placeholder("x", [2, 3])
        + placeholder("z", [2, 5]) + call("call", "PartitionedCall", ["x"], "f")
        + f'node {{ name: "add" op: "AddV2" input: "call" input: "z" {T_F32} }}\n' + library(function("f", BODY))),
    "call_output_shapes": ("the call's _output_shapes say [2,7], its body returns [2,4]", placeholder("x", [2, 3])
        + call("call", "PartitionedCall", ["x"], "f", BAD_OUTPUT_SHAPES) + library(function("f", BODY))),
    "body_node_output_shapes": ("a body node's _output_shapes contradict its shape function", placeholder("x", [2, 3])
        + call("call", "PartitionedCall", ["x"], "f")
        + library(function("f", const("w", [3, 4]) + MATMUL.replace(T_F32, T_F32 + " " + BAD_OUTPUT_SHAPES)))),
    "broken_body_called": ("a body MatMuls two [2,3] Consts, called with an unknown shape", placeholder("x")
        + call("call", "PartitionedCall", ["x"], "f") + library(function("f", BROKEN_BODY))),
    "called_twice": ("f is called with [2,3], then with [2,5]", placeholder("x", [2, 3]) + placeholder("z", [2, 5])
        + call("c1", "PartitionedCall", ["x"], "f") + call("c2", "PartitionedCall", ["z"], "f")
        + library(function("f", BODY))),
    "if_branch": ("If branches get [2,5]", placeholder("x", [2, 5]) + IF.replace("BRANCH", "f")
        + library(function("f", BODY))),
    "if_branch_broken": ("If branches MatMul two [2,3] Consts", placeholder("x", [2, 5]) + IF.replace("BRANCH", "f")
        + library(function("f", BROKEN_BODY))),
    "if_branch_calls": ("an If branch calls f through a PartitionedCall", placeholder("x", [2, 5])
        + IF.replace("BRANCH", "g") + library(function("f", BODY), function("g", INNER_CALL, ret="inner:output:0"))),
    "while_body": ("a While body gets [2,5]", placeholder("x", [2, 5]) + WHILE + library(function("f", BODY), COND)),
    "while_body_broken": ("a While body MatMuls two [2,3] Consts", placeholder("x", [2, 5]) + WHILE
        + library(function("f", BROKEN_BODY), COND)),
    "constant_argument": ("a Const [4,4] passed as a body Reshape's shape (6 elements)", SHAPE_CONST
        + 'node { name: "call" op: "PartitionedCall" input: "s" attr { key: "Tin" value { list { type: DT_INT32 } } } '
        'attr { key: "Tout" value { list { type: DT_FLOAT } } } attr { key: "f" value { func { name: "r" } } } }\n'
        + library(RESHAPE)),
    "constant_argument_direct": ("the same through a direct call", SHAPE_CONST
        + 'node { name: "call" op: "r" input: "s" }\n' + library(RESHAPE)),
    "resource_argument": ("a [2,5] variable's handle passed to a body that reads and MatMuls it", VARIABLE
        + 'node { name: "call" op: "StatefulPartitionedCall" input: "v" '
        'attr { key: "Tin" value { list { type: DT_RESOURCE } } } '
        'attr { key: "Tout" value { list { type: DT_FLOAT } } } '
        'attr { key: "f" value { func { name: "rv" } } } }\n' + library(READ)),
    "called_from_uncalled": ("only an uncalled function calls f", placeholder("x", [2, 5])
        + library(function("f", BODY), function("g", INNER_CALL, ret="inner:output:0"))),
}  # fmt: skip


def main() -> int:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow as tf
    from google.protobuf import text_format
    from tensorflow.core.framework import graph_pb2

    with open(sys.argv[1], "w") as out:
        for case, (description, text) in CASES.items():
            graph_def = text_format.Parse(text, graph_pb2.GraphDef())
            record = {"id": case, "description": description, "graph_pbtxt": text, "tf_version": tf.__version__}
            with tf.Graph().as_default() as graph:
                try:
                    tf.graph_util.import_graph_def(graph_def, name="")
                except Exception as error:  # noqa: BLE001 - any rejection is TensorFlow's verdict
                    record.update(verdict="rejects", message=str(error).splitlines()[0][:400])
                else:
                    shapes = {
                        op.name: [str(tensor.shape) for tensor in op.outputs]
                        for op in graph.get_operations()
                        if op.type not in ("Placeholder", "Const", "VarHandleOp")
                    }
                    record.update(verdict="imports", shapes=shapes)
            out.write(json.dumps(record, sort_keys=True) + "\n")
            print(f"{case:32} {record['verdict']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
