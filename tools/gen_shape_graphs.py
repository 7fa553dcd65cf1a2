"""Write TF1-style graphs covering the ops with shape functions, with `_output_shapes` (maintainer tool; needs TF).

Usage: $TF_PYTHON tools/gen_shape_graphs.py [OUT_DIR]   (default tests/data/shapes)
       $TF_PYTHON tools/gen_shape_graphs.py --models OUT_DIR   (big models for tools/shape_coverage.py)

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


def lists_and_diagonals(out: Path) -> None:
    """TensorList ops, matrix diagonals, BroadcastTo and IdentityN (raw ops, so the graph names them)."""
    raw = tf.raw_ops
    graph = tf.Graph()
    with graph.as_default():
        x = tf1.placeholder(tf.float32, [5, 4, 3], name="x")
        item = tf1.placeholder(tf.float32, [4, 3], name="item")
        reserved = raw.TensorListReserve(element_shape=[4, 3], num_elements=5, element_dtype=tf.float32)
        updated = raw.TensorListSetItem(input_handle=reserved, index=0, item=item)
        raw.TensorListGetItem(input_handle=updated, index=1, element_shape=[4, 3], element_dtype=tf.float32)
        raw.TensorListStack(input_handle=updated, element_shape=[4, 3], element_dtype=tf.float32, num_elements=5)
        pushed = raw.TensorListPushBack(input_handle=updated, tensor=item)
        raw.TensorListPopBack(input_handle=pushed, element_shape=[4, 3], element_dtype=tf.float32)
        raw.TensorListLength(input_handle=pushed)
        raw.TensorListElementShape(input_handle=pushed, shape_type=tf.int32)
        listed = raw.TensorListFromTensor(tensor=x, element_shape=[4, 3])
        raw.TensorListGather(input_handle=listed, indices=[0, 2], element_shape=[-1, 3], element_dtype=tf.float32)
        raw.TensorListResize(input_handle=listed, size=3)
        scattered = raw.TensorListScatterV2(tensor=x, indices=tf.range(5), element_shape=[4, 3], num_elements=5)
        raw.TensorListConcatV2(
            input_handle=scattered,
            element_shape=[-1, 3],
            leading_dims=tf.zeros([0], tf.int64),
            element_dtype=tf.float32,
        )
        empty = raw.EmptyTensorList(element_shape=[4, 3], max_num_elements=3, element_dtype=tf.float32)
        raw.TensorListPushBack(input_handle=empty, tensor=item)
        square = tf1.placeholder(tf.float32, [2, 4, 4], name="square")
        band = tf1.placeholder(tf.float32, [2, 3, 4], name="band")
        tf.linalg.diag_part(square, k=(-1, 1))
        tf.linalg.diag_part(square, k=1)
        tf.linalg.diag(band, k=(-1, 1), num_rows=5)
        tf.linalg.diag(item, k=0)
        tf.linalg.set_diag(square, tf.zeros([2, 3, 4]), k=(-1, 1))
        tf.linalg.set_diag(square, tf.zeros([2, 4]))
        tf.linalg.band_part(square, 1, -1)
        raw.MatrixDiagPart(input=square)
        raw.MatrixDiag(diagonal=item)
        raw.MatrixSetDiag(input=square, diagonal=tf.ones([2, 4]))
        raw.Diag(diagonal=item)
        raw.DiagPart(input=tf.zeros([3, 2, 3, 2]))
        tf.broadcast_to(tf1.placeholder(tf.float32, [3, 1], name="column"), [2, 3, 4])
        tf.identity_n([x, item])
    _save(out, "tf1_lists_and_diagonals", graph)


def sparse(out: Path) -> None:
    """Sparse ops on a SparseTensor fed by placeholders, and their dense neighbours."""
    graph = tf.Graph()
    with graph.as_default():
        indices = tf1.placeholder(tf.int64, [6, 2], name="indices")
        values = tf1.placeholder(tf.float32, [6], name="values")
        dense_shape = tf.constant([4, 5], tf.int64, name="dense_shape")
        st = tf.SparseTensor(indices, values, dense_shape)
        dense = tf1.placeholder(tf.float32, [5, 3], name="dense")
        tf.sparse.sparse_dense_matmul(st, dense)
        tf.sparse.sparse_dense_matmul(
            st, tf1.placeholder(tf.float32, [3, 4], name="dense_t"), adjoint_a=True, adjoint_b=True
        )
        tf.sparse.to_dense(st)
        tf.sparse.reshape(st, [2, 10])
        tf.sparse.fill_empty_rows(st, 0.0)
        tf.sparse.reduce_sum(st, axis=1)
        tf.sparse.reduce_max(st, axis=0, keepdims=True)
        tf.sparse.concat(1, [st, st])
        tf.sparse.add(st, st)
        tf.sparse.reorder(st)
        tf.sparse.softmax(st)
        tf.sparse.slice(st, [0, 0], [2, 3])
        tf.sparse.add(st, tf1.placeholder(tf.float32, [4, 5], name="dense_b"))
        tf1.sparse_to_dense(tf1.placeholder(tf.int32, [3, 2], name="sparse_indices"), [4, 4], 1.0)
        data = tf1.placeholder(tf.float32, [10, 3], name="data")
        segment_ids = tf1.placeholder(tf.int32, [4], name="segment_ids")
        ids = tf1.placeholder(tf.int32, [4], name="ids")
        tf.sparse.segment_sum(data, ids, segment_ids, num_segments=6)
        tf.sparse.segment_mean(data, ids, segment_ids, num_segments=6)
    _save(out, "tf1_sparse_ops", graph)


def gradients(out: Path) -> None:
    """Gradients of a depthwise convolution, batch norm V3 and a while loop (stacks, TensorArrays)."""
    graph = tf.Graph()
    with graph.as_default():
        images = tf1.placeholder(tf.float32, [2, 8, 8, 3], name="images")
        kernel = tf1.get_variable("depthwise", [3, 3, 3, 2], use_resource=False)
        y = tf.nn.depthwise_conv2d(images, kernel, [1, 1, 1, 1], "SAME")
        y, _, _ = tf1.nn.fused_batch_norm(y, tf.ones([6]), tf.zeros([6]), is_training=True)
        steps = tf.TensorArray(tf.float32, 4, element_shape=[2, 6]).unstack(tf.reshape(y[:, :4, 0, :], [4, 2, 6]))

        def body(t, h, out):
            h = tf.tanh(h * steps.read(t))
            return t + 1, h, out.write(t, h)

        _, h, written = tf1.while_loop(
            lambda t, *_: t < 4, body, [0, tf.ones([2, 6]), tf.TensorArray(tf.float32, 4, element_shape=[2, 6])]
        )
        loss = tf.reduce_sum(written.stack()) + tf.reduce_sum(h)
        tf.gradients(loss, [images, kernel])
    _save(out, "tf1_gradients", graph)


# -- big models (tools/gen_shape_graphs.py --models OUT_DIR): node coverage of shape functions ---------


def _frozen(fn, specs, lower: bool = True):
    """The GraphDef of `fn` traced on `specs`, variables folded to constants (what a frozen model holds)."""
    from tensorflow.python.framework.convert_to_constants import convert_variables_to_constants_v2

    concrete = tf.function(fn).get_concrete_function(*specs)
    return convert_variables_to_constants_v2(concrete, lower_control_flow=lower).graph.as_graph_def(add_shapes=True)


def _keras_apps():
    apps = tf.keras.applications
    image = [tf.TensorSpec([1, 224, 224, 3], tf.float32)]
    yield "resnet50", lambda: apps.ResNet50(weights=None), image
    yield "mobilenet_v2", lambda: apps.MobileNetV2(weights=None), image
    yield "mobilenet_v3_small", lambda: apps.MobileNetV3Small(weights=None), image
    yield "efficientnet_b0", lambda: apps.EfficientNetB0(weights=None), image
    yield "densenet121", lambda: apps.DenseNet121(weights=None), image
    yield "inception_v3", lambda: apps.InceptionV3(weights=None), [tf.TensorSpec([1, 299, 299, 3], tf.float32)]
    yield "nasnet_mobile", lambda: apps.NASNetMobile(weights=None), image
    yield "convnext_tiny", lambda: apps.ConvNeXtTiny(weights=None), image


def _transformer():
    keras = tf.keras
    inputs = keras.Input([16], dtype="int32")
    x = keras.layers.Embedding(1000, 64)(inputs)
    for _ in range(2):
        attention = keras.layers.MultiHeadAttention(num_heads=4, key_dim=16)(x, x)
        x = keras.layers.LayerNormalization()(x + attention)
        dense = keras.layers.Dense(64)(keras.layers.Dense(128, activation="gelu")(x))
        x = keras.layers.LayerNormalization()(x + dense)
    outputs = keras.layers.Dense(10)(keras.layers.GlobalAveragePooling1D()(x))
    return keras.Model(inputs, outputs)


def _recurrent(kind):
    keras = tf.keras
    inputs = keras.Input([20, 8])
    layer = keras.layers.LSTM if kind == "lstm" else keras.layers.GRU
    x = layer(32, return_sequences=True)(inputs)
    x = keras.layers.Bidirectional(layer(16))(x)
    return keras.Model(inputs, keras.layers.Dense(4)(x))


def _tf1_training(out: Path) -> None:
    """Dense, conv, batch norm, dropout and an LSTM trained with several optimizers (control flow v1)."""
    graph = tf.Graph()
    with graph.as_default():
        images = tf1.placeholder(tf.float32, [None, 32, 32, 3], name="images")
        labels = tf1.placeholder(tf.int64, [None], name="labels")
        training = tf1.placeholder_with_default(True, [], name="training")
        x = tf.nn.conv2d(images, tf1.get_variable("c1", [3, 3, 3, 16]), 1, "SAME")
        x = tf.nn.relu(tf.nn.bias_add(x, tf1.get_variable("b1", [16])))
        mean, variance = tf.nn.moments(x, [0, 1, 2])
        x = tf.nn.batch_normalization(x, mean, variance, tf1.get_variable("beta", [16]), None, 1e-3)
        x, _, _ = tf1.nn.fused_batch_norm(x, tf.ones([16]), tf.zeros([16]), is_training=True)
        x = tf.nn.max_pool2d(x, 2, 2, "VALID")
        x = tf.nn.separable_conv2d(
            x, tf1.get_variable("dw", [3, 3, 16, 1]), tf1.get_variable("pw", [1, 1, 16, 32]), [1, 1, 1, 1], "SAME"
        )
        x = tf.nn.conv2d_transpose(x, tf1.get_variable("ct", [3, 3, 8, 32]), [tf.shape(x)[0], 32, 32, 8], 2)
        x = tf.reshape(x, [-1, 32 * 32 * 8])
        x = tf1.cond(training, lambda: tf.nn.dropout(x, rate=0.5), lambda: x)
        sequence = tf.reshape(tf.matmul(x, tf1.get_variable("d1", [32 * 32 * 8, 160])), [-1, 20, 8])
        kernel = tf1.get_variable("lstm", [8 + 16, 4 * 16])
        steps = tf.TensorArray(tf.float32, 20).unstack(tf.transpose(sequence, [1, 0, 2]))

        def lstm_step(t, h, c, out):
            gates = tf.matmul(tf.concat([steps.read(t), h], 1), kernel)
            i, f, o, g = tf.split(gates, 4, axis=1)
            c = tf.sigmoid(f) * c + tf.sigmoid(i) * tf.tanh(g)
            h = tf.sigmoid(o) * tf.tanh(c)
            return t + 1, h, c, out.write(t, h)

        zeros = tf.zeros([tf.shape(sequence)[0], 16])
        _, _, _, written = tf1.while_loop(
            lambda t, *_: t < 20, lstm_step, [0, zeros, zeros, tf.TensorArray(tf.float32, 20)]
        )
        outputs = tf.transpose(written.stack(), [1, 0, 2])
        logits = tf.matmul(outputs[:, -1], tf1.get_variable("d2", [16, 10])) + tf1.get_variable("b2", [10])
        loss = tf1.losses.sparse_softmax_cross_entropy(labels, logits)
        loss += tf.nn.l2_loss(logits) * 1e-4
        step = tf1.train.get_or_create_global_step()
        with tf.control_dependencies(tf1.get_collection(tf1.GraphKeys.UPDATE_OPS)):
            for optimizer in (
                tf1.train.AdamOptimizer(1e-3),
                tf1.train.MomentumOptimizer(0.1, 0.9, use_nesterov=True),
                tf1.train.RMSPropOptimizer(0.01),
                tf1.train.AdagradOptimizer(0.1),
                tf1.train.FtrlOptimizer(0.1),
            ):
                grads = optimizer.compute_gradients(loss)
                clipped, _ = tf.clip_by_global_norm([g for g, _ in grads], 5.0)
                optimizer.apply_gradients(zip(clipped, [v for _, v in grads]), global_step=step)
        tf1.metrics.accuracy(labels, tf.argmax(logits, 1))
        tf1.summary.scalar("loss", loss)
        tf1.train.Saver()
        tf1.global_variables_initializer()
    _save_binary(out, "tf1_training", graph)


def _tf1_preprocessing(out: Path) -> None:
    """Image, string, ragged and sparse preprocessing (graph mode, control flow v1)."""
    graph = tf.Graph()
    with graph.as_default():
        encoded = tf1.placeholder(tf.string, [], name="jpeg")
        image = tf.io.decode_jpeg(encoded, channels=3)
        image = tf.image.convert_image_dtype(image, tf.float32)
        image = tf.image.resize(image, [256, 256])
        image = tf.image.random_crop(image, [224, 224, 3])
        image = tf.image.random_flip_left_right(image)
        image = tf.image.random_brightness(image, 0.2)
        image = tf.image.random_contrast(image, 0.8, 1.2)
        image = tf.image.per_image_standardization(image)
        boxes = tf1.placeholder(tf.float32, [None, 4], name="boxes")
        tf.image.crop_and_resize(image[None], boxes, tf.zeros_like(boxes[:, 0], tf.int32), [32, 32])
        tf.image.non_max_suppression(boxes, tf.ones_like(boxes[:, 0]), 10)
        tf.image.rgb_to_grayscale(image)
        tf.image.rgb_to_hsv(image)
        tf.image.central_crop(image, 0.5)
        tf.image.decode_png(encoded)
        tf.image.encode_png(tf.cast(image * 255, tf.uint8))
        text = tf1.placeholder(tf.string, [None], name="text")
        lowered = tf.strings.lower(tf.strings.strip(text))
        words = tf.strings.split(lowered)
        hashed = tf.strings.to_hash_bucket_fast(words, 1000)
        lengths = hashed.row_lengths()
        tf.reduce_sum(hashed, axis=1)
        dense = hashed.to_tensor(default_value=0)
        tf.strings.reduce_join(words, axis=1, separator=" ")
        tf.strings.length(text)
        tf.strings.substr(text, 0, 3)
        tf.strings.regex_replace(text, "[0-9]+", "#")
        tf.strings.join([text, text], separator="-")
        tf.strings.to_number(tf.strings.as_string(lengths), tf.int64)
        chars = tf.strings.unicode_split(text, "UTF-8")
        chars.flat_values
        ngrams = tf.strings.ngrams(words, 2)
        ngrams.nested_row_splits
        ragged = tf.RaggedTensor.from_row_lengths(tf.range(10), [3, 3, 4])
        tf.concat([ragged, ragged], axis=1).to_tensor()
        tf.ragged.range(lengths).flat_values
        sparse = tf.sparse.from_dense(dense)
        tf.sparse.to_dense(tf.sparse.reorder(sparse))
        tf.sparse.reduce_sum(sparse, axis=1)
        tf.sparse.reshape(sparse, [-1])
        tf.sparse.concat(1, [sparse, sparse])
        tf.sparse.fill_empty_rows(sparse, 0)
        tf.sparse.sparse_dense_matmul(tf.cast(sparse, tf.float32), tf.ones([tf.shape(dense)[1], 3]))
        tf.sparse.add(sparse, sparse)
        table = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(["a", "b"], [0, 1]), -1)
        table.lookup(words.flat_values)
        tf.one_hot(tf.strings.to_hash_bucket_fast(text, 5), 5)
        tf.math.bincount(tf.cast(hashed.flat_values, tf.int32))
        tf.math.unsorted_segment_sum(tf.ones_like(hashed.flat_values), hashed.value_rowids(), hashed.nrows())
    _save_binary(out, "tf1_preprocessing", graph)


def _save_binary(out: Path, name: str, graph) -> None:
    (out / f"{name}.pb").write_bytes(graph.as_graph_def(add_shapes=True).SerializeToString())


def models(out: Path) -> None:
    """Frozen Keras models and TF1 graphs for `tools/shape_coverage.py` (large: kept out of git)."""
    out.mkdir(parents=True, exist_ok=True)
    builders = list(_keras_apps())
    builders.append(("transformer_encoder", _transformer, [tf.TensorSpec([1, 16], tf.int32)]))
    for kind in ("lstm", "gru"):
        builders.append((kind, lambda kind=kind: _recurrent(kind), [tf.TensorSpec([2, 20, 8], tf.float32)]))
    for name, build, specs in builders:
        if (out / f"{name}.pb").exists():
            continue
        model = build()
        graph_def = _frozen(lambda *args, model=model: model(*args, training=False), specs)
        (out / f"{name}.pb").write_bytes(graph_def.SerializeToString())
        print(f"wrote {name}: {len(graph_def.node)} nodes", flush=True)
        tf.keras.backend.clear_session()
    with tf.Graph().as_default():
        tf1.disable_control_flow_v2()
        _tf1_training(out)
        _tf1_preprocessing(out)
        tf1.enable_control_flow_v2()
    print("wrote tf1_training, tf1_preprocessing")


def main() -> None:
    if sys.argv[1:2] == ["--models"]:
        models(Path(sys.argv[2]))
        return
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[1] / "tests" / "data" / "shapes"
    out.mkdir(parents=True, exist_ok=True)
    tf1.disable_eager_execution()
    tf1.disable_control_flow_v2()
    for build in (convolutional, parsing, loops_and_variables, lists_and_diagonals, sparse, gradients):
        build(out)
        print(f"wrote {build.__name__}")


if __name__ == "__main__":
    main()
