"""The files of tests/data/nongraphs: one of each kind of file that has a graph's extension (run to rewrite them).

Every sample is written here from scratch (no real file is copied): it has the
message structure of the real kind it stands for (label maps, MediaPipe graphs,
Triton and TF Serving configs, fingerprint.pb, ...), with graphs and broken
graphs beside them. Binary samples are built with the tiny protobuf encoder
below. EXPECTED maps each sample to the (kind, message) tflint.read.sniff must
give it; tests/read/test_sniff.py checks that, and that the files are what this writes.

    python tests/nongraph_samples.py
"""

from __future__ import annotations

import json
import struct
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "data" / "nongraphs"


# --- a tiny protobuf encoder -------------------------------------------------


def varint(n: int) -> bytes:
    if n < 0:
        n += 1 << 64
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def tag(num: int, wire_type: int) -> bytes:
    return varint(num << 3 | wire_type)


def v(num: int, value: int) -> bytes:  # varint field
    return tag(num, 0) + varint(value)


def b(num: int, payload) -> bytes:  # length-delimited field
    if isinstance(payload, str):
        payload = payload.encode("utf-8")
    return tag(num, 2) + varint(len(payload)) + payload


def d(num: int, value: float) -> bytes:  # double
    return tag(num, 1) + struct.pack("<d", value)


def f32(num: int, value: float) -> bytes:  # float
    return tag(num, 5) + struct.pack("<f", value)


def cat(*parts: bytes) -> bytes:
    return b"".join(parts)


# --- TensorFlow messages (field numbers from tensorflow/core/framework/*.proto) ---
DT_FLOAT, DT_INT32 = 1, 3


def shape(*dims: int) -> bytes:  # TensorShapeProto: dim = 2 {size = 1}
    return cat(*(b(2, v(1, size) if size >= 0 else v(1, size)) for size in dims))


def attr(key: str, value: bytes) -> bytes:  # NodeDef.attr map entry (field 5): key = 1, value = 2
    return b(5, cat(b(1, key), b(2, value)))


def attr_type(dtype: int) -> bytes:  # AttrValue.type = 6
    return v(6, dtype)


def attr_shape(*dims: int) -> bytes:  # AttrValue.shape = 7
    return b(7, shape(*dims))


def attr_tensor(values: list[float]) -> bytes:  # AttrValue.tensor = 8: TensorProto dtype 1, shape 2, content 4
    content = struct.pack(f"<{len(values)}f", *values)
    return b(8, cat(v(1, DT_FLOAT), b(2, shape(len(values))), b(4, content)))


def node(name: str, op: str, inputs=(), device: str | None = None, attrs: bytes = b"") -> bytes:
    parts = [b(1, name), b(2, op)] + [b(3, i) for i in inputs]
    if device:
        parts.append(b(4, device))
    return cat(*parts, attrs)


def versions(producer: int, min_consumer: int = 0) -> bytes:  # VersionDef: producer 1, min_consumer 2
    return cat(v(1, producer), v(2, min_consumer) if min_consumer else b"")


def graphdef(nodes: list[bytes], producer: int = 1087, library: bytes = b"") -> bytes:
    # GraphDef: node = 1, library = 2, versions = 4
    return cat(*(b(1, n) for n in nodes), b(2, library) if library else b"", b(4, versions(producer)))


SMALL_NODES = [
    node("x", "Placeholder", attrs=cat(attr("dtype", attr_type(DT_FLOAT)), attr("shape", attr_shape(-1, 3)))),
    node("w", "Const", attrs=cat(attr("dtype", attr_type(DT_FLOAT)), attr("value", attr_tensor([0.5, 1.5, -2.0])))),
    node("y", "Mul", inputs=("x", "w"), attrs=attr("T", attr_type(DT_FLOAT))),
    node("out", "Identity", inputs=("y",), device="/device:CPU:0", attrs=attr("T", attr_type(DT_FLOAT))),
]


def opdef(
    name: str, inputs=(), outputs=()
) -> bytes:  # OpDef: name 1, input_arg 2, output_arg 3 (ArgDef name 1, type 3)
    return cat(
        b(1, name),
        *(b(2, cat(b(1, i), v(3, DT_FLOAT))) for i in inputs),
        *(b(3, cat(b(1, o), v(3, DT_FLOAT))) for o in outputs),
    )


def meta_info(tags=("serve",), tf_version="2.15.0") -> bytes:
    # MetaInfoDef: stripped_op_list 2 (OpList.op 1), tags 4, tensorflow_version 5, tensorflow_git_version 6
    ops = cat(b(1, opdef("Const", outputs=("output",))), b(1, opdef("Mul", ("x", "y"), ("z",))))
    return cat(b(2, ops), *(b(4, t) for t in tags), b(5, tf_version), b(6, "v2.15.0-0-g0000000"))


def metagraph(graph: bytes, *, object_graph_first: bool = False, big_object_graph: int = 0) -> bytes:
    # MetaGraphDef: meta_info_def 1, graph_def 2, saver_def 3, signature_def 5 (map), object_graph_def 7
    saver = cat(b(1, "save/filename:0"), b(2, "save/control_dependency:0"), b(3, "save/restore_all"))
    sig = b(
        5,
        cat(
            b(1, "serving_default"),
            b(
                2,
                cat(
                    b(1, cat(b(1, "x"), b(2, cat(b(1, "x:0"), v(2, DT_FLOAT))))),
                    b(2, cat(b(1, "out"), b(2, cat(b(1, "out:0"), v(2, DT_FLOAT))))),
                    b(3, "tensorflow/serving/predict"),
                ),
            ),
        ),
    )
    objects = b(7, cat(*(b(1, b(1, cat(v(1, i), b(2, f"child{i}")))) for i in range(max(1, big_object_graph)))))
    body = [b(1, meta_info()), b(2, graph), b(3, saver), sig]
    return cat(objects, *body) if object_graph_first else cat(*body, objects)


def saved_model(meta: bytes) -> bytes:  # SavedModel: saved_model_schema_version 1, meta_graphs 2
    return cat(v(1, 1), b(2, meta))


# --- other binary messages -----------------------------------------------------


def fingerprint() -> bytes:
    # FingerprintDef (TF >= 2.12): uint64 hashes 1..5, VersionDef version = 6
    hashes = [0x9E3779B97F4A7C15, 0x1234567890ABCDEF, 0xFEDCBA0987654321, 0x0F0F0F0F0F0F0F0F, 0x7777777777777777]
    return cat(*(v(i + 1, h) for i, h in enumerate(hashes)), b(6, v(1, 1)))


def keras_metadata() -> bytes:
    # SavedMetadata: nodes = 1 -> SavedObject {node_id 2, node_path 3, identifier 4, metadata 5, version 6 (VersionDef)}
    objs = []
    for i, (path, ident, meta) in enumerate(
        [
            ("root", "_tf_keras_sequential", {"name": "sequential", "class_name": "Sequential", "trainable": True}),
            ("root.layer-0", "_tf_keras_layer", {"name": "dense", "class_name": "Dense", "units": 4}),
        ]
    ):
        objs.append(
            b(
                1,
                cat(
                    v(2, i) if i else b"", b(3, path), b(4, ident), b(5, json.dumps(meta)), b(6, cat(v(1, 2), v(2, 1)))
                ),
            )
        )
    return cat(*objs)


def feature_stats() -> bytes:
    # DatasetFeatureStatisticsList: datasets 1 -> {name 1, num_examples 2, features 3, weighted_num_examples 4}
    feat = cat(b(1, "age"), v(2, 0), b(3, cat(b(1, cat(v(1, 90), v(2, 10))), d(2, 41.5))))
    feat2 = cat(b(1, "city"), v(2, 2), b(4, cat(b(1, cat(v(1, 100))), v(2, 7))))
    return b(1, cat(b(1, "All Examples"), v(2, 100), b(3, feat), b(3, feat2)))


def example() -> bytes:
    # Example: features 1 -> Features: feature 1 (map<string, Feature>);
    # Feature: bytes_list 1, float_list 2, int64_list 3
    entries = [
        b(1, cat(b(1, "label"), b(2, b(3, b(1, varint(1)))))),
        b(1, cat(b(1, "pixels"), b(2, b(2, b(1, struct.pack("<3f", 0.1, 0.2, 0.3)))))),
        b(1, cat(b(1, "caption"), b(2, b(1, b(1, "a cat"))))),
    ]
    return b(1, cat(*entries))


def sequence_example() -> bytes:
    # SequenceExample: context 1 (Features), feature_lists 2 (FeatureLists: feature_list 1 map<string, FeatureList>)
    context = b(1, cat(b(1, "length"), b(2, b(3, b(1, varint(2))))))
    flist = b(1, cat(b(1, "tokens"), b(2, cat(b(1, b(3, b(1, varint(5)))), b(1, b(3, b(1, varint(9))))))))
    return cat(b(1, context), b(2, flist))


def onnx_model() -> bytes:
    # ModelProto: ir_version 1, producer_name 2, producer_version 3, graph 7, opset_import 8
    graph = cat(b(1, cat(b(1, "x"), b(2, "y"), b(3, "relu0"), b(4, "Relu"))), b(2, "g"))
    return cat(v(1, 8), b(2, "sniff-samples"), b(3, "1.0"), b(7, graph), b(8, cat(b(1, ""), v(2, 17))))


def tflite() -> bytes:
    # FlatBuffer: uint32 root table offset, then the file identifier "TFL3".
    body = bytearray(64)
    body[0:4] = (16).to_bytes(4, "little")
    body[4:8] = b"TFL3"
    body[16:20] = (8).to_bytes(4, "little", signed=True)
    return bytes(body)


RIEGELI_SIGNATURE = bytes.fromhex(
    "83af70d10d884a3f0000000000000000"
    "400000000000000091bac23c9287e1a9"
    "0000000000000000e19f13c0e9b1c372"
    "73000000000000000000000000000000"
)


def chunked_saved_model() -> bytes:
    # The 64-byte Riegeli file signature, then an (unhashed, illustrative) chunk header and data.
    return RIEGELI_SIGNATURE + bytes(40) + saved_model(metagraph(graphdef(SMALL_NODES[:2])))[:64]


# --- text samples (written for these tests) ------------------------------------

GRAPH_TEXT = """node {
  name: "x"
  op: "Placeholder"
  attr {
    key: "dtype"
    value {
      type: DT_FLOAT
    }
  }
  attr {
    key: "shape"
    value {
      shape {
        dim {
          size: -1
        }
        dim {
          size: 3
        }
      }
    }
  }
}
node {
  name: "w"
  op: "Const"
  attr {
    key: "value"
    value {
      tensor {
        dtype: DT_FLOAT
        tensor_shape {
          dim {
            size: 3
          }
        }
        float_val: 0.5
        float_val: 1.5
        float_val: -2
      }
    }
  }
}
node {
  name: "y"
  op: "Mul"
  input: "x"
  input: "w"
  attr {
    key: "T"
    value {
      type: DT_FLOAT
    }
  }
}
versions {
  producer: 1087
}
"""

META_TEXT = (
    """meta_info_def {
  stripped_op_list {
    op {
      name: "Const"
      output_arg {
        name: "output"
        type_attr: "dtype"
      }
    }
  }
  tags: "serve"
  tensorflow_version: "2.15.0"
}
graph_def {
"""
    + "".join("  " + line + "\n" for line in GRAPH_TEXT.splitlines())
    + """}
signature_def {
  key: "serving_default"
  value {
    method_name: "tensorflow/serving/predict"
  }
}
"""
)

SAVED_MODEL_TEXT = (
    "saved_model_schema_version: 1\nmeta_graphs {\n"
    + "".join("  " + line + "\n" for line in META_TEXT.splitlines())
    + "}\n"
)

TEXT = {
    # graphs
    "graph.pbtxt": GRAPH_TEXT,
    "graph_oneline.pbtxt": " ".join(GRAPH_TEXT.split()),
    "graph_angle_brackets.pbtxt": 'node < name: "a" op: "Const" attr < key: "dtype" value < type: DT_INT32 > > > ;\n'
    'node < name: "b" op: "Identity" input: "a" >\n',
    "graph_header.textproto": "# proto-file: tensorflow/core/framework/graph.proto\n# proto-message: GraphDef\n\n"
    + GRAPH_TEXT,
    "graph_comments_first.pbtxt": "# A hand-written test graph.\n# RUN: some-tool %s | FileCheck %s\n\n" + GRAPH_TEXT,
    "graph_library_only.pbtxt": 'library {\n  function {\n    signature {\n      name: "add_one"\n'
    '      input_arg { name: "x" type: DT_INT32 }\n      output_arg { name: "y" type: DT_INT32 }\n'
    '    }\n    node_def { name: "one" op: "Const" }\n    ret { key: "y" value: "one:output:0" }\n'
    "  }\n}\n",
    "graph_versions_only.pbtxt": "versions {\n  producer: 27\n}\n",
    "metagraph.pbtxt": META_TEXT,
    "model.meta.txt.pbtxt": META_TEXT,
    "saved_model.pbtxt": SAVED_MODEL_TEXT,
    "empty.pbtxt": "",
    "whitespace.pbtxt": "\n\n   \t\n",
    "comments_only.pbtxt": "# nothing here yet\n# CHECK: tfg.graph {\n# CHECK-NEXT: }\n",
    # broken graphs: still "graph" so tflint reports invalid-graph
    "broken_syntax.pbtxt": 'node {\n  name: "a"\n  op: "Const"\n  attr {\n    key: "dtype"\n'
    "    value { type: DT_FLOAT }\n"
    '  }\n  input:\n}\nnode {\n  name: "b"\n',
    "broken_misspelt.pbtxt": 'node {\n  name: "a"\n  op: "Placeholder"\n}\nnode {\n  name: "b"\n  op: "Neg"\n'
    '  inptu: "a"\n}\n',
    "broken_misspelt_first_node.pbtxt": 'node {\n  name: "b"\n  inptu: "a"\n}\n',
    "broken_unclosed.pbtxt": 'node {\n  name: "a"\n  op: "Const"\n',
    "broken_toplevel_typo.pbtxt": 'node {\n  name: "a"\n  op: "Const"\n}\nnodes {\n  name: "b"\n  op: "Neg"\n}\n',
    "broken_meta.pbtxt": 'meta_info_def {\n  tags: "serve"\n}\ngraph_def {\n  node {\n    name: "a"\n    op: "Const"\n'
    '    attr { key: "dtype" value { type: DT_FLOAT }\n  }\n',
    # other protobufs (text)
    "label_map.pbtxt": "".join(
        f'item {{\n  name: "/m/0{i}x{n[:2]}"\n  id: {i}\n  display_name: "{n}"\n}}\n'
        for i, n in enumerate(["cat", "dog", "kite"], start=1)
    ),
    "my_classes.pbtxt": 'item { id: 1 name: "apple" }\nitem { id: 2 name: "pear" }\n',
    "config.pbtxt": '# Triton model configuration\nname: "resnet_tf"\nplatform: "tensorflow_graphdef"\n'
    'max_batch_size: 16\ninput [\n  {\n    name: "images"\n    data_type: TYPE_FP32\n'
    '    format: FORMAT_NHWC\n    dims: [ 224, 224, 3 ]\n  }\n]\noutput [\n  {\n    name: "probs"\n'
    "    data_type: TYPE_FP32\n    dims: [ 1000 ]\n  }\n]\ninstance_group [ { count: 2 kind: KIND_GPU } ]\n"
    "dynamic_batching { preferred_batch_size: [ 4, 8 ] }\n",
    "triton_python_model.pbtxt": 'name: "tokenizer"\nbackend: "python"\ninput [ { name: "TEXT" data_type: TYPE_STRING '
    "dims: [ -1 ] } ]\n",
    "hand_tracking_desktop.pbtxt": '# MediaPipe graph.\ninput_stream: "input_video"\noutput_stream: "output_video"\n\n'
    'node {\n  calculator: "FlowLimiterCalculator"\n  input_stream: "input_video"\n'
    '  input_stream: "FINISHED:output_video"\n  input_stream_info: {\n'
    '    tag_index: "FINISHED"\n    back_edge: true\n  }\n'
    '  output_stream: "throttled_input_video"\n}\n'
    'node {\n  calculator: "ImageTransformationCalculator"\n'
    '  input_stream: "IMAGE:throttled_input_video"\n  output_stream: "IMAGE:output_video"\n'
    "  node_options: {\n    [type.googleapis.com/mediapipe.ImageTransformationCalculatorOptions] {\n"
    "      rotation_mode: 90\n    }\n  }\n}\n",
    "mediapipe_subgraph.pbtxt": 'type: "MySubgraph"\n\nnode {\n  name: "resize"\n'
    '  calculator: "ImageCroppingCalculator"\n'
    '  input_stream: "IMAGE:image"\n  output_stream: "IMAGE:cropped"\n}\n',
    "mediapipe_nodes_only.pbtxt": 'node {\n  calculator: "PassThroughCalculator"\n  input_stream: "in"\n'
    '  output_stream: "out"\n}\n',
    "models.config": 'model_config_list {\n  config {\n    name: "half_plus_two"\n'
    '    base_path: "/models/half_plus_two"\n'
    '    model_platform: "tensorflow"\n    model_version_policy { specific { versions: 1 versions: 2 } }\n'
    "  }\n}\n",
    "serving_models.pbtxt": (
        "model_config_list: { config: { name: 'a', base_path: '/m/a', model_platform: 'tensorflow' } }\n"
    ),
    "batching_parameters.pbtxt": "max_batch_size { value: 64 }\nbatch_timeout_micros { value: 1000 }\n"
    "num_batch_threads { value: 8 }\n",
    "monitoring.pbtxt": 'prometheus_config {\n  enable: true\n  path: "/metrics"\n}\n',
    "schema.pbtxt": 'feature {\n  name: "age"\n  type: INT\n  presence {\n    min_fraction: 1.0\n  }\n}\n'
    'feature {\n  name: "city"\n  type: BYTES\n  domain: "city"\n}\n'
    'string_domain {\n  name: "city"\n  value: "Paris"\n  value: "Oslo"\n}\n',
    "anomalies.pbtxt": 'baseline {\n  feature {\n    name: "age"\n    type: INT\n  }\n}\nanomaly_info {\n  key: "age"\n'
    '  value {\n    severity: ERROR\n    short_description: "Out of range"\n  }\n}\n',
    "stats.pbtxt": 'datasets {\n  name: "train"\n  num_examples: 100\n  features {\n    name: "age"\n    type: INT\n'
    "  }\n}\n",
    "ops.pbtxt": 'op {\n  name: "MyAdd"\n  input_arg {\n    name: "x"\n    type_attr: "T"\n  }\n  input_arg {\n'
    '    name: "y"\n    type_attr: "T"\n  }\n  output_arg {\n    name: "z"\n    type_attr: "T"\n  }\n'
    '  attr {\n    name: "T"\n    type: "type"\n  }\n}\n',
    "api_def_MyAdd.pbtxt": 'op {\n  graph_op_name: "MyAdd"\n  visibility: HIDDEN\n  summary: "Adds two tensors."\n'
    "  description: <<END\nReturns `x + y`, element-wise.\nEND\n}\n",
    "tensorflow.-my-class.pbtxt": 'path: "tensorflow.MyClass"\ntf_class {\n'
    "  is_instance: \"<class 'tensorflow.MyClass'>\"\n"
    '  is_instance: "<type \'object\'>"\n  member_method {\n    name: "__init__"\n'
    "    argspec: \"args=['self'], varargs=None, keywords=None, defaults=None\"\n  }\n}\n",
    "tensorflow.my_module.pbtxt": 'path: "tensorflow.my_module"\ntf_module {\n  member_method {\n    name: "f"\n'
    "    argspec: \"args=['x'], varargs=None, keywords=None, defaults=None\"\n  }\n}\n",
    "pipeline_ir.pbtxt": "# proto-file: tfx/proto/orchestration/pipeline.proto\n# proto-message: Pipeline\n\n"
    'pipeline_info {\n  id: "demo"\n}\nnodes {\n  pipeline_node {\n    node_info {\n'
    '      id: "CsvExampleGen"\n    }\n  }\n}\nexecution_mode: SYNC\n',
    "pipeline_ir_noheader.pbtxt": 'pipeline_info {\n  id: "demo"\n}\nnodes {\n  pipeline_node {\n    node_info {\n'
    '      id: "Trainer"\n    }\n  }\n}\nruntime_spec {\n  pipeline_root {\n'
    '    field_value { string_value: "/tmp/root" }\n  }\n}\n',
    "kfp_pipeline_spec.pbtxt": 'pipeline_info {\n  name: "demo-pipeline"\n}\nsdk_version: "kfp-2.0.0"\n'
    'schema_version: "2.1.0"\nroot {\n  dag {\n    tasks {\n      key: "train"\n'
    '      value { component_ref { name: "comp-train" } }\n    }\n  }\n}\n',
    "delf_config.pbtxt": 'model_path: "parameters/model/"\nimage_scales: 0.5\nimage_scales: 1.0\n'
    "delf_local_config {\n  use_pca: false\n  max_feature_num: 500\n}\n",
    "master_spec.textproto": 'component {\n  name: "tagger"\n  transition_system {\n    registered_name: "tagger"\n'
    '  }\n  fixed_feature {\n    name: "words"\n    fml: "input.word"\n    size: 1\n  }\n'
    "  num_actions: 45\n}\n",
    "context.pbtxt": 'Parameter {\n  name: "brain_parser_embedding_dims"\n  value: "32;32;32"\n}\n'
    "input {\n  name: 'training-corpus'\n  record_format: 'conll-sentence'\n  Part {\n"
    "    file_pattern: './train.conll'\n  }\n}\n",
    "tfadd.config.pbtxt": '# tf2xla.Config\nfeed {\n  id { node_name: "x" }\n  shape { dim { size: 2 } }\n}\n'
    'fetch {\n  id { node_name: "sum" }\n}\n',
    "graph.debug.pbtxt": 'files: "model.py"\ntraces {\n  key: "x@"\n  value {\n    file_line_cols { line: 3 col: 1 }\n'
    "  }\n}\n",
    "example.pbtxt": 'features {\n  feature {\n    key: "label"\n    value { int64_list { value: 1 } }\n  }\n}\n',
    "projector_config.pbtxt": 'embeddings {\n  tensor_name: "embedding/.ATTRIBUTES/VARIABLE_VALUE"\n'
    '  metadata_path: "metadata.tsv"\n}\n',
    "pipeline.config": "model {\n  ssd {\n    num_classes: 3\n  }\n}\ntrain_config {\n  batch_size: 8\n}\n"
    'train_input_reader {\n  label_map_path: "label_map.pbtxt"\n}\n',
    "onnx_graph.pbtxt": 'node {\n  input: "x"\n  output: "y"\n  name: "relu"\n  op_type: "Relu"\n}\nname: "g"\n',
    "unknown_message.pbtxt": 'learning_rate_schedule {\n  warmup_steps: 100\n}\nbeam_width: 4\nvocab_path: "v.txt"\n',
    "with_extension.pbtxt": "[my.package.ext] {\n  enabled: true\n}\n",
    # not protobuf
    "model_json.pb": json.dumps(
        {"format": "graph-model", "modelTopology": {"node": [{"name": "x", "op": "Placeholder"}]}}
    ),
    "weights_manifest.pbtxt": json.dumps([{"paths": ["group1-shard1of1.bin"], "weights": []}], indent=2),
    "error_page.pb": "<!DOCTYPE html>\n<html><head><title>404 Not Found</title></head><body>Not Found</body></html>\n",
    "lfs_pointer.pb": "version https://git-lfs.github.com/spec/v1\noid sha256:" + "ab" * 32 + "\nsize 123456789\n",
    # neither graph nor clearly something else
    "script.pbtxt": "import tensorflow as tf\nprint(tf.__version__)\n",
    "only_version.pbtxt": "version: 12\n",
}


def binary_samples() -> dict[str, bytes]:
    graph = graphdef(SMALL_NODES)
    meta = metagraph(graphdef(SMALL_NODES))
    return {
        "graph.pb": graph,
        "frozen_graph_one_node.pb": graphdef(SMALL_NODES[:1], producer=27),
        "graph_truncated.pb": graph[: len(graph) * 2 // 3],
        "graph_truncated_in_first_node.pb": graph[:12],
        "graph_versions_only.pb": b(4, versions(27)),
        "graph_library_only.pb": b(2, b(1, cat(b(1, opdef("add_one", ("x",), ("y",))), b(3, node("one", "Const"))))),
        "model.meta": meta,
        "model.ckpt.meta": metagraph(graphdef(SMALL_NODES[:2]), object_graph_first=True),
        "saved_model.pb": saved_model(meta),
        "saved_model_object_graph_first.pb": saved_model(
            metagraph(graphdef(SMALL_NODES), object_graph_first=True, big_object_graph=900)
        ),
        "renamed_saved_model.pb": saved_model(meta),
        # other protobufs
        "fingerprint.pb": fingerprint(),
        "renamed_fingerprint.pb": fingerprint(),
        "keras_metadata.pb": keras_metadata(),
        "FeatureStats.pb": feature_stats(),
        "tfhub_module.pb": v(1, 3),
        "example.pb": example(),
        "sequence_example.pb": sequence_example(),
        "onnx_model.pb": onnx_model(),
        "unknown_message.pb": cat(v(9, 300), b(10, "hello"), f32(11, 1.5), b(12, cat(v(1, 7), b(2, "x")))),
        # not protobuf
        "detect.pb": tflite(),
        "saved_model.cpb": chunked_saved_model(),
        "graph.pb.gz.pb": b"\x1f\x8b\x08\x00" + bytes(12),
        "random.pb": bytes((i * 37 + 11) % 256 for i in range(200)),
    }


# sample -> (kind, message); message None = any
EXPECTED: dict[str, tuple[str, str | None]] = {
    "graph.pbtxt": ("graph", "GraphDef"),
    "graph_oneline.pbtxt": ("graph", "GraphDef"),
    "graph_angle_brackets.pbtxt": ("graph", "GraphDef"),
    "graph_header.textproto": ("graph", "GraphDef"),
    "graph_comments_first.pbtxt": ("graph", "GraphDef"),
    "graph_library_only.pbtxt": ("graph", "GraphDef"),
    "graph_versions_only.pbtxt": ("graph", "GraphDef"),
    "metagraph.pbtxt": ("graph", "MetaGraphDef"),
    "model.meta.txt.pbtxt": ("graph", "MetaGraphDef"),
    "saved_model.pbtxt": ("graph", "SavedModel"),
    "empty.pbtxt": ("graph", "GraphDef"),
    "whitespace.pbtxt": ("graph", "GraphDef"),
    "comments_only.pbtxt": ("graph", "GraphDef"),
    "broken_syntax.pbtxt": ("graph", "GraphDef"),
    "broken_misspelt.pbtxt": ("graph", "GraphDef"),
    "broken_misspelt_first_node.pbtxt": ("graph", "GraphDef"),
    "broken_unclosed.pbtxt": ("graph", "GraphDef"),
    "broken_toplevel_typo.pbtxt": ("graph", "GraphDef"),
    "broken_meta.pbtxt": ("graph", "MetaGraphDef"),
    "label_map.pbtxt": ("other-protobuf", "Object Detection label map (StringIntLabelMap)"),
    "my_classes.pbtxt": ("other-protobuf", "Object Detection label map (StringIntLabelMap)"),
    "config.pbtxt": ("other-protobuf", "Triton model config (ModelConfig)"),
    "triton_python_model.pbtxt": ("other-protobuf", "Triton model config (ModelConfig)"),
    "hand_tracking_desktop.pbtxt": ("other-protobuf", "MediaPipe CalculatorGraphConfig"),
    "mediapipe_subgraph.pbtxt": ("other-protobuf", "MediaPipe CalculatorGraphConfig"),
    "mediapipe_nodes_only.pbtxt": ("other-protobuf", "MediaPipe CalculatorGraphConfig"),
    "models.config": ("other-protobuf", "TensorFlow Serving ModelServerConfig"),
    "serving_models.pbtxt": ("other-protobuf", "TensorFlow Serving ModelServerConfig"),
    "batching_parameters.pbtxt": ("other-protobuf", "TensorFlow Serving batching parameters"),
    "monitoring.pbtxt": ("other-protobuf", "TensorFlow Serving MonitoringConfig"),
    "schema.pbtxt": ("other-protobuf", "TFMD Schema"),
    "anomalies.pbtxt": ("other-protobuf", "TFDV Anomalies"),
    "stats.pbtxt": ("other-protobuf", "TFDV statistics (DatasetFeatureStatisticsList)"),
    "ops.pbtxt": ("other-protobuf", "OpList"),
    "api_def_MyAdd.pbtxt": ("other-protobuf", "ApiDefs"),
    "tensorflow.-my-class.pbtxt": ("other-protobuf", "TF API golden file"),
    "tensorflow.my_module.pbtxt": ("other-protobuf", "TF API golden file"),
    "pipeline_ir.pbtxt": ("other-protobuf", "TFX pipeline IR (Pipeline)"),
    "pipeline_ir_noheader.pbtxt": ("other-protobuf", "TFX pipeline IR (Pipeline)"),
    "kfp_pipeline_spec.pbtxt": ("other-protobuf", "Kubeflow PipelineSpec"),
    "delf_config.pbtxt": ("other-protobuf", "DELF config (DelfConfig)"),
    "master_spec.textproto": ("other-protobuf", "DRAGNN MasterSpec"),
    "context.pbtxt": ("other-protobuf", "SyntaxNet TaskSpec"),
    "tfadd.config.pbtxt": ("other-protobuf", "tf2xla Config"),
    "graph.debug.pbtxt": ("other-protobuf", "GraphDebugInfo"),
    "example.pbtxt": ("other-protobuf", "tf.train.Example"),
    "projector_config.pbtxt": ("other-protobuf", "TensorBoard ProjectorConfig"),
    "pipeline.config": ("other-protobuf", "Object Detection pipeline config (TrainEvalPipelineConfig)"),
    "onnx_graph.pbtxt": ("other-protobuf", "ONNX GraphProto"),
    "unknown_message.pbtxt": ("other-protobuf", "unrecognised protobuf message"),
    "with_extension.pbtxt": ("other-protobuf", "unrecognised protobuf message"),
    "model_json.pb": ("not-protobuf", "JSON"),
    "weights_manifest.pbtxt": ("not-protobuf", "JSON"),
    "error_page.pb": ("not-protobuf", "HTML"),
    "lfs_pointer.pb": ("not-protobuf", "Git LFS pointer"),
    "script.pbtxt": ("unsure", None),
    "only_version.pbtxt": ("unsure", "GraphDef"),
    "graph.pb": ("graph", "GraphDef"),
    "frozen_graph_one_node.pb": ("graph", "GraphDef"),
    "graph_truncated.pb": ("graph", "GraphDef"),
    "graph_truncated_in_first_node.pb": ("graph", "GraphDef"),
    "graph_versions_only.pb": ("graph", "GraphDef"),
    "graph_library_only.pb": ("graph", "GraphDef"),
    "model.meta": ("graph", "MetaGraphDef"),
    "model.ckpt.meta": ("graph", "MetaGraphDef"),
    "saved_model.pb": ("graph", "SavedModel"),
    "saved_model_object_graph_first.pb": ("graph", "SavedModel"),
    "renamed_saved_model.pb": ("graph", "SavedModel"),
    "fingerprint.pb": ("other-protobuf", "SavedModel fingerprint (FingerprintDef)"),
    "renamed_fingerprint.pb": ("other-protobuf", "SavedModel fingerprint (FingerprintDef)"),
    "keras_metadata.pb": ("other-protobuf", "Keras metadata (SavedMetadata)"),
    "FeatureStats.pb": ("other-protobuf", "TFDV statistics (DatasetFeatureStatisticsList)"),
    "tfhub_module.pb": ("other-protobuf", "TF Hub module (ModuleDef)"),
    "example.pb": ("other-protobuf", "tf.train.Example"),
    "sequence_example.pb": ("other-protobuf", "tf.train.SequenceExample"),
    "onnx_model.pb": ("other-protobuf", "ONNX ModelProto"),
    "unknown_message.pb": ("other-protobuf", "unrecognised protobuf message"),
    "detect.pb": ("not-protobuf", "TFLite flatbuffer"),
    "saved_model.cpb": ("chunked-saved-model", None),
    "graph.pb.gz.pb": ("not-protobuf", "gzip data"),
    # Unidentified bytes may be a damaged graph: linted (and reported invalid-graph), never skipped.
    "random.pb": ("unsure", "unknown"),
}


def main() -> None:
    OUT.mkdir(exist_ok=True)
    for old in OUT.iterdir():
        old.unlink()
    for name, text in TEXT.items():
        (OUT / name).write_text(text, encoding="utf-8")
    for name, data in binary_samples().items():
        (OUT / name).write_bytes(data)
    (OUT / "EXPECTED.json").write_text(json.dumps(EXPECTED, indent=1, sort_keys=True) + "\n")
    missing = set(EXPECTED) ^ {p.name for p in OUT.iterdir() if p.name != "EXPECTED.json"}
    if missing:
        raise SystemExit(f"EXPECTED and samples differ: {sorted(missing)}")
    print(f"wrote {len(EXPECTED)} samples to {OUT}")


if __name__ == "__main__":
    main()
