"""Write TF1-style graphs covering the ops shape-mismatch has shape functions for, with `_output_shapes` (maintainer tool; needs TensorFlow).

Usage: $TF_PYTHON tools/gen_shape_graphs.py [OUT_DIR]   (default tests/data/shapes)

Each graph is written by TensorFlow itself (`as_graph_def(add_shapes=True)`, text
format), so every `_output_shapes` entry is what TensorFlow 2.21 infers; the test
suite checks that tflint reports nothing on them.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import tensorflow as tf  # noqa: E402

tf1 = tf.compat.v1


def _save(out: Path, name: str, graph: tf.Graph) -> None:
    graph_def = graph.as_graph_def(add_shapes=True)
    tf.io.write_graph(graph_def, str(out), f"{name}.pbtxt", as_text=True)


def convolutional(out: Path) -> None:
    """Conv2D, pooling, batch norm, dense layers and most array ops, with a ref-variable training step."""
    graph = tf.Graph()
    with graph.as_default():
        images = tf1.placeholder(tf.float32, [None, 28, 28, 3], name="images")
        kernel = tf1.get_variable("w", [3, 3, 3, 8], use_resource=False)
        y = tf.nn.conv2d(images, kernel, strides=[1, 2, 2, 1], padding="SAME")
        y = tf.nn.relu(tf.nn.bias_add(y, tf1.get_variable("b", [8], use_resource=False)))
        y = tf.nn.max_pool2d(y, 2, 2, "VALID")
        y = tf.nn.avg_pool2d(y, 2, 1, "SAME")
        y, _, _ = tf1.nn.fused_batch_norm(
            y, tf.ones([8]), tf.zeros([8]), mean=tf.zeros([8]), variance=tf.ones([8]), is_training=False
        )
        y = tf.reshape(y, [-1, 7 * 7 * 8])
        logits = tf.matmul(y, tf1.get_variable("dw", [7 * 7 * 8, 10], use_resource=False))
        probs = tf.nn.softmax(logits)
        mean = tf.reduce_mean(probs, axis=[1], keepdims=True)
        tf.argmax(probs, axis=1)
        tf.transpose(probs, [1, 0])
        tf.squeeze(tf.expand_dims(mean, 0), [0])
        doubled = tf.concat([probs, probs], axis=-1)
        tf.unstack(tf.stack([probs, probs], axis=1), axis=1)
        tf.split(doubled, 2, axis=1)
        tf.tile(mean, [1, 4])
        tf.slice(probs, [0, 1], [-1, 3])
        tf.gather(probs, [0, 2], axis=1)
        tf.fill([2, 3], 1.0)
        tf.range(0, 10, 2)
        tf.random.uniform([4, 5])
        tf1.where(tf.greater(probs, 0.5), probs, tf.zeros_like(probs))
        tf.where(tf.greater(probs, 0.5), probs, 0.0)
        tf.add_n([probs, probs, probs])
        tf.shape(probs), tf.size(probs), tf.rank(probs)
        tf.matmul(tf.reshape(probs, [-1, 2, 5]), tf.ones([5, 3]))
        tf.equal(probs, probs)
        tf.ensure_shape(probs, [None, 10])
        tf1.placeholder_with_default(tf.zeros([2, 10]), [None, 10])
        tf.unique(tf.constant([1, 2, 1]))
        loss = tf.reduce_sum(tf.square(logits))
        tf1.train.GradientDescentOptimizer(0.1).minimize(loss)
        tf1.global_variables_initializer()
    _save(out, "tf1_convolutional", graph)


def parsing(out: Path) -> None:
    """ParseExample, ParseExampleV2 (ragged) and ParseSingleExample."""
    graph = tf.Graph()
    with graph.as_default():
        serialized = tf1.placeholder(tf.string, [None], name="serialized")
        features = {
            "a": tf.io.FixedLenFeature([3], tf.float32),
            "b": tf.io.VarLenFeature(tf.int64),
            "c": tf.io.FixedLenFeature([], tf.string, default_value=""),
        }
        tf1.parse_example(serialized, features)
        tf.io.parse_single_example(tf1.placeholder(tf.string, [], name="one"), features)
        tf.io.parse_example(
            serialized, {"r": tf.io.RaggedFeature(tf.int64), "a": tf.io.FixedLenFeature([2], tf.float32)}
        )
    _save(out, "tf1_parsing", graph)


def loops_and_variables(out: Path) -> None:
    """A control-flow v1 while loop and cond, resource and ref variables."""
    graph = tf.Graph()
    with graph.as_default():
        x = tf1.placeholder(tf.float32, [2, 3], name="x")
        tf1.while_loop(lambda i, v: i < 10, lambda i, v: (i + 1, tf.nn.relu(v) * 2.0), [tf.constant(0), x])
        tf1.cond(tf1.placeholder(tf.bool, []), lambda: x + 1, lambda: x - 1)
        resource = tf1.get_variable("rv", [4, 5], use_resource=True)
        _ = resource.read_value() + 1.0
        resource.assign(tf.zeros([4, 5]))
        resource.assign_add(tf.ones([4, 5]))
        tf.nn.embedding_lookup(resource, [0, 1])
        tf1.assign_add(tf1.get_variable("vv", [3], use_resource=False), [1.0, 2.0, 3.0])
        tf1.global_variables_initializer()
    _save(out, "tf1_loops_and_variables", graph)


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[1] / "tests" / "data" / "shapes"
    out.mkdir(parents=True, exist_ok=True)
    tf1.disable_eager_execution()
    tf1.disable_control_flow_v2()
    for build in (convolutional, parsing, loops_and_variables):
        build(out)
        print(f"wrote {build.__name__}")


if __name__ == "__main__":
    main()
