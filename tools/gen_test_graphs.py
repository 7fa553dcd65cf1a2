"""Write small real TensorFlow graphs (GraphDef, MetaGraphDef, SavedModel) into tests/data/real, label them, document them."""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Callable

# Each generator runs in a process of its own: TF1 and TF2 behaviour are process-wide switches
# (disable_v2_behavior, control flow v2), and a fresh process also restarts TensorFlow's name and
# function-uid counters, which keeps node and function names the same from run to run.
GENERATORS: dict[str, tuple[str, Callable[[Path], None]]] = {}
# (relative path, description) of every file a generator wrote, printed for the parent at exit.
ARTIFACTS: list[tuple[str, str]] = []
# Whole SavedModel directories kept under savedmodel_dirs/ only when at most this large.
MAX_KEPT_DIR_BYTES = 100_000
SEED = 1234


def generator(mode: str) -> Callable[[Callable[[Path], None]], Callable[[Path], None]]:
    """Register a generator; mode "v1" runs it with tf.compat.v1.disable_v2_behavior()."""

    def register(fn: Callable[[Path], None]) -> Callable[[Path], None]:
        GENERATORS[fn.__name__.removeprefix("gen_")] = (mode, fn)
        return fn

    return register


# --------------------------------------------------------------------------------------------
# Writers. Every file is written by TensorFlow's own writers where it has one (write_graph,
# export_meta_graph, saved_model.save, Builder.save), so the bytes are what users really have.


def tf() -> Any:
    import tensorflow

    return tensorflow


def record(out: Path, path: Path, description: str) -> None:
    ARTIFACTS.append((path.relative_to(out).as_posix(), description))


def write_graphdef(out: Path, stem: str, graph_def: Any, description: str, binary: bool = True) -> None:
    """stem.pbtxt (tf.io.write_graph as_text=True) and, unless binary=False, stem.pb."""
    tf().io.write_graph(graph_def, str(out), f"{stem}.pbtxt", as_text=True)
    record(out, out / f"{stem}.pbtxt", description)
    if binary:
        tf().io.write_graph(graph_def, str(out), f"{stem}.pb", as_text=False)
        record(out, out / f"{stem}.pb", description)


def write_meta(
    out: Path, stem: str, graph: Any, description: str, text: bool = True, binary: bool = True, **kwargs: Any
) -> None:
    """stem.meta.pbtxt / stem.meta via tf.compat.v1.train.export_meta_graph (stripped_op_list included)."""
    if text:
        tf().compat.v1.train.export_meta_graph(
            filename=str(out / f"{stem}.meta.pbtxt"), graph=graph, as_text=True, **kwargs
        )
        record(out, out / f"{stem}.meta.pbtxt", description)
    if binary:
        tf().compat.v1.train.export_meta_graph(filename=str(out / f"{stem}.meta"), graph=graph, as_text=False, **kwargs)
        record(out, out / f"{stem}.meta", description)


def dir_size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def copy_saved_model(
    out: Path, stem: str, export_dir: Path, description: str, keep_dir: bool = False, text: bool = True
) -> None:
    """stem.saved_model.pb (as TF wrote it), stem.saved_model.pbtxt, and maybe the whole directory.

    TF2 writes no text SavedModel, so the text variant is text_format.MessageToString of the
    parsed binary, which is what TensorFlow's own text writers produce.
    """
    from google.protobuf import text_format
    from tensorflow.core.protobuf import saved_model_pb2

    binary_path = out / f"{stem}.saved_model.pb"
    shutil.copyfile(export_dir / "saved_model.pb", binary_path)
    record(out, binary_path, description)
    if text:
        saved_model = saved_model_pb2.SavedModel()
        saved_model.ParseFromString((export_dir / "saved_model.pb").read_bytes())
        text_path = out / f"{stem}.saved_model.pbtxt"
        text_path.write_text(text_format.MessageToString(saved_model))
        record(out, text_path, description + " (text_format.MessageToString)")
    if keep_dir:
        size = dir_size(export_dir)
        if size > MAX_KEPT_DIR_BYTES:
            print(f"warning: {stem}: SavedModel directory is {size} bytes, not kept", file=sys.stderr)
            return
        target = out / "savedmodel_dirs" / stem
        shutil.rmtree(target, ignore_errors=True)  # a partial (--only) rerun writes over it
        shutil.copytree(export_dir, target)
        ARTIFACTS.append((target.relative_to(out).as_posix(), description + " (whole directory)"))


def scratch(name: str) -> Path:
    """A fresh directory under the generator's scratch working directory."""
    path = Path.cwd() / name
    path.mkdir(parents=True, exist_ok=True)
    return path


def seeded_v1_graph() -> Any:
    """A fresh graph with a fixed graph-level seed, so random ops get fixed seed attrs."""
    graph = tf().Graph()
    with graph.as_default():
        tf().compat.v1.set_random_seed(SEED)
    return graph


# --------------------------------------------------------------------------------------------
# TF1 graph mode (tf.compat.v1 with v2 behaviour disabled).


@generator("v1")
def gen_tf1_ref_vars_adam_saver(out: Path) -> None:
    t = tf()
    v1 = t.compat.v1
    graph = seeded_v1_graph()
    with graph.as_default():
        x = v1.placeholder(t.float32, [None, 3], name="x")
        y = v1.placeholder(t.float32, [None, 1], name="y")
        with v1.variable_scope("dense"):
            w = v1.get_variable("w", [3, 1], initializer=v1.random_normal_initializer(seed=1), use_resource=False)
            b = v1.get_variable("b", [1], initializer=v1.zeros_initializer(), use_resource=False)
        # A partitioned variable: emb/part_0, emb/part_1, with save_slice_info in the variables collection.
        emb = v1.get_variable(
            "emb",
            [4, 2],
            initializer=v1.constant_initializer(0.1),
            partitioner=v1.fixed_size_partitioner(2),
            use_resource=False,
        )
        pred = t.matmul(x, w) + b + t.reduce_sum(emb)
        loss = t.reduce_mean(t.square(pred - y), name="loss")
        v1.summary.scalar("loss", loss)
        step = v1.train.get_or_create_global_step()
        # One gradient computation shared by three optimizers keeps the graph small.
        pairs = list(zip(v1.gradients(loss, [w, b]), [w, b]))
        v1.train.GradientDescentOptimizer(0.1).apply_gradients(pairs, name="sgd")
        adam = v1.train.AdamOptimizer(0.01).apply_gradients(pairs, global_step=step, name="adam")
        v1.train.MomentumOptimizer(0.1, 0.9).apply_gradients(pairs, name="momentum")
        v1.add_to_collection(v1.GraphKeys.TRAIN_OP, adam)
        v1.summary.merge_all()
        v1.global_variables_initializer()
        v1.train.Saver(name="save")
    write_meta(
        out,
        "tf1_ref_vars_adam_saver",
        graph,
        "MetaGraphDef with stripped_op_list: ref variables (VariableV2) incl. a partitioned one, "
        "tf.gradients, ApplyGradientDescent/ApplyAdam/ApplyMomentum, global step, summaries, Saver",
    )


@generator("v1")
def gen_tf1_resource_vars_grads(out: Path) -> None:
    t = tf()
    v1 = t.compat.v1
    graph = seeded_v1_graph()
    with graph.as_default():
        x = v1.placeholder(t.float32, [2, 3], name="x")
        w = v1.get_variable("w", [3, 2], initializer=v1.constant_initializer(0.5), use_resource=True)
        b = v1.Variable(t.zeros([2]), name="b", use_resource=True)
        loss = t.reduce_sum(t.nn.relu(t.matmul(x, w) + b))
        step = v1.train.get_or_create_global_step()
        pairs = list(zip(v1.gradients(loss, [w, b]), [w, b]))
        v1.train.GradientDescentOptimizer(0.5).apply_gradients(pairs, name="sgd")
        v1.train.AdamOptimizer(0.01).apply_gradients(pairs, global_step=step, name="adam")
        v1.train.RMSPropOptimizer(0.01).apply_gradients(pairs, name="rmsprop")
        v1.global_variables_initializer()
        v1.train.Saver(name="save")
    write_meta(
        out,
        "tf1_resource_vars_grads",
        graph,
        "MetaGraphDef: resource variables (VarHandleOp/ReadVariableOp/AssignVariableOp), "
        "ResourceApplyGradientDescent/ResourceApplyAdam/ResourceApplyRMSProp, Saver",
    )


@generator("v1")
def gen_tf1_control_flow_v1(out: Path) -> None:
    t = tf()
    v1 = t.compat.v1
    graph = seeded_v1_graph()
    with graph.as_default():
        n = v1.placeholder(t.int32, [], name="n")
        x = v1.placeholder(t.float32, [None], name="x")

        def outer_body(i: Any, acc: Any) -> tuple[Any, Any]:
            # Nested while inside while, plus a cond inside the inner loop.
            def inner_body(j: Any, a: Any) -> tuple[Any, Any]:
                a = v1.cond(t.equal(j % 2, 0), lambda: a * 2.0, lambda: a + 1.0)
                return j + 1, a

            _, acc = v1.while_loop(lambda j, a: j < i, inner_body, [0, acc])
            return i + 1, acc

        _, total = v1.while_loop(lambda i, a: i < n, outer_body, [0, x], name="outer")
        picked = v1.case([(n > 5, lambda: total * 10.0), (n > 2, lambda: total)], default=lambda: -total, name="case")
        loss = t.reduce_sum(picked)
        # Gradients through a v1 while loop add the stack machinery (StackV2, StackPushV2, ...).
        v1.gradients(loss, x, name="grad")
    assert graph.get_operation_by_name("outer/Enter").type == "Enter"
    write_graphdef(
        out,
        "tf1_control_flow_v1",
        graph.as_graph_def(),
        "control flow v1: nested while_loop with cond inside, tf.case, gradients through the "
        "loop (Enter/Exit/Merge/Switch/NextIteration/LoopCond, StackV2): legal cycles",
    )
    write_meta(
        out,
        "tf1_control_flow_v1",
        graph,
        "the same as a MetaGraphDef, with WhileContextDef/CondContextDef collections",
        binary=False,
    )


@generator("v1")
def gen_tf1_queues(out: Path) -> None:
    t = tf()
    v1 = t.compat.v1
    graph = seeded_v1_graph()
    with graph.as_default():
        fifo = v1.FIFOQueue(10, [t.float32, t.int64], shapes=[[2], []], name="fifo")
        enq = fifo.enqueue([t.constant([1.0, 2.0]), t.constant(7, t.int64)])
        v1.train.add_queue_runner(v1.train.QueueRunner(fifo, [enq] * 2))
        values, ids = fifo.dequeue_many(4)
        shuffle = v1.RandomShuffleQueue(20, 2, [t.float32], shapes=[[2]], seed=3, name="shuffle")
        v1.train.add_queue_runner(v1.train.QueueRunner(shuffle, [shuffle.enqueue_many([values])]))
        padding = v1.PaddingFIFOQueue(5, [t.int32], shapes=[[None]], name="padding")
        padding.enqueue([t.range(3)])
        names = v1.train.string_input_producer(["a.txt", "b.txt"], shuffle=False, name="files")
        v1.train.batch([shuffle.dequeue(), ids[0]], batch_size=2, name="batch")
        fifo.size(name="fifo_size")
        fifo.close(name="close")
        del names
    write_meta(
        out,
        "tf1_queues",
        graph,
        "MetaGraphDef: FIFOQueueV2/RandomShuffleQueueV2/PaddingFIFOQueueV2, QueueRunners "
        "(queue_runners collection), string_input_producer, train.batch",
    )


@generator("v1")
def gen_tf1_strings(out: Path) -> None:
    t = tf()
    v1 = t.compat.v1
    graph = seeded_v1_graph()
    with graph.as_default():
        s = v1.placeholder(t.string, [None], name="s")
        split = v1.string_split(s, delimiter=" ")
        v1.identity(split.values, name="tokens")
        # A constant pattern becomes StaticRegexReplace, a fed one RegexReplace.
        t.strings.regex_replace(s, "[0-9]+", "#", name="regex")
        pattern = v1.placeholder_with_default("a+", [], name="pattern")
        t.strings.regex_replace(s, pattern, "A", name="regex_dynamic")
        t.strings.regex_full_match(s, pattern, name="full_match")
        t.strings.as_string(t.constant([1.5, 2.25]), precision=2, name="as_string")
        t.strings.join([s, s], separator="|", name="join")
        t.strings.reduce_join(s, separator=",", name="reduce_join")
        t.strings.substr(s, 0, 3, name="substr")
        t.strings.to_number(t.constant(["1", "2.5"]), name="to_number")
        t.strings.to_hash_bucket_fast(s, 10, name="hash")
        t.strings.length(s, unit="UTF8_CHAR", name="length")
        t.strings.unicode_decode(t.constant(["héllo", "wörld"]), "UTF-8", name="decode")
        t.strings.format("x={}", [t.constant(3)], name="format")
        t.io.decode_base64(t.io.encode_base64(s), name="base64")
        t.strings.lower(s, name="lower")
    write_graphdef(
        out,
        "tf1_strings",
        graph.as_graph_def(),
        "string ops: StringSplit, RegexReplace, AsString, StringJoin, ReduceJoin, Substr, "
        "StringToNumber, UnicodeDecode (ragged), StringFormat, base64",
    )


@generator("v1")
def gen_tf1_lookup_tables(out: Path) -> None:
    t = tf()
    v1 = t.compat.v1
    graph = seeded_v1_graph()
    with graph.as_default():
        keys = t.constant(["a", "b", "c"])
        table = t.lookup.StaticHashTable(
            t.lookup.KeyValueTensorInitializer(keys, t.constant([1, 2, 3], t.int64)), -1, name="static"
        )
        words = v1.placeholder(t.string, [None], name="words")
        table.lookup(words, name="ids")
        index = t.lookup.StaticVocabularyTable(
            t.lookup.KeyValueTensorInitializer(keys, t.constant([0, 1, 2], t.int64)), 2, name="vocab"
        )
        index.lookup(words, name="vocab_ids")
        from tensorflow.python.ops import lookup_ops

        idx = lookup_ops.index_table_from_tensor(keys, num_oov_buckets=1, name="index_table")
        inv = lookup_ops.index_to_string_table_from_tensor(keys, name="reverse_table")
        inv.lookup(idx.lookup(words), name="round_trip")
        mutable = t.lookup.experimental.MutableHashTable(t.string, t.float32, 0.0, name="mutable")
        mutable.insert(keys, t.constant([0.5, 1.5, 2.5]), name="insert")
        mutable.lookup(words, name="mutable_lookup")
        dense = t.lookup.experimental.DenseHashTable(t.int64, t.int64, -1, empty_key=0, deleted_key=-1, name="dense")
        dense.insert(t.constant([5, 6], t.int64), t.constant([50, 60], t.int64), name="dense_insert")
        v1.tables_initializer(name="init_all_tables")
    write_meta(
        out,
        "tf1_lookup_tables",
        graph,
        "MetaGraphDef: HashTableV2 + KeyValueTensorInitializer (LookupTableImportV2), "
        "index_table_from_tensor, MutableHashTableV2, MutableDenseHashTableV2, "
        "table_initializer collection",
    )


@generator("v1")
def gen_tf1_data_pipeline(out: Path) -> None:
    t = tf()
    v1 = t.compat.v1
    graph = seeded_v1_graph()
    with graph.as_default():
        ds = t.data.Dataset.from_tensor_slices((t.range(10), t.constant(["x"] * 10)))
        ds = ds.map(lambda i, s: (t.cast(i, t.float32) * 2.0, t.strings.join([s, "!"])))
        ds = ds.filter(lambda f, s: f > 1.0).shuffle(4, seed=7).batch(3).prefetch(1)
        one_shot = v1.data.make_one_shot_iterator(ds)
        one_shot.get_next(name="next_one_shot")
        init = v1.data.make_initializable_iterator(t.data.Dataset.range(5).map(lambda v: v * v).repeat(2))
        init.get_next(name="next_init")
    write_graphdef(
        out,
        "tf1_data_pipeline",
        graph.as_graph_def(),
        "tf.data in graph mode: TensorSliceDataset, MapDataset/FilterDataset (functions in the "
        "library), Shuffle/Batch/Prefetch, one-shot and initializable iterators",
    )


@generator("v1")
def gen_tf1_sparse(out: Path) -> None:
    t = tf()
    v1 = t.compat.v1
    graph = seeded_v1_graph()
    with graph.as_default():
        sp = v1.sparse_placeholder(t.float32, [3, 4], name="sp")
        fixed = t.SparseTensor(indices=[[0, 0], [1, 2]], values=[1.0, 2.0], dense_shape=[3, 4])
        total = t.sparse.add(sp, fixed)
        t.sparse.reduce_sum(total, axis=1, name="row_sums")
        t.sparse.sparse_dense_matmul(total, t.ones([4, 2]), name="matmul")
        t.sparse.to_dense(t.sparse.reorder(fixed), name="dense")
        t.sparse.reshape(fixed, [4, 3], name="reshape")
        t.sparse.concat(1, [fixed, fixed], name="concat")
        t.sparse.split(sp_input=fixed, num_split=2, axis=1, name="split")
        t.sparse.from_dense(t.eye(3), name="from_dense")
        t.sparse.segment_sum(t.ones([4, 2]), [0, 1, 2, 3], [0, 0, 1, 1], name="segment_sum")
        t.nn.embedding_lookup_sparse(t.ones([5, 2]), t.cast(sp, t.int64), None, combiner="mean", name="emb")
    write_graphdef(
        out,
        "tf1_sparse",
        graph.as_graph_def(),
        "sparse ops: sparse_placeholder, SparseAdd, SparseReduceSum, SparseTensorDenseMatMul, "
        "SparseToDense, SparseReshape, SparseConcat, SparseSplit, embedding_lookup_sparse",
    )


def _np_double(x: Any) -> Any:
    return x * 2


@generator("v1")
def gen_tf1_py_func(out: Path) -> None:
    t = tf()
    v1 = t.compat.v1
    graph = seeded_v1_graph()
    with graph.as_default():
        x = v1.placeholder(t.float32, [None], name="x")
        v1.py_func(_np_double, [x], t.float32, name="py_func")
        v1.py_func(_np_double, [x], t.float32, stateful=False, name="py_func_stateless")
        t.numpy_function(_np_double, [x], t.float32, name="numpy_function")
        t.py_function(_np_double, [x], t.float32, name="py_function")
    write_graphdef(
        out,
        "tf1_py_func",
        graph.as_graph_def(),
        "PyFunc, PyFuncStateless, EagerPyFunc (token attrs name Python callables that the file cannot carry)",
    )


def _build_misc(t: Any) -> Any:
    """Devices, colocation, unusual names, control deps, shapes, asserts, dtypes, odd constants."""
    import numpy as np

    v1 = t.compat.v1
    graph = seeded_v1_graph()
    with graph.as_default():
        # Placeholders: unknown rank, unknown dims, scalar, fully known.
        any_rank = v1.placeholder(t.float32, None, name="any_rank")
        partial = v1.placeholder(t.float32, [None, 2], name="partial-shape")
        scalar = v1.placeholder(t.int64, [], name="scalar.int64")
        v1.placeholder_with_default(t.constant([1, 2], t.int32), [2], name="with_default")
        # Node names TensorFlow accepts: '-', '.', '>', leading digit or dot, upper case.
        a = t.identity(partial, name="a-b.c>d")
        t.identity(a, name="0starts.with.digit")
        t.identity(a, name=".leading-dot")
        with v1.name_scope("scope>with-odd.chars"):
            t.add(a, 1.0, name="Add")
        # Device strings in every form TensorFlow writes.
        with t.device("/cpu:0"):
            d1 = t.multiply(a, 2.0, name="dev_legacy")
        with t.device("/device:CPU:0"):
            d2 = t.multiply(d1, 3.0, name="dev_canonical")
        with t.device("/job:localhost/replica:0/task:0/device:CPU:0"):
            d3 = t.add(d2, d1, name="dev_full")
        with t.device("/job:worker/task:1"):
            t.identity(d3, name="dev_job_only")
        # Colocation writes a `_class: "loc:@name"` attr.
        with v1.colocate_with(d1.op):
            t.square(d3, name="colocated")
        # Control dependencies: "^name" inputs, NoOp, group.
        with v1.control_dependencies([d1, d2]):
            after = t.identity(d3, name="after_deps")
        t.group(after, d2, name="group")
        v1.no_op(name="plain_noop")
        # Asserts and checks.
        check = v1.assert_equal(scalar, t.constant(3, t.int64), name="assert_eq")
        with v1.control_dependencies([check, v1.assert_rank(partial, 2, name="assert_rank")]):
            t.identity(scalar, name="checked")
        t.debugging.check_numerics(partial, "bad", name="check_numerics")
        # Multi-output ops consumed by output index ("split:1", "unique:1").
        parts = t.split(t.range(6), 3, name="split")
        t.add(parts[1], parts[2], name="uses_output_2")
        uniq = t.unique(t.constant([1, 1, 2]), name="unique")
        t.identity(uniq.idx, name="unique_idx")
        t.identity_n([parts[0], uniq.y], name="identity_n")
        # Dtypes: int64 bool complex64/128 half bfloat16 uint8 int8 uint16 uint32 uint64 int16 double.
        t.constant(2**40, t.int64, name="c_int64")
        t.constant([True, False], name="c_bool")
        t.constant([1 + 2j], t.complex64, name="c_complex64")
        t.constant([3 - 4j], t.complex128, name="c_complex128")
        half = t.constant([0.5, 1.5], t.float16, name="c_half")
        t.cast(half, t.bfloat16, name="to_bfloat16")
        t.constant([0.25], t.bfloat16, name="c_bfloat16")
        for dtype in ("uint8", "int8", "uint16", "int16", "uint32", "uint64", "float64"):
            t.constant([1, 2], getattr(t, dtype), name=f"c_{dtype}")
        t.logical_and(t.constant(True), v1.placeholder(t.bool, [], name="flag"), name="and")
        t.cast(t.constant([1.0]), t.complex64, name="to_complex")
        # Constants stored unusually: one value broadcast over a shape, big tensor_content,
        # empty tensor, non-UTF-8 bytes and unicode in DT_STRING, a scalar string.
        t.constant(0.0, shape=[4, 4], name="broadcast_scalar")
        t.constant(list(range(20)), t.float32, name="tensor_content")
        t.constant([], t.float32, name="empty")
        t.constant([b"\xff\xfe\x00raw", "ünïcødé".encode(), b""], name="bytes")
        t.constant("scalar string", name="c_string")
        # Special floats in arrays: Python stores them as tensor_content bytes.
        t.constant([float("inf"), float("-inf"), float("nan"), -0.0, 1e-45, 3.4e38], name="special_floats")
        t.constant([float("nan"), 1e-310], t.float64, name="special_doubles")
        # Scalars are stored as float_val, where the text format writes inf / -inf / nan literally.
        for label, value in (("inf", float("inf")), ("neg_inf", float("-inf")), ("nan", float("nan"))):
            t.constant(value, name=f"c_{label}")
        t.constant(float("-inf"), t.float64, name="c_neg_inf_double")
        t.constant(np.array([-3, 4], np.int8), t.qint8, name="c_qint8")
        # Quantized dtypes (qint8, quint8) from quantize/dequantize.
        q = t.quantization.quantize(t.constant([0.1, 0.9]), 0.0, 1.0, t.qint8, name="quantize")
        t.quantization.dequantize(q.output, q.output_min, q.output_max, name="dequantize")
        t.quantization.fake_quant_with_min_max_args(partial, min=-1.0, max=1.0, name="fake_quant")
        # Random ops carry seed/seed2 attrs from the graph seed.
        t.random.uniform([2], seed=5, name="random_uniform")
        t.random.normal([2], name="random_normal")
        t.reduce_sum(any_rank, name="sum_any_rank")
        v1.Print(d3, [d3], message="value: ", name="print_v1")
        t.print(d3, name="print_v2")
    return graph


@generator("v1")
def gen_tf1_misc_ops(out: Path) -> None:
    t = tf()
    graph = _build_misc(t)
    what = (
        "devices (/cpu:0, /device:CPU:0, /job:localhost/replica:0/task:0/device:CPU:0, "
        "/job:worker/task:1), colocation (_class loc:@), names with - . > and leading digit/dot, "
        "control deps, placeholders of unknown rank/partial shape, asserts, every plain dtype, "
        "qint8/quint8, broadcast-scalar/empty/non-UTF-8 constants, multi-output refs"
    )
    write_graphdef(out, "tf1_misc_ops", graph.as_graph_def(), what)
    write_graphdef(
        out,
        "tf1_misc_ops.output_shapes",
        graph.as_graph_def(add_shapes=True),
        "the same with `_output_shapes` attrs (as_graph_def(add_shapes=True))",
        binary=False,
    )
    write_meta(
        out,
        "tf1_misc_ops.strip_default_attrs",
        graph,
        "the same as a MetaGraphDef with default-valued attrs stripped (strip_default_attrs=True)",
        binary=False,
        strip_default_attrs=True,
    )


@generator("v1")
def gen_tf1_functions(out: Path) -> None:
    t = tf()
    v1 = t.compat.v1
    from tensorflow.python.framework import function

    graph = seeded_v1_graph()
    with graph.as_default():

        @function.Defun(t.float32, t.float32)
        def square_grad(x: Any, dy: Any) -> Any:
            return dy * 2.0 * x

        # Legacy Defun: the calling node's op is the function's own name, and a gradient entry
        # links it to square_grad in the library.
        @function.Defun(t.float32, grad_func=square_grad, func_name="MySquare")
        def my_square(x: Any) -> Any:
            return x * x

        @function.Defun(t.float32, t.float32, func_name="Outer-Fn.v1")
        def outer(a: Any, b: Any) -> Any:
            return my_square(a) + b

        # tf.function inside a v1 graph: a (Stateful)PartitionedCall and __inference_* functions.
        var = v1.get_variable("v", [], initializer=v1.ones_initializer(), use_resource=True)

        @t.function
        def inner_tf_function(z: Any) -> Any:
            return z * var

        @t.function
        def nesting_tf_function(z: Any) -> Any:
            return inner_tf_function(z) + 1.0

        x = v1.placeholder(t.float32, [], name="x")
        sq = my_square(x, name="call_square")
        outer(sq, x, name="call_outer")
        v1.gradients(sq, x, name="grad")
        nesting_tf_function(x)
        inner_tf_function(x)
    write_graphdef(
        out,
        "tf1_functions",
        graph.as_graph_def(),
        "FunctionDefLibrary in a v1 graph: legacy Defun (node op = function name, "
        "gradient entry, name with - and .), tf.function called as "
        "(Stateful)PartitionedCall, nested",
    )


def _build_and_save_v1_saved_model(export_dir: Path, vocab: Path, as_text: bool) -> None:
    """One fresh graph + session per save: Builder adds its init op to the graph's collections."""
    t = tf()
    v1 = t.compat.v1
    from tensorflow.python.ops import lookup_ops

    graph = seeded_v1_graph()
    with graph.as_default(), v1.Session(graph=graph) as sess:
        words = v1.placeholder(t.string, [None], name="words")
        table = lookup_ops.index_table_from_file(str(vocab), num_oov_buckets=1, name="vocab_table")
        emb = v1.get_variable("emb", [4, 2], initializer=v1.constant_initializer(0.5), use_resource=False)
        out_t = t.identity(t.nn.embedding_lookup(emb, table.lookup(words)), name="embedded")
        sess.run(v1.global_variables_initializer())
        sess.run(v1.tables_initializer())
        builder = v1.saved_model.Builder(str(export_dir))
        builder.add_meta_graph_and_variables(
            sess,
            [v1.saved_model.tag_constants.SERVING],
            signature_def_map={
                "serving_default": v1.saved_model.predict_signature_def({"words": words}, {"embedded": out_t})
            },
            assets_collection=v1.get_collection(v1.GraphKeys.ASSET_FILEPATHS),
            legacy_init_op=v1.tables_initializer(name="legacy_init_op"),
        )
        # A second meta graph (tag "train") makes a SavedModel holding two graphs.
        builder.add_meta_graph([v1.saved_model.tag_constants.TRAINING], strip_default_attrs=True)
        builder.save(as_text=as_text)


@generator("v1")
def gen_tf1_saved_model_builder(out: Path) -> None:
    work = Path.cwd()
    vocab = Path("vocab.txt")  # relative on purpose, see run_one
    vocab.write_text("apple\nbanana\ncherry\n")
    _build_and_save_v1_saved_model(work / "binary", vocab, as_text=False)
    _build_and_save_v1_saved_model(work / "text", vocab, as_text=True)
    stem = "tf1_builder_lookup_asset"
    what = (
        "TF1 SavedModel (saved_model.Builder): tags serve + train (2 meta graphs, the second with "
        "default attrs stripped), legacy_init_op, index_table_from_file over an asset vocab file, "
        "ref variable, predict signature"
    )
    copy_saved_model(out, stem, work / "binary", what, keep_dir=True, text=False)
    shutil.copyfile(work / "text" / "saved_model.pbtxt", out / f"{stem}.saved_model.pbtxt")
    record(out, out / f"{stem}.saved_model.pbtxt", what + " (written as text by Builder.save(as_text=True))")


@generator("v1")
def gen_tf1_empty_graph(out: Path) -> None:
    write_graphdef(out, "tf1_empty_graph", tf().Graph().as_graph_def(), "an empty graph: no nodes, only versions")


# --------------------------------------------------------------------------------------------
# TF2 (eager, tf.function, control flow v2, SavedModel).


@generator("v2")
def gen_tf2_function_graph(out: Path) -> None:
    t = tf()
    t.random.set_seed(SEED)
    var = t.Variable([[1.0, 2.0], [3.0, 4.0]], name="kernel")

    @t.function(input_signature=[t.TensorSpec([None, 2], t.float32, name="inp")])
    def f(x: Any) -> Any:
        y = t.matmul(x, var)
        t.debugging.assert_all_finite(y, "finite")
        t.print("y:", y)
        words = t.strings.split(t.constant(["a b", "c"]))
        return t.nn.relu(y) + t.cast(words.row_lengths()[0], t.float32)

    graph = f.get_concrete_function().graph
    write_graphdef(
        out,
        "tf2_function_graph",
        graph.as_graph_def(),
        "a tf.function's FuncGraph (concrete_function.graph.as_graph_def()): captured "
        "resource as a Placeholder, PrintV2, ragged string split",
    )


@generator("v2")
def gen_tf2_control_flow_v2(out: Path) -> None:
    t = tf()

    @t.function
    def helper(v: Any) -> Any:
        return v * 2.0

    @t.function(input_signature=[t.TensorSpec([], t.int32), t.TensorSpec([3], t.float32)])
    def f(n: Any, x: Any) -> Any:
        # Tensor-dependent loop and branches become While/If/Case with body functions.
        i = t.constant(0)
        acc = x
        ta = t.TensorArray(t.float32, size=0, dynamic_size=True)
        while i < n:
            if t.reduce_sum(acc) > 10.0:
                acc = acc - 1.0
            else:
                acc = helper(acc)
            ta = ta.write(i, t.reduce_sum(acc))
            i += 1
        stateless = t.while_loop(lambda k: k < 5, lambda k: k + 1, [t.constant(0)])
        branch = t.switch_case(n % 3, [lambda: acc, lambda: acc * 3.0, lambda: -acc])
        cond = t.cond(n > 1, lambda: branch + 1.0, lambda: branch)
        return cond + t.reduce_sum(ta.stack()) + t.cast(stateless, t.float32)

    @t.function(input_signature=[t.TensorSpec([], t.int32), t.TensorSpec([3], t.float32)])
    def with_grad(n: Any, x: Any) -> Any:
        with t.GradientTape() as tape:
            tape.watch(x)
            y = f(n, x)
        return tape.gradient(y, x)

    graph = with_grad.get_concrete_function().graph
    write_graphdef(
        out,
        "tf2_control_flow_v2",
        graph.as_graph_def(),
        "control flow v2: While/StatelessWhile, If/StatelessIf, Case, TensorList ops, nested "
        "tf.function (PartitionedCall) and GradientTape gradient functions in the library",
    )


@generator("v2")
def gen_tf2_control_flow_v2_stateful(out: Path) -> None:
    t = tf()
    counter = t.Variable(0, name="counter")

    @t.function(input_signature=[t.TensorSpec([], t.int32)])
    def f(n: Any) -> Any:
        # Bodies that touch a variable or print are stateful: While, If, Case (not Stateless*).
        i = t.constant(0)
        while i < n:
            counter.assign_add(1)
            i += 1
        if n > 2:
            counter.assign_add(10)
            y = counter.read_value()
        else:
            t.print("small", n)
            y = n
        return t.switch_case(
            n % 2, [lambda: y + counter.read_value(), lambda: y + t.random.uniform([], 0, 5, t.int32, seed=2)]
        )

    write_graphdef(
        out,
        "tf2_control_flow_v2_stateful",
        f.get_concrete_function().graph.as_graph_def(),
        "stateful control flow v2: While, If, Case whose branches assign a variable, print or draw random numbers",
    )


@generator("v2")
def gen_tf2_stateful_partitioned_call(out: Path) -> None:
    t = tf()
    var = t.Variable(3.0, name="scale")

    @t.function(jit_compile=True)
    def xla_inner(x: Any) -> Any:
        return x * var

    @t.function
    def inner(x: Any) -> Any:
        var.assign_add(1.0)
        return xla_inner(x) + var

    @t.function(input_signature=[t.TensorSpec([None], t.float32)])
    def outer(x: Any) -> Any:
        return inner(x) * 2.0

    write_graphdef(
        out,
        "tf2_stateful_partitioned_call",
        outer.get_concrete_function().graph.as_graph_def(),
        "StatefulPartitionedCall to a function that assigns a variable and calls a "
        "jit_compile function (_XlaMustCompile attr)",
    )


@generator("v2")
def gen_tf2_data_pipeline(out: Path) -> None:
    t = tf()

    @t.function(input_signature=[t.TensorSpec([None], t.int64)])
    def f(values: Any) -> Any:
        ds = t.data.Dataset.from_tensor_slices(values).map(lambda v: v * 2)
        ds = ds.filter(lambda v: v > 0).batch(2).prefetch(1)
        total = t.constant(0, t.int64)
        for batch in ds:
            total += t.reduce_sum(batch)
        return total

    write_graphdef(
        out,
        "tf2_data_pipeline",
        f.get_concrete_function().graph.as_graph_def(),
        "tf.data inside a tf.function: dataset ops with experimental_type (FullTypeDef), "
        "iteration as a While over AnonymousIteratorV3/IteratorGetNextAsOptional",
    )


@generator("v2")
def gen_tf2_module_signatures(out: Path) -> None:
    t = tf()

    class Model(t.Module):
        def __init__(self) -> None:
            super().__init__()
            self.w = t.Variable([[0.5], [-0.5]], name="w")
            self.count = t.Variable(0, dtype=t.int64, name="count")

        @t.function(input_signature=[t.TensorSpec([None, 2], t.float32, name="x")])
        def predict(self, x: Any) -> dict[str, Any]:
            return {"y": t.matmul(x, self.w)}

        @t.function(input_signature=[t.TensorSpec([], t.string, name="text")])
        def length(self, text: Any) -> dict[str, Any]:
            self.count.assign_add(1)
            return {"len": t.strings.length(text), "calls": self.count.read_value()}

        @t.function(input_signature=[t.TensorSpec([None], t.float32)])
        def not_a_signature(self, v: Any) -> Any:
            return v + 1.0

    model = Model()
    work = scratch("sm")
    t.saved_model.save(model, str(work), signatures={"serving_default": model.predict, "length": model.length})
    copy_saved_model(
        out,
        "tf2_module_signatures",
        work,
        "TF2 SavedModel of a tf.Module: two signatures (serving_default, length), a plain "
        "tf.function, variables; signature wrappers call StatefulPartitionedCall",
        keep_dir=True,
    )


@generator("v2")
def gen_tf2_assets_hashtable(out: Path) -> None:
    t = tf()
    work = scratch("work")
    vocab = Path("vocab.txt")  # relative on purpose, see run_one
    vocab.write_text("red\ngreen\nblue\n")

    class Lookup(t.Module):
        def __init__(self) -> None:
            super().__init__()
            self.vocab = t.saved_model.Asset(str(vocab))
            self.table = t.lookup.StaticHashTable(
                t.lookup.TextFileInitializer(
                    self.vocab, t.string, t.lookup.TextFileIndex.WHOLE_LINE, t.int64, t.lookup.TextFileIndex.LINE_NUMBER
                ),
                -1,
            )
            self.oov = t.lookup.StaticVocabularyTable(
                t.lookup.KeyValueTensorInitializer(["x", "y"], t.constant([0, 1], t.int64)), 3
            )

        @t.function(input_signature=[t.TensorSpec([None], t.string, name="words")])
        def __call__(self, words: Any) -> dict[str, Any]:
            return {"ids": self.table.lookup(words), "oov_ids": self.oov.lookup(words)}

    module = Lookup()
    export_dir = work / "sm"
    t.saved_model.save(module, str(export_dir), signatures=module.__call__)
    copy_saved_model(
        out,
        "tf2_assets_hashtable",
        export_dir,
        "TF2 SavedModel with tf.saved_model.Asset (asset_file_def), StaticHashTable from a "
        "TextFileInitializer, StaticVocabularyTable",
        keep_dir=True,
    )


def _keras_models(t: Any) -> tuple[Any, Any]:
    import keras

    keras.utils.set_random_seed(SEED)
    sequential = keras.Sequential(
        [
            keras.Input((4,), name="features"),
            keras.layers.Dense(3, activation="relu"),
            keras.layers.BatchNormalization(),
            keras.layers.Dropout(0.5),
            keras.layers.Dense(2, activation="softmax"),
        ],
        name="tiny_sequential",
    )
    tokens = keras.Input((5,), dtype="int32", name="tokens")
    image = keras.Input((6, 6, 1), name="image")
    embedded = keras.layers.GlobalAveragePooling1D()(keras.layers.Embedding(10, 2)(tokens))
    conv = keras.layers.Conv2D(2, 3, activation="relu")(image)
    pooled = keras.layers.Flatten()(keras.layers.MaxPooling2D()(conv))
    merged = keras.layers.Concatenate()([embedded, pooled])
    functional = keras.Model([tokens, image], keras.layers.Dense(1, name="score")(merged), name="tiny_functional")
    return sequential, functional


@generator("v2")
def gen_tf2_keras(out: Path) -> None:
    t = tf()
    sequential, functional = _keras_models(t)
    for stem, model, what in (
        ("tf2_keras_sequential", sequential, "Keras 3 Sequential (Dense, BatchNormalization, Dropout)"),
        (
            "tf2_keras_functional",
            functional,
            "Keras 3 functional model, two inputs (Embedding, Conv2D, MaxPooling2D, Concatenate)",
        ),
    ):
        export_dir = scratch(stem) / "sm"
        model.export(str(export_dir), format="tf_saved_model", verbose=False)
        # Keras text SavedModels run to ~200 KB each: one text variant is enough.
        copy_saved_model(
            out, stem, export_dir, f"TF2 SavedModel from model.export(): {what}", text=stem == "tf2_keras_functional"
        )


@generator("v2")
def gen_tf2_frozen_keras(out: Path) -> None:
    t = tf()
    from tensorflow.python.framework.convert_to_constants import (
        convert_variables_to_constants_v2,
    )

    _, functional = _keras_models(t)
    concrete = t.function(functional).get_concrete_function(
        [t.TensorSpec([None, 5], t.int32, name="tokens"), t.TensorSpec([None, 6, 6, 1], t.float32, name="image")]
    )
    frozen = convert_variables_to_constants_v2(concrete)
    write_graphdef(
        out,
        "tf2_frozen_keras",
        frozen.graph.as_graph_def(),
        "frozen inference graph (convert_variables_to_constants_v2) of the Keras functional model: weights as Const",
    )


# --------------------------------------------------------------------------------------------
# Driver.


def run_one(name: str, out: Path) -> list[tuple[str, str]]:
    """Child side: set TF's process-wide mode, run one generator, report its artifacts."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    mode, fn = GENERATORS[name]
    import random
    import uuid

    import numpy as np

    np.random.seed(SEED)
    # Lookup tables get shared_name "hash_table_<uuid4>"; seeded UUIDs keep reruns identical.
    rng = random.Random(SEED)
    uuid.uuid4 = lambda: uuid.UUID(int=rng.getrandbits(128), version=4)
    if mode == "v1":
        tf().compat.v1.disable_v2_behavior()
    # Work in a scratch directory: asset files are then named by a relative path, so no
    # temporary directory name leaks into the graphs (TF1 stores the asset path in a Const).
    with tempfile.TemporaryDirectory(prefix=f"gen_{name}_") as work:
        os.chdir(work)
        try:
            fn(out)
        finally:
            os.chdir(out)
    return ARTIFACTS


def spawn(name: str, out: Path) -> list[tuple[str, str]]:
    # A fixed hash seed removes one source of run-to-run variation (Python set order). Protobuf
    # map order inside serialized context protos and Keras variable order still vary (see README).
    env = dict(os.environ, PYTHONHASHSEED="0")
    proc = subprocess.run(
        [sys.executable, os.path.abspath(__file__), "--one", name, "--out", str(out)],
        capture_output=True,
        text=True,
        env=env,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"generator {name} failed:\n{proc.stderr[-4000:]}")
    for line in proc.stderr.splitlines():
        if line.startswith("warning:"):
            print(line, file=sys.stderr)
    return [tuple(a) for a in json.loads(proc.stdout.strip().splitlines()[-1])]


# What TensorFlow wrote into these files that a linter could mistake for an error. Checked by hand
# against this script's output under TensorFlow 2.21.0: re-check after a TensorFlow upgrade.
FINDINGS = """\
- **Node names.** `-`, `.` and `>` anywhere after the first character, and a first character that is a
  digit or `.`: `a-b.c>d`, `0starts.with.digit`, `.leading-dot`, `scope>with-odd.chars/Add`,
  `partial-shape`, `scalar.int64` (`tf1_misc_ops`). A TF2 FuncGraph names the placeholder of a
  captured resource by a bare number (`23` in `tf2_stateful_partitioned_call`). Function names start
  with `__inference_`, `__forward_`, `__backward_` or `_make_dataset_`, and legacy `Defun` names may
  hold `-` and `.` (`Outer-Fn.v1`) and get a hash suffix (`square_grad_ZojlS87qmrI`). The importer
  accepts exactly `[A-Za-z0-9.][A-Za-z0-9_./>-]*` (so also `a/`, `a//b`, `.`, `..`) and rejects a
  leading `_`, `-`, `>` or `/`, and any space, `:`, `@`, `\\` or non-ASCII letter.
- **Ops that are functions.** A legacy `Defun` call node has the function's name as its `op`
  (`MySquare`, `Outer-Fn.v1` in `tf1_functions`): not a registered op, it resolves against the
  library. The library also holds `gradient { function_name: "MySquare" gradient_func: ... }`, and
  `tf.gradients` emits `SymbolicGradient` nodes whose `f` attr names a function.
- **Devices.** `/cpu:0` is written canonicalised as `/device:CPU:0`; partial specs are kept verbatim
  (`/job:worker/task:1`); full `/job:localhost/replica:0/task:0/device:CPU:0`; the wildcard
  `/device:CPU:*` on save/restore ops of every SavedModel (graph nodes and `__inference__traced_save_*`
  / `_traced_restore_*` function bodies). Function-body nodes carry devices too.
- **Colocation.** `_class` is a list attr of strings `loc:@<node name>`.
- **`_`-prefixed attrs** (in no OpDef; TensorFlow ignores them): on nodes `_output_shapes` (shapes with
  `unknown_rank: true` and `size: -1` dims; `list { }` on ops with no outputs), `_class`,
  `_has_manual_control_dependencies`, `_read_only_resource_inputs` and `_collective_manager_ids` (often
  `list { }`), `_lower_using_switch_merge`, `_user_specified_name`, `_num_original_outputs`,
  `_disable_call_shape_inference`, `_XlaMustCompile`. On `FunctionDef.attr`: `_construction_context`,
  `_input_shapes`, `_tf_data_function`, `_noinline`, `_XlaMustCompile`, and the un-prefixed
  `forward_function_name` / `backward_function_name`. FunctionDefs also carry `arg_attr`,
  `control_ret` and `is_stateful`.
- **Empty attr values.** `FunctionDef.attr["_input_shapes"]` of zero-argument functions is an AttrValue
  with no value set at all (`value { }`, creator/destroyer functions in `tf2_assets_hashtable`).
  Empty lists `list { }` are common: `Targuments` of MapDataset/FilterDataset, `explicit_paddings`,
  `squeeze_dims`, `allowed_devices`.
- **Missing attrs that have defaults.** TF2 `saved_model.save` and `model.export` always strip
  default-valued attrs (`meta_info_def.stripped_default_attrs: true`), as do
  `tf1_misc_ops.strip_default_attrs.meta.pbtxt` and the second meta graph of
  `tf1_builder_lookup_asset`: e.g. `Placeholder` without `shape`, `MatMul` without `transpose_a`,
  `VarHandleOp` without `container`/`allowed_devices`, `StatefulPartitionedCall` without `config`.
  No attr without a default was ever missing, and no node had an unknown attr that does not start with
  `_` (TensorFlow would accept one anyway, logging `NodeDef mentions attribute ... which is not in the
  op definition`).
- **Const tensors.** Every Const has `dtype`. A tensor may hold fewer values than elements: one
  `float_val` broadcast over the shape (`broadcast_scalar`, many gradient Consts), or **no value field
  at all** for all-zero tensors (scalar int32 0 in `tf2_frozen_keras`: `.../Less/y`,
  `.../GatherV2/axis`). Empty tensors have shape `dim { }` (size 0 is omitted by proto3, so an empty
  `dim` means 0, not unknown). Arrays are `tensor_content` bytes (inf/nan included); scalars use the
  typed fields, where the text format writes `inf`, `-inf` and `nan`. bfloat16 and half both go to
  `half_val` as raw bits (16000 = bfloat16 0.25); qint8 as `tensor_content`; complex as pairs in
  `scomplex_val`/`dcomplex_val`. The text format escapes every non-ASCII byte as octal (`\\303\\274`);
  strings hold non-UTF-8 bytes and NULs (`\\377\\376\\000raw`).
- **Inputs.** Graph nodes use `node`, `node:1` and `^node`; function bodies use
  `node:output_arg:index` (`MatMul:product:0`) and argument names.
- **`experimental_type`** (FullTypeDef) on Shape, TensorList*, dataset ops, OptionalFromValue,
  MakeIterator.
- **MetaGraphDef collections.** `node_list` values are op names in some collections
  (`saveable_objects`: `mutable`, `dense`) and tensor names in others (`asset_filepaths`:
  `vocab_table/hash_table/asset_path:0`); `bytes_list` holds serialized WhileContextDef/CondContextDef.
  `Builder.save(as_text=True)` writes `any_list` entries as raw `type_url` + `value` bytes, not in the
  expanded `[type.googleapis.com/...] { }` form.
- **Strings inside attrs** are arbitrary: `shared_name` holds a Python repr with spaces, `<`, `>` and a
  memory address (`hash_table_<tensorflow.python.trackable.asset.Asset object at 0x7f...>_-2_-1`) or a
  relative file name (`hash_table_vocab.txt_-2_-1`).
- **Signatures.** Every TF2 SavedModel has a `__saved_model_init_op` signature with an empty
  `method_name`; its graph has ~10 nodes and everything else lives in the function library.
- **Versions.** producer 2474 everywhere; `min_consumer` 12 where the graph has a function library
  (0 otherwise); the empty graph is just `versions { producer: 2474 }` (5 bytes in binary).
- **TensorFlow's own loader disagrees with itself.** `tf.compat.v1.train.import_meta_graph` fails on
  `tf1_lookup_tables.meta(.pbtxt)` (TypeError: can't convert Operation 'dense' to Tensor: the
  `saveable_objects` collection names an op, not a tensor) although `import_graph_def` accepts it and
  TensorFlow itself wrote it. No import logged any warning (no `tf_log`).
"""


def write_readme(
    out: Path, artifacts: list[tuple[str, str]], labels: dict[str, dict[str, Any]], tf_version: str
) -> None:
    total = sum(p.stat().st_size for p in out.rglob("*") if p.is_file() and p.name not in ("README.md", "labels.jsonl"))
    lines = [
        f"# Real graphs written by TensorFlow {tf_version}",
        "",
        f"Every graph here was written by TensorFlow {tf_version} itself (tf.io.write_graph, "
        "export_meta_graph, saved_model.save, saved_model.Builder, Keras export) from a tiny model, and "
        "TensorFlow imports every one of them: tflint must report **no error** on any file here. "
        "`labels.jsonl` holds TensorFlow's verdict for each, computed by `tools/tf_verdict.py` the way "
        "`shared/wild/labels.jsonl` was (each graph imported with "
        '`tf.graph_util.import_graph_def(graph_def, name="")` into a fresh `tf.Graph()`, one process '
        "per file; MetaGraphDefs also through `tf.compat.v1.train.import_meta_graph`).",
        "",
        "`*.saved_model.pbtxt` files are `text_format.MessageToString` of the binary `saved_model.pb` "
        "(TF2 writes no text SavedModel), except `tf1_builder_lookup_asset.saved_model.pbtxt`, which "
        "`Builder.save(as_text=True)` wrote. `savedmodel_dirs/<name>/` keeps a whole SavedModel "
        "directory (saved_model.pb, fingerprint.pb, variables/, assets/); its label is the directory's.",
        "",
        "Regenerate (needs TensorFlow, which tflint itself never needs):",
        "",
        "    $TF_PYTHON tools/gen_test_graphs.py            # everything: graphs, labels.jsonl, README.md",
        "    $TF_PYTHON tools/gen_test_graphs.py --out DIR  # somewhere else",
        "    $TF_PYTHON tools/gen_test_graphs.py --only tf2_keras  # rewrite some graphs, print their labels",
        "",
        "Reruns give the same graphs, but not always the same bytes: `tf2_assets_hashtable*` (a "
        "`shared_name` embeds a Python object address), the Keras SavedModels (variables come in another "
        "order), `tf1_control_flow_v1.meta.pbtxt` and `tf1_misc_ops.strip_default_attrs.meta.pbtxt` (the "
        "serialized WhileContextDef/CondContextDef in their collections hold protobuf maps, written in "
        "hash order), and `fingerprint.pb`.",
        "",
        f"{len(labels)} labelled files, {total} bytes in all.",
        "",
        "| file | what it is | nodes | functions | message type | text/binary |",
        "|---|---|---:|---:|---|---|",
    ]
    previous = ""
    for rel, description in artifacts:
        label = labels[rel]
        # A graph written twice (text and binary) is described once.
        shown = "the same" if description == previous else description
        previous = description
        lines.append(
            f"| `{rel}` | {shown} | {label['nodes']} | {label['functions']} | "
            f"{label['message_type']} | {label['format']} |"
        )
    lines += ["", "## What TensorFlow writes that a linter must not flag", "", FINDINGS]
    (out / "README.md").write_text("\n".join(lines))


def clean(out: Path) -> None:
    """Remove what an earlier run generated (as listed in its labels.jsonl), and nothing else."""
    labels = out / "labels.jsonl"
    if not labels.exists():
        if any(out.iterdir()):
            raise SystemExit(f"{out} is not empty and holds no labels.jsonl: not a directory this script wrote")
        return
    for line in labels.read_text().splitlines():
        target = out / json.loads(line)["file"]
        if target.is_dir():
            shutil.rmtree(target)
        elif target.exists():
            target.unlink()
    for name in ("README.md", "labels.jsonl"):
        (out / name).unlink(missing_ok=True)
    for directory in sorted((p for p in out.rglob("*") if p.is_dir()), reverse=True):
        if not any(directory.iterdir()):
            directory.rmdir()


def label_files(out: Path, files: list[str], jobs: int) -> dict[str, dict[str, Any]]:
    verdict = Path(__file__).resolve().parent / "tf_verdict.py"
    proc = subprocess.run(
        [sys.executable, str(verdict), "-j", str(jobs), *files], cwd=out, capture_output=True, text=True, check=True
    )
    return {json.loads(line)["file"]: json.loads(line) for line in proc.stdout.splitlines() if line}


def main(argv: list[str] | None = None) -> int:
    default_out = Path(__file__).resolve().parent.parent / "tests" / "data" / "real"
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, default=default_out, help=f"output directory (default {default_out})")
    parser.add_argument(
        "--only",
        nargs="*",
        choices=sorted(GENERATORS),
        help="run only these generators and print their labels (labels.jsonl and README.md are left alone)",
    )
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--one", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    out: Path = args.out.resolve()
    if args.one:
        print(json.dumps(run_one(args.one, out)))
        return 0
    out.mkdir(parents=True, exist_ok=True)
    if not args.only:
        # Start clean so that renamed artifacts do not linger.
        clean(out)
    names = args.only or list(GENERATORS)
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        results = list(pool.map(lambda n: spawn(n, out), names))
    artifacts = [a for result in results for a in result]
    labels = label_files(out, [rel for rel, _ in artifacts], args.jobs)
    bad = {rel: lab for rel, lab in labels.items() if lab["tf_verdict"] != "imports"}
    if args.only:
        # A partial run cannot describe the files it did not write: print, leave labels/README be.
        for rel, _ in artifacts:
            print(json.dumps(labels[rel], ensure_ascii=False))
    else:
        with open(out / "labels.jsonl", "w") as fh:
            for rel, _ in artifacts:
                fh.write(json.dumps(labels[rel], ensure_ascii=False) + "\n")
        tf_version = (
            subprocess.run(
                [sys.executable, "-c", "import tensorflow as t; print(t.__version__)"],
                capture_output=True,
                text=True,
                check=True,
            )
            .stdout.strip()
            .splitlines()[-1]
        )
        write_readme(out, artifacts, labels, tf_version)
    for rel, lab in bad.items():
        print(f"NOT IMPORTED: {rel}: {lab['tf_verdict']}: {lab['tf_message']}", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
