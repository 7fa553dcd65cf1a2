"""Write pairs of small real SavedModels (version 1 and 2 of a model) for `tflint compat`'s tests (needs TensorFlow).

Each pair is a TF Serving model base directory, `tests/data/compat/<case>/{1,2}/`,
written by TensorFlow's own exporters (`tf.saved_model.save` of a `tf.Module`
with `@tf.function` signatures, or the TF1 `saved_model.Builder` where only it
can express the case: several tag sets, classify/regress signatures, an input
fed by `PlaceholderWithDefault`). Variables are a few floats.

TensorFlow's verdict is recorded too, in `verdicts.json`: for every signature
of version 1, a client of it calls version 2 the two ways TensorFlow serves:

- as TensorFlow Serving runs a request: `tf.compat.v1.saved_model.load`, then
  a session callable feeding version 1's input keys (a batch of 2 of the
  declared dtypes) and fetching its output keys; like a server's
  Session::Run, a callable feeds tensors as they are (Python's Session.run
  would convert them to the placeholders' dtypes);
- where version 2 has no input version 1 lacks, as `tf.saved_model.load`
  clients do: calling the signature function, which checks the request
  against the signature's TensorSpecs.

The verdict says whether both still work, with dtypes, shapes and method
names (classify, regress) as version 1 declared them; a tag set version 2 no
longer has is a load failure. For `newer_tf` the verdict is TensorFlow
2.15's, the TensorFlow that served version 1.
The tests compare tflint's errors with these verdicts.

    $TF_PYTHON tools/gen_compat_models.py [--out DIR]
    $TF_PYTHON tools/gen_compat_models.py --only CASE [--version 1|2]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
VOCAB = "apple\nbanana\ncherry\n"

# case -> (what it is, the Python that writes version 1, the one that writes version 2).
# `other_tf`: version 1 is written by another TensorFlow (its python given with --old-tf-python).
CASES = {
    "same_model_saved_twice": "one Module saved twice: function names and node order change, nothing else",
    "weights_only": "the same signatures, other variable values",
    "batch_fixed": "input 'image' [-1,8,8,3] -> [1,8,8,3]: the batch dimension pinned",
    "shape_relaxed": "input 'x' [1,4] -> [-1,4], output [1,2] -> [-1,2]",
    "input_dtype": "input 'x' float32 -> float64",
    "input_renamed": "input 'x' -> 'features'",
    "input_added_required": "a new input 'scale' (a Placeholder: every request must send it)",
    "input_added_optional": "a new input 'scale' fed by PlaceholderWithDefault (TF1 Builder)",
    "signature_removed": "signatures serving_default and 'embed' -> serving_default only",
    "signature_added": "signature serving_default -> serving_default and 'embed'",
    "method_changed": "signature serving_default: predict -> regress (TF1 Builder)",
    "output_removed": "outputs 'y' and 'z' -> 'y' only",
    "output_dtype": "output 'y' float32 -> int32",
    "output_shape": "output 'y' [-1,2] -> [-1,3]",
    "tag_set_removed": "meta graphs {serve} and {serve, gpu} -> {serve} only (TF1 Builder)",
    "regress_keys": "a regress signature whose output 'outputs' becomes 'prediction' (TF1 Builder)",
    "asset_renamed": "a lookup table's vocabulary vocab.txt -> vocab_v2.txt",
    "newer_tf": "the same Module written by TensorFlow 2.15 (version 1) and 2.21 (version 2)",
    "older_tf": "the same Module written by TensorFlow 2.21 (version 1) and 2.15 (version 2)",
}


def _tf() -> Any:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow

    return tensorflow


def _module(
    tf: Any,
    x_shape: list,
    x_dtype: Any = None,
    x_name: str = "x",
    outputs: tuple[str, ...] = ("y",),
    out_dtype: Any = None,
    out_width: int = 2,
    extra_input: bool = False,
    embed: bool = False,
    weights: float = 1.0,
) -> Any:
    """A tf.Module with a serving_default signature (and optionally an 'embed' one)."""
    x_dtype = x_dtype or tf.float32
    width = x_shape[-1]

    class Model(tf.Module):
        def __init__(self) -> None:
            super().__init__()
            self.w = tf.Variable(tf.fill([width, out_width], weights), name="w")

    model = Model()
    spec = [tf.TensorSpec(x_shape, x_dtype, name=x_name)]
    if extra_input:
        spec.append(tf.TensorSpec([], tf.float32, name="scale"))

    def body(x: Any, scale: Any = None) -> Any:
        flat = tf.cast(x, tf.float32)
        if len(x_shape) == 4:
            flat = tf.reduce_mean(flat, axis=[1, 2])
        y = tf.matmul(flat, model.w)
        if scale is not None:
            y = y * scale
        result = {}
        for name in outputs:
            result[name] = tf.cast(y, out_dtype) if out_dtype is not None and name == "y" else y
        return result

    if extra_input:
        serve = tf.function(lambda x, scale: body(x, scale), input_signature=spec)
    else:
        serve = tf.function(lambda x: body(x), input_signature=spec)
    signatures = {"serving_default": serve}
    if embed:
        signatures["embed"] = tf.function(
            lambda x: {"embedding": tf.matmul(tf.cast(x, tf.float32), model.w)},
            input_signature=[tf.TensorSpec([None, width], tf.float32, name="x")],
        )
    return model, signatures


def _save(tf: Any, export: Path, model: Any, signatures: dict) -> None:
    tf.saved_model.save(model, str(export), signatures=signatures)


def _tf1_builder(export: Path, build: Any, tag_sets: list[list[str]]) -> None:
    """A TF1 Builder export: `build(v1)` returns the signature_def_map; one meta graph per tag set."""
    tf = _tf()
    v1 = tf.compat.v1
    graph = tf.Graph()
    with graph.as_default():
        signature_map = build(v1, tf)
        with v1.Session() as session:
            session.run(v1.global_variables_initializer())
            builder = v1.saved_model.Builder(str(export))
            builder.add_meta_graph_and_variables(session, tag_sets[0], signature_def_map=signature_map)
            for tags in tag_sets[1:]:
                builder.add_meta_graph(tags, signature_def_map=signature_map)
            builder.save()


def _predict_tf1(optional_scale: bool) -> Any:
    def build(v1: Any, tf: Any) -> dict:
        x = v1.placeholder(tf.float32, [None, 4], name="x")
        w = v1.get_variable("w", initializer=tf.ones([4, 2]))
        y = tf.matmul(x, w)
        inputs = {"x": x}
        if optional_scale:
            scale = v1.placeholder_with_default(tf.constant(1.0), [], name="scale")
            y = y * scale
            inputs["scale"] = scale
        y = tf.identity(y, name="y")
        return {"serving_default": v1.saved_model.predict_signature_def(inputs, {"y": y})}

    return build


def _regress_tf1(output_key: str, method: str | None = None) -> Any:
    def build(v1: Any, tf: Any) -> dict:
        x = v1.placeholder(tf.float32, [None, 4], name="x")
        w = v1.get_variable("w", initializer=tf.ones([4, 1]))
        y = tf.identity(tf.matmul(x, w), name="y")
        signature = v1.saved_model.build_signature_def(
            {"inputs": v1.saved_model.build_tensor_info(x)},
            {output_key: v1.saved_model.build_tensor_info(y)},
            method or "tensorflow/serving/regress",
        )
        return {"serving_default": signature}

    return build


def build(case: str, version: int, export: Path, work: Path) -> None:
    """Write version `version` of `case` into `export`."""
    tf = _tf()
    old = version == 1
    if case in ("same_model_saved_twice", "newer_tf", "older_tf"):
        _save(tf, export, *_module(tf, [None, 4]))
    elif case == "weights_only":
        _save(tf, export, *_module(tf, [None, 4], weights=1.0 if old else 0.5))
    elif case == "batch_fixed":
        _save(tf, export, *_module(tf, [None if old else 1, 8, 8, 3], x_name="image"))
    elif case == "shape_relaxed":
        _save(tf, export, *_module(tf, [1 if old else None, 4]))
    elif case == "input_dtype":
        _save(tf, export, *_module(tf, [None, 4], x_dtype=tf.float32 if old else tf.float64))
    elif case == "input_renamed":
        _save(tf, export, *_module(tf, [None, 4], x_name="x" if old else "features"))
    elif case == "input_added_required":
        _save(tf, export, *_module(tf, [None, 4], extra_input=not old))
    elif case == "input_added_optional":
        _tf1_builder(export, _predict_tf1(optional_scale=not old), [["serve"]])
    elif case == "signature_removed":
        _save(tf, export, *_module(tf, [None, 4], embed=old))
    elif case == "signature_added":
        _save(tf, export, *_module(tf, [None, 4], embed=not old))
    elif case == "method_changed":
        method = "tensorflow/serving/predict" if old else "tensorflow/serving/regress"
        _tf1_builder(export, _regress_tf1("outputs", method), [["serve"]])
    elif case == "output_removed":
        _save(tf, export, *_module(tf, [None, 4], outputs=("y", "z") if old else ("y",)))
    elif case == "output_dtype":
        _save(tf, export, *_module(tf, [None, 4], out_dtype=None if old else tf.int32))
    elif case == "output_shape":
        _save(tf, export, *_module(tf, [None, 4], out_width=2 if old else 3))
    elif case == "tag_set_removed":
        _tf1_builder(export, _predict_tf1(optional_scale=False), [["serve"], ["serve", "gpu"]] if old else [["serve"]])
    elif case == "regress_keys":
        _tf1_builder(export, _regress_tf1("outputs" if old else "prediction"), [["serve"]])
    elif case == "asset_renamed":
        vocab = work / ("vocab.txt" if old else "vocab_v2.txt")
        vocab.write_text(VOCAB)

        class Lookup(tf.Module):
            def __init__(self) -> None:
                super().__init__()
                initializer = tf.lookup.TextFileInitializer(
                    str(vocab),
                    tf.string,
                    tf.lookup.TextFileIndex.WHOLE_LINE,
                    tf.int64,
                    tf.lookup.TextFileIndex.LINE_NUMBER,
                )
                self.table = tf.lookup.StaticHashTable(initializer, -1)

            @tf.function(input_signature=[tf.TensorSpec([None], tf.string, name="words")])
            def lookup(self, words: Any) -> Any:
                return {"ids": self.table.lookup(words)}

        module = Lookup()
        tf.saved_model.save(module, str(export), signatures={"serving_default": module.lookup})
    else:
        raise SystemExit(f"unknown case {case}")
    (export / "fingerprint.pb").unlink(missing_ok=True)  # a hash of the files: not part of the API


def _feed(tf: Any, info: Any) -> Any:
    """A batch of 2 for a TensorInfo (unknown dimensions are 2; a pinned one keeps its size)."""
    import numpy

    dtype = tf.dtypes.as_dtype(info.dtype)
    dims = [2 if dim.size < 0 else dim.size for dim in info.tensor_shape.dim]
    if not info.tensor_shape.unknown_rank and dims:
        dims[0] = 2  # the client sends a batch of 2
    if dtype == tf.string:
        return numpy.full(dims, b"apple", dtype=object)
    return numpy.ones(dims, dtype=dtype.as_numpy_dtype)


def verdicts(base: Path) -> dict[str, Any]:
    """TensorFlow's answer to: does every client of version 1 still work against version 2?"""
    tf = _tf()
    v1 = tf.compat.v1
    from tensorflow.core.protobuf import config_pb2, saved_model_pb2

    old = saved_model_pb2.SavedModel.FromString((base / "1" / "saved_model.pb").read_bytes())
    result: dict[str, Any] = {}
    for meta in old.meta_graphs:
        tags = sorted(meta.meta_info_def.tags)
        for key, signature in sorted(meta.signature_def.items()):
            if key.startswith("__"):
                continue
            where = f"{{{', '.join(tags)}}} {key}"
            graph = tf.Graph()
            with v1.Session(graph=graph) as session:
                try:
                    loaded = v1.saved_model.load(session, tags, str(base / "2"))
                except Exception as error:  # the tag set is gone
                    result[where] = f"rejected: {type(error).__name__}: {str(error).splitlines()[0]}"
                    continue
                new = loaded.signature_def.get(key)
                if new is None:
                    result[where] = "rejected: no such signature"
                    continue
                api = signature.method_name.rsplit("/", 1)[-1]
                if new.method_name != signature.method_name and api in ("classify", "regress"):
                    # TF Serving's Classify and Regress APIs check the method; Predict runs any signature.
                    result[where] = f"rejected: method {new.method_name}, not {signature.method_name}"
                    continue
                missing = [name for name in signature.inputs if name not in new.inputs]
                missing += [name for name in signature.outputs if name not in new.outputs]
                if missing:
                    result[where] = f"rejected: no input or output {missing}"
                    continue
                # Session::Run as a server calls it: the fed tensors keep the client's dtype (Python's
                # Session.run would convert them to the placeholder's; a callable does not).
                options = config_pb2.CallableOptions()
                names = sorted(signature.inputs)
                options.feed.extend(new.inputs[name].name for name in names)
                fetched = sorted(signature.outputs)
                options.fetch.extend(new.outputs[name].name for name in fetched)
                try:
                    run = session._make_callable_from_options(options)
                    results = run(*[_feed(tf, signature.inputs[name]) for name in names])
                except Exception as error:
                    result[where] = f"rejected: {type(error).__name__}: {str(error).splitlines()[0][:200]}"
                    continue
                values = dict(zip(fetched, results))
                if set(new.inputs) <= set(signature.inputs):
                    # The TF2 loader's signature function (`tf.saved_model.load(...).signatures[key]`) checks
                    # a request against the signature's TensorSpecs, where Session::Run feeds what it is given.
                    function = tf.saved_model.load(str(base / "2"), tags=tags).signatures[key]
                    try:
                        function(**{name: tf.constant(_feed(tf, info)) for name, info in signature.inputs.items()})
                    except Exception as error:
                        reason = str(error).splitlines()[0][:200]
                        result[where] = f"rejected by the TF2 signature function: {type(error).__name__}: {reason}"
                        continue
                wrong = [
                    name
                    for name, info in signature.outputs.items()
                    if tf.dtypes.as_dtype(values[name].dtype) != tf.dtypes.as_dtype(info.dtype)
                    or any(
                        dim.size >= 0 and index < values[name].ndim and values[name].shape[index] != dim.size
                        for index, dim in enumerate(info.tensor_shape.dim)
                    )
                ]
                result[where] = f"rejected: outputs {wrong} not as version 1 declared" if wrong else "accepted"
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=REPO / "tests" / "data" / "compat")
    parser.add_argument("--only", help="build just this case (in this process)")
    parser.add_argument("--version", type=int, choices=(1, 2), help="with --only: just this version")
    parser.add_argument("--verdict", action="store_true", help="with --only: print TensorFlow's verdict as JSON")
    parser.add_argument("--old-tf-python", help="the python of another TensorFlow (newer_tf, older_tf)")
    parser.add_argument("--verdicts-only", action="store_true", help="only record TensorFlow's verdicts again")
    args = parser.parse_args(argv)
    if args.verdicts_only:
        _record(args)
        return 0
    if args.only and args.verdict:
        print(json.dumps(verdicts(args.out / args.only), sort_keys=True))
        return 0
    if args.only:
        import tempfile

        for version in [args.version] if args.version else [1, 2]:
            export = args.out / args.only / str(version)
            shutil.rmtree(export, ignore_errors=True)
            with tempfile.TemporaryDirectory() as work:
                build(args.only, version, export, Path(work))
        return 0
    args.out.mkdir(parents=True, exist_ok=True)
    for case in CASES:  # one process per model: TF1 graph mode and TF2 do not share a process well
        for version in (1, 2):
            python = sys.executable
            if (case, version) in (("newer_tf", 1), ("older_tf", 2)):
                if not args.old_tf_python:
                    raise SystemExit(f"{case} needs --old-tf-python")
                python = args.old_tf_python
            command = [python, __file__, "--out", str(args.out), "--only", case, "--version", str(version)]
            subprocess.run(command, check=True)
    _record(args)
    return 0


def _record(args: argparse.Namespace) -> None:
    """Ask TensorFlow for each pair's verdict (in the TensorFlow that served version 1) into verdicts.json."""
    record = {}
    for case in CASES:
        python = args.old_tf_python if case == "newer_tf" else sys.executable
        verdict = subprocess.run(
            [python, __file__, "--out", str(args.out), "--only", case, "--verdict"],
            check=True,
            capture_output=True,
            text=True,
        )
        record[case] = {"what": CASES[case], "clients_of_1": json.loads(verdict.stdout.strip().splitlines()[-1])}
    (args.out / "verdicts.json").write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
    _write_readme(args.out)


def _write_readme(out: Path) -> None:
    lines = [
        "# Pairs of model versions for `tflint compat`",
        "",
        "Written by `tools/gen_compat_models.py` (TensorFlow 2.21.0; `newer_tf` and `older_tf` also 2.15.1): "
        "each directory is a model base directory with versions `1/` and `2/`. `verdicts.json` records, for "
        "every signature of version 1, whether a client of it still works against version 2 when TensorFlow "
        "runs the request (for `newer_tf`, with TensorFlow 2.15, which served version 1).",
        "",
        "| pair | what changes |",
        "|---|---|",
    ]
    lines += [f"| `{name}/` | {text} |" for name, text in CASES.items()]
    (out / "README.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    sys.exit(main())
