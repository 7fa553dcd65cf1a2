"""Generate large, realistic, valid GraphDefs for benchmarking tflint (pure Python, no TensorFlow).

The graph looks like what TensorFlow 2.21 writes for a big model: parallel
"towers" of chained blocks (dense layers with frozen weights, element-wise
arithmetic, concat/reshape/reduce, Conv2D, fan-outs, function calls through
PartitionedCall / StatefulPartitionedCall and direct calls, control flow v1
while loops), joined at the end. Every tensor along the main path is a
float [2, 4], so shapes and dtypes agree on every edge and TensorFlow's
importer (which runs shape inference) accepts the graph. Attributes the OpDef
defaults are filled in from tflint's bundled registry, as TensorFlow's writer
does; text output is protobuf's `text_format.MessageToString`, the call
`tf.io.write_graph(as_text=True)` makes, so the layout is TensorFlow's own.

    python bench/gen_graph.py --nodes 100000 --text g.pbtxt --binary g.pb
    python bench/gen_graph.py --nodes 10000 --out-dir /tmp/g --verify-tf $TF_PYTHON
"""

from __future__ import annotations

import argparse
import hashlib
import os
import random
import struct
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from google.protobuf import text_format

from tflint import protos
from tflint.tf.registry import bundled_ops

# DataType enum values (tensorflow/core/framework/types.proto).
DT_FLOAT, DT_INT32, DT_BOOL = 1, 3, 10
# What TensorFlow 2.21 writes into `versions` (graph_def_version 2474, min_consumer 12).
PRODUCER, MIN_CONSUMER = 2474, 12
# The main path's tensor: float [BATCH, WIDTH] everywhere, so every block composes with every other.
BATCH, WIDTH = 2, 4
MAIN_SHAPE = [BATCH, WIDTH]
# Nodes per tower: deep enough to be a real chain, short enough that graphs are wide at 300k.
TOWER_NODES = 2500
# The largest block (a while loop); below this much budget a tower stops adding blocks.
MAX_BLOCK_NODES = 20
CPU_DEVICES = ("", "/job:localhost/replica:0/task:0/device:CPU:0", "", "/device:CPU:0")
# The bytes TF 2.21 writes into `config_proto` of function-call nodes (a ConfigProto with CPU/GPU counts).
CONFIG_PROTO = b"\n\007\n\003CPU\020\001\n\007\n\003GPU\020\0002\002J\0008\001\202\001\000\222\001\002J\000"
# (block kind, weight): how often each block appears along a tower.
BLOCK_WEIGHTS = (
    ("dense", 24),
    ("elementwise", 20),
    ("reshape_sum", 15),
    ("conv", 12),
    ("fanout", 10),
    ("call", 10),
    ("loop", 5),
    ("cross", 4),
)

# Attribute values are given as (kind, python value); see _set_attr.
Attr = tuple[str, Any]


def _float_tensor(shape: Sequence[int], values: Sequence[float], as_content: bool) -> Any:
    tensor = protos.TensorProto(dtype=DT_FLOAT)
    _fill_shape(tensor.tensor_shape, shape)
    if as_content:
        tensor.tensor_content = struct.pack(f"<{len(values)}f", *values)
    else:
        tensor.float_val.extend(values)
    return tensor


def _int_tensor(shape: Sequence[int], values: Sequence[int]) -> Any:
    tensor = protos.TensorProto(dtype=DT_INT32)
    _fill_shape(tensor.tensor_shape, shape)
    if len(values) > 1:  # TensorFlow writes numpy arrays as tensor_content, scalars as int_val
        tensor.tensor_content = struct.pack(f"<{len(values)}i", *values)
    else:
        tensor.int_val.extend(values)
    return tensor


def _fill_shape(shape_proto: Any, dims: Sequence[int]) -> None:
    shape_proto.SetInParent()
    for size in dims:
        shape_proto.dim.add().size = size


def _set_attr(value: Any, kind: str, data: Any) -> None:
    """Fill AttrValue `value` from a (kind, python value) pair, e.g. ("type", DT_FLOAT)."""
    if kind == "type":
        value.type = data
    elif kind == "s":
        value.s = data
    elif kind == "i":
        value.i = data
    elif kind == "b":
        value.b = data
    elif kind == "shape":
        _fill_shape(value.shape, data)
    elif kind == "tensor":
        value.tensor.CopyFrom(data)
    elif kind == "func":
        value.func.name = data
    elif kind == "types":
        value.list.SetInParent()
        value.list.type.extend(data)
    elif kind == "ints":
        value.list.SetInParent()
        value.list.i.extend(data)
    elif kind == "strings":
        value.list.SetInParent()
        value.list.s.extend(data)
    elif kind == "shapes":
        value.list.SetInParent()
        for dims in data:
            _fill_shape(value.list.shape.add(), dims)
    else:  # pragma: no cover - a typo in this file
        raise ValueError(f"unknown attr kind {kind!r}")


class _Defaults:
    """Per-op attrs that have defaults, read once from the bundled OpDefs."""

    def __init__(self) -> None:
        self._ops = bundled_ops()
        self._by_op: dict[str, list[tuple[str, Any]]] = {}

    def fill(self, node: Any) -> None:
        """Add every defaulted attr the node lacks, as TensorFlow's writer does."""
        defaults = self._by_op.get(node.op)
        if defaults is None:
            op_def = self._ops.get(node.op)
            defaults = (
                [(attr.name, attr.default_value) for attr in op_def.attr if attr.HasField("default_value")]
                if op_def
                else []
            )
            self._by_op[node.op] = defaults
        for name, default in defaults:
            if name not in node.attr:
                node.attr[name].CopyFrom(default)


class _Tower:
    """Where blocks are being added: a name scope, a device, and whether shapes are recorded."""

    def __init__(self, prefix: str, device: str, with_shapes: bool) -> None:
        self.prefix = prefix
        self.device = device
        self.with_shapes = with_shapes
        self.blocks = 0
        self.outputs: list[str] = []  # the main tensor after each block, for cross-tower links


class GraphGenerator:
    """Builds one GraphDef of (about) `nodes` top-level nodes, deterministically from `seed`."""

    def __init__(self, nodes: int, seed: int = 0) -> None:
        self.target = nodes
        self.rng = random.Random(seed)
        self.graph = protos.GraphDef()
        self.defaults = _Defaults()
        self.towers: list[_Tower] = []
        self.functions: dict[str, str] = {}

    # -- nodes ---------------------------------------------------------------

    def add(
        self,
        tower: _Tower | None,
        name: str,
        op: str,
        inputs: Sequence[str] = (),
        attrs: dict[str, Attr] | None = None,
        shapes: Sequence[Sequence[int]] | None = None,
    ) -> str:
        """Append a top-level node (defaults filled) and return its name, i.e. its output 0."""
        node = self.graph.node.add()
        node.name = name
        node.op = op
        if inputs:
            node.input.extend(inputs)
        if tower is not None and tower.device:
            node.device = tower.device
        for key, (kind, data) in (attrs or {}).items():
            _set_attr(node.attr[key], kind, data)
        if shapes is not None and tower is not None and tower.with_shapes:
            _set_attr(node.attr["_output_shapes"], "shapes", shapes)
        self.defaults.fill(node)
        return name

    def const(self, tower: _Tower | None, name: str, tensor: Any, inputs: Sequence[str] = ()) -> str:
        """A Const node holding `tensor`."""
        dims = [dim.size for dim in tensor.tensor_shape.dim]
        return self.add(
            tower, name, "Const", inputs, {"dtype": ("type", tensor.dtype), "value": ("tensor", tensor)}, [dims]
        )

    def random_floats(self, count: int) -> list[float]:
        """`count` reproducible values in [-1, 1], like trained weights."""
        return [round(self.rng.uniform(-1.0, 1.0), 6) for _ in range(count)]

    def float_const(self, tower: _Tower, name: str, shape: Sequence[int], inputs: Sequence[str] = ()) -> str:
        """A Const with real values: tensor_content for arrays, float_val for scalars and some vectors."""
        count = 1
        for size in shape:
            count *= size
        as_content = count > 1 and self.rng.random() < 0.75
        return self.const(tower, name, _float_tensor(shape, self.random_floats(count), as_content), inputs)

    def float_op(
        self,
        tower: _Tower | None,
        name: str,
        op: str,
        inputs: Sequence[str],
        shape: Sequence[int] = MAIN_SHAPE,
        extra: dict[str, Attr] | None = None,
    ) -> str:
        """A node of an op with one type attr `T`, here float, and one output of `shape`."""
        attrs: dict[str, Attr] = {"T": ("type", DT_FLOAT)}
        if extra:
            attrs.update(extra)
        return self.add(tower, name, op, inputs, attrs, [shape])

    # -- the graph -----------------------------------------------------------

    def build(self) -> Any:
        """The whole GraphDef."""
        self.graph.versions.producer = PRODUCER
        self.graph.versions.min_consumer = MIN_CONSUMER
        self._build_library()
        self.add(
            None,
            "input",
            "Placeholder",
            (),
            {"dtype": ("type", DT_FLOAT), "shape": ("shape", MAIN_SHAPE), "_user_specified_name": ("s", b"input")},
        )
        self.const(None, "model/shared_scale", _float_tensor([], [0.5], False))
        self.const(None, "model/shared_shift", _float_tensor([], [0.25], False))
        fixed = 3
        towers = max(1, round((self.target - fixed) / TOWER_NODES))
        closing = 5 if towers > 1 else 1
        budget = max(0, self.target - fixed - closing)
        for index in range(towers):
            share = budget // towers + (budget % towers if index == towers - 1 else 0)
            self._build_tower(index, share)
        self._close()
        while len(self.graph.node) < self.target:  # exact node counts: pad the output with Identity
            last = self.graph.node[-1].name
            self.float_op(None, f"model/output/pad_{len(self.graph.node)}", "Identity", [last])
        return self.graph

    def _build_tower(self, index: int, budget: int) -> None:
        """Chain blocks from `input` until the tower has `budget` nodes."""
        tower = _Tower(f"model/tower_{index}", CPU_DEVICES[index % len(CPU_DEVICES)], index % 3 == 0)
        self.towers.append(tower)
        start = len(self.graph.node)
        x = self.float_op(tower, f"{tower.prefix}/input", "Identity", ["input"])
        kinds = [kind for kind, _ in BLOCK_WEIGHTS]
        weights = [weight for _, weight in BLOCK_WEIGHTS]
        # The first tower opens with one block of each kind, so that small graphs have them all.
        opening = [kind for kind in kinds if kind != "cross"] if index == 0 else []
        while budget - (len(self.graph.node) - start) >= MAX_BLOCK_NODES:
            kind = opening.pop(0) if opening else self.rng.choices(kinds, weights)[0]
            if kind == "cross" and index == 0:
                kind = "elementwise"
            tower.blocks += 1
            x = getattr(self, f"_block_{kind}")(tower, f"{tower.prefix}/{kind}_{tower.blocks}", x)
            tower.outputs.append(x)
        while budget - (len(self.graph.node) - start) > 0:
            tower.blocks += 1
            x = self.float_op(tower, f"{tower.prefix}/Identity_{tower.blocks}", "Identity", [x])
        tower.outputs.append(x)

    def _close(self) -> None:
        """Join the towers' outputs: ConcatV2 over all of them, Sum, and the final Identity."""
        outputs = [tower.outputs[-1] for tower in self.towers]
        if len(outputs) == 1:
            self.float_op(None, "Identity", "Identity", outputs)
            return
        axis = self.const(None, "model/concat/axis", _int_tensor([], [0]))
        concat = self.add(
            None, "model/concat", "ConcatV2", [*outputs, axis], {"N": ("i", len(outputs)), "T": ("type", DT_FLOAT)}
        )
        indices = self.const(None, "model/Sum/reduction_indices", _int_tensor([], [0]))
        total = self.add(None, "model/Sum", "Sum", [concat, indices], {"T": ("type", DT_FLOAT)})
        self.float_op(None, "Identity", "Identity", [total], [WIDTH])

    # -- blocks: each takes the main tensor x (float [2, 4]) and returns the next one -----------

    def _block_dense(self, tower: _Tower, scope: str, x: str) -> str:
        """A frozen Keras/TF1 dense layer: kernel, kernel/read (colocated), MatMul, BiasAdd, Relu."""
        kernel = self.float_const(tower, f"{scope}/kernel", [WIDTH, WIDTH])
        read = self.add(
            tower,
            f"{scope}/kernel/read",
            "Identity",
            [kernel],
            {"T": ("type", DT_FLOAT), "_class": ("strings", [f"loc:@{kernel}".encode()])},
            [[WIDTH, WIDTH]],
        )
        bias = self.float_const(tower, f"{scope}/bias", [WIDTH])
        matmul = self.float_op(tower, f"{scope}/MatMul", "MatMul", [x, read])
        biased = self.float_op(
            tower, f"{scope}/BiasAdd", "BiasAdd", [matmul, bias], extra={"data_format": ("s", b"NHWC")}
        )
        return self.float_op(tower, f"{scope}/Relu", "Relu", [biased])

    def _block_elementwise(self, tower: _Tower, scope: str, x: str) -> str:
        """(x + c1) * c2, then Identity."""
        y = self.float_const(tower, f"{scope}/add/y", [])
        added = self.float_op(tower, f"{scope}/add", "AddV2", [x, y])
        z = self.float_const(tower, f"{scope}/mul/y", [])
        product = self.float_op(tower, f"{scope}/mul", "Mul", [added, z])
        return self.float_op(tower, f"{scope}/Identity", "Identity", [product])

    def _block_reshape_sum(self, tower: _Tower, scope: str, x: str) -> str:
        """ConcatV2([x, x]) to [2, 8], Reshape to [2, 2, 4], Sum over axis 1 back to [2, 4]."""
        axis = self.const(tower, f"{scope}/concat/axis", _int_tensor([], [1]))
        concat = self.add(
            tower,
            f"{scope}/concat",
            "ConcatV2",
            [x, x, axis],
            {"N": ("i", 2), "T": ("type", DT_FLOAT)},
            [[BATCH, 2 * WIDTH]],
        )
        shape = self.const(tower, f"{scope}/Reshape/shape", _int_tensor([3], [BATCH, 2, WIDTH]))
        reshaped = self.add(
            tower, f"{scope}/Reshape", "Reshape", [concat, shape], {"T": ("type", DT_FLOAT)}, [[BATCH, 2, WIDTH]]
        )
        indices = self.const(tower, f"{scope}/Sum/reduction_indices", _int_tensor([], [1]))
        return self.add(
            tower,
            f"{scope}/Sum",
            "Sum",
            [reshaped, indices],
            {"T": ("type", DT_FLOAT), "keep_dims": ("b", False)},
            [MAIN_SHAPE],
        )

    def _block_conv(self, tower: _Tower, scope: str, x: str) -> str:
        """Reshape to NHWC [2, 1, 2, 2], Conv2D (SAME 1x3 or VALID 1x1), BiasAdd, Relu, reshape back."""
        image = [BATCH, 1, 2, WIDTH // 2]
        shape = self.const(tower, f"{scope}/Reshape/shape", _int_tensor([4], image))
        reshaped = self.add(tower, f"{scope}/Reshape", "Reshape", [x, shape], {"T": ("type", DT_FLOAT)}, [image])
        same = self.rng.random() < 0.5
        kernel = [1, 3 if same else 1, image[3], image[3]]
        weights = self.float_const(tower, f"{scope}/Conv2D/filter", kernel)
        conv_attrs: dict[str, Attr] = {
            "strides": ("ints", [1, 1, 1, 1]),
            "padding": ("s", b"SAME" if same else b"VALID"),
            "data_format": ("s", b"NHWC"),
            "dilations": ("ints", [1, 1, 1, 1]),
        }
        conv = self.float_op(tower, f"{scope}/Conv2D", "Conv2D", [reshaped, weights], image, conv_attrs)
        bias = self.float_const(tower, f"{scope}/bias", [image[3]])
        biased = self.float_op(
            tower, f"{scope}/BiasAdd", "BiasAdd", [conv, bias], image, {"data_format": ("s", b"NHWC")}
        )
        relu = self.float_op(tower, f"{scope}/Relu", "Relu", [biased], image)
        back = self.const(tower, f"{scope}/Reshape_1/shape", _int_tensor([2], MAIN_SHAPE))
        return self.add(tower, f"{scope}/Reshape_1", "Reshape", [relu, back], {"T": ("type", DT_FLOAT)}, [MAIN_SHAPE])

    def _block_fanout(self, tower: _Tower, scope: str, x: str) -> str:
        """x feeds four branches (two reading graph-wide shared constants), concatenated and summed."""
        branches = [
            self.float_op(tower, f"{scope}/Relu", "Relu", [x]),
            self.float_op(tower, f"{scope}/Identity", "Identity", [x]),
            self.float_op(tower, f"{scope}/mul", "Mul", [x, "model/shared_scale"]),
            self.float_op(tower, f"{scope}/add", "AddV2", [x, "model/shared_shift"]),
        ]
        axis = self.const(tower, f"{scope}/concat/axis", _int_tensor([], [0]))
        concat = self.add(
            tower,
            f"{scope}/concat",
            "ConcatV2",
            [*branches, axis],
            {"N": ("i", 4), "T": ("type", DT_FLOAT)},
            [[4 * BATCH, WIDTH]],
        )
        shape = self.const(tower, f"{scope}/Reshape/shape", _int_tensor([3], [4, BATCH, WIDTH]))
        reshaped = self.add(
            tower, f"{scope}/Reshape", "Reshape", [concat, shape], {"T": ("type", DT_FLOAT)}, [[4, BATCH, WIDTH]]
        )
        indices = self.const(tower, f"{scope}/Sum/reduction_indices", _int_tensor([], [0]))
        return self.add(tower, f"{scope}/Sum", "Sum", [reshaped, indices], {"T": ("type", DT_FLOAT)}, [MAIN_SHAPE])

    def _block_call(self, tower: _Tower, scope: str, x: str) -> str:
        """One of: PartitionedCall of a residual block, StatefulPartitionedCall, a direct call."""
        choice = self.rng.randrange(3)
        if choice == 0:
            kernel = self.float_const(tower, f"{scope}/kernel", [WIDTH, WIDTH])
            bias = self.float_const(tower, f"{scope}/bias", [WIDTH])
            called = self.add(
                tower,
                f"{scope}/PartitionedCall",
                "PartitionedCall",
                [x, kernel, bias],
                self._call_attrs(self.functions["residual_block"], 3),
                [MAIN_SHAPE],
            )
        elif choice == 1:
            called = self.add(
                tower,
                f"{scope}/StatefulPartitionedCall",
                "StatefulPartitionedCall",
                [x],
                self._call_attrs(self.functions["stateful_head"], 1),
                [MAIN_SHAPE],
            )
        else:
            called = self.add(tower, f"{scope}/scale", self.functions["scale"], [x], None, [MAIN_SHAPE])
        return self.float_op(tower, f"{scope}/Identity", "Identity", [called])

    @staticmethod
    def _call_attrs(function: str, arguments: int) -> dict[str, Attr]:
        """The attrs TensorFlow writes on a (Stateful)PartitionedCall node."""
        return {
            "Tin": ("types", [DT_FLOAT] * arguments),
            "Tout": ("types", [DT_FLOAT]),
            "f": ("func", function),
            "config_proto": ("s", CONFIG_PROTO),
            "_XlaMustCompile": ("b", False),
            "_collective_manager_ids": ("ints", []),
            "_read_only_resource_inputs": ("ints", []),
        }

    def _block_loop(self, tower: _Tower, scope: str, x: str) -> str:
        """A control flow v1 while loop (tf.compat.v1.while_loop) running x = x * c for 5 steps."""
        frame: Attr = ("s", f"{scope}/while_context".encode())
        int_t, float_t = {"T": ("type", DT_INT32)}, {"T": ("type", DT_FLOAT)}

        def enter(name: str, data: str, dtype_attr: dict[str, Attr], constant: bool, shape: Sequence[int]) -> str:
            attrs = {
                **dtype_attr,
                "frame_name": frame,
                "is_constant": ("b", constant),
                "parallel_iterations": ("i", 10),
            }
            return self.add(tower, f"{scope}/{name}", "Enter", [data], attrs, [shape])

        counter = self.const(tower, f"{scope}/loop_counter", _int_tensor([], [0]))
        limit = self.const(tower, f"{scope}/maximum_iterations", _int_tensor([], [5]))
        enter_i = enter("Enter", counter, int_t, False, [])
        enter_x = enter("Enter_1", x, float_t, False, MAIN_SHAPE)
        merge_i = self.add(
            tower, f"{scope}/Merge", "Merge", [enter_i, f"{scope}/NextIteration"], {**int_t, "N": ("i", 2)}, [[], []]
        )
        merge_x = self.add(
            tower,
            f"{scope}/Merge_1",
            "Merge",
            [enter_x, f"{scope}/NextIteration_1"],
            {**float_t, "N": ("i", 2)},
            [MAIN_SHAPE, []],
        )
        less = self.add(tower, f"{scope}/Less", "Less", [merge_i, f"{scope}/Less/Enter"], int_t, [[]])
        enter("Less/Enter", limit, int_t, True, [])
        cond = self.add(tower, f"{scope}/LoopCond", "LoopCond", [less], None, [[]])
        switch_i = self.add(
            tower,
            f"{scope}/Switch",
            "Switch",
            [merge_i, cond],
            {**int_t, "_class": ("strings", [f"loc:@{merge_i}".encode()])},
            [[], []],
        )
        switch_x = self.add(
            tower,
            f"{scope}/Switch_1",
            "Switch",
            [merge_x, cond],
            {**float_t, "_class": ("strings", [f"loc:@{merge_x}".encode()])},
            [MAIN_SHAPE, MAIN_SHAPE],
        )
        body_i = self.add(tower, f"{scope}/Identity", "Identity", [f"{switch_i}:1"], int_t, [[]])
        body_x = self.add(tower, f"{scope}/Identity_1", "Identity", [f"{switch_x}:1"], float_t, [MAIN_SHAPE])
        one = self.const(tower, f"{scope}/add/y", _int_tensor([], [1]), [f"^{body_i}"])
        step = self.add(tower, f"{scope}/add", "AddV2", [body_i, one], int_t, [[]])
        factor = self.const(tower, f"{scope}/mul/y", _float_tensor([], self.random_floats(1), False), [f"^{body_i}"])
        scaled = self.float_op(tower, f"{scope}/mul", "Mul", [body_x, factor])
        self.add(tower, f"{scope}/NextIteration", "NextIteration", [step], int_t, [[]])
        self.add(tower, f"{scope}/NextIteration_1", "NextIteration", [scaled], float_t, [MAIN_SHAPE])
        self.add(tower, f"{scope}/Exit", "Exit", [switch_i], int_t, [[]])
        return self.add(tower, f"{scope}/Exit_1", "Exit", [switch_x], float_t, [MAIN_SHAPE])

    def _block_cross(self, tower: _Tower, scope: str, x: str) -> str:
        """Fan-in from an earlier tower: x + (some block output of another tower)."""
        other = self.rng.choice(self.towers[:-1])
        source = self.rng.choice(other.outputs) if other.outputs else other.prefix + "/input"
        return self.float_op(tower, f"{scope}/add", "AddV2", [x, source])

    # -- the function library --------------------------------------------------

    def _build_library(self) -> None:
        """Four traced functions, named as tf.function names them, one calling two others."""
        uid = 100 + self.rng.randrange(900)
        names = {
            key: f"__inference_{key}_{uid + offset}"
            for offset, key in enumerate(("dense_layer", "scale", "residual_block", "stateful_head"))
        }
        self.functions = names
        library = self.graph.library

        dense = _FunctionWriter(
            library.function.add(),
            names["dense_layer"],
            self.defaults,
            [("x", MAIN_SHAPE), ("kernel", [WIDTH, WIDTH]), ("bias", [WIDTH])],
        )
        matmul = dense.node("MatMul", "MatMul", ["x", "kernel"], "product")
        biased = dense.node("BiasAdd", "BiasAdd", [matmul, "bias"], "output", {"data_format": ("s", b"NHWC")})
        relu = dense.node("Relu", "Relu", [biased], "activations")
        dense.ret(dense.node("Identity", "Identity", [relu], "output"))

        scale = _FunctionWriter(library.function.add(), names["scale"], self.defaults, [("x", MAIN_SHAPE)])
        factor = scale.const("mul/y", _float_tensor([], [2.0], False))
        product = scale.node("mul", "Mul", ["x", factor], "z")
        shift = scale.const("add/y", _float_tensor([], [1.0], False))
        total = scale.node("add", "AddV2", [product, shift], "z")
        scale.ret(scale.node("Identity", "Identity", [total], "output"))

        block = _FunctionWriter(
            library.function.add(),
            names["residual_block"],
            self.defaults,
            [("x", MAIN_SHAPE), ("kernel", [WIDTH, WIDTH]), ("bias", [WIDTH])],
        )
        inner = block.node(
            "PartitionedCall",
            "PartitionedCall",
            ["x", "kernel", "bias"],
            "output",
            self._call_attrs(names["dense_layer"], 3),
            dtype=False,
        )
        scaled = block.node("scale", names["scale"], [inner], "identity", dtype=False)
        residual = block.node("add", "AddV2", ["x", scaled], "z")
        block.ret(block.node("Identity", "Identity", [residual], "output"))

        head = _FunctionWriter(library.function.add(), names["stateful_head"], self.defaults, [("x", MAIN_SHAPE)])
        relu = head.node("Relu", "Relu", ["x"], "activations")
        head.ret(head.node("Identity", "Identity", [relu], "output"))


class _FunctionWriter:
    """Fills one FunctionDef the way tf.function traces it (inputs as `node:out_arg:index`)."""

    def __init__(
        self, function: Any, name: str, defaults: _Defaults, arguments: Sequence[tuple[str, Sequence[int]]]
    ) -> None:
        self.function = function
        self.defaults = defaults
        function.signature.name = name
        for index, (arg_name, shape) in enumerate(arguments):
            arg = function.signature.input_arg.add()
            arg.name = arg_name
            arg.type = DT_FLOAT
            attrs = function.arg_attr[index].attr
            _set_attr(attrs["_output_shapes"], "shapes", [shape])
            _set_attr(attrs["_user_specified_name"], "s", arg_name.encode())
        _set_attr(function.attr["_construction_context"], "s", b"kEagerRuntime")

    def node(
        self,
        name: str,
        op: str,
        inputs: Sequence[str],
        output_arg: str,
        attrs: dict[str, Attr] | None = None,
        dtype: bool = True,
    ) -> str:
        """Add a body node; returns the `name:output_arg:0` reference to its first output."""
        node = self.function.node_def.add()
        node.name = name
        node.op = op
        node.input.extend(inputs)
        if dtype:
            node.attr["T"].type = DT_FLOAT
        for key, (kind, data) in (attrs or {}).items():
            if key != "_XlaMustCompile":  # TensorFlow sets it on top-level call nodes only
                _set_attr(node.attr[key], kind, data)
        self.defaults.fill(node)
        return f"{name}:{output_arg}:0"

    def const(self, name: str, tensor: Any) -> str:
        """A Const body node; returns the reference to its output."""
        node = self.function.node_def.add()
        node.name = name
        node.op = "Const"
        node.attr["dtype"].type = tensor.dtype
        node.attr["value"].tensor.CopyFrom(tensor)
        return f"{name}:output:0"

    def ret(self, reference: str) -> None:
        """Declare the function's one output, `identity`, as `reference`."""
        arg = self.function.signature.output_arg.add()
        arg.name = "identity"
        arg.type = DT_FLOAT
        self.function.ret["identity"] = reference


def build_graph(nodes: int, seed: int = 0) -> Any:
    """A GraphDef with exactly `nodes` top-level nodes (at least 5) plus a small function library."""
    if nodes < 5:
        raise ValueError("a benchmark graph needs at least 5 nodes")
    return GraphGenerator(nodes, seed).build()


def graph_text(graph: Any) -> str:
    """The text TensorFlow's `tf.io.write_graph(as_text=True)` writes for this message."""
    return text_format.MessageToString(graph)


def graph_bytes(graph: Any) -> bytes:
    """The binary serialization (map entries sorted, so the bytes are stable)."""
    return graph.SerializeToString(deterministic=True)


def write_graph(
    graph: Any, text_path: str | os.PathLike[str] | None = None, binary_path: str | os.PathLike[str] | None = None
) -> None:
    """Write the text and/or binary form, each atomically (a temp file renamed into place)."""
    if text_path:
        _write_atomic(Path(text_path), graph_text(graph).encode("utf-8"))
    if binary_path:
        _write_atomic(Path(binary_path), graph_bytes(graph))


def _write_atomic(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
    with os.fdopen(handle, "wb") as out:
        out.write(data)
    os.chmod(temporary, 0o644)
    os.replace(temporary, path)


def default_cache_dir() -> Path:
    """Where generated graphs are kept between runs ($TFLINT_BENCH_CACHE, else the temp dir)."""
    return Path(os.environ.get("TFLINT_BENCH_CACHE") or Path(tempfile.gettempdir()) / "tflint-bench")


def generator_key() -> str:
    """A hash of this file: a changed generator never reuses graphs cached by an older one."""
    return hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:10]


def cached_graph(nodes: int, seed: int = 0, cache_dir: str | os.PathLike[str] | None = None) -> tuple[Path, Path]:
    """(text path, binary path) of the graph for (nodes, seed), generated on first use."""
    directory = Path(cache_dir) if cache_dir else default_cache_dir()
    stem = directory / f"graph-n{nodes}-s{seed}-{generator_key()}"
    text_path, binary_path = stem.with_suffix(".pbtxt"), stem.with_suffix(".pb")
    if not (text_path.exists() and binary_path.exists()):
        write_graph(build_graph(nodes, seed), text_path, binary_path)
    return text_path, binary_path


# Run by a TensorFlow interpreter: import the binary graph, and check that TensorFlow's own
# text writer produces exactly our text.
_TF_VERIFY = r"""
import sys, os, tempfile
import tensorflow as tf
binary, text = sys.argv[1], sys.argv[2]
graph_def = tf.compat.v1.GraphDef()
graph_def.ParseFromString(open(binary, "rb").read())
with tf.Graph().as_default() as graph:
    tf.graph_util.import_graph_def(graph_def, name="")
    # Running it instantiates the functions and steps through every while loop.
    with tf.compat.v1.Session(graph=graph) as session:
        result = session.run(graph_def.node[-1].name + ":0", {"input:0": [[1.0, 2.0, 3.0, 4.0], [0.5, 0.5, 0.5, 0.5]]})
out = tempfile.mkdtemp()
tf.io.write_graph(graph_def, out, "tf.pbtxt", as_text=True)
same = open(os.path.join(out, "tf.pbtxt"), "rb").read() == open(text, "rb").read()
print("import_graph_def and run: ok (%d nodes, %d functions, output shape %s); text identical to tf.io.write_graph: %s" % (len(graph_def.node), len(graph_def.library.function), list(result.shape), same))
sys.exit(0 if same else 3)
"""


def verify_with_tensorflow(python: str, text_path: Path, binary_path: Path) -> int:
    """Import the graph into TensorFlow (a separate interpreter) and compare the text layout."""
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2")
    result = subprocess.run(
        [python, "-c", _TF_VERIFY, str(binary_path), str(text_path)], env=env, capture_output=True, text=True
    )
    sys.stdout.write(result.stdout)
    if result.returncode:
        sys.stderr.write(result.stderr[-4000:])
    return result.returncode


def main(argv: Sequence[str] | None = None) -> int:
    """Generate one graph (and optionally check it with TensorFlow); returns the exit code."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=10000, help="top-level nodes (default 10000)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--text", metavar="FILE", help="write the text form here")
    parser.add_argument("--binary", metavar="FILE", help="write the binary form here")
    parser.add_argument("--out-dir", metavar="DIR", help="write graph-nN-sS.pbtxt and .pb here")
    parser.add_argument(
        "--verify-tf",
        metavar="PYTHON",
        help="a TensorFlow interpreter: import the graph and compare tf.io.write_graph's text",
    )
    args = parser.parse_args(argv)
    text_path, binary_path = args.text, args.binary
    if args.out_dir:
        stem = Path(args.out_dir) / f"graph-n{args.nodes}-s{args.seed}"
        text_path = text_path or stem.with_suffix(".pbtxt")
        binary_path = binary_path or stem.with_suffix(".pb")
    if not (text_path or binary_path):
        parser.error("give --text, --binary or --out-dir")
    graph = build_graph(args.nodes, args.seed)
    write_graph(graph, text_path, binary_path)
    functions = sum(len(function.node_def) for function in graph.library.function)
    print(
        f"{len(graph.node)} nodes (+{functions} in {len(graph.library.function)} functions): {text_path or ''} {binary_path or ''}".rstrip()
    )
    if args.verify_tf:
        if not (text_path and binary_path):
            parser.error("--verify-tf needs both the text and the binary form")
        return verify_with_tensorflow(args.verify_tf, Path(text_path), Path(binary_path))
    return 0


if __name__ == "__main__":
    sys.exit(main())
