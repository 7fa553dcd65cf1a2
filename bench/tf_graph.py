"""Have TensorFlow write a GraphDef of the kind issue 5's figures were measured on.

    $TF_PYTHON bench/tf_graph.py NODES OUT_STEM      # writes OUT_STEM.pb and OUT_STEM.pbtxt

Run by an interpreter with TensorFlow (bench/run.py --tf-python starts it and caches the
result); tflint itself never imports TensorFlow. The graph is one traced function of chained
Const / AddV2 / Mul / Identity / ConcatV2 / Reshape / Sum blocks, with a call of a small
library function every 20 blocks, as `shared/reference/performance-facts.md` describes: about
68 bytes a node in binary and 256 in text, where gen_graph.py's graphs (scoped names,
`_output_shapes`, many-attr ops, control flow) have 151 and 412. The text is TensorFlow's own
(`tf.io.write_graph`). It stops once it has NODES top-level nodes (counted every 20 blocks, so
up to 220 more).
"""

from __future__ import annotations

import os
import sys

# Blocks between two calls of the library function, and two counts of the nodes so far (a count
# copies the graph's list of ops).
_EVERY = 20


def main(argv: list[str]) -> int:
    nodes, stem = int(argv[1]), argv[2]
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    import tensorflow as tf

    @tf.function
    def helper(x):
        return tf.nn.relu(x * 2.0 + 1.0)

    def body(x):
        graph = tf.compat.v1.get_default_graph()  # the function graph being traced
        block = 0
        while block % _EVERY or len(graph.get_operations()) < nodes:
            total = tf.raw_ops.AddV2(x=x, y=tf.constant([1.0, 2.0, 3.0, 4.0]))
            scaled = tf.identity(tf.raw_ops.Mul(x=total, y=tf.constant(0.5)))
            joined = tf.reshape(tf.concat([scaled, total], axis=0), [2, 4])
            x = tf.reduce_sum(joined, axis=0)
            block += 1
            if block % _EVERY == 0:
                x = helper(x)
        return x

    traced = tf.function(body).get_concrete_function(tf.TensorSpec([4], tf.float32))
    graph_def = traced.graph.as_graph_def()
    with open(stem + ".pb", "wb") as out:
        out.write(graph_def.SerializeToString())
    directory, name = os.path.split(os.path.abspath(stem + ".pbtxt"))
    tf.io.write_graph(graph_def, directory, name, as_text=True)
    print(len(graph_def.node))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
