"""Write graphs with a new TensorFlow for tools/check_target_tf.py to import into old ones.

A maintainer tool: run it under the newest TensorFlow (it needs TF and Keras):

    python tools/make_target_graphs.py OUT_DIR

Writes, for each model, a frozen GraphDef (`NAME.pb` and `NAME.pbtxt`) and a
TF2 SavedModel directory (`NAME.savedmodel/`, variables included): Keras
layers (Dense, Conv2D + BatchNormalization + pooling, LSTM, GRU,
MultiHeadAttention, Embedding), `tf.cast`, `tf.gather(batch_dims=1)`,
resize ops, string and ragged ops, `tf.function` control flow, a TF1-style
graph of placeholders and variables.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")


def main() -> int:
    import tensorflow as tf
    from tensorflow.python.framework.convert_to_constants import convert_variables_to_constants_v2

    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    keras = tf.keras

    def export(name, function, signature, module=None):
        concrete = function.get_concrete_function(*signature)
        frozen = convert_variables_to_constants_v2(concrete).graph.as_graph_def()
        (out / f"{name}.pb").write_bytes(frozen.SerializeToString())
        tf.io.write_graph(frozen, str(out), f"{name}.pbtxt", as_text=True)
        holder = module or tf.Module()
        holder.serve = function
        tf.saved_model.save(holder, str(out / f"{name}.savedmodel"), signatures=concrete)

    def keras_model(name, layers, shape, dtype=tf.float32):
        inputs = keras.Input(shape=shape[1:], dtype=dtype)
        x = inputs
        for layer in layers:
            x = layer(x)
        model = keras.Model(inputs, x)
        module = tf.Module()
        module.model = model

        @tf.function
        def serve(x):
            return model(x)

        export(name, serve, [tf.TensorSpec(shape, dtype)], module)

    keras_model("keras_dense", [keras.layers.Dense(8, activation="relu"), keras.layers.Dense(2)], [None, 4])
    keras_model(
        "keras_conv_bn",
        [
            keras.layers.Conv2D(4, 3, padding="same"),
            keras.layers.BatchNormalization(),
            keras.layers.ReLU(),
            keras.layers.MaxPooling2D(),
            keras.layers.DepthwiseConv2D(3),
            keras.layers.GlobalAveragePooling2D(),
            keras.layers.Dense(3),
        ],
        [None, 16, 16, 3],
    )
    keras_model("keras_lstm", [keras.layers.LSTM(6), keras.layers.Dense(2)], [None, 5, 3])
    keras_model("keras_gru", [keras.layers.GRU(6, return_sequences=True)], [None, 5, 3])
    keras_model(
        "keras_embedding", [keras.layers.Embedding(50, 8), keras.layers.GlobalAveragePooling1D()], [None, 7], tf.int32
    )

    attention = keras.layers.MultiHeadAttention(num_heads=2, key_dim=4)
    inputs = keras.Input(shape=(5, 8))
    model = keras.Model(inputs, attention(inputs, inputs))
    module = tf.Module()
    module.model = model
    export("keras_attention", tf.function(lambda x: model(x)), [tf.TensorSpec([None, 5, 8])], module)

    export("cast", tf.function(lambda x: tf.cast(x, tf.int32)), [tf.TensorSpec([None], tf.float32)])
    export(
        "gather_batch_dims",
        tf.function(lambda params, indices: tf.gather(params, indices, batch_dims=1)),
        [tf.TensorSpec([None, 5], tf.float32), tf.TensorSpec([None, 2], tf.int32)],
    )
    export(
        "resize",
        tf.function(
            lambda x: (
                tf.image.resize(x, [8, 8], method="bilinear"),
                tf.image.resize(x, [8, 8], method="nearest"),
                tf.compat.v1.image.resize_bilinear(x, [6, 6], half_pixel_centers=True),
            )
        ),
        [tf.TensorSpec([1, 4, 4, 3])],
    )
    export(
        "strings_ragged",
        tf.function(lambda s: tf.strings.split(s).to_tensor(default_value="")),
        [tf.TensorSpec([None], tf.string)],
    )
    export(
        "ragged_reduce",
        tf.function(lambda s: tf.reduce_sum(tf.strings.to_number(tf.strings.split(s)), axis=1)),
        [tf.TensorSpec([None], tf.string)],
    )

    @tf.function
    def control_flow(x):
        total = tf.constant(0.0)
        for i in tf.range(3):
            total += tf.cond(tf.reduce_sum(x) > tf.cast(i, tf.float32), lambda: tf.reduce_max(x), lambda: 1.0)
        return total

    export("tf_function_control_flow", control_flow, [tf.TensorSpec([None], tf.float32)])

    class Counter(tf.Module):
        def __init__(self):
            self.w = tf.Variable(tf.ones([3, 2]), name="w")
            self.b = tf.Variable(tf.zeros([2]), name="b")

        @tf.function(input_signature=[tf.TensorSpec([None, 3])])
        def serve(self, x):
            return tf.matmul(x, self.w) + self.b

    counter = Counter()
    tf.saved_model.save(counter, str(out / "variables_module.savedmodel"), signatures=counter.serve)

    graph = tf.Graph()
    with graph.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [None, 3], name="x")
        w = tf.compat.v1.get_variable("w", [3, 2], use_resource=False)
        y = tf.nn.softmax(tf.matmul(x, w), name="y")
        tf.compat.v1.argmax(y, axis=1, name="label")
        with tf.compat.v1.Session(graph=graph) as session:
            session.run(tf.compat.v1.global_variables_initializer())
            frozen = tf.compat.v1.graph_util.convert_variables_to_constants(session, graph.as_graph_def(), ["label"])
    (out / "tf1_graph.pb").write_bytes(frozen.SerializeToString())
    tf.io.write_graph(frozen, str(out), "tf1_graph.pbtxt", as_text=True)
    print(f"wrote {len(list(out.iterdir()))} graphs to {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
