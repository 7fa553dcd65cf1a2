"""Write small real SavedModel directories for the serving rules' tests into tests/data/serving (needs TensorFlow).

Each model is written by TensorFlow's own exporters, then loaded back with
`tf.saved_model.load` and `tf.compat.v1.saved_model.load`, and every
signature is run once: a model that does not serve is not written. The
tests break copies of these directories (remove `variables/`, an asset,
retarget a signature) to check the serving rules against what the loaders
do; the unbroken directories must validate cleanly.

    $TF_PYTHON tools/gen_serving_models.py [--out DIR]

Reruns give the same graphs; checkpoints, `fingerprint.pb` and hash-table
`shared_name`s differ from run to run.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
VOCAB = "apple\nbanana\ncherry\n"

MODELS = {
    "tf1_legacy_init_op": "TF1 `saved_model.Builder` export: a float predict signature over a variable, a string "
    "lookup signature over a vocabulary asset (`saved_model_assets` collection), and the table initializer as "
    "`legacy_init_op` (the collection TF 1.x wrote; TF 2.21's Builder writes `saved_model_main_op`, so the "
    "generator renames it, and keeps one of the two `saved_model_assets` entries the Builder writes: TF Serving's "
    "C++ loader refuses a tensor fed twice)",
    "tf2_module_signatures": "TF2 `tf.saved_model.save` of a `tf.Module`: two signatures (`serving_default` over a "
    "variable, `lookup` over a `StaticHashTable` from an asset), both `StatefulPartitionedCall` outputs",
    "tf2_keras_export": "Keras 3 `Model.export`: a small functional model (Dense + Dropout) with one "
    "`serve` / `serving_default` signature",
}


def _tf() -> Any:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow

    return tensorflow


def build_tf1_legacy_init_op(export: Path, work: Path) -> None:
    tf = _tf()
    v1 = tf.compat.v1
    vocab = work / "vocab.txt"
    vocab.write_text(VOCAB)
    graph = tf.Graph()
    with graph.as_default():
        x = v1.placeholder(tf.float32, [None, 2], name="x")
        w = v1.get_variable("w", initializer=[[1.0], [2.0]])
        y = tf.identity(tf.matmul(x, w), name="y")
        words = v1.placeholder(tf.string, [None], name="words")
        path = tf.constant(str(vocab), name="vocab_path")
        v1.add_to_collection(v1.GraphKeys.ASSET_FILEPATHS, path)
        initializer = v1.lookup.TextFileInitializer(path, tf.string, -2, tf.int64, -1)
        table = v1.lookup.StaticHashTable(initializer, -1)
        ids = tf.identity(table.lookup(words), name="ids")
        with v1.Session() as session:
            session.run([v1.global_variables_initializer(), v1.tables_initializer()])
            builder = v1.saved_model.Builder(str(export))
            builder.add_meta_graph_and_variables(
                session,
                [v1.saved_model.tag_constants.SERVING],
                signature_def_map={
                    "serving_default": v1.saved_model.predict_signature_def({"x": x}, {"y": y}),
                    "lookup": v1.saved_model.predict_signature_def({"words": words}, {"ids": ids}),
                },
                assets_collection=v1.get_collection(v1.GraphKeys.ASSET_FILEPATHS),
                main_op=v1.tables_initializer(),
                clear_devices=True,
            )
            builder.save()
    from tensorflow.core.protobuf import saved_model_pb2

    saved = saved_model_pb2.SavedModel()
    saved.ParseFromString((export / "saved_model.pb").read_bytes())
    collections = saved.meta_graphs[0].collection_def
    collections["legacy_init_op"].CopyFrom(collections["saved_model_main_op"])
    del collections["saved_model_main_op"]
    # TF 2.21's Builder, given assets_collection, lists the vocabulary twice in saved_model_assets: the
    # Python loaders take it, but TF Serving's C++ loader feeds the asset tensor twice and refuses the
    # model ('Endpoint "vocab_path:0" fed more than once.', missing-asset). This base is a healthy model.
    assets = collections["saved_model_assets"].any_list.value
    del assets[1:]
    (export / "saved_model.pb").write_bytes(saved.SerializeToString())


def build_tf2_module_signatures(export: Path, work: Path) -> None:
    tf = _tf()
    vocab = work / "vocab.txt"
    vocab.write_text(VOCAB)

    class Model(tf.Module):
        def __init__(self) -> None:
            super().__init__()
            self.w = tf.Variable([[1.0], [2.0]], name="w")
            initializer = tf.lookup.TextFileInitializer(
                str(vocab), tf.string, tf.lookup.TextFileIndex.WHOLE_LINE, tf.int64, tf.lookup.TextFileIndex.LINE_NUMBER
            )
            self.table = tf.lookup.StaticHashTable(initializer, -1)

        @tf.function(input_signature=[tf.TensorSpec([None, 2], tf.float32)])
        def predict(self, x: Any) -> Any:
            return {"y": tf.matmul(x, self.w)}

        @tf.function(input_signature=[tf.TensorSpec([None], tf.string)])
        def lookup(self, words: Any) -> Any:
            return {"ids": self.table.lookup(words)}

    model = Model()
    tf.saved_model.save(model, str(export), signatures={"serving_default": model.predict, "lookup": model.lookup})


def build_tf2_keras_export(export: Path, work: Path) -> None:
    _tf()
    import keras

    keras.utils.set_random_seed(1234)
    inputs = keras.Input(shape=(2,), name="features")
    hidden = keras.layers.Dense(3, activation="relu", name="hidden")(inputs)
    hidden = keras.layers.Dropout(0.5, name="dropout")(hidden)
    outputs = keras.layers.Dense(1, name="score")(hidden)
    keras.Model(inputs, outputs).export(str(export), verbose=False)


FEEDS = {"x": [[1.0, 1.0]], "words": [b"apple", b"zebra"], "features": [[1.0, 2.0]]}


def verify(export: Path) -> None:
    """Load with both loaders and run every signature once; raise if anything fails."""
    tf = _tf()
    loaded = tf.saved_model.load(str(export))
    for key, function in loaded.signatures.items():
        _, kwargs = function.structured_input_signature
        function(
            **{
                name: tf.constant(FEEDS[name] if name in FEEDS else FEEDS["features"], dtype=spec.dtype)
                for name, spec in kwargs.items()
            }
        )
    graph = tf.Graph()
    with tf.compat.v1.Session(graph=graph) as session:
        meta = tf.compat.v1.saved_model.load(session, ["serve"], str(export))
        for key, signature in meta.signature_def.items():
            if key.startswith("__"):
                continue
            feeds = {info.name: FEEDS.get(name, FEEDS["features"]) for name, info in signature.inputs.items()}
            session.run({name: info.name for name, info in signature.outputs.items()}, feeds)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=REPO / "tests" / "data" / "serving")
    parser.add_argument("--only", help="build just this model (runs in this process)")
    args = parser.parse_args(argv)
    if args.only:
        export = args.out / args.only
        shutil.rmtree(export, ignore_errors=True)
        with tempfile.TemporaryDirectory() as work:
            globals()[f"build_{args.only}"](export, Path(work))
        verify(export)
        return 0
    args.out.mkdir(parents=True, exist_ok=True)
    for name in MODELS:  # one process each: TF1 graph mode and Keras do not share a process well
        subprocess.run([sys.executable, __file__, "--out", str(args.out), "--only", name], check=True)
    _write_readme(args.out)
    return 0


def _write_readme(out: Path) -> None:
    lines = [
        "# SavedModel directories for the serving rules",
        "",
        "Written by TensorFlow 2.21.0 with `tools/gen_serving_models.py`; each was loaded back with "
        "`tf.saved_model.load` and `tf.compat.v1.saved_model.load` and every signature was run once. "
        "tflint (the `serving` preset included) must report no error on any of them; `tests/test_serving.py` "
        "breaks copies of them.",
        "",
        "| directory | what it is |",
        "|---|---|",
    ]
    lines += [f"| `{name}/` | {text} |" for name, text in MODELS.items()]
    (out / "README.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    sys.exit(main())
