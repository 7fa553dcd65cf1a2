"""Random small graphs around one op, imported by TensorFlow: its verdict and the op's output shapes (maintainer tool; needs TensorFlow).

Usage: $TF_PYTHON tools/fuzz_shapes_tf.py OUT.json SEED [KINDS] [COUNT]
  KINDS: comma-separated generator names (default: all, see GENS); COUNT per kind (default 200).
Then: python tools/fuzz_shapes_check.py OUT.json
Each graph has a node "op" of the op under test, fed by Placeholders of random partial shapes
and Consts (axes, shapes, permutations), random attrs, sometimes a random `_output_shapes`,
and a random producer version (the legacy rules of versions <= 21). shape-mismatch must never
report on a graph TensorFlow imports, nor infer a shape more precise than TensorFlow's.
"""

import json
import os
import random
import sys

os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import tensorflow as tf
from google.protobuf import text_format
from tensorflow.core.framework import graph_pb2

R = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 0)
DT = {
    "qint8": "DT_QINT8",
    "resource": "DT_RESOURCE",
    "float": "DT_FLOAT",
    "int32": "DT_INT32",
    "int64": "DT_INT64",
    "bool": "DT_BOOL",
    "string": "DT_STRING",
    "variant": "DT_VARIANT",
    "uint8": "DT_UINT8",
}


def shape_pb(shape):
    if shape is None:
        return "shape { unknown_rank: true }"
    return "shape { " + " ".join(f"dim {{ size: {d} }}" for d in shape) + " }"


def rand_dim(allow_zero=True):
    return R.choice([-1, -1, 1, 1, 2, 2, 3, 3, 4, 6] + ([0] if allow_zero else []))


def rand_shape(max_rank=4, unknown=0.12, min_rank=0):
    if R.random() < unknown:
        return None
    return tuple(rand_dim() for _ in range(R.randint(min_rank, max_rank)))


def perturb(shape):
    """A shape likely (not surely) compatible/broadcastable with `shape`."""
    if shape is None or R.random() < 0.1:
        return rand_shape()
    s = list(shape)
    r = R.random()
    if r < 0.3:
        return tuple(s)
    if r < 0.5 and s:
        s = s[R.randint(0, len(s)) :]  # a suffix
    for i in range(len(s)):
        if R.random() < 0.3:
            s[i] = R.choice([-1, 1, s[i], rand_dim()])
    return tuple(s)


class G:
    def __init__(self):
        self.nodes = []
        self.n = 0

    def name(self, p):
        self.n += 1
        return f"{p}{self.n}"

    def add(self, name, op, inputs=(), attrs=None):
        parts = [f'name: "{name}"', f'op: "{op}"'] + [f'input: "{i}"' for i in inputs]
        for k, v in (attrs or {}).items():
            parts.append(f'attr {{ key: "{k}" value {{ {v} }} }}')
        self.nodes.append("node { " + " ".join(parts) + " }")
        return name

    def ph(self, dtype="float", shape=None):
        return self.add(self.name("p"), "Placeholder", (), {"dtype": f"type: {DT[dtype]}", "shape": shape_pb(shape)})

    def const(self, values, dims, dtype="int32"):
        vals = " ".join(f"{'int_val' if dtype == 'int32' else 'int64_val'}: {v}" for v in values)
        dimtxt = " ".join(f"dim {{ size: {d} }}" for d in dims)
        return self.add(
            self.name("c"),
            "Const",
            (),
            {
                "dtype": f"type: {DT[dtype]}",
                "value": f"tensor {{ dtype: {DT[dtype]} tensor_shape {{ {dimtxt} }} {vals} }}",
            },
        )

    def const_str(self, s):
        return self.add(
            self.name("k"),
            "Const",
            (),
            {
                "dtype": "type: DT_STRING",
                "value": f'tensor {{ dtype: DT_STRING tensor_shape {{ }} string_val: "{s}" }}',
            },
        )

    def text(self, producer):
        body = "\n".join(self.nodes)
        if producer is not None:
            body += f"\nversions {{ producer: {producer} }}"
        return body


LAST_DT = ["int32"]


def int_const(g, values, force_vector=None):
    dt = R.choice(["int32", "int64"])
    LAST_DT[0] = dt
    if force_vector is False or (force_vector is None and len(values) == 1 and R.random() < 0.5):
        return g.const(values, [], dt)
    if R.random() < 0.05:
        return g.const(values, [1, len(values)], dt)  # a matrix
    return g.const(values, [len(values)], dt)


def idx_attr():
    return "type: DT_INT64" if LAST_DT[0] == "int64" else "type: DT_INT32"


def tattr(dtype="float"):
    return {"T": f"type: {DT[dtype]}"}


def b(v):
    return f"b: {'true' if v else 'false'}"


def ilist(vals):
    return "list { " + " ".join(f"i: {v}" for v in vals) + " }"


# ---- op generators: each returns (graph, op node name)

UNARY = [
    "Identity",
    "Snapshot",
    "StopGradient",
    "PreventGradient",
    "CheckNumerics",
    "ZerosLike",
    "OnesLike",
    "Cast",
    "Abs",
    "Neg",
    "Sign",
    "Reciprocal",
    "Square",
    "Sqrt",
    "Rsqrt",
    "Exp",
    "Expm1",
    "Log",
    "Log1p",
    "Sin",
    "Cos",
    "Tan",
    "Asin",
    "Acos",
    "Atan",
    "Sinh",
    "Cosh",
    "Asinh",
    "Acosh",
    "Atanh",
    "Tanh",
    "Sigmoid",
    "Floor",
    "Ceil",
    "Round",
    "Rint",
    "Erf",
    "Erfc",
    "Lgamma",
    "Digamma",
    "IsNan",
    "IsInf",
    "IsFinite",
    "LogicalNot",
    "Relu",
    "Relu6",
    "Elu",
    "Selu",
    "Softplus",
    "Softsign",
    "LeakyRelu",
    "Invert",
    "Inv",
    "CheckNumericsV2",
    "Softmax",
    "LogSoftmax",
]
BINARY = [
    "Add",
    "AddV2",
    "Sub",
    "Mul",
    "Div",
    "RealDiv",
    "DivNoNan",
    "FloorDiv",
    "FloorMod",
    "TruncateDiv",
    "TruncateMod",
    "Mod",
    "Maximum",
    "Minimum",
    "Pow",
    "SquaredDifference",
    "Atan2",
    "Xdivy",
    "Xlogy",
    "MulNoNan",
    "Less",
    "LessEqual",
    "Greater",
    "GreaterEqual",
    "LogicalAnd",
    "LogicalOr",
    "BitwiseAnd",
    "BitwiseOr",
    "BitwiseXor",
    "LeftShift",
    "RightShift",
    "Equal",
    "NotEqual",
]
INT_OPS = {"Invert", "BitwiseAnd", "BitwiseOr", "BitwiseXor", "LeftShift", "RightShift", "TruncateDiv", "TruncateMod"}
BOOL_OPS = {"LogicalNot", "LogicalAnd", "LogicalOr"}


def gen_unary(op):
    g = G()
    dt = "int32" if op in INT_OPS else "bool" if op in BOOL_OPS else "float"
    x = g.ph(dt, rand_shape())
    attrs = {} if dt == "bool" else tattr(dt)
    if op == "Cast":
        attrs = {"SrcT": "type: DT_FLOAT", "DstT": "type: DT_INT32"}
    if op.startswith("CheckNumerics"):
        attrs["message"] = 's: "m"'
    return g, g.add("op", op, [x], attrs)


def gen_binary(op):
    g = G()
    dt = "int32" if op in INT_OPS else "bool" if op in BOOL_OPS else "float"
    s = rand_shape()
    x = g.ph(dt, s)
    y = g.ph(dt, perturb(s))
    if R.random() < 0.5:
        x, y = y, x
    attrs = {} if dt == "bool" else tattr(dt)
    if op in ("Equal", "NotEqual") and R.random() < 0.5:
        attrs["incompatible_shape_error"] = b(R.random() < 0.5)
    return g, g.add("op", op, [x, y], attrs)


def gen_addn():
    g = G()
    s = rand_shape()
    ins = [g.ph("float", perturb(s) if R.random() < 0.4 else s) for _ in range(R.randint(1, 4))]
    return g, g.add("op", "AddN", ins, {**tattr(), "N": f"i: {len(ins)}"})


def gen_placeholder():
    g = G()
    return g, g.add(
        "op",
        "Placeholder",
        [],
        {"dtype": "type: DT_FLOAT", "shape": shape_pb(rand_shape())}
        if R.random() < 0.9
        else {"dtype": "type: DT_FLOAT"},
    )


def gen_pwd():
    g = G()
    s = rand_shape()
    x = g.ph("float", s)
    return g, g.add("op", "PlaceholderWithDefault", [x], {"dtype": "type: DT_FLOAT", "shape": shape_pb(perturb(s))})


def gen_ensure():
    g = G()
    s = rand_shape()
    x = g.ph("float", s)
    return g, g.add("op", "EnsureShape", [x], {**tattr(), "shape": shape_pb(perturb(s))})


def gen_variable():
    g = G()
    s = rand_shape()
    op = R.choice(["VariableV2", "Variable", "Assign", "Assign"])
    if op != "Assign":
        return g, g.add("op", op, [], {"dtype": "type: DT_FLOAT", "shape": shape_pb(s)})
    v = g.add("v", R.choice(["VariableV2", "Variable"]), [], {"dtype": "type: DT_FLOAT", "shape": shape_pb(s)})
    x = g.ph("float", perturb(s))
    attrs = tattr()
    if R.random() < 0.5:
        attrs["validate_shape"] = b(R.random() < 0.5)
    return g, g.add("op", "Assign", [v, x], attrs)


def gen_matmul():
    g = G()
    op = R.choice(["MatMul", "MatMul", "BatchMatMul", "BatchMatMulV2", "BatchMatMulV3"])
    if op == "MatMul":
        a = rand_shape(3, min_rank=1) if R.random() < 0.1 else (rand_dim(), rand_dim())
        bb = rand_shape(3, min_rank=1) if R.random() < 0.1 else (rand_dim(), rand_dim())
        attrs = {**tattr(), "transpose_a": b(R.random() < 0.3), "transpose_b": b(R.random() < 0.3)}
    else:
        a = rand_shape(5)
        bb = perturb(a) if a is not None and R.random() < 0.6 else rand_shape(5)
        attrs = {"adj_x": b(R.random() < 0.3), "adj_y": b(R.random() < 0.3)}
        if op == "BatchMatMulV3":
            attrs.update({"Ta": "type: DT_FLOAT", "Tb": "type: DT_FLOAT", "Tout": "type: DT_FLOAT"})
        else:
            attrs.update(tattr())
    return g, g.add("op", op, [g.ph("float", a), g.ph("float", bb)], attrs)


def gen_biasadd():
    g = G()
    op = R.choice(["BiasAdd", "BiasAdd", "BiasAddV1"])
    s = rand_shape(5)
    bias = (s[-1] if s and R.random() < 0.5 else rand_dim(),) if R.random() < 0.9 else rand_shape(2)
    attrs = tattr()
    if op == "BiasAdd" and R.random() < 0.6:
        attrs["data_format"] = 's: "%s"' % R.choice(["NHWC", "NCHW"])
    return g, g.add("op", op, [g.ph("float", s), g.ph("float", bias)], attrs)


def gen_conv():
    g = G()
    img = (
        rand_shape(5, unknown=0.05)
        if R.random() < 0.1
        else tuple(R.choice([-1, 1, 2, 3, 4, 5, 6, 8]) for _ in range(4))
    )
    flt = rand_shape(5, unknown=0.05) if R.random() < 0.1 else tuple(R.choice([-1, 1, 2, 3, 4, 6]) for _ in range(4))
    fmt = R.choice(["NHWC", "NCHW"])
    s = R.choice([1, 2, 3])
    t = R.choice([1, 2])
    strides = [1, s, t, 1] if fmt == "NHWC" else [1, 1, s, t]
    if R.random() < 0.05:
        strides = strides[:3]
    if R.random() < 0.03:
        strides[1 if fmt == "NHWC" else 2] = R.choice([0, -1])
    attrs = {
        **tattr(),
        "strides": ilist(strides),
        "padding": 's: "%s"' % R.choice(["SAME", "VALID", "VALID", "EXPLICIT"]),
    }
    if R.random() < 0.5:
        attrs["data_format"] = f's: "{fmt}"'
    elif fmt == "NCHW":
        attrs["data_format"] = f's: "{fmt}"'
    if R.random() < 0.3:
        d = R.choice([1, 2])
        dil = [1, d, d, 1] if fmt == "NHWC" else [1, 1, d, d]
        if R.random() < 0.05:
            dil = dil[:2]
        attrs["dilations"] = ilist(dil)
    if '"EXPLICIT"' in attrs["padding"] or R.random() < 0.05:
        attrs["explicit_paddings"] = ilist([0, 0, 1, 1, 2, 0, 0, 0] if fmt == "NHWC" else [0, 0, 0, 0, 1, 1, 2, 0])
    return g, g.add("op", "Conv2D", [g.ph("float", img), g.ph("float", flt)], attrs)


def gen_reshape():
    g = G()
    s = rand_shape()
    x = g.ph("float", s)
    LAST_DT[0] = "int32"
    if R.random() < 0.15:
        shp = g.ph("int32", R.choice([(R.randint(0, 4),), (-1,), None, ()]))
    else:
        vals = [
            R.choice([-1, 1, 2, 3, 4, 6, 12, 0, -2]) if R.random() < 0.3 else R.choice([1, 2, 3, 6])
            for _ in range(R.randint(0, 4))
        ]
        if R.random() < 0.3 and vals:
            vals[R.randrange(len(vals))] = -1
        shp = (
            int_const(g, vals or [-1], force_vector=None if vals else False)
            if R.random() < 0.95
            else g.const(vals, [len(vals)], R.choice(["int32", "int64"]))
        )
    return g, g.add("op", "Reshape", [x, shp], {**tattr(), "Tshape": idx_attr()})


def gen_concat():
    g = G()
    op = R.choice(["ConcatV2", "ConcatV2", "Concat"])
    s = rand_shape()
    ins = [g.ph("float", perturb(s) if R.random() < 0.5 else s) for _ in range(R.randint(2, 4))]
    if R.random() < 0.15:
        axis = g.ph("int32", R.choice([(), None, (1,)]))
    else:
        axis = g.const([R.randint(-4, 4)], [] if R.random() < 0.95 else [1], "int32")
    attrs = {**tattr(), "N": f"i: {len(ins)}"}
    if op == "ConcatV2":
        return g, g.add("op", op, ins + [axis], attrs)
    return g, g.add("op", op, [axis] + ins, attrs)


def gen_pack():
    g = G()
    if R.random() < 0.5:
        s = rand_shape()
        ins = [g.ph("float", perturb(s) if R.random() < 0.3 else s) for _ in range(R.randint(1, 4))]
        return g, g.add("op", "Pack", ins, {**tattr(), "N": f"i: {len(ins)}", "axis": f"i: {R.randint(-5, 5)}"})
    s = rand_shape()
    num = R.choice([1, 2, 3, 4, 0])
    return g, g.add(
        "op", "Unpack", [g.ph("float", s)], {**tattr(), "num": f"i: {num}", "axis": f"i: {R.randint(-5, 4)}"}
    )


def gen_shape():
    g = G()
    op = R.choice(["Shape", "ShapeN", "Size", "Rank"])
    if op == "ShapeN":
        ins = [g.ph("float", rand_shape()) for _ in range(R.randint(1, 3))]
        return g, g.add("op", op, ins, {**tattr(), "N": f"i: {len(ins)}"})
    return g, g.add("op", op, [g.ph("float", rand_shape())], tattr())


def gen_expand():
    g = G()
    x = g.ph("float", rand_shape())
    LAST_DT[0] = "int32"
    if R.random() < 0.1:
        d = g.ph("int32", R.choice([(), (1,), None]))
    else:
        n = 1 if R.random() < 0.9 else R.choice([0, 2])
        d = (
            int_const(g, [R.randint(-6, 5) for _ in range(n)] or [0], force_vector=None if n == 1 else True)
            if n
            else g.const([], [0], "int32")
        )
    return g, g.add("op", "ExpandDims", [x, d], {**tattr(), "Tdim": idx_attr()})


def gen_squeeze():
    g = G()
    s = rand_shape()
    if s is not None and R.random() < 0.6:
        s = tuple(R.choice([1, 1, -1, 2]) for _ in s)
    dims = [R.randint(-5, 4) for _ in range(R.choice([0, 0, 1, 1, 2]))]
    attrs = tattr()
    if dims or R.random() < 0.5:
        attrs["squeeze_dims"] = ilist(dims) if dims else "list { }"
    return g, g.add("op", "Squeeze", [g.ph("float", s)], attrs)


def gen_reduction():
    g = G()
    op = R.choice(["Sum", "Mean", "Max", "Min", "Prod", "All", "Any", "EuclideanNorm"])
    dt = "bool" if op in ("All", "Any") else "float"
    x = g.ph(dt, rand_shape())
    LAST_DT[0] = "int32"
    if R.random() < 0.15:
        axes = g.ph("int32", R.choice([(), (2,), None, (1, 2)]))
    else:
        vals = [R.randint(-5, 4) for _ in range(R.choice([0, 1, 1, 2, 3]))]
        if R.random() < 0.1 and vals:
            axes = g.const(vals, [1, len(vals)], "int32")
        else:
            axes = (
                int_const(g, vals, force_vector=True if len(vals) != 1 else None) if vals else g.const([], [0], "int32")
            )
    attrs = {"keep_dims": b(R.random() < 0.5), "Tidx": idx_attr()}
    if dt != "bool":
        attrs.update(tattr())
    return g, g.add("op", op, [x, axes], attrs)


def gen_argmax():
    g = G()
    op = R.choice(["ArgMax", "ArgMin"])
    x = g.ph("float", rand_shape())
    LAST_DT[0] = "int32"
    if R.random() < 0.1:
        d = g.ph("int32", R.choice([(), None]))
    else:
        d = g.const([R.randint(-5, 4)], [] if R.random() < 0.93 else [1], "int32")
    return g, g.add("op", op, [x, d], {**tattr(), "Tidx": "type: DT_INT32"})


def gen_fill():
    g = G()
    if R.random() < 0.15:
        dims = g.ph("int32", R.choice([(2,), (-1,), None, ()]))
    else:
        vals = [R.choice([0, 1, 2, 3, -1]) for _ in range(R.randint(0, 3))]
        dims = g.const(vals, [len(vals)] if R.random() < 0.95 else [], "int32") if vals else g.const([], [0], "int32")
    v = g.ph("float", R.choice([(), (), (1,), None]))
    return g, g.add("op", "Fill", [dims, v], {**tattr(), "index_type": "type: DT_INT32"})


def gen_select():
    g = G()
    op = R.choice(["Select", "SelectV2"])
    s = rand_shape()
    t = g.ph("float", s)
    e = g.ph("float", perturb(s) if R.random() < 0.4 else s)
    r = R.random()
    cs = rand_shape() if r < 0.3 else () if r < 0.5 else ((s[0] if s else rand_dim(),) if r < 0.75 else perturb(s))
    c = g.ph("bool", cs)
    return g, g.add("op", op, [c, t, e], tattr())


def gen_transpose():
    g = G()
    s = rand_shape()
    x = g.ph("float", s)
    LAST_DT[0] = "int32"
    n = len(s) if s is not None and R.random() < 0.85 else R.randint(0, 4)
    perm = list(range(n))
    R.shuffle(perm)
    if R.random() < 0.1 and perm:
        perm[R.randrange(n)] = R.choice([n, n + 1, -1])
    if R.random() < 0.1:
        p = g.ph("int32", R.choice([(n,), None, (-1,)]))
    else:
        LAST_DT[0] = R.choice(["int32", "int64"])
        p = g.const(perm, [n], LAST_DT[0]) if n else g.const([], [0], LAST_DT[0])
    return g, g.add("op", "Transpose", [x, p], {**tattr(), "Tperm": idx_attr()})


def gen_parse():
    g = G()
    op = R.choice(["ParseExample", "ParseExampleV2", "ParseSingleExample"])
    ns = R.randint(0, 2)
    nd = R.randint(0, 2)

    def dshape():
        r = R.random()
        if r < 0.05:
            return None
        return tuple(
            R.choice([1, 2, 3, -1] if i == 0 else [1, 2, 3] + ([-1] if R.random() < 0.05 else []))
            for i in range(R.randint(0, 2))
        )

    dshapes = [dshape() for _ in range(nd + (1 if R.random() < 0.05 else 0))]
    stypes = ["DT_STRING"] * (ns + (1 if R.random() < 0.05 else 0))
    tdense = ["DT_FLOAT"] * nd
    ser = g.ph("string", R.choice([(), (2,), (-1,), None, (2, 2), (1,)]))
    defaults = [g.ph("float", R.choice([(), (1,), None])) for _ in range(nd)]
    types_list = "list { " + " ".join(f"type: {t}" for t in stypes) + " }"
    dense_list = "list { " + " ".join(f"type: {t}" for t in tdense) + " }"
    shapes_list = "list { " + " ".join(shape_pb(s) for s in dshapes) + " }"
    if op == "ParseExample":
        names = g.ph("string", R.choice([(0,), (2,), (), None]))
        skeys = [g.const_str("s%d" % i) for i in range(ns)]
        dkeys = [g.const_str("d%d" % i) for i in range(nd)]
        attrs = {
            "Nsparse": f"i: {ns}",
            "Ndense": f"i: {nd}",
            "sparse_types": types_list,
            "Tdense": dense_list,
            "dense_shapes": shapes_list,
        }
        return g, g.add("op", op, [ser, names] + skeys + dkeys + defaults, attrs)
    if op == "ParseExampleV2":
        names = g.ph("string", R.choice([(0,), (2,), (), None, (1, 1)]))
        keys = [g.ph("string", (n,)) for n in (ns, nd, 0)]
        attrs = {
            "num_sparse": f"i: {ns}",
            "sparse_types": types_list,
            "Tdense": dense_list,
            "dense_shapes": shapes_list,
            "ragged_value_types": "list { }",
            "ragged_split_types": "list { }",
        }
        if R.random() < 0.3:
            attrs["ragged_value_types"] = "list { type: DT_FLOAT }"
            attrs["ragged_split_types"] = "list { type: DT_INT64 }" if R.random() < 0.8 else "list { }"
        return g, g.add("op", op, [ser, names] + keys + defaults, attrs)
    sk = "list { " + " ".join(f's: "s{i}"' for i in range(ns + (1 if R.random() < 0.05 else 0))) + " }"
    dk = "list { " + " ".join(f's: "d{i}"' for i in range(nd)) + " }"
    attrs = {
        "num_sparse": f"i: {ns}",
        "sparse_keys": sk,
        "dense_keys": dk,
        "sparse_types": types_list,
        "Tdense": dense_list,
        "dense_shapes": shapes_list,
    }
    return g, g.add("op", op, [ser] + defaults, attrs)


def gen_control():
    g = G()
    op = R.choice(["Switch", "RefSwitch", "Merge", "Enter", "Exit", "NextIteration", "LoopCond", "Merge"])
    if op in ("Switch",):
        x = g.ph("float", rand_shape())
        p = g.ph("bool", R.choice([(), (), (1,), None, (2,)]))
        return g, g.add("op", op, [x, p], tattr())
    if op == "RefSwitch":
        v = g.add("v", "VariableV2", [], {"dtype": "type: DT_FLOAT", "shape": shape_pb(rand_shape())})
        p = g.ph("bool", R.choice([(), (), (1,), None]))
        return g, g.add("op", op, [v, p], tattr())
    if op == "Merge":
        s = rand_shape()
        ins = [g.ph("float", perturb(s) if R.random() < 0.5 else s) for _ in range(R.randint(1, 3))]
        return g, g.add("op", op, ins, {**tattr(), "N": f"i: {len(ins)}"})
    if op == "Enter":
        x = g.ph("float", rand_shape())
        attrs = {**tattr(), "frame_name": 's: "f"'}
        if R.random() < 0.6:
            attrs["is_constant"] = b(R.random() < 0.5)
        return g, g.add("op", op, [x], attrs)
    if op == "LoopCond":
        return g, g.add("op", op, [g.ph("bool", R.choice([(), (), (1,), None, (2, 1)]))])
    return g, g.add("op", op, [g.ph("float", rand_shape())], tattr())


def gen_loop():
    """A small while loop whose body nodes carry random _output_shapes."""
    g = G()
    s = rand_shape()
    x = g.ph("float", s)
    e = g.add("enter", "Enter", [x], {**tattr(), "frame_name": 's: "f"'})
    m = g.add("merge", "Merge", [e, "next"], {**tattr(), "N": "i: 2"})
    c = g.ph("bool", ())
    ce = g.add("center", "Enter", [c], {"T": "type: DT_BOOL", "frame_name": 's: "f"', "is_constant": "b: true"})
    lc = g.add("cond", "LoopCond", [ce])
    sw = g.add("switch", "Switch", [m, lc], tattr())
    body = g.add("op", R.choice(["Identity", "Relu", "Neg"]), [sw + ":1"], tattr())
    g.add("next", "NextIteration", [body], tattr())
    g.add("exit", "Exit", [sw], tattr())
    return g, "op"


def gen_resource():
    g = G()
    s = rand_shape()
    dt = R.choice(["float", "float", "int32"])
    v = g.add("v", "VarHandleOp", [], {"dtype": f"type: {DT[dt]}", "shape": shape_pb(s)})
    src = v
    if R.random() < 0.15:
        src = g.add("vi", "Identity", [v], {"T": "type: DT_RESOURCE"})
    op = R.choice(["ReadVariableOp", "AssignVariableOp", "AssignAddVariableOp", "VarIsInitializedOp", "VarHandleOp"])
    want = dt if R.random() < 0.8 else R.choice(["float", "int32"])
    if op == "VarHandleOp":
        return g, g.add("op", op, [], {"dtype": f"type: {DT[dt]}", "shape": shape_pb(s)})
    if op == "VarIsInitializedOp":
        return g, g.add("op", op, [src])
    if op == "ReadVariableOp":
        attrs = {"dtype": f"type: {DT[want]}"}
        if R.random() < 0.1:
            attrs["_shape"] = shape_pb(rand_shape())
        return g, g.add("op", op, [src], attrs)
    val = g.ph(want, perturb(s))
    attrs = {"dtype": f"type: {DT[want]}"}
    if op == "AssignVariableOp" and R.random() < 0.3:
        attrs["validate_shape"] = b(R.random() < 0.5)
    return g, g.add("op", op, [src, val], attrs)


def gen_misc():
    g = G()
    op = R.choice(
        [
            "AssignAdd",
            "RandomUniform",
            "RandomStandardNormal",
            "TruncatedNormal",
            "BroadcastGradientArgs",
            "Unique",
            "Range",
            "IsVariableInitialized",
        ]
    )
    if op == "AssignAdd":
        s = rand_shape()
        v = g.add("v", "VariableV2", [], {"dtype": "type: DT_FLOAT", "shape": shape_pb(s)})
        return g, g.add("op", op, [v, g.ph("float", perturb(s))], tattr())
    if op == "IsVariableInitialized":
        v = g.add("v", "VariableV2", [], {"dtype": "type: DT_FLOAT", "shape": shape_pb(rand_shape())})
        return g, g.add("op", op, [v], {"dtype": "type: DT_FLOAT"})
    if op in ("RandomUniform", "RandomStandardNormal", "TruncatedNormal"):
        LAST_DT[0] = "int32"
        if R.random() < 0.2:
            shp = g.ph("int32", R.choice([(2,), (-1,), None, ()]))
        else:
            vals = [R.choice([1, 2, 3, 0, -1, -2]) for _ in range(R.randint(0, 3))]
            shp = int_const(g, vals, force_vector=True) if vals else g.const([], [0], "int32")
        return g, g.add("op", op, [shp], {"dtype": "type: DT_FLOAT", "T": idx_attr()})
    if op == "BroadcastGradientArgs":
        return g, g.add(
            "op",
            op,
            [g.ph("int32", R.choice([(2,), (-1,), None, (), (1, 2)])), g.ph("int32", R.choice([(2,), (3,), None, ()]))],
            {"T": "type: DT_INT32"},
        )
    if op == "Unique":
        return g, g.add("op", op, [g.ph("float", rand_shape(2))], {**tattr(), "out_idx": "type: DT_INT32"})
    ins = []
    for _ in range(3):
        if R.random() < 0.2:
            ins.append(g.ph("int32", R.choice([(), (1,), None])))
        else:
            ins.append(g.const([R.randint(-5, 10)], [] if R.random() < 0.95 else [1], "int32"))
    return g, g.add("op", "Range", ins, {"Tidx": "type: DT_INT32"})


def gen_tile():
    g = G()
    s = rand_shape()
    x = g.ph("float", s)
    LAST_DT[0] = "int32"
    if R.random() < 0.15:
        m = g.ph("int32", R.choice([(2,), (-1,), None, ()]))
    else:
        n = len(s) if s is not None and R.random() < 0.85 else R.randint(0, 4)
        vals = [R.choice([1, 1, 2, 3, 0, -1]) for _ in range(n)]
        m = int_const(g, vals, force_vector=True) if vals else g.const([], [0], "int32")
    return g, g.add("op", "Tile", [x, m], {**tattr(), "Tmultiples": idx_attr()})


def gen_split():
    g = G()
    s = rand_shape()
    x = g.ph("float", s)
    if R.random() < 0.1:
        d = g.ph("int32", R.choice([(), None]))
    else:
        d = g.const([R.randint(-5, 4)], [] if R.random() < 0.93 else [1], "int32")
    return g, g.add("op", "Split", [d, x], {**tattr(), "num_split": f"i: {R.choice([1, 2, 3])}"})


def gen_gather():
    g = G()
    op = R.choice(["Gather", "GatherV2", "GatherV2"])
    p = g.ph("float", rand_shape())
    i = g.ph("int32", rand_shape(3))
    if op == "Gather":
        return g, g.add("op", op, [p, i], {"Tparams": "type: DT_FLOAT", "Tindices": "type: DT_INT32"})
    if R.random() < 0.1:
        a = g.ph("int32", R.choice([(), None, (1,)]))
    else:
        a = g.const([R.randint(-4, 4)], [] if R.random() < 0.95 else [1], "int32")
    attrs = {"Tparams": "type: DT_FLOAT", "Tindices": "type: DT_INT32", "Taxis": "type: DT_INT32"}
    if R.random() < 0.3:
        attrs["batch_dims"] = f"i: {R.randint(-2, 2)}"
    return g, g.add("op", op, [p, i, a], attrs)


def gen_slice():
    g = G()
    s = rand_shape()
    x = g.ph("float", s)
    n = len(s) if s is not None and R.random() < 0.85 else R.randint(0, 3)

    def vec(kind):
        if R.random() < 0.15:
            return g.ph("int32", R.choice([(n,), (-1,), None]))
        vals = [
            R.choice([0, 0, 1, 2, -1] if kind == "b" else [1, 2, -1, -1, 0, -2, 3])
            for _ in range(n + (1 if R.random() < 0.05 else 0))
        ]
        return g.const(vals, [len(vals)], "int32") if vals else g.const([], [0], "int32")

    return g, g.add("op", "Slice", [x, vec("b"), vec("s")], {**tattr(), "Index": "type: DT_INT32"})


def gen_pool():
    g = G()
    op = R.choice(["MaxPool", "AvgPool"])
    img = (
        rand_shape(5, unknown=0.05)
        if R.random() < 0.1
        else tuple(R.choice([-1, 1, 2, 3, 4, 5, 6, 8]) for _ in range(4))
    )
    fmt = R.choice(["NHWC", "NCHW"])
    k = (
        [1, R.choice([1, 2, 3]), R.choice([1, 2, 3]), R.choice([1, 1, 2])]
        if fmt == "NHWC"
        else [1, R.choice([1, 1, 2]), R.choice([1, 2, 3]), R.choice([1, 2, 3])]
    )
    st = (
        [1, R.choice([1, 2, 3]), R.choice([1, 2]), R.choice([1, 1, 2])]
        if fmt == "NHWC"
        else [1, R.choice([1, 1, 2]), R.choice([1, 2, 3]), R.choice([1, 2])]
    )
    if R.random() < 0.05:
        k = k[:3]
    if R.random() < 0.03:
        st[2] = 0
    pad = R.choice(["SAME", "VALID", "VALID"] + (["EXPLICIT"] if op == "MaxPool" else []))
    attrs = {**tattr(), "ksize": ilist(k), "strides": ilist(st), "padding": f's: "{pad}"', "data_format": f's: "{fmt}"'}
    if pad == "EXPLICIT" or (op == "MaxPool" and R.random() < 0.05):
        attrs["explicit_paddings"] = ilist([0, 0, 1, 1, 2, 0, 0, 0] if fmt == "NHWC" else [0, 0, 0, 0, 1, 1, 2, 0])
    return g, g.add("op", op, [g.ph("float", img)], attrs)


def gen_fbn():
    g = G()
    op = R.choice(["FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3"])
    fmt = R.choice(["NHWC", "NCHW"] + (["NDHWC", "NCDHW"] if op != "FusedBatchNorm" else []))
    rank = 5 if "D" in fmt else 4
    x = tuple(rand_dim() for _ in range(rank)) if R.random() < 0.9 else rand_shape(5)
    ch = x[-1 if fmt.endswith("C") else 1] if x is not None and len(x) == rank else 3
    vecs = [g.ph("float", R.choice([(ch,), (ch,), (-1,), (ch + 1,), None, ()])) for _ in range(4)]
    attrs = {**tattr(), "data_format": f's: "{fmt}"', "is_training": b(R.random() < 0.5)}
    if op != "FusedBatchNorm":
        attrs["U"] = "type: DT_FLOAT"
    if op != "FusedBatchNorm" and R.random() < 0.3:
        attrs["exponential_avg_factor"] = f"f: {R.choice([1.0, 0.5])}"
    return g, g.add("op", op, [g.ph("float", x)] + vecs, attrs)


# ---- generators for the shape functions of issue 17 (array, nn, image, training, ... ops)


def shape_arg(g, n, choices=(1, 2, 3, 0, -1, -2), unknown=0.15):
    """A Const int vector of `n` random values (sometimes a Placeholder instead)."""
    if R.random() < unknown:
        return g.ph("int32", R.choice([(n,), (-1,), None]))
    vals = [R.choice(choices) for _ in range(n)]
    return int_const(g, vals, force_vector=True) if vals else g.const([], [0], "int32")


def scalar_arg(g, lo, hi, unknown=0.1, dtype="int32"):
    if R.random() < unknown:
        return g.ph(dtype, R.choice([(), None, (1,)]))
    return g.const([R.randint(lo, hi)], [] if R.random() < 0.95 else [1], dtype)


def gen_strided_slice():
    g = G()
    s = rand_shape(4)
    x = g.ph("float", s)
    n = R.randint(0, 4) if s is None or R.random() < 0.3 else max(len(s) + R.choice([-1, 0, 0, 0, 1]), 0)
    dt = R.choice(["int32", "int64"])

    def vec(vals, unknown):
        if R.random() < unknown:
            return g.ph(dt, R.choice([(n,), (-1,), None, (n + 1,)]))
        if R.random() < 0.03:
            return g.const(vals, [1, len(vals)] if vals else [0], dt)
        return g.const(vals, [len(vals)], dt)

    begin = vec([R.choice([0, 0, 1, 2, -1, -3, 5]) for _ in range(n)], 0.15)
    end = vec([R.choice([0, 1, 2, 3, -1, 10, -5]) for _ in range(n)], 0.15)
    strides = vec([R.choice([1, 1, 1, 2, -1, 3, 0]) if R.random() < 0.9 else 1 for _ in range(n)], 0.08)
    attrs = {**tattr(), "Index": f"type: {DT[dt]}"}
    for mask in ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask"):
        if R.random() < 0.4:
            bits = R.randint(0, (1 << max(n, 1)) - 1)
            if mask == "ellipsis_mask" and R.random() < 0.7:
                bits = 1 << R.randint(0, max(n - 1, 0)) if R.random() < 0.5 else 0
            attrs[mask] = f"i: {bits}"
    return g, g.add("op", "StridedSlice", [x, begin, end, strides], attrs)


def gen_pad():
    g = G()
    op = R.choice(["Pad", "PadV2", "MirrorPad"])
    s = rand_shape(4)
    x = g.ph("float", s)
    n = len(s) if s is not None and R.random() < 0.85 else R.randint(0, 3)
    if R.random() < 0.15:
        pads = g.ph("int32", R.choice([(n, 2), (-1, 2), (n, 3), None, (n,)]))
    else:
        vals = [R.choice([0, 0, 1, 2, -1]) for _ in range(2 * n)]
        pads = g.const(vals, [n, 2], "int32") if R.random() < 0.95 else g.const(vals, [2 * n], "int32")
    ins = [x, pads]
    attrs = {**tattr(), "Tpaddings": "type: DT_INT32"}
    if op == "PadV2":
        ins.append(g.ph("float", R.choice([(), (), (1,)])))
    if op == "MirrorPad":
        attrs["mode"] = f's: "{R.choice(["REFLECT", "SYMMETRIC"])}"'
    return g, g.add("op", op, ins, attrs)


def gen_one_hot():
    g = G()
    ind = g.ph("int32", rand_shape(3))
    depth = scalar_arg(g, -2, 5)
    on = g.ph("float", R.choice([(), (), (1,)]))
    off = g.ph("float", R.choice([(), (), (2,)]))
    attrs = {"T": "type: DT_FLOAT", "TI": "type: DT_INT32", "axis": f"i: {R.choice([-1, -1, 0, 1, 2, 3, -2])}"}
    return g, g.add("op", "OneHot", [ind, depth, on, off], attrs)


def gen_split_v():
    g = G()
    s = rand_shape(3)
    x = g.ph("float", s)
    k = R.choice([1, 2, 3])
    if R.random() < 0.15:
        sizes = g.ph("int32", R.choice([(k,), None]))
    else:
        vals = [R.choice([0, 1, 2, 3, -1, 4]) for _ in range(k + (1 if R.random() < 0.05 else 0))]
        sizes = g.const(vals, [len(vals)], "int32")
    axis = scalar_arg(g, -4, 3)
    attrs = {**tattr(), "Tlen": "type: DT_INT32", "num_split": f"i: {k}"}
    return g, g.add("op", "SplitV", [x, sizes, axis], attrs)


def gen_reverse():
    g = G()
    op = R.choice(["ReverseV2", "Roll", "ReverseSequence"])
    s = rand_shape(4)
    x = g.ph("float", s)
    if op == "ReverseV2":
        axes = shape_arg(g, R.randint(0, 3), (0, 1, 2, -1, 3, -4))
        return g, g.add("op", op, [x, axes], {**tattr(), "Tidx": idx_attr()})
    if op == "Roll":
        shift = g.ph("int32", R.choice([(), (1,), (2,), None, (1, 1)]))
        axis = g.ph("int32", R.choice([(), (1,), (2,), None]))
        return g, g.add("op", op, [x, shift, axis], {**tattr(), "Tshift": "type: DT_INT32", "Taxis": "type: DT_INT32"})
    lens = g.ph("int64", R.choice([(2,), (3,), (-1,), None, ()]))
    attrs = {
        **tattr(),
        "Tlen": "type: DT_INT64",
        "seq_dim": f"i: {R.randint(0, 3)}",
        "batch_dim": f"i: {R.randint(0, 3)}",
    }
    return g, g.add("op", op, [x, lens], attrs)


def gen_space_depth():
    g = G()
    op = R.choice(["SpaceToDepth", "DepthToSpace"])
    x = g.ph("float", tuple(R.choice([-1, 1, 2, 3, 4, 6, 8]) for _ in range(4)) if R.random() < 0.9 else rand_shape(5))
    attrs = {**tattr(), "block_size": f"i: {R.choice([2, 2, 3])}", "data_format": f's: "{R.choice(["NHWC", "NCHW"])}"'}
    return g, g.add("op", op, [x], attrs)


def gen_space_batch():
    g = G()
    op = R.choice(["SpaceToBatchND", "BatchToSpaceND"])
    s = tuple(R.choice([-1, 1, 2, 3, 4, 6, 8]) for _ in range(R.randint(2, 4))) if R.random() < 0.9 else rand_shape()
    x = g.ph("float", s)
    m = R.choice([1, 1, 2, 2, 3])
    if R.random() < 0.1:
        block = g.ph("int32", R.choice([(m,), (-1,), None]))
    else:
        block = g.const([R.choice([1, 2, 2, 3, 0]) for _ in range(m)], [m], "int32")
    if R.random() < 0.1:
        pads = g.ph("int32", R.choice([(m, 2), (-1, 2), None, (m, 3)]))
    else:
        pads = g.const([R.choice([0, 0, 1, 2, -1]) for _ in range(2 * m)], [m, 2], "int32")
    attrs = {
        **tattr(),
        "Tblock_shape": "type: DT_INT32",
        ("Tpaddings" if op == "SpaceToBatchND" else "Tcrops"): "type: DT_INT32",
    }
    return g, g.add("op", op, [x, block, pads], attrs)


def gen_scatter():
    g = G()
    op = R.choice(["ScatterNd", "TensorScatterUpdate", "TensorScatterAdd", "GatherNd"])
    idx = g.ph(
        "int32", tuple(R.choice([-1, 1, 2, 3]) for _ in range(R.randint(1, 3))) if R.random() < 0.85 else rand_shape(3)
    )
    if op == "GatherNd":
        return g, g.add(
            "op", op, [g.ph("float", rand_shape()), idx], {"Tparams": "type: DT_FLOAT", "Tindices": "type: DT_INT32"}
        )
    upd = g.ph("float", rand_shape(3))
    attrs = {**tattr(), "Tindices": "type: DT_INT32"}
    if op == "ScatterNd":
        return g, g.add("op", op, [idx, upd, shape_arg(g, R.randint(1, 3), (1, 2, 3, 0))], attrs)
    return g, g.add("op", op, [g.ph("float", rand_shape()), idx, upd], attrs)


def gen_conv_more():
    g = G()
    op = R.choice(["DepthwiseConv2dNative", "Conv3D", "MaxPool3D", "AvgPool3D"])
    rank = 4 if op == "DepthwiseConv2dNative" else 5
    x = tuple(R.choice([-1, 1, 2, 3, 4, 5, 8]) for _ in range(rank)) if R.random() < 0.92 else rand_shape(6)
    fmt = R.choice(["NHWC", "NCHW"] if rank == 4 else ["NDHWC", "NCDHW"])
    st = [1] + [R.choice([1, 1, 2, 3]) for _ in range(rank - 2)] + [1]
    if fmt in ("NCHW", "NCDHW"):
        st = [1, 1] + st[1:-1]
    if R.random() < 0.05:
        st = st[:-1]
    pad = R.choice(["SAME", "VALID"])
    attrs = {**tattr(), "strides": ilist(st), "padding": f's: "{pad}"', "data_format": f's: "{fmt}"'}
    if op.endswith("Pool3D"):
        k = [1] + [R.choice([1, 2, 3]) for _ in range(3)] + [1]
        if fmt == "NCDHW":
            k = [1, 1] + k[1:-1]
        attrs["ksize"] = ilist(k)
        return g, g.add("op", op, [g.ph("float", x)], attrs)
    f = tuple(R.choice([1, 2, 3, 4, -1]) for _ in range(rank)) if R.random() < 0.9 else rand_shape(6)
    if R.random() < 0.2:
        d = [1] + [R.choice([1, 2]) for _ in range(rank - 2)] + [1]
        attrs["dilations"] = ilist(d if R.random() < 0.95 else d[:-1])
    return g, g.add("op", op, [g.ph("float", x), g.ph("float", f)], attrs)


def gen_backprop():
    g = G()
    op = R.choice(["Conv2DBackpropInput", "Conv2DBackpropFilter", "BiasAddGrad", "MaxPoolGrad", "AvgPoolGrad"])
    fmt = R.choice(["NHWC", "NCHW"])
    if op == "BiasAddGrad":
        return g, g.add("op", op, [g.ph("float", rand_shape(5))], {**tattr(), "data_format": f's: "{fmt}"'})
    attrs = {**tattr(), "strides": ilist([1, 1, 1, 1]), "padding": 's: "SAME"', "data_format": f's: "{fmt}"'}
    if op in ("MaxPoolGrad", "AvgPoolGrad"):
        attrs["ksize"] = ilist([1, 2, 2, 1] if fmt == "NHWC" else [1, 1, 2, 2])
        if op == "MaxPoolGrad":
            return g, g.add(
                "op",
                op,
                [g.ph("float", rand_shape(5)), g.ph("float", rand_shape(5)), g.ph("float", rand_shape(5))],
                attrs,
            )
        return g, g.add("op", op, [shape_arg(g, R.choice([4, 4, 3]), (1, 2, 3)), g.ph("float", rand_shape(5))], attrs)
    sizes = shape_arg(g, R.choice([4, 4, 4, 2, 3]), (1, 2, 3, 4))
    a = g.ph("float", rand_shape(5))
    b_ = g.ph("float", rand_shape(5))
    if op == "Conv2DBackpropInput":
        return g, g.add("op", op, [sizes, a, b_], attrs)
    return g, g.add("op", op, [a, sizes, b_], attrs)


def gen_backprop_input():
    """Conv2DBackpropInput with mostly consistent shapes (NHWC or NCHW): out_backprop's depth against the
    filter's output depth, input_sizes' batch against out_backprop's, 4 or 2 sizes."""
    g = G()
    fmt = R.choice(["NHWC", "NCHW"])
    batch, depth, in_depth = R.choice([1, 2, 3]), R.choice([1, 2, 4]), R.choice([1, 3])
    rows, cols = R.choice([2, 3, 4]), R.choice([2, 3, 4])

    def maybe(dim):
        return -1 if R.random() < 0.2 else (dim if R.random() < 0.85 else dim + R.choice([1, 2]))

    if fmt == "NHWC":
        out = (maybe(batch), rows, cols, maybe(depth))
        sizes = [maybe(batch), rows, cols, in_depth]
    else:
        out = (maybe(batch), maybe(depth), rows, cols)
        sizes = [maybe(batch), in_depth, rows, cols]
    if R.random() < 0.3:
        sizes = [rows, cols]
    filters = (R.choice([1, 2]), R.choice([1, 2]), maybe(in_depth), maybe(depth))
    attrs = {**tattr(), "strides": ilist([1, 1, 1, 1]), "padding": 's: "SAME"', "data_format": f's: "{fmt}"'}
    inputs = [g.const(sizes, [len(sizes)], "int32"), g.ph("float", filters), g.ph("float", out)]
    return g, g.add("op", "Conv2DBackpropInput", inputs, attrs)


def gen_losses():
    g = G()
    op = R.choice(["SoftmaxCrossEntropyWithLogits", "SparseSoftmaxCrossEntropyWithLogits", "TopKV2", "InTopKV2"])
    if op == "SoftmaxCrossEntropyWithLogits":
        s = rand_shape(3)
        return g, g.add("op", op, [g.ph("float", s), g.ph("float", perturb(s))], tattr())
    if op == "SparseSoftmaxCrossEntropyWithLogits":
        return g, g.add(
            "op",
            op,
            [g.ph("float", rand_shape(3)), g.ph("int32", rand_shape(2))],
            {**tattr(), "Tlabels": "type: DT_INT32"},
        )
    if op == "TopKV2":
        return g, g.add("op", op, [g.ph("float", rand_shape(3)), scalar_arg(g, -1, 5)], tattr())
    return g, g.add(
        "op",
        op,
        [g.ph("float", rand_shape(3)), g.ph("int32", rand_shape(2)), scalar_arg(g, 0, 3)],
        {"T": "type: DT_INT32"},
    )


def gen_image():
    g = G()
    op = R.choice(
        [
            "ResizeBilinear",
            "ResizeNearestNeighbor",
            "ResizeBicubic",
            "CropAndResize",
            "NonMaxSuppressionV3",
            "NonMaxSuppressionV2",
        ]
    )
    if op.startswith("NonMax"):
        ins = [
            g.ph("float", R.choice([(3, 4), (-1, 4), (3, 5), (2, 4), None, (3,)])),
            g.ph("float", R.choice([(3,), (-1,), (2,), ()])),
        ]
        ins.append(scalar_arg(g, 0, 5))
        ins.append(g.ph("float", R.choice([(), (), (1,)])))
        if op == "NonMaxSuppressionV3":
            ins.append(g.ph("float", R.choice([(), (), (1,)])))
        return g, g.add(
            "op", op, ins, {**tattr(), "T_threshold": "type: DT_FLOAT"} if op == "NonMaxSuppressionV3" else {}
        )
    img = g.ph("float", rand_shape(5))
    size = shape_arg(g, R.choice([2, 2, 2, 3, 1]), (1, 2, 4, 0))
    if op == "CropAndResize":
        boxes = g.ph("float", R.choice([(3, 4), (-1, 4), (3, 5), None, (3,)]))
        ind = g.ph("int32", R.choice([(3,), (-1,), (2,), ()]))
        return g, g.add("op", op, [img, boxes, ind, size], tattr())
    return g, g.add("op", op, [img, size], tattr())


def gen_apply():
    g = G()
    op = R.choice(
        [
            "ApplyGradientDescent",
            "ApplyMomentum",
            "ApplyAdam",
            "ResourceApplyGradientDescent",
            "ResourceApplyKerasMomentum",
            "ResourceApplyMomentum",
            "ResourceApplyAdam",
            "ApplyRMSProp",
            "ApplyFtrl",
        ]
    )
    s = rand_shape(3)
    spec = {
        "GradientDescent": "rsg",
        "Momentum": "rrsgs",
        "KerasMomentum": "rrsgs",
        "Adam": "rrrssssssg",
        "RMSProp": "rrrssssg",
        "Ftrl": "rrrgssss",
    }
    resource = op.startswith("Resource")
    ins = []
    for kind in spec[op[len("ResourceApply") :] if resource else op[len("Apply") :]]:
        if kind == "s":
            ins.append(g.ph("float", R.choice([(), (), (), (1,), None])))
        elif kind == "r" and resource:
            ins.append(
                g.add(g.name("v"), "VarHandleOp", [], {"dtype": "type: DT_FLOAT", "shape": shape_pb(perturb(s))})
            )
        elif kind == "r":
            ins.append(g.add(g.name("v"), "VariableV2", [], {"dtype": "type: DT_FLOAT", "shape": shape_pb(perturb(s))}))
        else:
            ins.append(g.ph("float", perturb(s)))
    return g, g.add("op", op, ins, tattr())


def gen_math_more():
    g = G()
    op = R.choice(
        [
            "Cumsum",
            "UnsortedSegmentSum",
            "DynamicStitch",
            "MatrixSolve",
            "Multinomial",
            "ReluGrad",
            "TanhGrad",
            "QuantizeAndDequantizeV2",
            "Where",
            "StringJoin",
        ]
    )
    if op == "Cumsum":
        return g, g.add(
            "op", op, [g.ph("float", rand_shape()), scalar_arg(g, -2, 2)], {**tattr(), "Tidx": "type: DT_INT32"}
        )
    if op == "UnsortedSegmentSum":
        s = rand_shape(3)
        near = perturb(s) if s is not None else None
        ids = g.ph("int32", near[: R.randint(0, 2)] if near is not None and R.random() < 0.7 else rand_shape(2))
        return g, g.add(
            "op",
            op,
            [g.ph("float", s), ids, scalar_arg(g, -1, 4)],
            {**tattr(), "Tindices": "type: DT_INT32", "Tnumsegments": "type: DT_INT32"},
        )
    if op == "DynamicStitch":
        n = R.randint(1, 3)
        idx = [
            g.const([R.randint(0, 5) for _ in range(2)], [2], "int32")
            if R.random() < 0.7
            else g.ph("int32", rand_shape(2))
            for _ in range(n)
        ]
        data = [g.ph("float", R.choice([(2, 3), (2, -1), (3, 3), (2,), None, (-1, 3)])) for _ in range(n)]
        return g, g.add("op", op, idx + data, {**tattr(), "N": f"i: {n}"})
    if op == "MatrixSolve":
        return g, g.add("op", op, [g.ph("float", rand_shape(4)), g.ph("float", rand_shape(4))], tattr())
    if op == "Multinomial":
        return g, g.add("op", op, [g.ph("float", rand_shape(3)), scalar_arg(g, -1, 4)], tattr())
    if op in ("ReluGrad", "TanhGrad"):
        s = rand_shape()
        return g, g.add("op", op, [g.ph("float", s), g.ph("float", perturb(s))], tattr())
    if op == "QuantizeAndDequantizeV2":
        s = rand_shape()
        mm = R.choice([(), (), (3,), (2,), None])
        attrs = {**tattr(), "axis": f"i: {R.choice([-1, -1, 0, 1, 2, -2])}"}
        return g, g.add("op", op, [g.ph("float", s), g.ph("float", mm), g.ph("float", R.choice([mm, (), (3,)]))], attrs)
    if op == "Where":
        return g, g.add("op", op, [g.ph("bool", rand_shape())], {"T": "type: DT_BOOL"})
    ins = [g.ph("string", R.choice([(), (), (2,), (3,), None, (2, 1)])) for _ in range(R.randint(1, 3))]
    return g, g.add("op", op, ins, {"N": f"i: {len(ins)}"})


def const_chain(g, values, dtype="int32", vector=True):
    """A tensor of `values` computed by a small constant subgraph (what TensorFlow's refiner folds)."""
    kind = R.choice(["identity", "identity2", "pack", "concat", "cast", "shape", "slice_shape", "arith"])
    if kind.startswith("identity"):
        src = g.const(values, [len(values)] if vector else [], dtype)
        for _ in range(1 if kind == "identity" else 2):
            src = g.add(
                g.name("i"),
                R.choice(["Identity", "Identity", "Snapshot", "StopGradient"]),
                [src],
                {"T": f"type: {DT[dtype]}"},
            )
        return src
    if kind == "pack" and vector and values:
        parts = [g.const([v], [], dtype) for v in values]
        return g.add(g.name("pk"), "Pack", parts, {"T": f"type: {DT[dtype]}", "N": f"i: {len(parts)}", "axis": "i: 0"})
    if kind == "concat" and vector and len(values) >= 2:
        cut = R.randint(1, len(values) - 1)
        a = g.const(values[:cut], [cut], dtype)
        b_ = g.const(values[cut:], [len(values) - cut], dtype)
        return g.add(
            g.name("cc"),
            "ConcatV2",
            [a, b_, g.const([0], [], "int32")],
            {"T": f"type: {DT[dtype]}", "N": "i: 2", "Tidx": "type: DT_INT32"},
        )
    if kind == "cast":
        src = g.const(values, [len(values)] if vector else [], "int64" if dtype == "int32" else "int32")
        return g.add(
            g.name("ca"),
            "Cast",
            [src],
            {"SrcT": f"type: {DT['int64' if dtype == 'int32' else 'int32']}", "DstT": f"type: {DT[dtype]}"},
        )
    if kind == "shape" and vector and all(v >= 0 for v in values):
        ph = g.ph("float", tuple(values) if R.random() < 0.85 else tuple(-1 if R.random() < 0.3 else v for v in values))
        return g.add(g.name("sh"), "Shape", [ph], {"T": "type: DT_FLOAT", "out_type": f"type: {DT[dtype]}"})
    if kind == "slice_shape" and vector and values and all(v >= 0 for v in values):
        # Pack(StridedSlice(Shape(x), [i], [i+1], [1], shrink) for each i): the dynamic-reshape pattern
        ph = g.ph("float", tuple(values) if R.random() < 0.85 else tuple(-1 if R.random() < 0.3 else v for v in values))
        sh = g.add(g.name("sh"), "Shape", [ph], {"T": "type: DT_FLOAT", "out_type": f"type: {DT[dtype]}"})
        parts = []
        for i in range(len(values)):
            parts.append(
                g.add(
                    g.name("ss"),
                    "StridedSlice",
                    [sh, g.const([i], [1], "int32"), g.const([i + 1], [1], "int32"), g.const([1], [1], "int32")],
                    {"T": f"type: {DT[dtype]}", "Index": "type: DT_INT32", "shrink_axis_mask": "i: 1"},
                )
            )
        return g.add(g.name("pk"), "Pack", parts, {"T": f"type: {DT[dtype]}", "N": f"i: {len(parts)}", "axis": "i: 0"})
    if kind == "arith" and not vector:
        v = values[0]
        a = R.randint(-3, 3)
        return g.add(
            g.name("ar"), "AddV2", [g.const([v - a], [], dtype), g.const([a], [], dtype)], {"T": f"type: {DT[dtype]}"}
        )
    return g.const(values, [len(values)] if vector else [], dtype)


def gen_const_chain():
    """Shape arguments computed by small constant subgraphs, into ops that range-check them."""
    g = G()
    op = R.choice(
        [
            "Reshape",
            "ExpandDims",
            "Sum",
            "Mean",
            "Split",
            "Range",
            "Fill",
            "Tile",
            "Transpose",
            "StridedSlice",
            "SplitV",
            "Pad",
        ]
    )
    s = rand_shape(4)
    if op == "Reshape":
        x = g.ph("float", s)
        vals = [R.choice([1, 2, 3, 4, 6, -1]) for _ in range(R.randint(1, 3))]
        return g, g.add("op", op, [x, const_chain(g, vals)], {**tattr(), "Tshape": "type: DT_INT32"})
    if op == "ExpandDims":
        return g, g.add(
            "op",
            op,
            [g.ph("float", s), const_chain(g, [R.randint(-6, 5)], vector=False)],
            {**tattr(), "Tdim": "type: DT_INT32"},
        )
    if op in ("Sum", "Mean"):
        axes = [R.randint(-5, 4) for _ in range(R.randint(1, 2))]
        return g, g.add(
            "op",
            op,
            [g.ph("float", s), const_chain(g, axes)],
            {**tattr(), "Tidx": "type: DT_INT32", "keep_dims": b(R.random() < 0.5)},
        )
    if op == "Split":
        return g, g.add(
            "op",
            op,
            [const_chain(g, [R.randint(-5, 4)], vector=False), g.ph("float", s)],
            {**tattr(), "num_split": f"i: {R.choice([1, 2, 3])}"},
        )
    if op == "Range":
        ins = [const_chain(g, [R.randint(-5, 10)], vector=False) for _ in range(3)]
        return g, g.add("op", op, ins, {"Tidx": "type: DT_INT32"})
    if op == "Fill":
        return g, g.add(
            "op",
            op,
            [const_chain(g, [R.choice([0, 1, 2, -1]) for _ in range(R.randint(1, 3))]), g.ph("float", ())],
            {**tattr(), "index_type": "type: DT_INT32"},
        )
    if op == "Tile":
        n = len(s) if s is not None else 2
        return g, g.add(
            "op",
            op,
            [g.ph("float", s), const_chain(g, [R.choice([1, 2, 0]) for _ in range(max(n, 1))])],
            {**tattr(), "Tmultiples": "type: DT_INT32"},
        )
    if op == "Transpose":
        n = len(s) if s is not None else 2
        perm = list(range(n))
        R.shuffle(perm)
        if perm and R.random() < 0.3:
            perm[0] = n + 1
        return g, g.add(
            "op",
            op,
            [g.ph("float", s), const_chain(g, perm) if perm else g.const([], [0], "int32")],
            {**tattr(), "Tperm": "type: DT_INT32"},
        )
    if op == "StridedSlice":
        n = len(s) if s is not None else 1
        n = max(n, 1)
        ins = [
            g.ph("float", s),
            const_chain(g, [R.choice([0, 1, -1, 5]) for _ in range(n)]),
            const_chain(g, [R.choice([1, 2, 0, 9]) for _ in range(n)]),
            const_chain(g, [1] * n),
        ]
        return g, g.add(
            "op", op, ins, {**tattr(), "Index": "type: DT_INT32", "shrink_axis_mask": f"i: {R.choice([0, 1, 2])}"}
        )
    if op == "SplitV":
        return g, g.add(
            "op",
            op,
            [
                g.ph("float", s),
                const_chain(g, [R.choice([1, 2, -1]) for _ in range(2)]),
                const_chain(g, [R.randint(-2, 2)], vector=False),
            ],
            {**tattr(), "Tlen": "type: DT_INT32", "num_split": "i: 2"},
        )
    n = len(s) if s is not None else 2
    pads = g.const([R.choice([0, 1, -1]) for _ in range(2 * n)], [n, 2], "int32")
    pads = g.add(g.name("i"), "Identity", [pads], {"T": "type: DT_INT32"})
    return g, g.add("op", "Pad", [g.ph("float", s), pads], {**tattr(), "Tpaddings": "type: DT_INT32"})


EINSUMS = [
    "ab,bc->ac",
    "ij,jk->ik",
    "bij,bjk->bik",
    "...ij,...jk->...ik",
    "ab->ba",
    "ii->i",
    "ab->",
    "a,a->",
    "abc,cd->abd",
    "...a,a->...",
    "ab,ab->a",
    "bhqd,bhkd->bhqk",
    "bqk,bkd->bqd",
    "ab,cd->abcd",
    "a...,a...->a...",
    "ij->j",
    "ab,bc->ad",
]


def gen_einsum():
    g = G()
    eq = R.choice(EINSUMS)
    terms = eq.split("->")[0].split(",")
    dims = {}
    ins = []
    for term in terms:
        shape = []
        for label in term.replace("...", "E"):
            if label == "E":
                shape.extend(R.choice([1, 2, 3, -1]) for _ in range(R.randint(0, 2)))
            else:
                dims.setdefault(label, R.choice([1, 2, 3, 4, -1]))
                shape.append(dims[label] if R.random() < 0.85 else R.choice([1, 2, 5, -1]))
        if R.random() < 0.1:
            shape = shape[:-1]
        ins.append(g.ph("float", tuple(shape) if R.random() < 0.92 else None))
    return g, g.add("op", "Einsum", ins, {**tattr(), "N": f"i: {len(ins)}", "equation": f's: "{eq}"'})


def gen_io():
    """Checkpoint, table, summary and string ops: mostly rank checks of scalars and vectors."""
    g = G()
    op = R.choice(
        [
            "SaveV2",
            "RestoreV2",
            "SaveSlices",
            "RestoreSlice",
            "ShardedFilename",
            "MergeV2Checkpoints",
            "InitializeTableV2",
            "LookupTableFindV2",
            "SparseSegmentSum",
            "ConcatOffset",
            "ScalarSummary",
            "HistogramSummary",
            "Bucketize",
        ]
    )
    sv = lambda: g.ph("string", R.choice([(), (), (1,), None]))  # noqa: E731
    vec = lambda n: g.ph("string", R.choice([(n,), (n,), (-1,), (n + 1,), (), None]))  # noqa: E731
    if op in ("SaveV2", "SaveSlices"):
        n = R.randint(1, 3)
        data = [g.ph("float", rand_shape()) for _ in range(n)]
        return g, g.add(
            "op",
            op,
            [sv(), vec(n), vec(n)] + data,
            {"dtypes" if op == "SaveV2" else "T": "list { " + " type: DT_FLOAT" * n + " }"},
        )
    if op == "RestoreV2":
        n = R.randint(1, 3)
        return g, g.add("op", op, [sv(), vec(n), vec(n)], {"dtypes": "list { " + " type: DT_FLOAT" * n + " }"})
    if op == "RestoreSlice":
        return g, g.add("op", op, [sv(), sv(), sv()], {"dt": "type: DT_FLOAT"})
    if op == "ShardedFilename":
        return g, g.add("op", op, [sv(), g.ph("int32", R.choice([(), (1,)])), g.ph("int32", R.choice([(), (), (2,)]))])
    if op == "MergeV2Checkpoints":
        return g, g.add("op", op, [vec(2), sv()])
    if op in ("InitializeTableV2", "LookupTableFindV2"):
        table = g.add("t", "HashTableV2", [], {"key_dtype": "type: DT_STRING", "value_dtype": "type: DT_INT64"})
        if op == "InitializeTableV2":
            return g, g.add(
                "op",
                op,
                [table, vec(3), g.ph("int64", R.choice([(3,), (2,), (-1,), (), None, (3, 1)]))],
                {"Tkey": "type: DT_STRING", "Tval": "type: DT_INT64"},
            )
        return g, g.add(
            "op",
            op,
            [table, g.ph("string", rand_shape(2)), g.ph("int64", R.choice([(), (1,)]))],
            {"Tin": "type: DT_STRING", "Tout": "type: DT_INT64"},
        )
    if op == "SparseSegmentSum":
        ins = [
            g.ph("float", rand_shape(3)),
            g.ph("int32", R.choice([(3,), (-1,), (2,), (), None, (3, 1)])),
            g.ph("int32", R.choice([(3,), (-1,), (2,), None])),
        ]
        return g, g.add("op", op, ins, {**tattr(), "Tidx": "type: DT_INT32", "Tsegmentids": "type: DT_INT32"})
    if op == "ConcatOffset":
        shapes = [g.ph("int32", R.choice([(2,), (3,), (-1,), None])) for _ in range(2)]
        return g, g.add("op", op, [g.ph("int32", R.choice([(), (), (1,)]))] + shapes, {"N": "i: 2"})
    if op in ("ScalarSummary", "HistogramSummary"):
        return g, g.add("op", op, [g.ph("string", R.choice([(), (2,), None])), g.ph("float", rand_shape())], tattr())
    return g, g.add("op", op, [g.ph("float", rand_shape())], {**tattr(), "boundaries": "list { f: 1.0 f: 2.0 }"})


def gen_iterator():
    g = G()
    n = R.randint(1, 3)
    it = g.ph("resource", R.choice([(), (), (), (1,), None]))
    shapes = "list { " + " ".join(shape_pb(rand_shape(3)) for _ in range(n + (1 if R.random() < 0.1 else 0))) + " }"
    types = "list { " + " type: DT_FLOAT" * n + " }"
    return g, g.add("op", "IteratorGetNext", [it], {"output_types": types, "output_shapes": shapes})


def gen_fake_quant():
    g = G()
    op = R.choice(["FakeQuantWithMinMaxArgs", "FakeQuantWithMinMaxVars", "FakeQuantWithMinMaxVarsPerChannel"])
    x = g.ph("float", rand_shape(3))
    if op == "FakeQuantWithMinMaxArgs":
        return g, g.add("op", op, [x])
    mm = [g.ph("float", R.choice([(), (), (3,), (2,), (-1,), None, (1, 1)])) for _ in range(2)]
    return g, g.add("op", op, [x] + mm)


def gen_quantize():
    g = G()
    op = R.choice(["QuantizeV2", "Dequantize"])
    axis = R.choice([-1, -1, 0, 1, 2, 4, -2])
    x = g.ph("float" if op == "QuantizeV2" else "qint8", rand_shape(3))
    mm = [g.ph("float", R.choice([(), (), (3,), (2,), None])) for _ in range(2)]
    attrs = {"T": "type: DT_QINT8", "axis": f"i: {axis}"}
    if op == "Dequantize":
        attrs["dtype"] = "type: DT_FLOAT"
    return g, g.add("op", op, [x] + mm, attrs)


APPLY_SPECS = {
    "Adagrad": "rrsg",
    "AdagradV2": "rrssg",
    "RMSProp": "rrrssssg",
    "Ftrl": "rrrgssss",
    "FtrlV2": "rrrgsssss",
    "Adadelta": "rrrsssg",
    "AdaMax": "rrrsssssg",
    "ProximalGradientDescent": "rsssg",
}


def gen_rest():
    """The ops whose shape function is shared with a fuzzed one: optimizers, gradients, variants."""
    g = G()
    op = R.choice(["apply", "apply", "grad", "fbng", "segment", "ssgrad", "topk", "scatter3", "unsorted"])
    s = rand_shape(3)
    if op == "apply":
        name = R.choice(sorted(APPLY_SPECS))
        resource = R.random() < 0.5
        ins = []
        for kind in APPLY_SPECS[name]:
            if kind == "s":
                ins.append(g.ph("float", R.choice([(), (), (), (1,), None])))
            elif kind == "r" and resource:
                ins.append(
                    g.add(g.name("v"), "VarHandleOp", [], {"dtype": "type: DT_FLOAT", "shape": shape_pb(perturb(s))})
                )
            elif kind == "r":
                ins.append(
                    g.add(g.name("v"), "VariableV2", [], {"dtype": "type: DT_FLOAT", "shape": shape_pb(perturb(s))})
                )
            else:
                ins.append(g.ph("float", perturb(s)))
        return g, g.add("op", ("ResourceApply" if resource else "Apply") + name, ins, tattr())
    if op == "grad":
        name = R.choice(
            [
                "Relu6Grad",
                "EluGrad",
                "SeluGrad",
                "SoftplusGrad",
                "SoftsignGrad",
                "LeakyReluGrad",
                "SigmoidGrad",
                "RsqrtGrad",
                "SqrtGrad",
                "ReciprocalGrad",
                "InvGrad",
            ]
        )
        return g, g.add("op", name, [g.ph("float", s), g.ph("float", perturb(s))], tattr())
    if op == "fbng":
        name = R.choice(["FusedBatchNormGrad", "FusedBatchNormGradV2"])
        fmt = R.choice(["NHWC", "NCHW"])
        x = tuple(R.choice([-1, 1, 2, 3]) for _ in range(4)) if R.random() < 0.9 else rand_shape(5)
        ch = x[-1 if fmt == "NHWC" else 1] if x is not None and len(x) == 4 else 3
        vecs = [g.ph("float", R.choice([(ch,), (ch,), (-1,), (ch + 1,), None, ()])) for _ in range(3)]
        attrs = {**tattr(), "data_format": f's: "{fmt}"', "is_training": b(R.random() < 0.5)}
        if name == "FusedBatchNormGradV2":
            attrs["U"] = "type: DT_FLOAT"
        return g, g.add("op", name, [g.ph("float", perturb(x) if x else x), g.ph("float", x)] + vecs, attrs)
    if op == "segment":
        name = R.choice(["SparseSegmentMean", "SparseSegmentSqrtN", "SparseSegmentSum"])
        ins = [
            g.ph("float", rand_shape(3)),
            g.ph("int32", R.choice([(3,), (-1,), (2,), (), None])),
            g.ph("int32", R.choice([(3,), (-1,), (2,), None])),
        ]
        return g, g.add("op", name, ins, {**tattr(), "Tidx": "type: DT_INT32", "Tsegmentids": "type: DT_INT32"})
    if op == "ssgrad":
        n = R.randint(1, 3)
        ins = [
            shape_arg(g, n, (1, 2, 3)),
            g.const([0] * n, [n], "int32"),
            g.const([1] * n, [n], "int32"),
            g.const([1] * n, [n], "int32"),
            g.ph("float", rand_shape(3)),
        ]
        return g, g.add("op", "StridedSliceGrad", ins, {**tattr(), "Index": "type: DT_INT32"})
    if op == "topk":
        return g, g.add(
            "op", "TopK", [g.ph("float", rand_shape(3))], {**tattr(), "k": f"i: {R.choice([0, 1, 2, 5, -1])}"}
        )
    if op == "scatter3":
        name = R.choice(["TensorScatterSub", "TensorScatterMax", "TensorScatterMin"])
        idx = g.ph("int32", tuple(R.choice([-1, 1, 2]) for _ in range(R.randint(1, 3))))
        return g, g.add(
            "op",
            name,
            [g.ph("float", rand_shape()), idx, g.ph("float", rand_shape(3))],
            {**tattr(), "Tindices": "type: DT_INT32"},
        )
    name = R.choice(["UnsortedSegmentMax", "UnsortedSegmentMin", "UnsortedSegmentProd"])
    near = perturb(s) if s is not None else None
    ids = g.ph("int32", near[: R.randint(0, 2)] if near is not None else rand_shape(2))
    return g, g.add(
        "op",
        name,
        [g.ph("float", s), ids, scalar_arg(g, -1, 4)],
        {**tattr(), "Tindices": "type: DT_INT32", "Tnumsegments": "type: DT_INT32"},
    )


def elem_shape_arg(g, base):
    """A list's element_shape argument: a shape vector near `base`, the scalar -1, another scalar, or unknown."""
    r = R.random()
    if r < 0.15:
        return g.const([-1], [], "int32")
    if r < 0.2:
        return g.const([R.choice([0, 2, -2])], [], "int32")
    if r < 0.3:
        return g.ph("int32", R.choice([(-1,), None, (), (2,)]))
    if base is None:
        base = rand_shape(3)
        if base is None:
            return g.const([-1], [], "int32")
    vals = [d if R.random() < 0.8 else R.choice([-1, 1, 2, 3]) for d in base]
    if R.random() < 0.08:
        vals = vals + [2]
    if R.random() < 0.04:
        vals = vals[:1] + [-3] + vals[1:]
    return g.const(vals, [len(vals)], "int32")


LIST_OPS = [
    "TensorListGetItem",
    "TensorListSetItem",
    "TensorListStack",
    "TensorListPushBack",
    "TensorListPopBack",
    "TensorListElementShape",
    "TensorListLength",
    "TensorListResize",
    "TensorListConcatV2",
    "TensorListGather",
    "TensorListScatterIntoExistingList",
    "TensorListFromTensor",
    "TensorListReserve",
    "EmptyTensorList",
    "TensorListScatterV2",
    "TensorListSplit",
    "TensorListConcat",
    "TensorListPushBackBatch",
    "TensorListScatter",
]


def gen_list():
    """TensorList ops on a list made by Reserve / EmptyTensorList / FromTensor (sometimes through an Identity)."""
    g = G()
    op = R.choice(LIST_OPS)
    elem = rand_shape(3)
    list_dtype = "float" if R.random() < 0.9 else "int32"
    dtype = "float" if R.random() < 0.9 else "int32"
    lattr = {"element_dtype": f"type: {DT[list_dtype]}"}
    attr = {"element_dtype": f"type: {DT[dtype]}"}
    maker = R.choice(["TensorListReserve", "EmptyTensorList", "TensorListFromTensor", "none"])
    if op in (
        "TensorListFromTensor",
        "TensorListReserve",
        "EmptyTensorList",
        "TensorListScatterV2",
        "TensorListSplit",
        "TensorListScatter",
        "TensorListPushBackBatch",
    ):
        maker = "none"
    if maker == "TensorListReserve":
        handle = g.add(
            g.name("l"),
            maker,
            [elem_shape_arg(g, elem), g.const([3], [], "int32")],
            {**lattr, "shape_type": "type: DT_INT32"},
        )
    elif maker == "EmptyTensorList":
        handle = g.add(
            g.name("l"),
            maker,
            [elem_shape_arg(g, elem), g.const([5], [], "int32")],
            {**lattr, "shape_type": "type: DT_INT32"},
        )
    elif maker == "TensorListFromTensor":
        t = g.ph(list_dtype, None if elem is None else (R.choice([2, -1]),) + elem)
        handle = g.add(g.name("l"), maker, [t, elem_shape_arg(g, elem)], {**lattr, "shape_type": "type: DT_INT32"})
    else:
        handle = g.ph("variant", ())
    if maker != "none" and R.random() < 0.2:
        handle = g.add(g.name("i"), "Identity", [handle], {"T": "type: DT_VARIANT"})
    item = lambda: g.ph(dtype, perturb(elem))  # noqa: E731  (perturb may return None: unknown rank)
    index = lambda: g.ph("int32", R.choice([(), (), (1,)]))  # noqa: E731
    st = {"shape_type": "type: DT_INT32"}
    if op == "TensorListGetItem":
        return g, g.add("op", op, [handle, index(), elem_shape_arg(g, perturb(elem))], attr)
    if op == "TensorListSetItem":
        return g, g.add("op", op, [handle, index(), item()], attr)
    if op == "TensorListStack":
        return g, g.add(
            "op",
            op,
            [handle, elem_shape_arg(g, perturb(elem))],
            {**attr, "num_elements": f"i: {R.choice([-1, -1, 2, 3])}"},
        )
    if op == "TensorListPushBack":
        return g, g.add("op", op, [handle, item()], attr)
    if op == "TensorListPopBack":
        return g, g.add("op", op, [handle, elem_shape_arg(g, elem)], attr)
    if op == "TensorListElementShape":
        return g, g.add("op", op, [handle], st)
    if op == "TensorListLength":
        return g, g.add("op", op, [handle])
    if op == "TensorListResize":
        return g, g.add("op", op, [handle, index()])
    if op == "TensorListConcat":
        return g, g.add("op", op, [handle], {**attr, "element_shape": shape_pb(perturb(elem))})
    if op == "TensorListPushBackBatch":
        handles = g.ph("variant", R.choice([(2,), (-1,), (), None]))
        return g, g.add("op", op, [handles, g.ph(dtype, R.choice([(2, 3), (3,), (), None, (-1, 2)]))], attr)
    if op == "TensorListConcatV2":
        return g, g.add(
            "op", op, [handle, elem_shape_arg(g, perturb(elem)), g.const([0], [0], "int64")], {**attr, **st}
        )
    if op == "TensorListGather":
        return g, g.add("op", op, [handle, g.ph("int32", rand_shape(2)), elem_shape_arg(g, perturb(elem))], attr)
    if op == "TensorListScatterIntoExistingList":
        t = g.ph(dtype, rand_shape(4))
        return g, g.add("op", op, [handle, t, g.ph("int32", R.choice([(2,), (-1,), (), None, (1, 2)]))], attr)
    t = g.ph(dtype, None if elem is None or R.random() < 0.1 else (R.choice([2, -1]),) + (perturb(elem) or elem))
    if op == "TensorListFromTensor":
        return g, g.add("op", op, [t, elem_shape_arg(g, elem)], {**attr, **st})
    if op == "TensorListScatter":
        return g, g.add("op", op, [t, g.ph("int32", (-1,)), elem_shape_arg(g, elem)], {**attr, **st})
    if op in ("TensorListReserve", "EmptyTensorList"):
        return g, g.add("op", op, [elem_shape_arg(g, elem), g.ph("int32", R.choice([(), (1,)]))], {**attr, **st})
    if op == "TensorListScatterV2":
        return g, g.add(
            "op", op, [t, g.ph("int32", (-1,)), elem_shape_arg(g, elem), g.const([3], [], "int32")], {**attr, **st}
        )
    return g, g.add(
        "op", op, [t, elem_shape_arg(g, elem), g.ph("int64", R.choice([(2,), (-1,), (), None]))], {**attr, **st}
    )


def gen_list_chain():
    """A list made, set, pushed and read in a chain: handle data flowing through several ops."""
    g = G()
    elem = tuple(R.choice([1, 2, 3, -1]) for _ in range(R.randint(0, 3)))
    attr = {"element_dtype": "type: DT_FLOAT"}
    handle = g.add(
        g.name("l"),
        "TensorListReserve",
        [elem_shape_arg(g, elem), g.const([3], [], "int32")],
        {**attr, "shape_type": "type: DT_INT32"},
    )
    for _ in range(R.randint(1, 3)):
        step = R.choice(["TensorListSetItem", "TensorListPushBack", "TensorListResize", "Identity"])
        if step == "TensorListSetItem":
            handle = g.add(g.name("s"), step, [handle, g.const([0], [], "int32"), g.ph("float", perturb(elem))], attr)
        elif step == "TensorListPushBack":
            handle = g.add(g.name("s"), step, [handle, g.ph("float", perturb(elem))], attr)
        elif step == "TensorListResize":
            handle = g.add(g.name("s"), step, [handle, g.const([4], [], "int32")])
        else:
            handle = g.add(g.name("s"), step, [handle], {"T": "type: DT_VARIANT"})
    op = R.choice(["TensorListGetItem", "TensorListStack", "TensorListSetItem", "TensorListGather"])
    if op == "TensorListGetItem":
        return g, g.add("op", op, [handle, g.const([0], [], "int32"), elem_shape_arg(g, perturb(elem))], attr)
    if op == "TensorListStack":
        return g, g.add("op", op, [handle, elem_shape_arg(g, perturb(elem))], {**attr, "num_elements": "i: -1"})
    if op == "TensorListGather":
        return g, g.add("op", op, [handle, g.ph("int32", (2,)), elem_shape_arg(g, perturb(elem))], attr)
    return g, g.add("op", op, [handle, g.const([1], [], "int32"), g.ph("float", perturb(elem))], attr)


def diag_k(g):
    r = R.random()
    if r < 0.1:
        return g.ph("int32", R.choice([(), (2,), None]))
    lo = R.choice([-2, -1, 0, 0, 0, 1, 2])
    if r < 0.5:
        return g.const([lo], [], "int32")
    if r < 0.55:
        return g.const([lo, lo + 1, lo + 2], [3], "int32")
    return g.const([lo, lo + R.choice([0, 1, 1, 2, -1])], [2], "int32")


def gen_matrix_diag():
    g = G()
    op = R.choice(
        [
            "MatrixDiagV3",
            "MatrixDiagV2",
            "MatrixDiag",
            "MatrixDiagPartV3",
            "MatrixDiagPartV2",
            "MatrixDiagPart",
            "MatrixSetDiagV3",
            "MatrixSetDiagV2",
            "MatrixSetDiag",
            "Diag",
            "DiagPart",
            "MatrixBandPart",
        ]
    )
    s = rand_shape(4)
    x = g.ph("float", s)
    pad = lambda: g.ph("float", R.choice([(), (), (), (1,)]))  # noqa: E731
    if op in ("MatrixDiag", "MatrixDiagPart", "Diag", "DiagPart"):
        return g, g.add("op", op, [x], tattr())
    if op == "MatrixBandPart":
        return g, g.add(
            "op",
            op,
            [x, g.const([1], [], "int64"), g.const([-1], [], "int64")],
            {**tattr(), "Tindex": "type: DT_INT64"},
        )
    attrs = tattr()
    if op.endswith("V3"):
        attrs["align"] = f's: "{R.choice(["RIGHT_LEFT", "LEFT_RIGHT"])}"'
    if op.startswith("MatrixDiagPart"):
        return g, g.add("op", op, [x, diag_k(g), pad()], attrs)
    if op.startswith("MatrixSetDiag"):
        d = g.ph("float", perturb(s[:-1] if s else s) if R.random() < 0.6 else rand_shape(4))
        if op == "MatrixSetDiag":
            return g, g.add("op", op, [x, d], attrs)
        return g, g.add("op", op, [x, d, diag_k(g)], attrs)
    rows = scalar_arg(g, -1, 5, 0.1)
    cols = scalar_arg(g, -1, 5, 0.1)
    return g, g.add("op", op, [x, diag_k(g), rows, cols, pad()], attrs)


def sparse_parts(g, n=None, rank=None):
    """(indices, values, dense_shape) placeholders of a sparse tensor, mostly consistent."""
    n = R.choice([3, -1, 2]) if n is None else n
    rank = R.choice([1, 2, 3, -1]) if rank is None else rank
    ind = g.ph("int64", R.choice([(n, rank), (n, rank), (n, rank), (-1, rank), (n,), None, (n + 1, rank)]))
    val = g.ph("float", R.choice([(n,), (n,), (n,), (-1,), (), None, (n + 1,)]))
    shp = g.ph("int64", R.choice([(rank,), (rank,), (rank,), (-1,), None, (), (0,)]))
    return ind, val, shp


def gen_sparse():
    g = G()
    op = R.choice(
        [
            "SparseTensorDenseMatMul",
            "SparseToDense",
            "SparseAdd",
            "SparseConcat",
            "SparseReorder",
            "SparseReshape",
            "SparseFillEmptyRows",
            "SparseReduceSum",
            "SparseReduceMax",
            "SparseDenseCwiseMul",
            "SparseSoftmax",
            "SparseSlice",
            "SparseTensorDenseAdd",
            "SerializeSparse",
            "SerializeManySparse",
            "SparseAddGrad",
            "SparseSegmentSumWithNumSegments",
            "SparseSegmentMeanWithNumSegments",
        ]
    )
    if op == "SparseTensorDenseMatMul":
        ind, val, _ = sparse_parts(g, rank=2)
        if R.random() < 0.7:
            n = R.choice([2, 2, 2, 3, 1])
            a_shape = g.const([R.choice([1, 2, 3, 4, -1]) for _ in range(n)], [n], "int64")
        else:
            a_shape = g.ph("int64", R.choice([(2,), None, (3,)]))
        attrs = {
            **tattr(),
            "Tindices": "type: DT_INT64",
            "adjoint_a": b(R.random() < 0.3),
            "adjoint_b": b(R.random() < 0.3),
        }
        return g, g.add("op", op, [ind, val, a_shape, g.ph("float", rand_shape(3))], attrs)
    if op == "SparseToDense":
        ind = g.ph("int32", R.choice([(3, 2), (3,), (), None]))
        n = R.randint(0, 3)
        if R.random() < 0.8:
            out = g.const([R.choice([1, 2, 3, 0, -1, -2]) for _ in range(n)], [n], "int32")
        else:
            out = g.ph("int32", R.choice([(n,), (-1,), None]))
        attrs = {**tattr(), "Tindices": "type: DT_INT32"}
        return g, g.add("op", op, [ind, out, g.ph("float", R.choice([(3,), ()])), g.ph("float", ())], attrs)
    if op == "SparseAdd":
        a = sparse_parts(g)
        b2 = sparse_parts(g)
        return g, g.add("op", op, [*a, *b2, g.ph("float", ())], {**tattr(), "Treal": "type: DT_FLOAT"})
    if op == "SparseAddGrad":
        return g, g.add(
            "op",
            op,
            [g.ph("float", (-1,)), g.ph("int64", rand_shape(3)), g.ph("int64", rand_shape(3)), g.ph("int64", (-1, 2))],
            tattr(),
        )
    if op == "SparseConcat":
        n = R.randint(2, 3)
        parts = [sparse_parts(g, rank=R.choice([2, 2, 3])) for _ in range(n)]
        ins = [p[0] for p in parts] + [p[1] for p in parts] + [p[2] for p in parts]
        return g, g.add("op", op, ins, {**tattr(), "N": f"i: {n}", "concat_dim": f"i: {R.choice([0, 1, -1])}"})
    if op in ("SparseReorder", "SparseSoftmax", "SerializeSparse", "SerializeManySparse"):
        return g, g.add("op", op, list(sparse_parts(g)), tattr())
    if op == "SparseReshape":
        ind, _, shp = sparse_parts(g)
        return g, g.add("op", op, [ind, shp, g.ph("int64", R.choice([(2,), (-1,), (), None, (1, 2)]))])
    if op == "SparseFillEmptyRows":
        ind, val, _ = sparse_parts(g)
        n = R.choice([0, 1, 2, 3])
        shp = (
            g.const([R.choice([-1, 2, 4, 0]) for _ in range(n)], [n], "int64")
            if R.random() < 0.6
            else g.ph("int64", R.choice([(2,), (-1,), None, (0,)]))
        )
        return g, g.add("op", op, [ind, val, shp, g.ph("float", R.choice([(), (), (1,)]))], tattr())
    if op in ("SparseReduceSum", "SparseReduceMax"):
        ind, val, _ = sparse_parts(g)
        n = R.choice([0, 1, 2, 3])
        shp = (
            g.const([R.choice([-1, 2, 4, 1]) for _ in range(n)], [n], "int64")
            if R.random() < 0.8
            else g.ph("int64", (-1,))
        )
        k = R.choice([0, 1, 1, 2])
        axes = (
            g.const([R.choice([0, 1, -1, 2, -3, 3]) for _ in range(k)], [k] if R.random() < 0.9 else [], "int32")
            if k == 1 or R.random() < 0.9
            else g.const([0], [], "int32")
        )
        return g, g.add(
            "op", op, [ind, val, shp, axes], {**tattr(), "keep_dims": f"b: {'true' if R.random() < 0.5 else 'false'}"}
        )
    if op == "SparseDenseCwiseMul":
        ind, val, shp = sparse_parts(g)
        return g, g.add("op", op, [ind, val, shp, g.ph("float", rand_shape(3))], tattr())
    if op == "SparseSlice":
        ind, val, shp = sparse_parts(g)
        return g, g.add("op", op, [ind, val, shp, g.ph("int64", (-1,)), g.ph("int64", (-1,))], tattr())
    if op == "SparseTensorDenseAdd":
        ind, val, shp = sparse_parts(g)
        return g, g.add(
            "op", op, [ind, val, shp, g.ph("float", rand_shape(3))], {**tattr(), "Tindices": "type: DT_INT64"}
        )
    data = g.ph("float", rand_shape(3))
    idx = g.ph("int32", R.choice([(3,), (-1,), (2,), (), None]))
    seg = g.ph("int32", R.choice([(3,), (-1,), (2,), None]))
    num = scalar_arg(g, -1, 5, 0.15)
    return g, g.add(
        "op",
        op,
        [data, idx, seg, num],
        {**tattr(), "Tidx": "type: DT_INT32", "Tnumsegments": "type: DT_INT32", "Tsegmentids": "type: DT_INT32"},
    )


def gen_tensor_array():
    g = G()
    op = R.choice(
        [
            "StackV2",
            "StackPushV2",
            "StackPopV2",
            "TensorArrayV3",
            "TensorArrayWriteV3",
            "TensorArrayReadV3",
            "TensorArrayGatherV3",
            "TensorArrayScatterV3",
            "TensorArraySizeV3",
            "TensorArrayConcatV3",
            "TensorArraySplitV3",
            "TensorArrayGradV3",
            "TensorArrayCloseV3",
        ]
    )
    elem = rand_shape(3)
    if op == "StackV2":
        return g, g.add("op", op, [g.ph("int32", R.choice([(), (1,)]))], {"elem_type": "type: DT_FLOAT"})
    if op in ("StackPushV2", "StackPopV2"):
        stack = g.add(g.name("s"), "StackV2", [g.const([-1], [], "int32")], {"elem_type": "type: DT_FLOAT"})
        if op == "StackPopV2":
            return g, g.add("op", op, [stack], {"elem_type": "type: DT_FLOAT"})
        return g, g.add("op", op, [stack, g.ph("float", elem)], tattr())
    ta_attrs = {
        "dtype": "type: DT_FLOAT",
        "element_shape": shape_pb(elem),
        "identical_element_shapes": f"b: {'true' if R.random() < 0.6 else 'false'}",
    }
    if op == "TensorArrayV3":
        return g, g.add("op", op, [g.ph("int32", R.choice([(), (), (1,)]))], ta_attrs)
    if R.random() < 0.9:
        ta = g.add(g.name("ta"), "TensorArrayV3", [g.const([3], [], "int32")], ta_attrs)
        handle, flow = ta, f"{ta}:1"
        if R.random() < 0.2:
            handle = g.add(g.name("i"), "Identity", [handle], {"T": "type: DT_RESOURCE"})
    else:
        handle = g.ph("resource", R.choice([(2,), (3,), (), None]))
        flow = g.ph("float", ())
    if R.random() < 0.05:
        flow = g.ph("float", (1,))
    index = g.ph("int32", R.choice([(), (), (), (1,)]))
    if op == "TensorArrayWriteV3":
        return g, g.add("op", op, [handle, index, g.ph("float", perturb(elem)), flow], tattr())
    if op == "TensorArrayReadV3":
        return g, g.add("op", op, [handle, index, flow], {"dtype": "type: DT_FLOAT"})
    if op == "TensorArrayGatherV3":
        return g, g.add(
            "op",
            op,
            [handle, g.ph("int32", R.choice([(2,), (-1,), (), None])), flow],
            {"dtype": "type: DT_FLOAT", "element_shape": shape_pb(perturb(elem) if R.random() < 0.5 else None)},
        )
    if op == "TensorArrayScatterV3":
        vals = g.ph("float", None if elem is None else (2,) + (perturb(elem) or elem))
        return g, g.add("op", op, [handle, g.ph("int32", R.choice([(2,), (-1,), (), None])), vals, flow], tattr())
    if op == "TensorArraySizeV3":
        return g, g.add("op", op, [handle, flow])
    if op == "TensorArrayConcatV3":
        return g, g.add("op", op, [handle, flow], {"dtype": "type: DT_FLOAT"})
    if op == "TensorArrayCloseV3":
        return g, g.add("op", op, [handle])
    if op == "TensorArraySplitV3":
        return g, g.add(
            "op", op, [handle, g.ph("float", rand_shape(3)), g.ph("int64", R.choice([(2,), (), None])), flow], tattr()
        )
    return g, g.add("op", op, [handle, flow], {"source": 's: "grad"'})


def gen_misc_more():
    g = G()
    op = R.choice(
        [
            "BroadcastTo",
            "IdentityN",
            "DepthwiseConv2dNativeBackpropInput",
            "DepthwiseConv2dNativeBackpropFilter",
            "FusedBatchNormGradV3",
            "ControlTrigger",
        ]
    )
    if op == "BroadcastTo":
        s = rand_shape(3)
        return g, g.add(
            "op",
            op,
            [g.ph("float", s), shape_arg(g, R.randint(0, 4), (1, 2, 3, -1, 0))],
            {**tattr(), "Tidx": idx_attr()},
        )
    if op == "IdentityN":
        n = R.randint(1, 3)
        return g, g.add(
            "op", op, [g.ph("float", rand_shape()) for _ in range(n)], {"T": "list { " + " type: DT_FLOAT" * n + " }"}
        )
    if op == "ControlTrigger":
        return g, g.add("op", op, [])
    if op == "FusedBatchNormGradV3":
        fmt = R.choice(["NHWC", "NCHW"])
        x = tuple(R.choice([-1, 1, 2, 3]) for _ in range(4)) if R.random() < 0.9 else rand_shape(5)
        ch = x[-1 if fmt == "NHWC" else 1] if x is not None and len(x) == 4 else 3
        vecs = [g.ph("float", R.choice([(ch,), (ch,), (-1,), (ch + 1,), None, ()])) for _ in range(4)]
        attrs = {**tattr(), "U": "type: DT_FLOAT", "data_format": f's: "{fmt}"', "is_training": b(R.random() < 0.5)}
        return g, g.add("op", op, [g.ph("float", perturb(x) if x else x), g.ph("float", x)] + vecs, attrs)
    x = g.ph("float", tuple(R.choice([-1, 1, 2, 4]) for _ in range(4)) if R.random() < 0.9 else rand_shape(5))
    f = g.ph("float", tuple(R.choice([-1, 1, 2, 3]) for _ in range(4)) if R.random() < 0.9 else rand_shape(5))
    sizes = shape_arg(g, R.choice([4, 4, 3]), (1, 2, 3, 4), 0.15)
    grad = g.ph("float", rand_shape(4))
    attrs = {**tattr(), "strides": ilist([1, 1, 1, 1]), "padding": 's: "SAME"'}
    if op == "DepthwiseConv2dNativeBackpropInput":
        if LAST_DT[0] == "int64":
            sizes = g.add(g.name("cast"), "Cast", [sizes], {"SrcT": "type: DT_INT64", "DstT": "type: DT_INT32"})
        return g, g.add("op", op, [sizes, f, grad], attrs)
    if LAST_DT[0] == "int64":
        sizes = g.add(g.name("cast"), "Cast", [sizes], {"SrcT": "type: DT_INT64", "DstT": "type: DT_INT32"})
    return g, g.add("op", op, [x, sizes, grad], attrs)


def gen_string_image():
    """String ops that keep their input's shape, image decoding / colour ops, RandomUniformInt."""
    g = G()
    op = R.choice(
        [
            "StringLower",
            "StringUpper",
            "StringStrip",
            "StaticRegexReplace",
            "StringLength",
            "StringToNumber",
            "DecodeJpeg",
            "DecodePng",
            "EncodePng",
            "RGBToHSV",
            "HSVToRGB",
            "AdjustContrastv2",
            "RandomUniformInt",
        ]
    )
    if op.startswith("String") or op == "StaticRegexReplace":
        attrs = {}
        if op == "StaticRegexReplace":
            attrs = {"pattern": 's: "a"', "rewrite": 's: "b"'}
        if op == "StringToNumber":
            attrs = {"out_type": "type: DT_FLOAT"}
        return g, g.add("op", op, [g.ph("string", rand_shape())], attrs)
    if op in ("DecodeJpeg", "DecodePng"):
        return g, g.add(
            "op", op, [g.ph("string", R.choice([(), (), (1,), None]))], {"channels": f"i: {R.choice([0, 1, 3, 3, 4])}"}
        )
    if op == "EncodePng":
        x = g.ph("uint8", R.choice([(4, 4, 3), (-1, -1, 1), (4, 4), None, (1, 4, 4, 3)]))
        return g, g.add("op", op, [x], {"T": "type: DT_UINT8"})
    if op in ("RGBToHSV", "HSVToRGB"):
        return g, g.add("op", op, [g.ph("float", rand_shape(4))], tattr())
    if op == "AdjustContrastv2":
        return g, g.add(
            "op", op, [g.ph("float", rand_shape(4)), g.ph("float", R.choice([(), (), (1,), None]))], tattr()
        )
    bounds = [g.ph("int32", R.choice([(), (), (), (1,), None])) for _ in range(2)]
    return g, g.add(
        "op",
        op,
        [shape_arg(g, R.randint(0, 3), (1, 2, 3, 0, -1)), *bounds],
        {"T": f"type: {DT[LAST_DT[0]]}", "Tout": "type: DT_INT32"},
    )


# Optimizers beyond gen_apply/gen_rest's: the Sparse* forms (grad then indices), and the dense ones those
# lack. Per op, one letter per input: r = the variable or a slot (a handle in Resource*), s = a float
# scalar, t = an int64 scalar (global_step), g = the gradient, i = the indices (Sparse* only).
SPARSE_APPLY_SPECS = {
    "Adagrad": "rrsgi",
    "AdagradV2": "rrssgi",
    "ProximalAdagrad": "rrsssgi",
    "ProximalGradientDescent": "rsssgi",
    "Adadelta": "rrrsssgi",
    "AdagradDA": "rrrgissst",
    "Ftrl": "rrrgissss",
    "FtrlV2": "rrrgisssss",
    "Momentum": "rrsgis",
    "KerasMomentum": "rrsgis",
    "RMSProp": "rrrssssgi",
    "CenteredRMSProp": "rrrrssssgi",
}
DENSE_APPLY_SPECS = {
    "ProximalAdagrad": "rrsssg",
    "AdagradDA": "rrrgssst",
    "CenteredRMSProp": "rrrrssssg",
    "AddSign": "rrssssg",
    "PowerSign": "rrssssg",
    "AdamWithAmsgrad": "rrrrssssssg",
}
RESOURCE_ONLY_APPLY = ("KerasMomentum", "AdamWithAmsgrad")


def gen_optimizers():
    g = G()
    sparse = R.random() < 0.7
    name = R.choice(sorted(SPARSE_APPLY_SPECS if sparse else DENSE_APPLY_SPECS))
    spec = (SPARSE_APPLY_SPECS if sparse else DENSE_APPLY_SPECS)[name]
    resource = name in RESOURCE_ONLY_APPLY or R.random() < 0.5
    s = rand_shape(3)
    rows = R.choice([-1, 2, 3, 5])
    index_dtype = R.choice(["int32", "int64"])

    def near(shape):  # mostly the variable's shape, sometimes another
        return shape if R.random() < 0.8 else perturb(shape)

    ins = []
    for kind in spec:
        if kind in "st":
            dtype = "float" if kind == "s" else "int64"
            ins.append(g.ph(dtype, R.choice([(), (), (), (), (), (), None, None, (1,), (2,)])))
        elif kind == "r":
            op = "VarHandleOp" if resource else "VariableV2"
            ins.append(g.add(g.name("v"), op, [], {"dtype": "type: DT_FLOAT", "shape": shape_pb(near(s))}))
        elif kind == "g" and sparse:
            if R.random() < 0.15:
                grad = R.choice([None, (), (rows,)])
            else:
                tail = near(s[1:]) if s else s
                grad = None if tail is None else (rows, *tail)
            ins.append(g.ph("float", grad))
        elif kind == "g":
            ins.append(g.ph("float", near(s)))
        else:  # the indices of a sparse gradient
            ins.append(g.ph(index_dtype, R.choice([(rows,), (rows,), (rows,), (-1,), (4,), (), (rows, 1), None])))
    if sparse:
        prefix = "ResourceSparseApply" if resource else "SparseApply"
    else:
        prefix = "ResourceApply" if resource else "Apply"
    attrs = tattr()
    if sparse:
        attrs["Tindices"] = f"type: {DT[index_dtype]}"
    return g, g.add("op", prefix + name, ins, attrs)


GENS = {
    "unary": lambda: gen_unary(R.choice(UNARY)),
    "binary": lambda: gen_binary(R.choice(BINARY)),
    "addn": gen_addn,
    "placeholder": gen_placeholder,
    "pwd": gen_pwd,
    "ensure": gen_ensure,
    "variable": gen_variable,
    "matmul": gen_matmul,
    "biasadd": gen_biasadd,
    "conv": gen_conv,
    "reshape": gen_reshape,
    "concat": gen_concat,
    "pack": gen_pack,
    "shape": gen_shape,
    "expand": gen_expand,
    "squeeze": gen_squeeze,
    "reduction": gen_reduction,
    "argmax": gen_argmax,
    "fill": gen_fill,
    "select": gen_select,
    "transpose": gen_transpose,
    "parse": gen_parse,
    "control": gen_control,
    "loop": gen_loop,
    "resource": gen_resource,
    "misc": gen_misc,
    "tile": gen_tile,
    "split": gen_split,
    "gather": gen_gather,
    "slice": gen_slice,
    "pool": gen_pool,
    "fbn": gen_fbn,
    "strided_slice": gen_strided_slice,
    "pad": gen_pad,
    "one_hot": gen_one_hot,
    "split_v": gen_split_v,
    "reverse": gen_reverse,
    "space_depth": gen_space_depth,
    "space_batch": gen_space_batch,
    "scatter": gen_scatter,
    "conv_more": gen_conv_more,
    "backprop": gen_backprop,
    "backprop_input": gen_backprop_input,
    "losses": gen_losses,
    "image": gen_image,
    "apply": gen_apply,
    "math_more": gen_math_more,
    "const_chain": gen_const_chain,
    "einsum": gen_einsum,
    "io": gen_io,
    "quantize": gen_quantize,
    "iterator": gen_iterator,
    "rest": gen_rest,
    "fake_quant": gen_fake_quant,
    "list": gen_list,
    "list_chain": gen_list_chain,
    "matrix_diag": gen_matrix_diag,
    "sparse": gen_sparse,
    "tensor_array": gen_tensor_array,
    "misc_more": gen_misc_more,
    "string_image": gen_string_image,
    "optimizers": gen_optimizers,
}


def shape_of(t):
    s = t.shape
    return None if s.rank is None else [-1 if d is None else d for d in s.as_list()]


def main():
    kinds = sys.argv[3].split(",") if len(sys.argv) > 3 and sys.argv[3] else list(GENS)
    count = int(sys.argv[4]) if len(sys.argv) > 4 else 200
    out = []
    for kind in kinds:
        for _ in range(count):
            g, opname = GENS[kind]()
            if R.random() < 0.25:  # a random _output_shapes on the op
                extra = (
                    "list { "
                    + " ".join(shape_pb(R.choice([rand_shape(), None])) for _ in range(R.randint(1, 3)))
                    + " }"
                )
                g.nodes[-1] = g.nodes[-1][:-1] + f' attr {{ key: "_output_shapes" value {{ {extra} }} }} }}'
            producer = R.choice([None, 9, 20, 21, 22, 1700, 1700, 1700, 1700])
            text = g.text(producer)
            gd = graph_pb2.GraphDef()
            try:
                text_format.Parse(text, gd)
            except Exception as e:
                print("BADGEN", kind, e, text[:500])
                continue
            graph = tf.Graph()
            rec = {"kind": kind, "text": text}
            with graph.as_default():
                try:
                    tf.graph_util.import_graph_def(gd, name="")
                    rec["ok"] = True
                    rec["shapes"] = {op.name: [shape_of(t) for t in op.outputs] for op in graph.get_operations()}
                except Exception as e:
                    rec["ok"] = False
                    rec["error"] = f"{type(e).__name__}: {str(e).splitlines()[0][:400]}"
            out.append(rec)
    json.dump(out, open(sys.argv[1], "w"))


main()
