"""Build the malicious and benign SavedModels of `unsafe-op`'s suite, and prove each side effect with TensorFlow.

Each case is written by TensorFlow's own exporters into a temporary
directory, next to a sandbox directory holding a secret file. The model is
then loaded and (unless the case fires at load) served in a child process,
and the sandbox is checked: the file really written, the secret really read
(it shows up in the output), the directory really listed, the connection
really made (to a listener of this process), the Python callback really
run. A dormant case must leave the sandbox untouched. A case whose effect
cannot be shown is not recorded: the generator stops.

What is kept, under tests/data/security/: each model's `saved_model.pb` (and
`assets/`), and `verdicts.json`: per case, what it is, its expected trigger
and capability, and the evidence TensorFlow gave. tests/rules/
test_unsafe_op_suite.py replays them: tflint must report every malicious
case with its trigger and none of the benign ones at warning or above.

    $TF_PYTHON tools/gen_security_suite.py [--out DIR] [--only NAME,...]

The sandbox paths written into the graphs are those of the run's temporary
directory; they are absolute (outside the model), as an attacker's would be.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
SECRET = "s3cr3t-token"
VOCAB = "apple\nbanana\ncherry\n"


def _tf() -> Any:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow

    return tensorflow


# -- builders: each writes a SavedModel to `export` and returns how to exercise it ---------------


class Case:
    """One model of the suite: how it is built, exercised and judged."""

    def __init__(
        self,
        name: str,
        malicious: bool,
        trigger: str,
        capability: str,
        where: str,
        target: str,
        build: Callable[[Path, Path, int], dict[str, Any]],
        evidence: Callable[[Path, str, list[bytes]], str | None],
        description: str,
        in_process: bool = False,
        symlink_asset: str | None = None,
        keep_variables: bool = False,
    ) -> None:
        self.name = name
        self.malicious = malicious
        self.trigger = trigger
        self.capability = capability
        self.where = where
        self.target = target
        self.build = build
        self.evidence = evidence
        self.description = description
        self.in_process = in_process
        self.symlink_asset = symlink_asset
        self.keep_variables = keep_variables


def _save_tf2(module: Any, export: Path, function: Any, spec: Any) -> None:
    tf = _tf()
    tf.saved_model.save(module, str(export), signatures={"serving_default": function.get_concrete_function(spec)})


def _string_spec() -> Any:
    tf = _tf()
    return tf.TensorSpec([], tf.string, name="x")


def _tf2(body: Callable[..., Any]) -> Callable[[Path, Path, int], dict[str, Any]]:
    """A builder of a tf.Module whose serving_default(x: string) returns body(tf, sandbox, x, port)."""

    def build(export: Path, sandbox: Path, port: int) -> dict[str, Any]:
        tf = _tf()
        module = tf.Module()

        @tf.function
        def serve(x: Any) -> Any:
            return {"y": body(tf, sandbox, x, port)}

        module.serve = serve
        _save_tf2(module, export, serve, _string_spec())
        return {"api": "tf2", "signature": "serving_default", "x": "hello"}

    return build


def _read_top(tf: Any, sandbox: Path, x: Any, port: int) -> Any:
    return tf.strings.join([x, tf.io.read_file(str(sandbox / "secret.txt"))])


def _write_top(tf: Any, sandbox: Path, x: Any, port: int) -> Any:
    tf.io.write_file(str(sandbox / "written.txt"), x)
    return x


def _list_top(tf: Any, sandbox: Path, x: Any, port: int) -> Any:
    return tf.strings.reduce_join(tf.io.matching_files(str(sandbox / "*.txt")), separator=",")


def _network_top(tf: Any, sandbox: Path, x: Any, port: int) -> Any:
    numbers = tf.strings.length(x)
    tapped = tf.raw_ops.DebugIdentity(
        input=numbers,
        tensor_name="x:0",
        device_name="/job:localhost/replica:0/task:0/device:CPU:0",
        debug_urls=[f"grpc://127.0.0.1:{port}"],
    )
    return tf.strings.as_string(tapped)


def _read_one_deep(tf: Any, sandbox: Path, x: Any, port: int) -> Any:
    @tf.function
    def inner(value: Any) -> Any:
        return tf.strings.join([value, tf.io.read_file(str(sandbox / "secret.txt"))])

    return inner(x)


def _write_three_deep(tf: Any, sandbox: Path, x: Any, port: int) -> Any:
    @tf.function
    def third(value: Any) -> Any:
        tf.io.write_file(str(sandbox / "written.txt"), value)
        return value

    @tf.function
    def second(value: Any) -> Any:
        return third(value)

    @tf.function
    def first(value: Any) -> Any:
        return second(value)

    return first(x)


def _write_in_branch(tf: Any, sandbox: Path, x: Any, port: int) -> Any:
    def leak() -> Any:
        tf.io.write_file(str(sandbox / "written.txt"), x)
        return tf.identity(x)

    return tf.cond(tf.strings.length(x) > 0, leak, lambda: tf.identity(x))


def _read_input_target(tf: Any, sandbox: Path, x: Any, port: int) -> Any:
    return tf.io.read_file(x)


def _write_input_target(tf: Any, sandbox: Path, x: Any, port: int) -> Any:
    tf.io.write_file(x, tf.constant("pwned"))
    return x


def _cache_to_file(tf: Any, sandbox: Path, x: Any, port: int) -> Any:
    dataset = tf.data.Dataset.from_tensors(x).cache(str(sandbox / "cache"))
    return dataset.reduce(tf.constant(""), lambda total, item: tf.strings.join([total, item]))


def _debug_to_file(tf: Any, sandbox: Path, x: Any, port: int) -> Any:
    numbers = tf.strings.length(x)
    tapped = tf.raw_ops.DebugIdentity(
        input=numbers,
        tensor_name="x:0",
        device_name="/job:localhost/replica:0/task:0/device:CPU:0",
        debug_urls=[f"file://{sandbox / 'dump'}"],
    )
    return tf.strings.as_string(tapped)


def _print_stderr(tf: Any, sandbox: Path, x: Any, port: int) -> Any:
    tf.print("request:", x)
    return tf.strings.upper(x)


def _nested_graph(export: Path, sandbox: Path, port: int) -> dict[str, Any]:
    tf = _tf()
    target = str(sandbox / "written.txt")

    def leak(item: Any) -> Any:
        tf.io.write_file(target, item)
        return item

    dataset = tf.data.Dataset.from_tensors(tf.constant("from-the-nested-graph")).map(leak)
    serialized = dataset._as_serialized_graph().numpy()
    module = tf.Module()

    @tf.function
    def serve(x: Any) -> Any:
        # Joined with an empty piece of the request, so that grappler cannot fold the dataset into a
        # constant (a variant Const, which it cannot serialize); the bytes are the Const's, unchanged.
        graph_def = tf.strings.join([tf.constant(serialized), tf.strings.substr(x, 0, 0)])
        variant = tf.raw_ops.DatasetFromGraph(graph_def=graph_def)
        nested = tf.data.Dataset.from_tensors(x)  # only for its element spec
        restored = tf.data.experimental.from_variant(variant, nested.element_spec)
        total = restored.reduce(tf.constant(""), lambda total, item: tf.strings.join([total, item]))
        return {"y": tf.strings.join([x, total])}

    module.serve = serve
    _save_tf2(module, export, serve, _string_spec())
    return {"api": "tf2", "signature": "serving_default", "x": "hello"}


def _checkpoint_graph(export: Path, sandbox: Path, port: int) -> dict[str, Any]:
    tf = _tf()
    target = str(sandbox / "written.txt")

    def leak(item: Any) -> Any:
        tf.io.write_file(target, item)
        return item

    dataset = tf.data.Dataset.from_tensors(tf.constant("from-the-checkpoint")).map(leak)
    module = tf.Module()
    # The GraphDef is the variable's saved value: the graph holds no trace of it, the checkpoint does.
    module.blob = tf.Variable(dataset._as_serialized_graph().numpy())

    @tf.function
    def serve(x: Any) -> Any:
        variant = tf.raw_ops.DatasetFromGraph(graph_def=module.blob.read_value())
        restored = tf.data.experimental.from_variant(variant, tf.data.Dataset.from_tensors(x).element_spec)
        total = restored.reduce(tf.constant(""), lambda total, item: tf.strings.join([total, item]))
        return {"y": tf.strings.join([x, total])}

    module.serve = serve
    _save_tf2(module, export, serve, _string_spec())
    return {"api": "tf2", "signature": "serving_default", "x": "hello"}


def _python_callback(export: Path, sandbox: Path, port: int) -> dict[str, Any]:
    tf = _tf()
    target = sandbox / "written.txt"

    def callback(value: Any) -> Any:
        target.write_text("python ran")
        return value

    module = tf.Module()

    @tf.function
    def serve(x: Any) -> Any:
        return {"y": tf.py_function(callback, [x], tf.string)}

    module.serve = serve
    _save_tf2(module, export, serve, _string_spec())
    return {"api": "tf2", "signature": "serving_default", "x": "hello"}


def _vocab_module(export: Path, work: Path) -> None:
    tf = _tf()
    vocab = work / "vocab.txt"
    vocab.write_text(VOCAB)
    module = tf.Module()
    module.table = tf.lookup.StaticHashTable(
        tf.lookup.TextFileInitializer(
            str(vocab), tf.string, tf.lookup.TextFileIndex.WHOLE_LINE, tf.int64, tf.lookup.TextFileIndex.LINE_NUMBER
        ),
        default_value=-1,
    )

    @tf.function
    def serve(x: Any) -> Any:
        return {"y": module.table.lookup(x)}

    module.serve = serve
    _save_tf2(module, export, serve, _string_spec())


def _own_asset(export: Path, sandbox: Path, port: int) -> dict[str, Any]:
    work = Path(tempfile.mkdtemp(dir=sandbox.parent))
    _vocab_module(export, work)
    return {"api": "tf2", "signature": "serving_default", "x": "banana"}


def _asset_symlink(export: Path, sandbox: Path, port: int) -> dict[str, Any]:
    work = Path(tempfile.mkdtemp(dir=sandbox.parent))
    _vocab_module(export, work)
    asset = export / "assets" / "vocab.txt"
    asset.unlink()
    asset.symlink_to(sandbox / "secret.txt")
    return {"api": "tf2", "signature": "serving_default", "x": SECRET}


def _tf1(build_graph: Callable[[Any, Path], dict[str, Any]]) -> Callable[[Path, Path, int], dict[str, Any]]:
    """A TF1 `saved_model.Builder` export of the graph `build_graph` makes (it returns signature and main op)."""

    def build(export: Path, sandbox: Path, port: int) -> dict[str, Any]:
        tf = _tf()
        v1 = tf.compat.v1
        graph = tf.Graph()
        with graph.as_default():
            x = v1.placeholder(tf.string, [], name="x")
            parts = build_graph(tf, sandbox)
            y = tf.identity(parts.get("y", x), name="y")
            signature = v1.saved_model.signature_def_utils.predict_signature_def({"x": x}, {"y": y})
            with v1.Session(graph=graph) as session:
                session.run(v1.global_variables_initializer())
                builder = v1.saved_model.Builder(str(export))
                builder.add_meta_graph_and_variables(
                    session,
                    ["serve"],
                    signature_def_map={"serving_default": signature},
                    main_op=parts.get("main_op"),
                    strip_default_attrs=True,
                )
                builder.save()
        return {"api": "tf1", "signature": "serving_default", "x": parts.get("x", "hello")}

    return build


def _table_reads_secret(tf: Any, sandbox: Path) -> dict[str, Any]:
    v1 = tf.compat.v1
    table = tf.lookup.StaticHashTable(
        tf.lookup.TextFileInitializer(
            tf.constant(str(sandbox / "secret.txt")),
            tf.string,
            tf.lookup.TextFileIndex.WHOLE_LINE,
            tf.int64,
            tf.lookup.TextFileIndex.LINE_NUMBER,
        ),
        default_value=-1,
    )
    x = v1.get_default_graph().get_tensor_by_name("x:0")
    return {"y": tf.strings.as_string(table.lookup(x)), "main_op": v1.tables_initializer(), "x": SECRET}


def _init_op_writes(tf: Any, sandbox: Path) -> dict[str, Any]:
    write = tf.io.write_file(str(sandbox / "written.txt"), tf.constant("at load"))
    return {"main_op": tf.group(write)}


def _dormant_write(tf: Any, sandbox: Path) -> dict[str, Any]:
    tf.io.write_file(str(sandbox / "written.txt"), tf.constant("never"), name="leftover_write")
    return {}


def _keras(export: Path, sandbox: Path, port: int) -> dict[str, Any]:
    _tf()  # TensorFlow's quiet logging, set before Keras imports it
    import keras

    inputs = keras.Input((3,), name="features")
    hidden = keras.layers.Dense(4, activation="relu")(inputs)
    outputs = keras.layers.Dense(1)(keras.layers.Dropout(0.1)(hidden))
    model = keras.Model(inputs, outputs)
    model.export(str(export), verbose=False)
    return {"api": "tf2", "signature": "serving_default", "x": [[1.0, 2.0, 3.0]], "dtype": "float32"}


def _module_variable(export: Path, sandbox: Path, port: int) -> dict[str, Any]:
    tf = _tf()
    module = tf.Module()
    module.w = tf.Variable([[1.0], [2.0]])

    @tf.function
    def serve(x: Any) -> Any:
        return {"y": tf.matmul(x, module.w)}

    module.serve = serve
    _save_tf2(module, export, serve, tf.TensorSpec([None, 2], tf.float32, name="x"))
    return {"api": "tf2", "signature": "serving_default", "x": [[1.0, 2.0]], "dtype": "float32"}


def _tf1_asset_table(export: Path, sandbox: Path, port: int) -> dict[str, Any]:
    tf = _tf()
    v1 = tf.compat.v1
    work = Path(tempfile.mkdtemp(dir=sandbox.parent))
    vocab = work / "vocab.txt"
    vocab.write_text(VOCAB)
    graph = tf.Graph()
    with graph.as_default():
        x = v1.placeholder(tf.string, [], name="x")
        path = tf.constant(str(vocab), name="vocab_path")
        v1.add_to_collection(v1.GraphKeys.ASSET_FILEPATHS, path)
        table = tf.lookup.StaticHashTable(
            tf.lookup.TextFileInitializer(
                path, tf.string, tf.lookup.TextFileIndex.WHOLE_LINE, tf.int64, tf.lookup.TextFileIndex.LINE_NUMBER
            ),
            default_value=-1,
        )
        y = tf.identity(tf.strings.as_string(table.lookup(x)), name="y")
        signature = v1.saved_model.signature_def_utils.predict_signature_def({"x": x}, {"y": y})
        with v1.Session(graph=graph) as session:
            builder = v1.saved_model.Builder(str(export))
            builder.add_meta_graph_and_variables(
                session,
                ["serve"],
                signature_def_map={"serving_default": signature},
                assets_collection=v1.get_collection(v1.GraphKeys.ASSET_FILEPATHS),
                main_op=v1.tables_initializer(),
                strip_default_attrs=True,
            )
            builder.save()
    return {"api": "tf1", "signature": "serving_default", "x": "banana"}


# -- evidence -------------------------------------------------------------------------------------


def _written(sandbox: Path, log: str, outputs: list[bytes]) -> str | None:
    target = sandbox / "written.txt"
    return f"file written: written.txt holds {target.read_text()!r}" if target.exists() else None


def _secret_in_output(sandbox: Path, log: str, outputs: list[bytes]) -> str | None:
    return "secret read: it is in the signature's output" if any(SECRET.encode() in item for item in outputs) else None


def _listed(sandbox: Path, log: str, outputs: list[bytes]) -> str | None:
    return "directory listed: secret.txt is in the output" if any(b"secret.txt" in item for item in outputs) else None


def _found_in_table(sandbox: Path, log: str, outputs: list[bytes]) -> str | None:
    # The secret file's one line is the table's key 0: the lookup of the secret finds it.
    return "secret read into the lookup table: its lookup gives 0" if outputs and outputs[0].strip() == b"0" else None


def _connected(sandbox: Path, log: str, outputs: list[bytes]) -> str | None:
    return "connection made to the sandbox listener" if "CONNECTED" in log else None


def _cached(sandbox: Path, log: str, outputs: list[bytes]) -> str | None:
    files = sorted(path.name for path in sandbox.iterdir() if path.name.startswith("cache"))
    return f"files written: {', '.join(files)}" if files else None


def _dumped(sandbox: Path, log: str, outputs: list[bytes]) -> str | None:
    dump = sandbox / "dump"
    return "debug dump written under dump/" if dump.exists() and any(dump.rglob("*")) else None


def _untouched(sandbox: Path, log: str, outputs: list[bytes]) -> str | None:
    names = sorted(path.name for path in sandbox.iterdir())
    return "sandbox untouched after load and serve" if names == ["secret.txt"] else None


def _served(sandbox: Path, log: str, outputs: list[bytes]) -> str | None:
    return "served, sandbox untouched" if _untouched(sandbox, log, outputs) and outputs else None


M, B = True, False
CASES = [
    Case("m_read_top", M, "serve:serving_default", "file-read", "top level", "constant",
         _tf2(_read_top), _secret_in_output, "ReadFile of a constant absolute path in the signature"),
    Case("m_write_top", M, "serve:serving_default", "file-write", "top level", "constant",
         _tf2(_write_top), _written, "WriteFile to a constant absolute path in the signature"),
    Case("m_list_top", M, "serve:serving_default", "directory-listing", "top level", "constant",
         _tf2(_list_top), _listed, "MatchingFiles over a constant pattern in the signature"),
    Case("m_network_top", M, "serve:serving_default", "network", "top level", "constant",
         _tf2(_network_top), _connected, "DebugIdentity sending a tensor to grpc://127.0.0.1"),
    Case("m_python_top", M, "serve:serving_default", "code-execution", "top level", "constant",
         _python_callback, _written, "tf.py_function whose Python writes a file (runs in the exporting process)",
         in_process=True),
    Case("m_read_1_deep", M, "serve:serving_default", "file-read", "1 function deep", "constant",
         _tf2(_read_one_deep), _secret_in_output, "ReadFile in a tf.function the signature calls"),
    Case("m_write_3_deep", M, "serve:serving_default", "file-write", "3 functions deep", "constant",
         _tf2(_write_three_deep), _written, "WriteFile three tf.functions down"),
    Case("m_write_branch", M, "serve:serving_default", "file-write", "control-flow branch", "constant",
         _tf2(_write_in_branch), _written, "WriteFile in a tf.cond branch"),
    Case("m_read_input", M, "serve:serving_default", "file-read", "top level", "signature input",
         _tf2(_read_input_target), _secret_in_output, "ReadFile of the path a request sends"),
    Case("m_write_input", M, "serve:serving_default", "file-write", "top level", "signature input",
         _tf2(_write_input_target), _written, "WriteFile to the path a request sends"),
    Case("m_cache_file", M, "serve:serving_default", "file-write", "top level", "constant",
         _tf2(_cache_to_file), _cached, "Dataset.cache to a constant path (CacheDatasetV2)"),
    Case("m_debug_file", M, "serve:serving_default", "file-write", "top level", "constant",
         _tf2(_debug_to_file), _dumped, "DebugIdentity with debug_urls file://"),
    Case("m_nested_graph", M, "serve:serving_default", "file-write", "nested GraphDef", "constant",
         _nested_graph, _written, "DatasetFromGraph running a serialized GraphDef whose map function writes a file"),
    Case("m_checkpoint_graph", M, "serve:serving_default", "file-write", "GraphDef in the checkpoint", "constant",
         _checkpoint_graph, _written, "DatasetFromGraph running a GraphDef that is a variable's saved value",
         keep_variables=True),
    Case("m_init_table_secret", M, "load", "file-read", "init op", "constant",
         _tf1(_table_reads_secret), _found_in_table, "TF1 main op: a lookup table read from a constant absolute path"),
    Case("m_init_write", M, "load", "file-write", "init op", "constant",
         _tf1(_init_op_writes), _written, "TF1 main op writing a file when the model loads"),
    Case("m_asset_symlink", M, "load", "file-read", "asset initializer", "asset",
         _asset_symlink, _found_in_table, "assets/vocab.txt is a symlink to the secret; the initializer reads it",
         symlink_asset="vocab.txt"),
    Case("m_dormant_write", M, "dormant", "file-write", "dormant", "constant",
         _tf1(_dormant_write), _served, "a WriteFile node nothing runs (must not fire)"),
    Case("b_keras", B, "", "", "", "", _keras, _served, "Keras 3 Model.export of Dense + Dropout"),
    Case("b_module_variable", B, "", "", "", "", _module_variable, _served, "tf.Module with a variable"),
    Case("b_own_asset_vocab", B, "", "", "", "", _own_asset, _served, "StaticHashTable read from its own asset"),
    Case("b_tf_print", B, "", "", "", "", _tf2(_print_stderr), _served, "tf.print to stderr in the signature"),
    Case("b_tf1_asset_table", B, "", "", "", "", _tf1_asset_table, _served, "TF1 Builder: vocab asset, main op"),
]  # fmt: skip


# -- exercising a model (in a child process: a fresh server) ---------------------------------------


def exercise(export: str, spec: dict[str, Any]) -> list[bytes]:
    """Load the model and, unless `spec` says load only, run its signature once; the outputs as bytes."""
    tf = _tf()
    outputs: list[bytes] = []
    if spec["api"] == "tf1":
        v1 = tf.compat.v1
        with v1.Session(graph=tf.Graph()) as session:
            meta = v1.saved_model.load(session, ["serve"], export)
            signature = meta.signature_def[spec["signature"]]
            feed = {signature.inputs["x"].name: spec["x"]}
            fetched = session.run({key: value.name for key, value in signature.outputs.items()}, feed)
            outputs = [bytes(value) if isinstance(value, bytes) else str(value).encode() for value in fetched.values()]
        return outputs
    loaded = tf.saved_model.load(export)
    function = loaded.signatures[spec["signature"]]
    dtype = getattr(tf, spec.get("dtype", "string"))
    name = next(iter(function.structured_input_signature[1]))
    result = function(**{name: tf.constant(spec["x"], dtype)})
    for value in result.values():
        array = value.numpy()
        outputs.append(array if isinstance(array, bytes) else str(array).encode())
    return outputs


def _child(export: str, spec_json: str) -> None:
    spec = json.loads(spec_json)
    try:
        outputs = exercise(export, spec)
    except Exception as error:  # the evidence decides; the error is shown
        print("EXERCISE-ERROR", type(error).__name__, str(error)[:300], flush=True)
        outputs = []
    print("OUTPUTS " + json.dumps([item.decode("utf-8", "replace") for item in outputs]), flush=True)


def _listen() -> tuple[socket.socket, list[str]]:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(5)
    seen: list[str] = []

    def accept() -> None:
        server.settimeout(60)
        try:
            connection, _ = server.accept()
            seen.append("CONNECTED")
            connection.close()
        except OSError:
            pass

    threading.Thread(target=accept, daemon=True).start()
    return server, seen


def run_case(case: Case, root: Path) -> dict[str, Any]:
    sandbox = root / "sandbox"
    sandbox.mkdir()
    (sandbox / "secret.txt").write_text(SECRET)
    export = root / "model"
    server, seen = _listen()
    port = server.getsockname()[1]
    spec = case.build(export, sandbox, port)
    if case.name == "m_read_input":
        spec["x"] = str(sandbox / "secret.txt")
    if case.name == "m_write_input":
        spec["x"] = str(sandbox / "written.txt")
    log = ""
    if case.in_process:
        outputs = exercise(str(export), spec)
    else:
        try:
            done = subprocess.run(
                [sys.executable, __file__, "--exercise", str(export), json.dumps(spec)],
                capture_output=True,
                text=True,
                timeout=120,
            )
            log = done.stdout + done.stderr
        except subprocess.TimeoutExpired as expired:  # a debug op waiting on its gRPC peer: the connection is made
            log = str(expired.stdout or "") + "TIMEOUT"
        line = next((item for item in log.splitlines() if item.startswith("OUTPUTS ")), "OUTPUTS []")
        outputs = [item.encode() for item in json.loads(line[len("OUTPUTS ") :])]
    time.sleep(0.2)
    server.close()
    evidence = case.evidence(sandbox, log + " ".join(seen), outputs)
    if evidence is None:
        raise SystemExit(f"{case.name}: no evidence of its effect\n{log[-3000:]}")
    return {"spec": spec, "evidence": evidence, "export": export}


def record(case: Case, result: dict[str, Any], out: Path) -> dict[str, Any]:
    target = out / case.name
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    export: Path = result["export"]
    shutil.copy(export / "saved_model.pb", target / "saved_model.pb")
    if case.keep_variables:  # the checkpoint is where this model hides its graph
        shutil.copytree(export / "variables", target / "variables")
    assets = export / "assets"
    if assets.is_dir():
        (target / "assets").mkdir()
        for item in assets.iterdir():
            if item.is_symlink():
                (target / "assets" / item.name).write_text(VOCAB)  # the test puts the link back
            else:
                shutil.copy(item, target / "assets" / item.name)
    return {
        "malicious": case.malicious,
        "trigger": case.trigger,
        "capability": case.capability,
        "where": case.where,
        "target": case.target,
        "description": case.description,
        "evidence": result["evidence"],
        "symlink_asset": case.symlink_asset,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default=str(REPO / "tests" / "data" / "security"))
    parser.add_argument("--only", default="")
    parser.add_argument("--exercise", nargs=2, metavar=("EXPORT", "SPEC"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.exercise:
        _child(*args.exercise)
        return
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    verdicts_path = out / "verdicts.json"
    verdicts = json.loads(verdicts_path.read_text()) if verdicts_path.exists() else {}
    only = set(filter(None, args.only.split(",")))
    tf = _tf()
    for case in CASES:
        if only and case.name not in only:
            continue
        with tempfile.TemporaryDirectory() as work:
            result = run_case(case, Path(work))
            verdicts[case.name] = record(case, result, out)
            verdicts[case.name]["tensorflow"] = tf.__version__
        print(f"{case.name}: {verdicts[case.name]['evidence']}", flush=True)
    verdicts_path.write_text(json.dumps(dict(sorted(verdicts.items())), indent=2) + "\n")


if __name__ == "__main__":
    main()
