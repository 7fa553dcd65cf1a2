"""Have TensorFlow write a frozen weights-heavy GraphDef: a tf.keras.applications model, weights=None.

    $TF_PYTHON bench/tf_weights.py OUT.pb [MODEL]     # MODEL: ResNet50 (default), MobileNetV2, VGG16, ...

Run by an interpreter with TensorFlow (bench/run.py --tf-python --weights starts it and caches
the result); tflint itself never imports TensorFlow. The model is built with its random
initial weights (nothing is downloaded: weights=None), traced for a batch of 224x224x3
images, and frozen the way serving code freezes a model (`convert_variables_to_constants_v2`):
every variable becomes a Const whose `tensor_content` holds the weights. ResNet50 gives a
~100 MB file of ~560 nodes, nearly all of it weights. Prints the number of top-level nodes.
"""

from __future__ import annotations

import os
import sys


def main(argv: list[str]) -> int:
    out, name = argv[1], argv[2] if len(argv) > 2 else "ResNet50"
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    import tensorflow as tf
    from tensorflow.python.framework.convert_to_constants import convert_variables_to_constants_v2

    tf.keras.utils.set_random_seed(0)  # the same weights every time
    model = getattr(tf.keras.applications, name)(weights=None)
    concrete = tf.function(lambda images: model(images, training=False)).get_concrete_function(
        tf.TensorSpec([None, 224, 224, 3], tf.float32, name="images")
    )
    graph_def = convert_variables_to_constants_v2(concrete).graph.as_graph_def()
    temporary = out + ".tmp"
    with open(temporary, "wb") as file:
        file.write(graph_def.SerializeToString())
    os.replace(temporary, out)
    print(len(graph_def.node))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
