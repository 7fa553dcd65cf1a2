"""shape-mismatch: TensorFlow's import-time shape inference (S1) and `_output_shapes` checks (S3).

Every graph here was imported with TensorFlow 2.21 (`tf.graph_util.import_graph_def`
into a fresh graph): the clean ones import, each one with a finding is rejected
with the shape error the finding names. `test_verdicts_match_tensorflow` keeps
the table honest when TensorFlow is at hand (TFLINT_TF_PYTHON=<a Python with TensorFlow>).
The shape functions themselves were also checked op by op against TensorFlow
with randomly generated graphs (shapes, constants, attrs, producer versions).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import textwrap
from pathlib import Path

import pytest
from conftest import lint_bytes, lint_text, pinned

from tflint import protos
from tflint.rules import shape_mismatch
from tflint.tf.shapes import ShapeError, broadcast, compatible, merge

ID = shape_mismatch.ID


def ph(name: str, dims: str | None, dtype: str = "DT_FLOAT", extra: str = "") -> str:
    """A Placeholder; `dims` like "2,-1" (None: unknown rank, "": scalar)."""
    shape = "unknown_rank: true" if dims is None else " ".join(f"dim {{ size: {d} }}" for d in dims.split(",") if d)
    return f'node {{ name: "{name}" op: "Placeholder" attr {{ key: "dtype" value {{ type: {dtype} }} }} attr {{ key: "shape" value {{ shape {{ {shape} }} }} }} {extra} }}\n'


def shapes(*entries: str | None) -> str:
    """An `_output_shapes` attr entry for the given shapes (same notation as ph)."""
    body = []
    for dims in entries:
        body.append(
            "shape { unknown_rank: true }"
            if dims is None
            else "shape { " + " ".join(f"dim {{ size: {d} }}" for d in dims.split(",") if d) + " }"
        )
    return 'attr { key: "_output_shapes" value { list { ' + " ".join(body) + " } } }"


def ints(name: str, values: list[int], dims: str | None = None, dtype: str = "DT_INT32", extra: str = "") -> str:
    """An int Const; dims defaults to a vector of len(values)."""
    dims = str(len(values)) if dims is None else dims
    field = "int_val" if dtype == "DT_INT32" else "int64_val"
    shape = " ".join(f"dim {{ size: {d} }}" for d in dims.split(",") if d)
    vals = " ".join(f"{field}: {v}" for v in values)
    return (
        f'node {{ name: "{name}" op: "Const" attr {{ key: "dtype" value {{ type: {dtype} }} }} '
        f'attr {{ key: "value" value {{ tensor {{ dtype: {dtype} tensor_shape {{ {shape} }} {vals} }} }} }} '
        f"{extra} }}\n"
    )


def op(
    name: str,
    op_type: str,
    inputs: list[str],
    attrs: str = 'attr { key: "T" value { type: DT_FLOAT } }',
    extra: str = "",
) -> str:
    ins = " ".join(f'input: "{i}"' for i in inputs)
    return f'node {{ name: "{name}" op: "{op_type}" {ins} {attrs} {extra} }}\n'


VERSION = "versions { producer: 1700 }\n"

PARSE_EXAMPLE = (
    'node { name: "serialized" op: "Const" attr { key: "dtype" value { type: DT_STRING } } '
    'attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape { } string_val: "z" } } } }\n'
    'node { name: "names" op: "Const" attr { key: "dtype" value { type: DT_STRING } } '
    'attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape { dim { } } } } } }\n'
    'node { name: "key" op: "Const" attr { key: "dtype" value { type: DT_STRING } } '
    'attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape { } string_val: "x" } } } }\n'
    'node { name: "default" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } '
    'attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 1 } } float_val: 1 } } } }\n'
    'node { name: "ParseExample/ParseExample" op: "ParseExample" input: "serialized" input: "names" input: "key" input: "default" '
    'attr { key: "Nsparse" value { i: 0 } } attr { key: "Ndense" value { i: 1 } } attr { key: "sparse_types" value { list { } } } '
    'attr { key: "Tdense" value { list { type: DT_FLOAT } } } attr { key: "dense_shapes" value { list { shape { dim { size: 1 } } } } } }\n'
    "versions { producer: 9 }\n"
)

SCALAR_ADD = (
    'node { name: "a" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { } int_val: 1 } } } }\n'
    'node { name: "b" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { } int_val: 0 } } } }\n'
    'node { name: "Add" op: "Add" input: "a" input: "b" attr { key: "T" value { type: DT_INT32 } } %s }\n'
)


def loop(merge_shape: str, weights: str) -> str:
    """A control-flow v1 while loop feeding a MatMul.

    The Merge's back edge (from NextIteration) does not exist yet when TensorFlow
    reaches the Merge, so the loop Merge's output is what its `_output_shapes` says.
    """
    return (
        ph("x", "2,3")
        + op(
            "while/Enter",
            "Enter",
            ["x"],
            'attr { key: "T" value { type: DT_FLOAT } } attr { key: "frame_name" value { s: "while" } }',
            shapes("2,3"),
        )
        + op(
            "while/Merge",
            "Merge",
            ["while/Enter", "while/NextIteration"],
            'attr { key: "T" value { type: DT_FLOAT } } attr { key: "N" value { i: 2 } }',
            shapes(merge_shape, ""),
        )
        + ph("c", "", "DT_BOOL")
        + op("while/LoopCond", "LoopCond", ["c"], "")
        + op("while/Switch", "Switch", ["while/Merge", "while/LoopCond"])
        + op("while/Identity", "Identity", ["while/Switch:1"])
        + op("while/NextIteration", "NextIteration", ["while/Identity"])
        + op("while/Exit", "Exit", ["while/Switch"])
        + ph("w", weights)
        + op("out", "MatMul", ["while/Exit", "w"])
        + VERSION
    )


# A function nobody calls, with a broken body: TensorFlow does not look at it at import.
FUNCTION_BODY = (
    "library {\n"
    "  function {\n"
    '    signature { name: "f" input_arg { name: "x" type: DT_FLOAT } output_arg { name: "y" type: DT_FLOAT } }\n'
    '    node_def { name: "bad" op: "MatMul" input: "x" input: "x" attr { key: "T" value { type: DT_FLOAT } } '
    + shapes("1,2,3")
    + " }\n"
    '    ret { key: "y" value: "bad:product:0" }\n'
    "  }\n"
    "}\n"
)


def call(weights: str) -> str:
    """A function call whose `_output_shapes` feeds a MatMul.

    TensorFlow infers the call's output through the function body too; here it
    is unknown, so the check rests on `_output_shapes` alone.
    """
    return (
        ph("x", "2,3")
        + op(
            "call",
            "PartitionedCall",
            ["x"],
            'attr { key: "Tin" value { list { type: DT_FLOAT } } } attr { key: "Tout" value { list { type: DT_FLOAT } } } '
            'attr { key: "f" value { func { name: "g" } } }',
            shapes("2,3"),
        )
        + ph("w", weights)
        + op("mm", "MatMul", ["call", "w"])
        + "library {\n"
        "  function {\n"
        '    signature { name: "g" input_arg { name: "x" type: DT_FLOAT } output_arg { name: "y" type: DT_FLOAT } }\n'
        '    node_def { name: "i" op: "Identity" input: "x" attr { key: "T" value { type: DT_FLOAT } } }\n'
        '    ret { key: "y" value: "i:output:0" }\n'
        "  }\n"
        "}\n" + VERSION
    )


def where(declared: str) -> str:
    """Where has no shape function here: TensorFlow infers [?,2], merged with `_output_shapes`."""
    return ph("b", "2,3", "DT_BOOL") + op(
        "u", "Where", ["b"], 'attr { key: "T" value { type: DT_BOOL } }', shapes(declared)
    )


# Nodes of one kind (op, attrs, input shapes) that read different Consts get different shapes;
# the same Const values (a shared attr dict in binary graphs) reuse one result.
CONSTS_READ = (
    ph("x", "2,3")
    + ints("flat", [6, 1])
    + ints("s32", [3, 2])
    + ints("again", [3, 2])
    + op("r1", "Reshape", ["x", "flat"])
    + op("r2", "Reshape", ["x", "s32"])
    + op("r3", "Reshape", ["x", "again"])
    + ph("w", "2,4")
    + ph("v", "5,1")
    + op("m2", "MatMul", ["r2", "w"])
    + op("m3", "MatMul", ["r3", "v"])
    + op("m1", "Relu", ["r1"], extra=shapes("6,1"))
    + VERSION
)

# Slices of one kind (op, attrs, input shapes) read two Consts each (begin, size): results are
# memoized by both, so the second slice, whose begin differs, gets its own shape ([1], not [3]).
SLICE_ATTRS = 'attr { key: "T" value { type: DT_FLOAT } } attr { key: "Index" value { type: DT_INT32 } } ' + shapes("3")
SLICES_READ = (
    ph("x", "4")
    + ints("b1", [1])
    + ints("b3", [3])
    + ints("size", [-1])
    + op("ok", "Slice", ["x", "b1", "size"], SLICE_ATTRS)
    + op("bad", "Slice", ["x", "b3", "size"], SLICE_ATTRS)
    + VERSION
)

# Consts of one shape with different values (different attr dicts, one result each): each one
# is checked against its own `_output_shapes`.
CONSTS_OF_ONE_SHAPE = (
    ints("c1", [1, 2], extra=shapes("2"))
    + ints("c2", [3, 4], extra=shapes("3"))
    + ints("c3", [5, 6], extra=shapes("2"))
    + ints("c4", [7, 8], extra=shapes("1"))
    + ints("c5", [1, 2, 3], extra=shapes("3"))
    + VERSION
)


ELEMENT = 'attr { key: "element_dtype" value { type: DT_FLOAT } }'
SHAPE_TYPE = 'attr { key: "shape_type" value { type: DT_INT32 } }'


def reserve(element_shape: list[int]) -> str:
    """A TensorListReserve of 3 float elements of `element_shape` (its handle data), on lines 1-3."""
    return (
        ints("shape", element_shape)
        + ints("count", [3], "")
        + op("list", "TensorListReserve", ["shape", "count"], ELEMENT + " " + SHAPE_TYPE)
    )


def var(name: str, dims: str) -> str:
    shape = " ".join(f"dim {{ size: {d} }}" for d in dims.split(",") if d)
    return (
        f'node {{ name: "{name}" op: "VarHandleOp" attr {{ key: "dtype" value {{ type: DT_FLOAT }} }} '
        f'attr {{ key: "shape" value {{ shape {{ {shape} }} }} }} }}\n'
    )


def ref(name: str, dims: str) -> str:
    """A VariableV2 (a ref variable) of float `dims`."""
    shape = " ".join(f"dim {{ size: {d} }}" for d in dims.split(",") if d)
    return (
        f'node {{ name: "{name}" op: "VariableV2" attr {{ key: "dtype" value {{ type: DT_FLOAT }} }} '
        f'attr {{ key: "shape" value {{ shape {{ {shape} }} }} }} }}\n'
    )


# The attrs of a SparseApply* op: T and its indices' type.
TINDICES = 'attr { key: "T" value { type: DT_FLOAT } } attr { key: "Tindices" value { type: DT_INT32 } }'


def sparse_adagrad(variable: str, grad: str, indices: str, op_type: str = "SparseApplyAdagrad", resource: bool = False):
    """A SparseApplyAdagrad (or Momentum, which takes the momentum after the indices) of a `variable` and its
    accumulator, fed `grad` rows at `indices`; `resource`: their ResourceSparseApply* form, on VarHandleOps."""
    make = var if resource else ref
    inputs = ["v", "accum", "lr", "grad", "indices"] + (["lr"] if op_type.endswith("Momentum") else [])
    return (
        make("v", variable)
        + make("accum", variable)
        + ph("lr", "")
        + ph("grad", grad)
        + ph("indices", indices, "DT_INT32")
        + op("apply", ("Resource" if resource else "") + op_type, inputs, TINDICES)
        + VERSION
    )


NEW_FAMILIES = [
    pytest.param(
        reserve([2, 2])
        + ints("index", [0], "")
        + ph("item", "2,3")
        + op("set", "TensorListSetItem", ["list", "index", "item"], ELEMENT)
        + VERSION,
        [(ID, "set", 6)],
        id="list-item-contradicts-element-shape",
    ),
    pytest.param(
        reserve([2, 2])
        + ints("index", [0], "")
        + ph("item", "2,2")
        + op("set", "TensorListSetItem", ["list", "index", "item"], ELEMENT)
        + op("stack", "TensorListStack", ["set", "shape"], ELEMENT)
        + op("get", "TensorListGetItem", ["set", "index", "shape"], ELEMENT)
        + VERSION,
        [],
        id="list-consistent",
    ),
    pytest.param(
        reserve([2, 2])
        + op("same", "Identity", ["list"], 'attr { key: "T" value { type: DT_VARIANT } }')
        + ints("index", [0], "")
        + ints("wanted", [2, 3])
        + op("get", "TensorListGetItem", ["same", "index", "wanted"], ELEMENT)
        + VERSION,
        [(ID, "get", 7)],
        id="list-handle-data-through-identity",
    ),
    pytest.param(
        reserve([2, 2])
        + ints("index", [0], "")
        + ints("any", [-1], "")
        + op(
            "get",
            "TensorListGetItem",
            ["list", "index", "any"],
            'attr { key: "element_dtype" value { type: DT_INT32 } }',
        )
        + VERSION,
        [(ID, "get", 6)],
        id="list-element-dtype",
    ),
    pytest.param(
        ph("m", "3,3") + ints("k", [3], "") + ph("pad", "") + op("d", "MatrixDiagPartV3", ["m", "k", "pad"]) + VERSION,
        [(ID, "d", 4)],
        id="diagonal-out-of-bound",
    ),
    pytest.param(
        ph("v", "2,4")
        + ints("k", [-1, 0])
        + ints("rows", [-1], "")
        + ints("cols", [-1], "")
        + ph("pad", "")
        + op("d", "MatrixDiagV3", ["v", "k", "rows", "cols", "pad"])
        + ph("w", "4,4")
        + op("m", "MatMul", ["d", "w"])
        + VERSION,
        [],
        id="diagonals-make-a-square",
    ),
    pytest.param(
        ph("indices", "-1,2", "DT_INT64")
        + ph("values", "-1")
        + ints("dense_shape", [4, 5], dtype="DT_INT64")
        + ph("b", "6,3")
        + op("mm", "SparseTensorDenseMatMul", ["indices", "values", "dense_shape", "b"])
        + VERSION,
        [(ID, "mm", 5)],
        id="sparse-matmul-inner-dimension",
    ),
    pytest.param(
        var("v", "2")
        + var("accum", "2")
        + ph("lr", "")
        + ph("grad", "3")
        + op("apply", "ResourceApplyAdagrad", ["v", "accum", "lr", "grad"])
        + VERSION,
        [],
        id="resource-adagrad-gradient-unchecked",
    ),
    # SparseApply*: one gradient row per index, the rows as wide as the variable (TF 2.21, tools/fuzz_shapes_tf.py).
    pytest.param(sparse_adagrad("10,4", "3,4", "3"), [], id="sparse-adagrad-rows"),
    pytest.param(sparse_adagrad("10,4", "3,5", "3"), [(ID, "apply", 6)], id="sparse-adagrad-row-width"),
    pytest.param(sparse_adagrad("10,4", "3,4", "2"), [(ID, "apply", 6)], id="sparse-adagrad-one-row-per-index"),
    pytest.param(
        sparse_adagrad("10", "", "1", "SparseApplyMomentum"), [(ID, "apply", 6)], id="sparse-momentum-scalar-gradient"
    ),
    # A ResourceSparseApply* reads its gradient through a handle it does not have: only the indices are checked.
    pytest.param(sparse_adagrad("10,4", "3,5", "2", resource=True), [], id="resource-sparse-gradient-unchecked"),
    pytest.param(
        sparse_adagrad("10,4", "3,4", "3,1", resource=True),
        [(ID, "apply", 6)],
        id="resource-sparse-indices-are-a-vector",
    ),
    pytest.param(
        ints("size", [3], "")
        + op(
            "ta",
            "TensorArrayV3",
            ["size"],
            'attr { key: "dtype" value { type: DT_FLOAT } } '
            'attr { key: "element_shape" value { shape { dim { size: 4 } } } }',
        )
        + ints("index", [0], "")
        + ph("value", "5")
        + op("write", "TensorArrayWriteV3", ["ta", "index", "value", "ta:1"])
        + VERSION,
        [(ID, "write", 5)],
        id="tensor-array-element-shape",
    ),
]

CASES = [
    # -- legal, and must stay clean -----------------------------------------------------------
    pytest.param(ph("x", "-1,3") + ph("b", "3") + op("y", "AddV2", ["x", "b"]) + VERSION, [], id="broadcast-trailing"),
    pytest.param(
        ph("x", "2,1,4") + ph("b", "3,1") + op("y", "Mul", ["x:0", "b:0"], extra=shapes("2,3,4")) + VERSION,
        [],
        id="broadcast-ones-and-x:0",
    ),
    pytest.param(ph("x", None) + ph("b", "7") + op("y", "Sub", ["x", "b"]) + VERSION, [], id="broadcast-unknown-rank"),
    pytest.param(
        ph("x", "-1,5") + ph("b", "3,-1") + op("y", "Maximum", ["x", "b"], extra=shapes("3,5")) + VERSION,
        [],
        id="broadcast-unknown-dims",
    ),
    pytest.param(
        ph("x", "2")
        + ph("y", "3")
        + op(
            "e",
            "Equal",
            ["x", "y"],
            'attr { key: "T" value { type: DT_FLOAT } } attr { key: "incompatible_shape_error" value { b: false } }',
        )
        + VERSION,
        [],
        id="equal-without-shape-error",
    ),
    pytest.param(
        ph("x", "-1,3") + ph("w", "3,4") + op("m", "MatMul", ["x", "w"], extra=shapes("-1,4")) + VERSION,
        [],
        id="matmul-default-attrs-omitted",
    ),
    pytest.param(
        ph("x", "4,3")
        + ph("w", "5,4")
        + op(
            "m",
            "MatMul",
            ["x", "w"],
            'attr { key: "T" value { type: DT_FLOAT } } attr { key: "transpose_a" value { b: true } } '
            'attr { key: "transpose_b" value { b: true } }',
            shapes("3,5"),
        )
        + VERSION,
        [],
        id="matmul-transposed",
    ),
    pytest.param(
        ph("x", "2,3")
        + ints("s", [-1], dtype="DT_INT64")
        + op(
            "r",
            "Reshape",
            ["x", "s"],
            'attr { key: "T" value { type: DT_FLOAT } } attr { key: "Tshape" value { type: DT_INT64 } }',
            shapes("6"),
        )
        + VERSION,
        [],
        id="reshape-int64-infers-dim",
    ),
    pytest.param(
        ph("x", "2,3")
        + ints("axes", [1])
        + op(
            "s",
            "Sum",
            ["x", "axes"],
            'attr { key: "T" value { type: DT_FLOAT } } attr { key: "Tidx" value { type: DT_INT32 } }',
            shapes("2"),
        )
        + VERSION,
        [],
        id="sum-keep-dims-default",
    ),
    # Graphs up to version 21 accepted axes of any rank, and Placeholder read a scalar shape as unknown.
    pytest.param(
        ph("x", "2,3")
        + ints("axes", [1], "1,1")
        + op(
            "s",
            "Sum",
            ["x", "axes"],
            'attr { key: "T" value { type: DT_FLOAT } } attr { key: "Tidx" value { type: DT_INT32 } }',
        )
        + "versions { producer: 20 }\n",
        [],
        id="legacy-axes-rank-2",
    ),
    pytest.param(
        ph("p", "") + op("i", "Identity", ["p"], extra=shapes("5")) + "versions { producer: 21 }\n",
        [],
        id="legacy-scalar-placeholder",
    ),
    pytest.param(ph("p", "") + op("i", "Identity", ["p"], extra=shapes("5")), [], id="legacy-no-versions"),
    pytest.param(
        ph("x", "2,3") + op("i", "Identity", ["x"], extra=shapes(None, "9,9")) + VERSION,
        [],
        id="output-shapes-unknown-rank-and-extra-entry",
    ),
    pytest.param(
        where("7,2")
        + op("i", "Identity", ["u"], 'attr { key: "T" value { type: DT_INT64 } }', shapes("7,2"))
        + VERSION,
        [],
        id="op-without-shape-fn-refined",
    ),
    pytest.param(loop("2,3", "3,4"), [], id="loop-merge-back-edge"),
    pytest.param(loop("-1,3", "3,4"), [], id="loop-merge-partial"),
    pytest.param(call("3,5"), [], id="function-call-refined-by-output-shapes"),
    pytest.param(
        ph("a-b.c>d", "2,3") + op("e.f-g>h", "Relu", ["a-b.c>d"], extra=shapes("2,3")) + VERSION, [], id="odd-names"
    ),
    pytest.param(
        op("late", "MatMul", ["x", "w"]) + ph("x", "2,3") + ph("w", "3,4") + VERSION, [], id="consumer-before-producer"
    ),
    pytest.param(
        ph("x", "2,3")
        + ints("axis", [0], "")
        + ph("y", "5,3")
        + op(
            "c",
            "ConcatV2",
            ["x", "y", "axis"],
            'attr { key: "T" value { type: DT_FLOAT } } attr { key: "N" value { i: 2 } } attr { key: "Tidx" value { type: DT_INT32 } }',
            shapes("7,3"),
        )
        + VERSION,
        [],
        id="concat",
    ),
    pytest.param(
        'node { name: "v" op: "VarHandleOp" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 3 } } } } }\n'
        + op("r", "ReadVariableOp", ["v"], 'attr { key: "dtype" value { type: DT_FLOAT } }', shapes("3"))
        + VERSION,
        [],
        id="resource-variable",
    ),
    pytest.param(FUNCTION_BODY + VERSION, [], id="function-bodies-not-checked-at-import"),
    # -- errors -------------------------------------------------------------------------------
    pytest.param(PARSE_EXAMPLE, [(ID, "ParseExample/ParseExample", 5)], id="parse-example-serialized-scalar"),
    pytest.param(SCALAR_ADD % shapes("4"), [(ID, "Add", 3)], id="output-shapes-rank"),
    pytest.param(
        ph("x", "2,3") + op("r", "Relu", ["x"], extra=shapes("2,4")) + VERSION, [(ID, "r", 2)], id="output-shapes-dim"
    ),
    pytest.param(ph("x", "2,3", extra=shapes("3,3")) + VERSION, [(ID, "x", 1)], id="placeholder-own-output-shapes"),
    pytest.param(
        ph("x", "2,3") + ph("w", "4,5") + op("m", "MatMul", ["x", "w"]) + VERSION, [(ID, "m", 3)], id="matmul-inner"
    ),
    pytest.param(
        ph("x", "3") + ph("w", "3,4") + op("m", "MatMul", ["x", "w"]) + VERSION, [(ID, "m", 3)], id="matmul-rank"
    ),
    pytest.param(
        ph("x", "2,3") + ph("y", "4") + op("s", "AddV2", ["x", "y"]) + VERSION,
        [(ID, "s", 3)],
        id="broadcast-incompatible",
    ),
    pytest.param(
        ph("x", "2,3") + ints("s", [4]) + op("r", "Reshape", ["x", "s"]) + VERSION,
        [(ID, "r", 3)],
        id="reshape-element-count",
    ),
    pytest.param(
        ph("x", "2,3") + ints("axes", [2]) + op("s", "Sum", ["x", "axes"]) + VERSION,
        [(ID, "s", 3)],
        id="reduction-axis-out-of-range",
    ),
    pytest.param(
        ph("x", "1,5,5")
        + ph("f", "3,3,1,4")
        + op(
            "c",
            "Conv2D",
            ["x", "f"],
            'attr { key: "T" value { type: DT_FLOAT } } '
            'attr { key: "strides" value { list { i: 1 i: 1 i: 1 i: 1 } } } attr { key: "padding" value { s: "VALID" } }',
        )
        + VERSION,
        [(ID, "c", 3)],
        id="conv2d-rank",
    ),
    pytest.param(
        ph("x", "2,3")
        + ph("y", "2,4")
        + op("p", "Pack", ["x", "y"], 'attr { key: "T" value { type: DT_FLOAT } } attr { key: "N" value { i: 2 } }')
        + VERSION,
        [(ID, "p", 3)],
        id="pack-mismatch",
    ),
    pytest.param(
        ph("x", "2,3")
        + ph("y", "2,3,1")
        + ints("axis", [0], "")
        + op(
            "c",
            "ConcatV2",
            ["x", "y", "axis"],
            'attr { key: "T" value { type: DT_FLOAT } } attr { key: "N" value { i: 2 } }',
        )
        + VERSION,
        [(ID, "c", 4)],
        id="concat-rank",
    ),
    # Shapes flow through Identity, and through `_output_shapes` of ops without a shape function here.
    pytest.param(
        ph("x", "2,3")
        + op("i", "Identity", ["x"])
        + op("j", "Identity", ["i"])
        + ph("w", "4,5")
        + op("m", "MatMul", ["j", "w"])
        + VERSION,
        [(ID, "m", 5)],
        id="propagates-through-identity",
    ),
    pytest.param(
        where("7,2")
        + op(
            "f",
            "Cast",
            ["u"],
            'attr { key: "SrcT" value { type: DT_INT64 } } attr { key: "DstT" value { type: DT_FLOAT } }',
        )
        + ph("w", "4,5")
        + op("m", "MatMul", ["f", "w"])
        + VERSION,
        [(ID, "m", 5)],
        id="propagates-from-output-shapes",
    ),
    pytest.param(
        op("late", "MatMul", ["x", "w"]) + ph("x", "2,3") + ph("w", "4,4") + VERSION,
        [(ID, "late", 1)],
        id="consumer-before-producer-error",
    ),
    pytest.param(loop("2,3", "4,4"), [(ID, "out", 11)], id="loop-exit-refined-by-merge-output-shapes"),
    pytest.param(call("4,5"), [(ID, "mm", 4)], id="function-call-output-shapes-used"),
    pytest.param(
        'node { name: "v" op: "VarHandleOp" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 3 } } } } }\n'
        + op("r", "ReadVariableOp", ["v"], 'attr { key: "dtype" value { type: DT_INT32 } }')
        + VERSION,
        [(ID, "r", 2)],
        id="resource-variable-dtype",
    ),
    pytest.param(
        ph("p", "") + op("i", "Identity", ["p"], extra=shapes("5")) + "versions { producer: 22 }\n",
        [(ID, "i", 2)],
        id="scalar-placeholder-since-22",
    ),
    pytest.param(CONSTS_READ, [(ID, "m3", 11)], id="same-kind-different-consts"),
    pytest.param(SLICES_READ, [(ID, "bad", 6)], id="same-kind-two-consts-read"),
    pytest.param(CONSTS_OF_ONE_SHAPE, [(ID, "c2", 2), (ID, "c4", 4)], id="consts-of-one-shape"),
    *NEW_FAMILIES,
]


@pytest.mark.parametrize("pbtxt, expected", CASES)
def test_rule(pbtxt, expected):
    assert pinned(lint_text(pbtxt), rule=ID) == expected


def test_binary_graph_same_findings():
    from google.protobuf import text_format

    for text in (
        PARSE_EXAMPLE,
        SCALAR_ADD % shapes("4"),
        loop("2,3", "4,4"),
        CONSTS_READ,
        SLICES_READ,
        CONSTS_OF_ONE_SHAPE,
    ):
        graph = protos.GraphDef()
        text_format.Parse(text, graph, descriptor_pool=protos.POOL)
        binary = [(f.node, f.message) for f in lint_bytes(graph.SerializeToString()) if f.rule == ID]
        assert binary and binary == [(f.node, f.message) for f in lint_text(text) if f.rule == ID]


def test_every_case_parses():
    """A table entry that does not parse would pass as clean for the wrong reason."""
    for param in CASES:
        assert [f for f in lint_text(param.values[0]) if f.rule == "invalid-graph"] == [], param.id


def test_message_for_a_failing_shape_function():
    (finding,) = [f for f in lint_text(PARSE_EXAMPLE) if f.rule == ID]
    assert finding.message == (
        "Node 'ParseExample/ParseExample': Shape must be rank 1 but is rank 0 for input 'serialized' of ParseExample "
        "(from 'serialized', shape []); TensorFlow rejects the graph at import"
    )


def test_message_for_inconsistent_output_shapes():
    (finding,) = [f for f in lint_text(SCALAR_ADD % shapes("4")) if f.rule == ID]
    assert finding.message == (
        "Node 'Add' (op Add): attr '_output_shapes' says output 0 is [4], inferred [] "
        "(Shapes must be equal rank, but are 0 and 1); TensorFlow rejects the graph at import"
    )


def test_message_without_a_single_input():
    graph = ph("x", "2,3") + ph("y", "4") + op("s", "AddV2", ["x", "y"]) + VERSION
    (finding,) = [f for f in lint_text(graph) if f.rule == ID]
    assert (
        finding.message
        == "Node 's': Dimensions must be equal, but are 3 and 4 for AddV2 with input shapes [2,3], [4]; TensorFlow rejects the graph at import"
    )


def test_too_few_output_shapes_left_to_invalid_shape():
    graph = ph("x", "2,3") + op("s", "Switch", ["x", "c"], extra=shapes("5")) + ph("c", "", "DT_BOOL") + VERSION
    findings = lint_text(graph)
    assert pinned(findings, rule=ID) == []
    assert [f.node for f in findings if f.rule == "invalid-shape"] == ["s"]


def test_long_chain_is_iterative():
    """300k-node chains must not hit the recursion limit: a consumer-first chain forces the depth-first path."""
    count = 20000
    lines = [op(f"n{i}", "Identity", [f"n{i + 1}"]) for i in range(count)]
    lines.append(ph(f"n{count}", "2,3"))
    lines.append(ph("w", "4,5"))
    lines.append(op("m", "MatMul", ["n0", "w"]))
    assert pinned(lint_text("".join(lines) + VERSION), rule=ID) == [(ID, "m", count + 3)]


@pytest.mark.parametrize(
    "x, y, expected",
    [
        ((2, 3), (3,), (2, 3)),
        ((-1, 3), (1,), (-1, 3)),
        ((-1,), (5,), (5,)),  # TensorFlow assumes an unknown dim broadcasts to a known one > 1
        ((-1,), (1,), (-1,)),
        ((-1,), (0,), (-1,)),
        ((0,), (1,), (0,)),
        (None, (2,), None),
        ((), (2, 2), (2, 2)),
    ],
)
def test_broadcast_like_tensorflow(x, y, expected):
    assert broadcast(x, y) == expected


def test_merge_and_compatible():
    assert merge((-1, 3), (2, -1)) == (2, 3)
    assert merge(None, (1,)) == (1,)
    assert (
        compatible((-1, 3), (2, 3))
        and compatible(None, (5,))
        and not compatible((2,), (3,))
        and not compatible((), (1,))
    )
    with pytest.raises(ShapeError, match="Shapes must be equal rank, but are 1 and 2"):
        merge((1,), (1, 1))


TF_PYTHON = os.environ.get("TFLINT_TF_PYTHON")

_TF_SCRIPT = textwrap.dedent(
    """
    import json, os, sys
    os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
    import tensorflow as tf
    from google.protobuf import text_format
    out = []
    for text in json.load(sys.stdin):
        graph_def = tf.compat.v1.GraphDef()
        text_format.Parse(text, graph_def)
        try:
            with tf.Graph().as_default():
                tf.graph_util.import_graph_def(graph_def, name="")
            out.append(None)
        except Exception as error:
            out.append(str(error).splitlines()[0])
    print(json.dumps(out))
    """
)


@pytest.mark.skipif(not TF_PYTHON, reason="set TFLINT_TF_PYTHON to a Python with TensorFlow")
def test_verdicts_match_tensorflow():
    """Clean cases import; each case with findings is rejected with a shape error (the mutations too)."""
    base = CONVOLUTIONAL.read_text()
    table = [(param.id, param.values[0], param.values[1]) for param in CASES]
    table += [(param.id, param.values[0](base), param.values[1]) for param in MUTATIONS]
    result = subprocess.run(
        [TF_PYTHON, "-c", _TF_SCRIPT],
        input=json.dumps([text for _, text, _ in table]),
        capture_output=True,
        text=True,
        check=True,
    )
    verdicts = json.loads(result.stdout.strip().splitlines()[-1])
    for (case, _, expected), verdict in zip(table, verdicts):
        if expected:
            assert verdict is not None and ("hape" in verdict or "imension" in verdict or "dtype" in verdict), (
                case,
                verdict,
            )
        else:
            assert verdict is None, (case, verdict)


# -- graphs TensorFlow wrote (tools/gen_shape_graphs.py), and mutations of them -------------------

SHAPES_DATA = Path(__file__).resolve().parents[1] / "data" / "shapes"
TF_WRITTEN = sorted(SHAPES_DATA.glob("*.pbtxt"))


@pytest.mark.parametrize("path", TF_WRITTEN, ids=lambda path: path.name)
def test_tensorflow_written_graph_lints_clean(path):
    findings = lint_text(path.read_text(), name=path.name)
    assert [(f.rule, f.node, f.message) for f in findings if str(f.severity) in ("error", "warning")] == []


def _without_output_shapes(text: str) -> str:
    return re.sub(r'  attr \{\n    key: "_output_shapes"\n    value \{\n(?:      .*\n)*?    \}\n  \}\n', "", text)


CONVOLUTIONAL = SHAPES_DATA / "tf1_convolutional.pbtxt"

# (id, edit of the text, expected findings). Each edited graph is rejected by TensorFlow at import.
MUTATIONS = [
    pytest.param(
        lambda text: text.replace(
            r'tensor_content: "\377\377\377\377\210\001\000\000"', r'tensor_content: "\377\377\377\377\207\001\000\000"'
        ),
        [(ID, "Reshape", 1481)],
        id="reshape-to-391-contradicts-output-shapes",
    ),
    pytest.param(
        lambda text: text.replace(
            "        i: 1\n        i: 2\n        i: 2\n        i: 1\n",
            "        i: 1\n        i: 1\n        i: 2\n        i: 1\n",
            1,
        ),
        [(ID, "Conv2D", 521)],
        id="conv-stride-contradicts-output-shapes",
    ),
    pytest.param(
        lambda text: _without_output_shapes(
            text.replace(
                r'tensor_content: "\377\377\377\377\210\001\000\000"',
                r'tensor_content: "\377\377\377\377\207\001\000\000"',
            )
        ),
        # The weights' gradient is [391, 10] too, which its ApplyGradientDescent cannot apply to [392, 10].
        [(ID, "MatMul", 1263), (ID, "GradientDescent/update_dw/ApplyGradientDescent", 3580)],
        id="reshape-to-391-then-matmul",
    ),
]


@pytest.mark.parametrize("edit, expected", MUTATIONS)
def test_mutation_of_a_tensorflow_written_graph(edit, expected):
    text = CONVOLUTIONAL.read_text()
    edited = edit(text)
    assert edited != text
    assert pinned(lint_text(edited), rule=ID) == expected


SCALAR_OUTPUT = (
    'node {{ name: "t" op: "Placeholder" attr {{ key: "dtype" value {{ type: DT_STRING }} }} }}\n'
    'node {{ name: "v" op: "Placeholder" attr {{ key: "dtype" value {{ type: DT_FLOAT }} }} }}\n'
    'node {{ name: "s" op: "{op}" input: {inputs} attr {{ key: "T" value {{ type: DT_FLOAT }} }} '
    'attr {{ key: "_output_shapes" value {{ list {{ shape {{ {dims} }} }} }} }} }}\n'
)


@pytest.mark.parametrize(
    "op, inputs, dims, bad",
    [
        # TensorFlow 2.21: the output is a scalar even though no input shape is known.
        pytest.param("L2Loss", '"v"', "dim { size: 43 }", True, id="l2loss-stale"),
        pytest.param("L2Loss", '"v"', "dim { size: -1 }", True, id="l2loss-rank-1-unknown-size"),
        pytest.param("L2Loss", '"v"', "", False, id="l2loss-scalar"),
        pytest.param("L2Loss", '"v"', "unknown_rank: true", False, id="l2loss-unknown-rank"),
        pytest.param("ScalarSummary", '"t" input: "v"', "dim { size: 1 }", True, id="scalar-summary-stale"),
        pytest.param("HistogramSummary", '"t" input: "v"', "dim { size: 1 }", True, id="histogram-stale"),
        pytest.param("HistogramSummary", '"t" input: "v"', "", False, id="histogram-scalar"),
    ],
)
def test_scalar_output_ops(op, inputs, dims, bad):
    text = SCALAR_OUTPUT.format(op=op, inputs=inputs, dims=dims)
    assert pinned(lint_text(text), rule=ID) == ([(ID, "s", 3)] if bad else [])
