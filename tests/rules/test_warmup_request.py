"""warmup-request: each warm-up request runs on the served meta graph (TF Serving's checks, then running it)."""

from __future__ import annotations

import pytest
from savedmodel_files import write_model

from tflint.api import lint_file

RULE = "warmup-request"
# x: float [?, 3] -> MatMul with a [3, 2] constant -> y. Line 5 is the signature's key.
TEXT = """\
  meta_info_def { tags: "serve" }
  signature_def {
    key: "serving_default"
    value {
      inputs { key: "x" value { name: "x:0" dtype: DT_FLOAT tensor_shape { dim { size: -1 } dim { size: 3 } } } }
      outputs { key: "y" value { name: "y:0" dtype: DT_FLOAT } }
      method_name: "tensorflow/serving/predict"
    }
  }
  graph_def {
    node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
      attr { key: "shape" value { shape { dim { size: -1 } dim { size: 3 } } } } }
    node { name: "w" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
      attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 3 } dim { size: 2 } } float_val: 1 } } } }
    node { name: "y" op: "MatMul" input: "x" input: "w" attr { key: "T" value { type: DT_FLOAT } } }
  }
"""


def _request(signature="", **inputs):
    return {"signature": signature, "inputs": inputs}


@pytest.mark.parametrize(
    "requests, expected",
    [
        pytest.param([_request(x=("DT_FLOAT", [2, 3]))], [], id="valid"),
        pytest.param([_request("serving_default", x=("DT_FLOAT", [1, 3]))], [], id="named-default"),
        pytest.param([_request("nope", x=("DT_FLOAT", [2, 3]))], ['Serving signature key "nope" not found.'], id="signature"),
        pytest.param([_request(z=("DT_FLOAT", [2, 3]))], ["input tensor alias not found in signature: z"], id="alias"),
        pytest.param([_request()], ["input size does not match signature: 0!=1. Sent extra: {}. Missing but required: {x}."], id="none"),
        pytest.param(
            [_request(x=("DT_FLOAT", [2, 3]), z=("DT_FLOAT", [1]))],
            ["input size does not match signature: 2!=1. Sent extra: {z}. Missing but required: {}."],
            id="extra",
        ),
        pytest.param([_request(x=("DT_INT32", [2, 3]))], ["Expects arg[0] to be float but int32 is provided"], id="dtype"),
        pytest.param([_request(x=("DT_FLOAT", [2, 4]))], ["running it fails at node 'y' (fed x:0 [2,4]): Dimensions must be equal"], id="shape"),
        pytest.param([_request(x=("DT_FLOAT", [3]))], ["running it fails at node 'y' (fed x:0 [3]): Shape must be rank 2 but is rank 1"], id="rank"),
        pytest.param(
            [_request(x=("DT_FLOAT", [2, 3])), _request("nope"), _request(x=("DT_INT64", [1, 3]))],
            ["record 1 ", "record 2 "],
            id="per-record",
        ),
    ],
)  # fmt: skip
def test_rule(requests, expected, tmp_path):
    findings = [f for f in lint_file(write_model(tmp_path / "m", TEXT, warmup=requests)).findings if f.rule == RULE]
    # On the signature's key (line 4), or the meta graph's tags (line 2) for a signature it lacks.
    lines = [2 if "signature key" in text or "record 1" in text else 4 for text in expected]
    assert [(f.rule, f.node, f.line) for f in findings] == [(RULE, None, line) for line in lines]
    for finding, text in zip(findings, expected):
        assert text in finding.message, finding.message


def test_message_says_when_and_who_fails(tmp_path):
    model = write_model(tmp_path / "m", TEXT, warmup=[_request(x=("DT_INT32", [2, 3]))])
    (finding,) = [f for f in lint_file(model).findings if f.rule == RULE]
    assert finding.message == (
        "assets.extra/tf_serving_warmup_requests record 0 (predict on 'serving_default'): running it fails: "
        "Expects arg[0] to be float but int32 is provided; the model never serves (warm-up runs at load)"
    )


def test_a_meta_graph_tf_serving_does_not_load_is_not_judged(tmp_path):
    text = TEXT.replace('tags: "serve"', 'tags: "train"')
    other = '  meta_info_def { tags: "serve" }\n  graph_def { node { name: "n" op: "NoOp" } }\n'
    model = write_model(tmp_path / "m", text, warmup=[_request("nope")])
    saved = (model / "saved_model.pbtxt").read_text()
    (model / "saved_model.pbtxt").write_text(saved + "meta_graphs {\n" + other + "}\n")
    findings = [f for f in lint_file(model).findings if f.rule == RULE]
    assert [f.graph for f in findings] == ["meta graph [serve]"]


def test_a_tensor_tensorflow_cannot_build_is_a_parsing_error(tmp_path):
    from savedmodel_files import field, tfrecord

    from tflint.protos import TensorProto

    tensor = TensorProto(dtype=1)
    tensor.tensor_shape.dim.add().size = 2
    tensor.tensor_shape.dim.add().size = 3
    tensor.tensor_content = bytes(20)  # 2 x 3 floats are 24 bytes
    request = field(2, field(1, b"x") + field(2, tensor.SerializeToString()))
    model = write_model(tmp_path / "m", TEXT, warmup=[])
    (model / "assets.extra" / "tf_serving_warmup_requests").write_bytes(tfrecord(field(6, field(1, request))))
    (finding,) = [f for f in lint_file(model).findings if f.rule == RULE]
    assert "TF Serving refuses it: tensor parsing error: x" in finding.message


def _tensor(dtype=1, dims=(1, 3), field=None, values=(), content=None, unknown_rank=False):
    from tflint.protos import TensorProto

    tensor = TensorProto(dtype=dtype)
    tensor.tensor_shape.unknown_rank = unknown_rank
    for size in dims:
        tensor.tensor_shape.dim.add().size = size
    if field:
        getattr(tensor, field).extend(values)
    if content is not None:
        tensor.tensor_content = content
    return tensor


# What TF 2.21's C++ Tensor::FromProto (TF_TensorFromProto) did with each TensorProto; tools/serving_load_cases.py
# records the typed-list cases end to end through a warm-up (tests/test_serving_load.py replays them).
@pytest.mark.parametrize(
    "tensor, refused",
    [
        pytest.param(_tensor(field="float_val"), False, id="val-empty-zeros"),
        pytest.param(_tensor(field="float_val", values=[1.0]), False, id="val-one-broadcast"),
        pytest.param(_tensor(field="float_val", values=[1.0, 2.0]), False, id="val-short-padded"),
        pytest.param(_tensor(field="float_val", values=[1.0] * 5), False, id="val-long-truncated"),
        pytest.param(_tensor(field="int_val", values=[1, 2, 3]), False, id="val-other-field-zeros"),
        pytest.param(_tensor(field="half_val", values=[70000]), False, id="half-val-any-int"),
        pytest.param(_tensor(dims=(2**62,), field="float_val", values=[1.0]), False, id="huge-but-int64"),
        pytest.param(_tensor(dims=(0, 2**62, 4)), False, id="zero-before-overflow"),
        pytest.param(_tensor(dims=(0,), content=b"abcd"), False, id="no-elements-content-ignored"),
        pytest.param(_tensor(dims=(3,), unknown_rank=True), False, id="unknown-rank-uses-dims"),
        pytest.param(_tensor(dtype=7, dims=(1,), content=b"\x01a"), False, id="string-content"),
        pytest.param(_tensor(dtype=7, dims=(1,), content=b"abc"), True, id="string-content-bad"),
        pytest.param(_tensor(dtype=7, dims=(2**62,), content=b"\x01a"), True, id="string-content-huge-count"),
        pytest.param(_tensor(dims=(2**62, 2, 0)), True, id="overflow-before-zero"),
        pytest.param(_tensor(dims=(2**31, 2**31, 4), field="float_val", values=[1.0]), True, id="count-past-int64"),
        pytest.param(_tensor(dims=(1,) * 255), True, id="rank-255"),
        pytest.param(_tensor(dims=(0,) + (1,) * 254), True, id="rank-255-empty"),
        pytest.param(_tensor(dims=(3,), content=bytes(8), field="float_val", values=[1.0]), True, id="content-wins"),
        pytest.param(_tensor(dtype=0, dims=(0,)), True, id="dt-invalid"),
        pytest.param(_tensor(dtype=101, dims=(1,), field="float_val", values=[1.0]), True, id="ref-type"),
        pytest.param(_tensor(dtype=999, dims=(0,)), True, id="unknown-dtype"),
    ],
)  # fmt: skip
def test_what_tensorflow_can_build_from_a_tensor_proto(tensor, refused):
    from tflint.tf.warmup import _unparsable

    assert _unparsable(tensor) is refused


def test_a_long_val_list_serves(tmp_path):
    from savedmodel_files import field, tfrecord

    tensor = _tensor(dims=(2, 3), field="float_val", values=[1.0] * 1000)
    request = field(2, field(1, b"x") + field(2, tensor.SerializeToString()))
    model = write_model(tmp_path / "m", TEXT, warmup=[])
    (model / "assets.extra" / "tf_serving_warmup_requests").write_bytes(tfrecord(field(6, field(1, request))))
    assert [f.message for f in lint_file(model).findings if f.rule == RULE] == []


@pytest.mark.parametrize(
    "tensor, expected",
    [
        pytest.param(_tensor(dims=(2**61, 3), field="float_val", values=[1.0]), [], id="2^61-rows-runs-shape-inference"),
        pytest.param(_tensor(dims=(2**61, 2)), ["fed x:0 [2305843009213693952,2]"], id="2^61-rows-wrong-width"),
        pytest.param(_tensor(dims=(2**62, 3)), ["tensor parsing error: x"], id="3x2^62-past-int64"),
        pytest.param(_tensor(dims=(1,) * 100_000), ["tensor parsing error: x"], id="100k-dims"),
        pytest.param(_tensor(field="float_val", values=[1.0] * 1_000_000), [], id="a-million-values"),
    ],
)  # fmt: skip
def test_hostile_tensors_are_bounded(tensor, expected, tmp_path):
    from savedmodel_files import field, tfrecord

    request = field(2, field(1, b"x") + field(2, tensor.SerializeToString()))
    model = write_model(tmp_path / "m", TEXT, warmup=[])
    (model / "assets.extra" / "tf_serving_warmup_requests").write_bytes(tfrecord(field(6, field(1, request))))
    messages = [f.message for f in lint_file(model).findings if f.rule == RULE]
    assert len(messages) == len(expected), messages
    for message, text in zip(messages, expected):
        assert text in message
