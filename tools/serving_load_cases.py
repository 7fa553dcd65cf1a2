"""Build small SavedModels with TensorFlow, break them the ways serving breaks, and record what TensorFlow does.

Run with a TensorFlow 2.21 interpreter (never a dependency of tflint itself) and the TF Serving
API protos on the path (`pip install --no-deps --target DIR tensorflow-serving-api`):

    PYTHONPATH=DIR $TF_PYTHON tools/serving_load_cases.py            # rewrite tests/data/serving_load
    PYTHONPATH=DIR $TF_PYTHON tools/serving_load_cases.py --out DIR

What it writes (kept small: tiny models, variants stored as the files they change):

- `bases/<base>/`: whole SavedModels (TF2 tf.Module, a vocabulary lookup table, a TF1
  SavedModelBuilder model with an init op, a TF2 model whose variables are in two shards),
  each with a valid `assets.extra/tf_serving_warmup_requests`;
- `variants/<case>/`: for a broken case, the files it replaces (a checkpoint rewritten by
  TensorFlow's own SaveV2 without a key, with a shape or dtype changed; warm-up files);
- `verdicts.json`: per case, the base, the mutation (files replaced, deleted, truncated, bytes
  flipped) and what TensorFlow did.

The verdicts, per case:

- `cpp_load`: TensorFlow's C++ `LoadSavedModel` (what TF Serving calls), reached through the C
  API `TF_LoadSessionFromSavedModel` in libtensorflow_cc (ctypes) with tags {serve};
- `warmup`: TF Serving's warm-up emulated on that C++ session: the records read with
  TensorFlow's own TFRecord reader (its CRC and truncation errors), at most 1000, each parsed as
  a PredictionLog and run as TF Serving's RunPredict / RunClassify / RunRegress do (signature
  lookup, method name, input count and names, the request's TensorProtos turned into tensors by
  `TF_TensorFromProto`, then `TF_SessionRun` feeding them to the signature's tensors);
- `first_request`: a predict request with the base's valid inputs on the loaded session (a model
  that loads but cannot serve fails here);
- `tf1_load` / `tf2_load`: `tf.compat.v1.saved_model.loader.load` in a Session, and
  `tf.saved_model.load`.

Each value is "ok" or the first line of TensorFlow's error.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import shutil
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_OUT = os.path.join(REPO, "tests", "data", "serving_load")
WARMUP = os.path.join("assets.extra", "tf_serving_warmup_requests")
MAX_WARMUP_RECORDS = 1000  # TF Serving's WarmupConsts::kMaxNumRecords

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import tensorflow as tf  # noqa: E402
from tensorflow_serving.apis import (  # noqa: E402
    classification_pb2,
    input_pb2,
    model_pb2,
    predict_pb2,
    prediction_log_pb2,
)

# -- the bases ------------------------------------------------------------------------------------


def build_tf2_module(path: str) -> dict:
    class Dense(tf.Module):
        def __init__(self) -> None:
            super().__init__()
            self.kernel = tf.Variable(tf.reshape(tf.range(12, dtype=tf.float32), [3, 4]), name="kernel")
            self.bias = tf.Variable(tf.zeros([4]), name="bias")

        @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32, name="x")])
        def serve(self, x):
            return {"y": tf.matmul(x, self.kernel) + self.bias}

    module = Dense()
    tf.saved_model.save(module, path, signatures={"serving_default": module.serve})
    return {"x": tf.make_tensor_proto([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], tf.float32)}


def build_tf2_lookup(path: str) -> dict:
    vocabulary = os.path.join(tempfile.mkdtemp(), "vocab.txt")
    with open(vocabulary, "w") as f:
        f.write("apple\nbanana\ncherry\n")

    class Lookup(tf.Module):
        def __init__(self) -> None:
            super().__init__()
            initializer = tf.lookup.TextFileInitializer(
                vocabulary, tf.string, tf.lookup.TextFileIndex.WHOLE_LINE, tf.int64, tf.lookup.TextFileIndex.LINE_NUMBER
            )
            self.table = tf.lookup.StaticHashTable(initializer, default_value=-1)
            self.scale = tf.Variable(2, dtype=tf.int64, name="scale")

        @tf.function(input_signature=[tf.TensorSpec([None], tf.string, name="words")])
        def serve(self, words):
            return {"ids": self.table.lookup(words) * self.scale}

    module = Lookup()
    tf.saved_model.save(module, path, signatures={"serving_default": module.serve})
    return {"words": tf.make_tensor_proto([b"banana", b"kiwi"], tf.string)}


def build_tf1_builder(path: str) -> dict:
    graph = tf.Graph()
    with graph.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [None, 2], name="x")
        weights = tf.compat.v1.get_variable("weights", initializer=tf.constant([[1.0], [2.0]]))
        offset = tf.compat.v1.get_variable("offset", initializer=tf.constant([0.5]))
        y = tf.identity(tf.matmul(x, weights) + offset, name="y")
        counter = tf.compat.v1.get_variable("counter", initializer=tf.constant(0, tf.int64), trainable=False)
        init_op = tf.group(tf.compat.v1.assign(counter, 0), name="init_counter")
        with tf.compat.v1.Session(graph=graph) as session:
            session.run(tf.compat.v1.global_variables_initializer())
            builder = tf.compat.v1.saved_model.Builder(path)
            signature = tf.compat.v1.saved_model.predict_signature_def({"x": x}, {"y": y})
            builder.add_meta_graph_and_variables(
                session, ["serve"], signature_def_map={"serving_default": signature}, main_op=init_op
            )
            builder.save()
    return {"x": tf.make_tensor_proto([[1.0, 1.0]], tf.float32)}


def build_tf1_sharded(path: str) -> dict:
    """Variables on two CPU devices: the Builder's saver is sharded by device, so the checkpoint has two shards."""
    graph = tf.Graph()
    with graph.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [None, 2], name="x")
        with tf.device("/cpu:0"):
            first = tf.compat.v1.get_variable("first", initializer=tf.ones([2, 2]))
        with tf.device("/cpu:1"):
            second = tf.compat.v1.get_variable("second", initializer=tf.fill([2, 2], 3.0))
        y = tf.identity(tf.matmul(tf.matmul(x, first), second), name="y")
        config = tf.compat.v1.ConfigProto(device_count={"CPU": 2})
        with tf.compat.v1.Session(graph=graph, config=config) as session:
            session.run(tf.compat.v1.global_variables_initializer())
            builder = tf.compat.v1.saved_model.Builder(path)
            signature = tf.compat.v1.saved_model.predict_signature_def({"x": x}, {"y": y})
            builder.add_meta_graph_and_variables(
                session, ["serve"], signature_def_map={"serving_default": signature}, clear_devices=True
            )
            builder.save()
    return {"x": tf.make_tensor_proto([[1.0, 2.0]], tf.float32)}


BASES = {
    "tf2_module": build_tf2_module,
    "tf2_lookup": build_tf2_lookup,
    "tf1_builder": build_tf1_builder,
    "tf1_sharded": build_tf1_sharded,
}


# -- warm-up files --------------------------------------------------------------------------------


def predict_log(inputs: dict, signature: str = "") -> bytes:
    request = predict_pb2.PredictRequest(model_spec=model_pb2.ModelSpec(name="model", signature_name=signature))
    for key, proto in inputs.items():
        request.inputs[key].CopyFrom(proto)
    return prediction_log_pb2.PredictionLog(
        predict_log=prediction_log_pb2.PredictLog(request=request)
    ).SerializeToString()


def classify_log() -> bytes:
    example = tf.train.Example()
    example.features.feature["x"].float_list.value.extend([1.0, 2.0, 3.0])
    request = classification_pb2.ClassificationRequest(
        model_spec=model_pb2.ModelSpec(name="model"),
        input=input_pb2.Input(example_list=input_pb2.ExampleList(examples=[example])),
    )
    return prediction_log_pb2.PredictionLog(
        classify_log=prediction_log_pb2.ClassifyLog(request=request)
    ).SerializeToString()


def val_tensor(dtype, dims: list, field: str, values: list):  # type: ignore[no-untyped-def]
    """A TensorProto of `dtype` and shape `dims` whose values are in the typed list `field` (no tensor_content)."""
    proto = tf.make_tensor_proto([], dtype)
    proto.tensor_shape.Clear()
    for size in dims:
        proto.tensor_shape.dim.add(size=size)
    proto.ClearField("tensor_content")
    getattr(proto, field).extend(values)
    return proto


def write_records(path: str, records: list[bytes]) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with tf.io.TFRecordWriter(path) as writer:
        for record in records:
            writer.write(record)


# -- checkpoints rewritten by TensorFlow's SaveV2 -------------------------------------------------


def rewrite_checkpoint(base: str, target: str, change) -> None:  # type: ignore[no-untyped-def]
    """Write `target`/variables/ with SaveV2: the base's tensors, passed through `change(key, tensor)`."""
    reader = tf.train.load_checkpoint(os.path.join(base, "variables", "variables"))
    names, tensors = [], []
    for key in sorted(reader.get_variable_to_dtype_map()):
        tensor = change(key, tf.constant(reader.get_tensor(key)))
        if tensor is not None:
            names.append(key)
            tensors.append(tensor)
    added = getattr(change, "added", None)
    if added:
        names.append(added)
        tensors.append(tf.constant(EXTRA_TENSOR))
    os.makedirs(os.path.join(target, "variables"), exist_ok=True)
    prefix = os.path.join(target, "variables", "variables")
    with tf.device("/cpu:0"):
        tf.raw_ops.SaveV2(prefix=prefix, tensor_names=names, shape_and_slices=[""] * len(names), tensors=tensors)


def drop(victim: str):  # type: ignore[no-untyped-def]
    return lambda key, tensor: None if key == victim else tensor


def transpose(victim: str):  # type: ignore[no-untyped-def]
    return lambda key, tensor: tf.transpose(tensor) if key == victim else tensor


def cast(victim: str, dtype):  # type: ignore[no-untyped-def]
    return lambda key, tensor: tf.cast(tensor, dtype) if key == victim else tensor


def extra(name: str):  # type: ignore[no-untyped-def]
    """Keep every tensor and add `name` (SaveV2 is given one more tensor)."""

    def keep(key, tensor):  # type: ignore[no-untyped-def]
        return tensor

    keep.added = name  # type: ignore[attr-defined]
    return keep


EXTRA_TENSOR = [1.0, 2.0]


# -- the cases ------------------------------------------------------------------------------------

SHARDED_SECOND = "variables/variables.data-00001-of-00002"
TF2_KERNEL = "kernel/.ATTRIBUTES/VARIABLE_VALUE"
TF2_BIAS = "bias/.ATTRIBUTES/VARIABLE_VALUE"


def cases(valid: dict) -> list[dict]:
    """Each case: name, base, and its mutation (what tests replay without TensorFlow)."""
    out: list[dict] = []
    for base in BASES:
        out.append({"case": f"{base}", "base": base})
        out.append({"case": f"{base}-index-truncated", "base": base, "truncate": {"variables/variables.index": 0.5}})
        out.append({"case": f"{base}-index-garbage", "base": base, "garbage": ["variables/variables.index"]})
        out.append({"case": f"{base}-warmup-bad-crc", "base": base, "flip": {WARMUP: -1}})
        out.append({"case": f"{base}-warmup-truncated", "base": base, "truncate": {WARMUP: -3}})
    for base in ("tf2_module", "tf1_builder", "tf2_lookup"):
        out.append(
            {"case": f"{base}-shard-deleted", "base": base, "delete": ["variables/variables.data-00000-of-00001"]}
        )
        out.append(
            {
                "case": f"{base}-shard-truncated",
                "base": base,
                "truncate": {"variables/variables.data-00000-of-00001": 0.5},
            }
        )
        out.append(
            {"case": f"{base}-shard-byte-flipped", "base": base, "flip": {"variables/variables.data-00000-of-00001": 0}}
        )
        out.append(
            {"case": f"{base}-warmup-wrong-signature", "base": base, "warmup": [("predict", valid[base], "nope")]}
        )
        first_key = sorted(valid[base])[0]
        renamed = {first_key + "_typo": valid[base][first_key]}
        out.append({"case": f"{base}-warmup-wrong-input", "base": base, "warmup": [("predict", renamed, "")]})
        out.append({"case": f"{base}-warmup-garbage-record", "base": base, "warmup_raw": [b"\xff\xff\xff"]})
        out.append({"case": f"{base}-warmup-classify-on-predict", "base": base, "warmup": [("classify", None, "")]})
        out.append({"case": f"{base}-warmup-empty", "base": base, "warmup_raw": []})
        out.append({"case": f"{base}-variables-removed", "base": base, "delete": ["variables"]})
    float_input = {
        "tf2_module": ("x", [[1, 2, 3]], [[1.0, 2.0, 3.0, 4.0]], [1.0, 2.0, 3.0]),
        "tf1_builder": ("x", [[1, 2]], [[1.0, 2.0, 3.0]], [1.0, 2.0]),
        "tf1_sharded": ("x", [[1, 2]], [[1.0, 2.0, 3.0]], [1.0, 2.0]),
    }
    for base, (key, ints, wide, flat) in float_input.items():
        out.append(
            {
                "case": f"{base}-warmup-wrong-dtype",
                "base": base,
                "warmup": [("predict", {key: tf.make_tensor_proto(ints, tf.int32)}, "")],
            }
        )
        out.append(
            {
                "case": f"{base}-warmup-wrong-shape",
                "base": base,
                "warmup": [("predict", {key: tf.make_tensor_proto(wide, tf.float32)}, "")],
            }
        )
        out.append(
            {
                "case": f"{base}-warmup-rank-1",
                "base": base,
                "warmup": [("predict", {key: tf.make_tensor_proto(flat, tf.float32)}, "")],
            }
        )
    # Typed `*_val` lists whose count is not the shape's: TensorFlow's C++ Tensor::FromProto (what TF
    # Serving calls) pads a short list with its last value, ignores the surplus of a long one, and
    # reads a list in another dtype's field as zeros; tf.make_ndarray (Python) refuses a long list.
    for suffix, field, values in [
        ("val-empty", "float_val", []),
        ("val-broadcast", "float_val", [1.0]),
        ("val-short", "float_val", [1.0, 2.0]),
        ("val-long", "float_val", [1.0, 2.0, 3.0, 4.0, 5.0]),
        ("val-other-field", "int_val", [1, 2, 3]),
    ]:
        out.append(
            {
                "case": f"tf2_module-warmup-{suffix}",
                "base": "tf2_module",
                "warmup": [("predict", {"x": val_tensor(tf.float32, [1, 3], field, values)}, "")],
            }
        )
    out.append(
        {
            "case": "tf2_lookup-warmup-val-long",
            "base": "tf2_lookup",
            "warmup": [("predict", {"words": val_tensor(tf.string, [2], "string_val", [b"a", b"b", b"c"])}, "")],
        }
    )
    out.append(
        {
            "case": "tf2_lookup-warmup-wrong-dtype",
            "base": "tf2_lookup",
            "warmup": [("predict", {"words": tf.make_tensor_proto([1, 2], tf.int64)}, "")],
        }
    )
    out.append(
        {
            "case": "tf2_lookup-warmup-wrong-shape",
            "base": "tf2_lookup",
            "warmup": [("predict", {"words": tf.make_tensor_proto([[b"a"]], tf.string)}, "")],
        }
    )
    out.append({"case": "tf2_module-key-missing", "base": "tf2_module", "checkpoint": ("drop", TF2_KERNEL)})
    out.append({"case": "tf2_module-shape-swapped", "base": "tf2_module", "checkpoint": ("transpose", TF2_KERNEL)})
    out.append({"case": "tf2_module-dtype-swapped", "base": "tf2_module", "checkpoint": ("cast", TF2_BIAS)})
    out.append({"case": "tf1_builder-key-missing", "base": "tf1_builder", "checkpoint": ("drop", "weights")})
    out.append({"case": "tf1_builder-unrestored-key-missing", "base": "tf1_builder", "checkpoint": ("drop", "counter")})
    out.append({"case": "tf1_builder-shape-swapped", "base": "tf1_builder", "checkpoint": ("transpose", "weights")})
    out.append({"case": "tf1_builder-dtype-swapped", "base": "tf1_builder", "checkpoint": ("cast", "offset")})
    out.append(
        {
            "case": "tf2_module-extra-key",
            "base": "tf2_module",
            "checkpoint": ("extra", "unused/.ATTRIBUTES/VARIABLE_VALUE"),
        }
    )
    out.append({"case": "tf1_builder-extra-key", "base": "tf1_builder", "checkpoint": ("extra", "leftover")})
    out.append({"case": "tf2_lookup-asset-removed", "base": "tf2_lookup", "delete": ["assets/vocab.txt"]})
    out.append({"case": "tf2_lookup-asset-empty", "base": "tf2_lookup", "truncate": {"assets/vocab.txt": 0}})
    out.append(
        {
            "case": "tf2_lookup-asset-directory",
            "base": "tf2_lookup",
            "delete": ["assets/vocab.txt"],
            "mkdir": ["assets/vocab.txt"],
        }
    )
    out.append({"case": "tf1_sharded-shard-deleted", "base": "tf1_sharded", "delete": [SHARDED_SECOND]})
    out.append({"case": "tf1_sharded-shard-truncated", "base": "tf1_sharded", "truncate": {SHARDED_SECOND: 0.5}})
    return out


def apply(case: dict, bases: str, variants: str, work: str) -> None:
    """Copy the base to `work` and apply the case's mutation (the same steps tests replay)."""
    shutil.copytree(os.path.join(bases, case["base"]), work)
    overlay = os.path.join(variants, case["case"])
    if os.path.isdir(overlay):
        for root, _, files in os.walk(overlay):
            for name in files:
                source = os.path.join(root, name)
                target = os.path.join(work, os.path.relpath(source, overlay))
                os.makedirs(os.path.dirname(target), exist_ok=True)
                shutil.copyfile(source, target)
    for relative in case.get("delete", []):
        path = os.path.join(work, relative)
        shutil.rmtree(path) if os.path.isdir(path) else os.remove(path)
    for relative in case.get("mkdir", []):
        os.makedirs(os.path.join(work, relative))
    for relative, keep in case.get("truncate", {}).items():
        path = os.path.join(work, relative)
        size = os.path.getsize(path)
        with open(path, "r+b") as f:
            f.truncate(int(size * keep) if isinstance(keep, float) else (size + keep if keep < 0 else keep))
    for relative, where in case.get("flip", {}).items():
        path = os.path.join(work, relative)
        data = bytearray(open(path, "rb").read())
        data[where] ^= 0xFF
        open(path, "wb").write(bytes(data))
    for relative in case.get("garbage", []):
        path = os.path.join(work, relative)
        size = os.path.getsize(path)
        open(path, "wb").write(bytes((index * 131 + 7) % 256 for index in range(size)))
    if case.get("duplicate_asset"):
        # The first AssetFileDef listed twice: the C++ loader feeds its tensor twice.
        from tensorflow.core.protobuf import saved_model_pb2

        path = os.path.join(work, "saved_model.pb")
        saved = saved_model_pb2.SavedModel.FromString(open(path, "rb").read())
        meta = saved.meta_graphs[0]
        meta.asset_file_def.add().CopyFrom(meta.asset_file_def[0])
        open(path, "wb").write(saved.SerializeToString())


# -- TensorFlow's verdicts ------------------------------------------------------------------------


class CApi:
    """The few C API calls the C++ loader and a session run need (libtensorflow_cc, through ctypes)."""

    def __init__(self) -> None:
        library = os.path.join(os.path.dirname(tf.__file__), "libtensorflow_cc.so.2")
        self.lib = lib = ctypes.CDLL(library, mode=ctypes.RTLD_GLOBAL)
        pointer = ctypes.c_void_p
        for name, result, arguments in [
            ("TF_NewStatus", pointer, []),
            ("TF_DeleteStatus", None, [pointer]),
            ("TF_GetCode", ctypes.c_int, [pointer]),
            ("TF_Message", ctypes.c_char_p, [pointer]),
            ("TF_NewGraph", pointer, []),
            ("TF_NewSessionOptions", pointer, []),
            ("TF_NewBuffer", ctypes.POINTER(Buffer), []),
            ("TF_NewBufferFromString", ctypes.POINTER(Buffer), [ctypes.c_char_p, ctypes.c_size_t]),
            ("TF_DeleteBuffer", None, [ctypes.POINTER(Buffer)]),
            (
                "TF_LoadSessionFromSavedModel",
                pointer,
                [
                    pointer,
                    pointer,
                    ctypes.c_char_p,
                    ctypes.POINTER(ctypes.c_char_p),
                    ctypes.c_int,
                    pointer,
                    ctypes.POINTER(Buffer),
                    pointer,
                ],
            ),
            ("TF_GraphOperationByName", pointer, [pointer, ctypes.c_char_p]),
            (
                "TF_AllocateTensor",
                pointer,
                [ctypes.c_int, ctypes.POINTER(ctypes.c_int64), ctypes.c_int, ctypes.c_size_t],
            ),
            ("TF_TensorFromProto", None, [ctypes.POINTER(Buffer), pointer, pointer]),
            ("TF_DeleteTensor", None, [pointer]),
            (
                "TF_SessionRun",
                None,
                [
                    pointer,
                    pointer,
                    ctypes.POINTER(Output),
                    ctypes.POINTER(pointer),
                    ctypes.c_int,
                    ctypes.POINTER(Output),
                    ctypes.POINTER(pointer),
                    ctypes.c_int,
                    pointer,
                    ctypes.c_int,
                    pointer,
                    pointer,
                ],
            ),
            ("TF_CloseSession", None, [pointer, pointer]),
            ("TF_DeleteSession", None, [pointer, pointer]),
        ]:
            function = getattr(lib, name)
            function.restype = result
            function.argtypes = arguments

    def error(self, status) -> str | None:  # type: ignore[no-untyped-def]
        if self.lib.TF_GetCode(status) == 0:
            return None
        return self.lib.TF_Message(status).decode("utf-8", "replace")


class Buffer(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("length", ctypes.c_size_t), ("dealloc", ctypes.c_void_p)]


class Output(ctypes.Structure):
    _fields_ = [("oper", ctypes.c_void_p), ("index", ctypes.c_int)]


def first_line(text: str) -> str:
    return text.strip().splitlines()[0][:400] if text.strip() else text


class CppModel:
    """A SavedModel loaded by the C++ loader, with its MetaGraphDef and a session to run requests."""

    def __init__(self, api: CApi, path: str) -> None:
        self.api = api
        lib = api.lib
        self.status = lib.TF_NewStatus()
        self.graph = lib.TF_NewGraph()
        meta = lib.TF_NewBuffer()
        tags = (ctypes.c_char_p * 1)(b"serve")
        self.session = lib.TF_LoadSessionFromSavedModel(
            lib.TF_NewSessionOptions(), None, path.encode(), tags, 1, self.graph, meta, self.status
        )
        self.load_error = api.error(self.status)
        self.meta_graph = None
        if self.load_error is None:
            from tensorflow.core.protobuf import meta_graph_pb2

            self.meta_graph = meta_graph_pb2.MetaGraphDef.FromString(
                ctypes.string_at(meta.contents.data, meta.contents.length)
            )
        lib.TF_DeleteBuffer(meta)

    def run(self, signature_name: str, inputs: dict) -> str | None:
        """Run a predict request as TF Serving's RunPredict does; None when it succeeds, else the error."""
        signatures = self.meta_graph.signature_def
        name = signature_name or "serving_default"
        if name not in signatures:
            return f'Serving signature key "{name}" not found.'
        signature = signatures[name]
        if len(inputs) > len(signature.inputs) or (len(inputs) < len(signature.inputs) and not signature.defaults):
            return (
                f"input size does not match signature: {len(inputs)}!={len(signature.inputs)} "
                f"len({{{','.join(sorted(inputs))}}}) != len({{{','.join(sorted(signature.inputs))}}})"
            )
        for alias in inputs:
            if alias not in signature.inputs:
                return f"input tensor alias not found in signature: {alias}"
        lib = self.api.lib
        feeds, values = [], []
        for alias, proto in sorted(inputs.items()):
            tensor = lib.TF_AllocateTensor(1, (ctypes.c_int64 * 1)(1), 1, 4)
            data = proto.SerializeToString()
            buffer = lib.TF_NewBufferFromString(data, len(data))
            lib.TF_TensorFromProto(buffer, tensor, self.status)
            lib.TF_DeleteBuffer(buffer)
            if self.api.error(self.status):
                return f"tensor parsing error: {alias}"
            feeds.append(self._output(signature.inputs[alias].name))
            values.append(tensor)
        fetches = [self._output(info.name) for _, info in sorted(signature.outputs.items())]
        if None in feeds or None in fetches:
            return "a signature tensor is not in the graph"
        feed_array = (Output * len(feeds))(*feeds)
        value_array = (ctypes.c_void_p * len(values))(*values)
        fetch_array = (Output * len(fetches))(*fetches)
        results = (ctypes.c_void_p * len(fetches))()
        lib.TF_SessionRun(
            self.session,
            None,
            feed_array,
            value_array,
            len(feeds),
            fetch_array,
            results,
            len(fetches),
            None,
            0,
            None,
            self.status,
        )
        for value in values:
            lib.TF_DeleteTensor(value)
        error = self.api.error(self.status)
        for result in results:
            if result:
                lib.TF_DeleteTensor(result)
        return error

    def run_method(self, signature_name: str, method: str) -> str | None:
        """A classify or regress request: TF Serving first checks the signature's method name."""
        name = signature_name or "serving_default"
        signatures = self.meta_graph.signature_def
        if name not in signatures:
            return f'No signature was found with the name "{name}"'
        wanted = {"classify": "tensorflow/serving/classify", "regress": "tensorflow/serving/regress"}[method]
        if signatures[name].method_name != wanted:
            return f"Expected {method} signature method_name to be {wanted}. Was: {signatures[name].method_name}"
        return None

    def _output(self, tensor_name: str) -> Output | None:
        operation, _, index = tensor_name.partition(":")
        handle = self.api.lib.TF_GraphOperationByName(self.graph, operation.encode())
        return Output(handle, int(index or 0)) if handle else None

    def close(self) -> None:
        if self.session:
            self.api.lib.TF_CloseSession(self.session, self.status)
            self.api.lib.TF_DeleteSession(self.session, self.status)


def warmup(model: CppModel, path: str) -> str:
    """TF Serving's RunSavedModelWarmup on the C++ session: 'ok', or the error that refuses the model."""
    warmup_path = os.path.join(path, WARMUP)
    if not os.path.exists(warmup_path):
        return "ok (no warm-up file)"
    count = 0
    try:
        for record in tf.compat.v1.io.tf_record_iterator(warmup_path):
            log = prediction_log_pb2.PredictionLog()
            try:
                log.ParseFromString(record)
            except Exception:
                return f"Failed to parse warmup record from {WARMUP}"
            kind = log.WhichOneof("log_type")
            if kind == "predict_log":
                request = log.predict_log.request
                error = model.run(request.model_spec.signature_name, dict(request.inputs))
            elif kind in ("classify_log", "regress_log"):
                request = getattr(log, kind).request
                error = model.run_method(request.model_spec.signature_name, kind.split("_")[0])
            elif kind == "session_run_log":
                error = "Unsupported log_type for warmup: session_run_log"
            else:
                error = None
            if error:
                return first_line(error)
            count += 1
            if count > MAX_WARMUP_RECORDS:
                return f"Number of warmup records exceeds the maximum ({MAX_WARMUP_RECORDS})"
    except tf.errors.DataLossError as error:
        return first_line(error.message) + ". Please verify your warmup data is in TFRecord format."
    return "ok"


def tf1_load(path: str) -> str:
    try:
        with tf.Graph().as_default(), tf.compat.v1.Session() as session:
            tf.compat.v1.saved_model.loader.load(session, ["serve"], path)
        return "ok"
    except Exception as error:  # noqa: BLE001 - any failure is the verdict
        return f"{type(error).__name__}: {first_line(str(error))}"


def tf2_load(path: str) -> str:
    try:
        tf.saved_model.load(path)
        return "ok"
    except Exception as error:  # noqa: BLE001
        return f"{type(error).__name__}: {first_line(str(error))}"


def verdict(api: CApi, path: str, valid: dict) -> dict:
    model = CppModel(api, path)
    result: dict = {"cpp_load": "ok" if model.load_error is None else first_line(model.load_error)}
    if model.load_error is None:
        result["warmup"] = warmup(model, path)
        error = model.run("", valid)
        result["first_request"] = "ok" if error is None else first_line(error)
        model.close()
    result["tf1_load"] = tf1_load(path)
    result["tf2_load"] = tf2_load(path)
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=DEFAULT_OUT)
    arguments = parser.parse_args()
    out = arguments.out
    shutil.rmtree(out, ignore_errors=True)
    bases, variants = os.path.join(out, "bases"), os.path.join(out, "variants")
    valid: dict = {}
    for name, build in BASES.items():
        path = os.path.join(bases, name)
        valid[name] = build(path)
        write_records(os.path.join(path, WARMUP), [predict_log(valid[name])])
        for leftover in ("fingerprint.pb",):  # not read by any loader's checks here; varies per run
            if os.path.exists(os.path.join(path, leftover)):
                os.remove(os.path.join(path, leftover))
    changes = {"drop": drop, "transpose": transpose, "cast": lambda key: cast(key, tf.float64), "extra": extra}
    all_cases = cases(valid)
    for case in all_cases:
        overlay = os.path.join(variants, case["case"])
        if "checkpoint" in case:
            how, key = case.pop("checkpoint")
            rewrite_checkpoint(os.path.join(bases, case["base"]), overlay, changes[how](key))
            case["replaces"] = "variables/"
        records = None
        if "warmup" in case:
            records = [
                classify_log() if kind == "classify" else predict_log(inputs, signature)
                for kind, inputs, signature in case.pop("warmup")
            ]
        elif "warmup_raw" in case:
            records = case.pop("warmup_raw")
        if records is not None:
            write_records(os.path.join(overlay, WARMUP), records)
            case["replaces"] = WARMUP
    api = CApi()
    for case in all_cases:
        work = os.path.join(tempfile.mkdtemp(), "model")
        apply(case, bases, variants, work)
        # The model's temporary path means nothing in a recorded verdict: it reads MODEL.
        case["tf"] = {
            loader: outcome.replace(work, "MODEL")
            for loader, outcome in verdict(api, work, valid[case["base"]]).items()
        }
        print(case["case"], json.dumps(case["tf"]), file=sys.stderr)
        shutil.rmtree(os.path.dirname(work))
    with open(os.path.join(out, "verdicts.json"), "w") as f:
        json.dump({"tensorflow": tf.__version__, "cases": all_cases}, f, indent=1, sort_keys=True)
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
