"""Write pairs of small Keras SavedModels and what changed between them, for `tflint diff`'s tests (needs TensorFlow).

Each case is `tests/data/review/<case>/{old,new}/`, two SavedModels of a Keras
model written by `tf.saved_model.save` with one serving signature, each in a
process of its own as a user's two training runs would be: TensorFlow numbers
its functions per process, so even the same model saved twice differs in its
function names, and `fingerprint.pb` holds a random id.

The ground truth, `expected.json` beside them, is what TensorFlow and Keras say
of the pair, never what tflint says: the parameter counts (`model.count_params()`),
the op sets of the two graphs (read with TensorFlow's protobuf classes, function
bodies included), the variables by Keras path whose values differ (numpy), and
the signatures' keys, dtypes and shapes (`tf.saved_model.load`). The tests
replay these against `tflint diff`.

    $TF_PYTHON tools/gen_review_pairs.py [--out DIR] [--only CASE]
    $TF_PYTHON tools/gen_review_pairs.py --apps [--out DIR]     # keras.applications FLOPs and parameters

`--apps` records, for a few `keras.applications` models (weights=None: no
download), Keras's parameter count and TensorFlow's profiler count of
`float_ops` on the model frozen at batch 1, and writes the frozen graph with its
large constants' contents dropped (shapes kept), gzipped, for tflint to replay.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]

# case -> what the pair is.
CASES = {
    "same_model_saved_twice": "one model saved twice, in two processes, the second after tracing other functions",
    "same_model_exported_twice": "one model exported twice by Keras (model.export), numbered apart",
    "retrained": "the same architecture, other weights (weights only)",
    "layer_added": "a Dense layer inserted before the output layer",
    "op_swapped": "the hidden activation relu -> tanh",
    "dtype_changed": "the model's dtype float32 -> float64 (every weight, the signature's dtypes)",
    "signature_renamed": "the serving signature 'serving_default' -> 'predict'",
    "input_reshaped": "the input [-1,8] -> [-1,12] (the first kernel grows)",
}

# What each side of a case is built from: (hidden activation, extra layer, dtype, signature key, input width, seed).
_BASE = {
    "activation": "relu",
    "extra": False,
    "dtype": "float32",
    "endpoint": "serving_default",
    "width": 8,
    "seed": 1,
    "writer": "saved_model",
    "warmup": 0,
}
# A case may change the old side too (how both are written).
_OLD = {"same_model_exported_twice": {"writer": "export"}}
_NEW = {
    "same_model_saved_twice": {"warmup": 7},
    "same_model_exported_twice": {"writer": "export", "warmup": 3},
    "retrained": {"seed": 2},
    "layer_added": {"extra": True},
    "op_swapped": {"activation": "tanh"},
    "dtype_changed": {"dtype": "float64"},
    "signature_renamed": {"endpoint": "predict"},
    "input_reshaped": {"width": 12},
}

# What the construction of each pair changes in the graph, beyond the facts TensorFlow reports (below):
# the tests check that `tflint diff` reports this and nothing else.
STRUCTURE = {
    "same_model_saved_twice": {"kind": "nothing"},
    "same_model_exported_twice": {"kind": "nothing"},
    "retrained": {"kind": "weights only"},
    "layer_added": {"kind": "layer added", "scope": "extra"},
    "op_swapped": {"kind": "op swapped", "ops": ["Relu", "Tanh"]},
    "dtype_changed": {"kind": "dtype changed", "dtypes": ["float", "double"]},
    "signature_renamed": {"kind": "signature renamed", "keys": ["serving_default", "predict"]},
    "input_reshaped": {"kind": "input reshaped", "input": "features", "shapes": [[-1, 8], [-1, 12]]},
}

APPS = {
    # name -> (constructor, input size): small enough to build in seconds
    "mobilenet_v2_035": ("MobileNetV2", {"alpha": 0.35}, 96),
    "mobilenet_v3_small": ("MobileNetV3Small", {"minimalistic": True}, 96),
    "resnet50": ("ResNet50", {}, 64),
}


def _build(spec: dict[str, Any]) -> Any:
    import keras
    import numpy as np

    keras.utils.set_random_seed(spec["seed"])
    keras.config.set_floatx(spec["dtype"])
    layers = [
        keras.Input(shape=(spec["width"],), name="features", dtype=spec["dtype"]),
        keras.layers.Dense(16, activation=spec["activation"], name="hidden"),
    ]
    if spec["extra"]:
        layers.append(keras.layers.Dense(16, activation="relu", name="extra"))
    layers.append(keras.layers.Dense(4, name="logits"))
    model = keras.Sequential(layers, name="classifier")
    # A seed's weights everywhere: the glorot initializer would give the same values for the same seed anyway,
    # but every weight (biases too) gets distinct values, so a retrained pair differs in every variable.
    rng = np.random.default_rng(spec["seed"])
    model.set_weights([rng.standard_normal(w.shape).astype(spec["dtype"]) for w in model.get_weights()])
    return model


def _save(spec: dict[str, Any], out: Path) -> None:
    """Child process: build the model of `spec` and save it to `out`, with Keras's facts beside it."""
    import numpy as np
    import tensorflow as tf

    for size in range(spec["warmup"]):  # functions traced before the save: TensorFlow numbers the saved ones after
        tf.function(lambda x: x * 2).get_concrete_function(tf.TensorSpec([size + 1], tf.float32))
    model = _build(spec)
    if spec["writer"] == "export":
        model.export(str(out), format="tf_saved_model", verbose=False)
    else:
        serve = tf.function(lambda features: {"scores": model(features)})
        concrete = serve.get_concrete_function(tf.TensorSpec([None, spec["width"]], spec["dtype"], name="features"))
        tf.saved_model.save(model, str(out), signatures={spec["endpoint"]: concrete})
    facts = {
        "params": int(model.count_params()),
        "weights": {w.path: np.asarray(w.numpy()).tolist() for w in model.weights},
    }
    (out.parent / f"{out.name}.facts.json").write_text(json.dumps(facts))


def _ops(saved_model: Path) -> list[str]:
    from tensorflow.core.protobuf import saved_model_pb2

    message = saved_model_pb2.SavedModel()
    message.ParseFromString((saved_model / "saved_model.pb").read_bytes())
    ops = set()
    for meta in message.meta_graphs:
        ops.update(node.op for node in meta.graph_def.node)
        for function in meta.graph_def.library.function:
            ops.update(node.op for node in function.node_def)
    return sorted(ops)


def _signatures(saved_model: Path) -> dict[str, Any]:
    from tensorflow.core.protobuf import saved_model_pb2

    message = saved_model_pb2.SavedModel()
    message.ParseFromString((saved_model / "saved_model.pb").read_bytes())
    found: dict[str, Any] = {}
    for key, signature in message.meta_graphs[0].signature_def.items():
        if key.startswith("__"):
            continue
        found[key] = {
            direction: {
                name: {"dtype": info.dtype, "shape": [d.size for d in info.tensor_shape.dim]}
                for name, info in getattr(signature, direction).items()
            }
            for direction in ("inputs", "outputs")
        }
    return found


def _case(name: str, out: Path) -> None:
    folder = out / name
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    old = dict(_BASE, **_OLD.get(name, {}))
    specs = {"old": old, "new": dict(old, **_NEW[name])}
    for side, spec in specs.items():
        subprocess.run(
            [sys.executable, __file__, "--child", json.dumps(spec), str(folder / side)],
            check=True,
            env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES=""),
        )
    facts = {side: json.loads((folder / f"{side}.facts.json").read_text()) for side in specs}
    for side in specs:
        (folder / f"{side}.facts.json").unlink()
    old_w, new_w = facts["old"]["weights"], facts["new"]["weights"]
    old_ops, new_ops = _ops(folder / "old"), _ops(folder / "new")
    expected = {
        "description": CASES[name],
        "structure": STRUCTURE[name],
        "params": [facts["old"]["params"], facts["new"]["params"]],
        "ops_added": sorted(set(new_ops) - set(old_ops)),
        "ops_removed": sorted(set(old_ops) - set(new_ops)),
        "weights_added": sorted(set(new_w) - set(old_w)),
        "weights_removed": sorted(set(old_w) - set(new_w)),
        "weights_changed": sorted(path for path in set(old_w) & set(new_w) if old_w[path] != new_w[path]),
        "signatures": {"old": _signatures(folder / "old"), "new": _signatures(folder / "new")},
    }
    (folder / "expected.json").write_text(json.dumps(expected, indent=1, sort_keys=True) + "\n")
    print(f"{name}: {expected['params']} params, ops +{expected['ops_added']} -{expected['ops_removed']}")


def _strip_large_constants(graph_def: Any, keep_elements: int = 64) -> None:
    """Drop the values of big constants (the weights), keeping dtype and shape: the FLOPs need only shapes."""
    for node in graph_def.node:
        if node.op != "Const":
            continue
        tensor = node.attr["value"].tensor
        elements = 1
        for dim in tensor.tensor_shape.dim:
            elements *= max(dim.size, 0)
        if elements > keep_elements:
            tensor.ClearField("tensor_content")
            tensor.ClearField("float_val")


def _app(name: str, out: Path) -> dict[str, Any]:
    import keras
    import tensorflow as tf
    from tensorflow.python.framework.convert_to_constants import convert_variables_to_constants_v2

    constructor, kwargs, size = APPS[name]
    model = getattr(keras.applications, constructor)(weights=None, input_shape=(size, size, 3), **kwargs)
    function = tf.function(lambda x: model(x, training=False))
    concrete = function.get_concrete_function(tf.TensorSpec([1, size, size, 3], tf.float32))
    frozen = convert_variables_to_constants_v2(concrete)
    graph_def = frozen.graph.as_graph_def()
    with tf.Graph().as_default() as graph:
        tf.compat.v1.import_graph_def(graph_def, name="")
        options = tf.compat.v1.profiler.ProfileOptionBuilder.float_operation()
        options["output"] = "none"
        flops = tf.compat.v1.profiler.profile(graph, options=options).total_float_ops
    _strip_large_constants(graph_def)
    (out / f"{name}.pb.gz").write_bytes(gzip.compress(graph_def.SerializeToString(), mtime=0))
    return {"params": int(model.count_params()), "float_ops": int(flops), "input": [1, size, size, 3]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=REPO / "tests" / "data" / "review")
    parser.add_argument("--only", choices=sorted(CASES))
    parser.add_argument("--apps", action="store_true")
    parser.add_argument("--child", nargs=2, metavar=("SPEC", "OUT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _save(json.loads(args.child[0]), Path(args.child[1]))
        return
    if args.apps:
        apps = args.out / "apps"
        apps.mkdir(parents=True, exist_ok=True)
        record = {name: _app(name, apps) for name in APPS}
        (apps / "expected.json").write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
        print(json.dumps(record))
        return
    for name in [args.only] if args.only else CASES:
        _case(name, args.out)


if __name__ == "__main__":
    main()
