"""Which attrs `--fix` may strip (tflint.tf.strip): defaults every bundled release agrees on.

TensorFlow fills an absent attr from the loading release's OpDef, so an attr equal to that default
can go only when no release knowing the attr has a different (or no) default. `_` attrs and the attrs
of calls to library functions always stay.
"""

from __future__ import annotations

from tflint import protos
from tflint.api import registry_for
from tflint.config.settings import default_config
from tflint.engine.run import build_index
from tflint.read.load import load_bytes
from tflint.tf.strip import _shared_default, strippable

GRAPH = b"""
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "shape" value { shape { unknown_rank: true } } } }
node { name: "c" op: "Conv2D" input: "x" input: "x"
  attr { key: "T" value { type: DT_FLOAT } }
  attr { key: "strides" value { list { i: 1 i: 1 i: 1 i: 1 } } }
  attr { key: "padding" value { s: "SAME" } }
  attr { key: "data_format" value { s: "NHWC" } }
  attr { key: "use_cudnn_on_gpu" value { b: false } }
  attr { key: "dilations" value { list { i: 1 i: 1 i: 1 i: 1 } } }
  attr { key: "explicit_paddings" value { list { } } }
  attr { key: "_class" value { list { s: "loc:@x" } } } }
node { name: "m" op: "MatMul" input: "x" input: "x" attr { key: "T" value { type: DT_FLOAT } }
  attr { key: "transpose_a" value { b: false } } attr { key: "transpose_b" value { b: true } } }
node { name: "call" op: "f" input: "x" attr { key: "transpose_a" value { b: false } } }
library { function {
  signature { name: "f" input_arg { name: "a" type: DT_FLOAT } output_arg { name: "y" type: DT_FLOAT } }
  node_def { name: "inner" op: "MatMul" input: "a" input: "a" attr { key: "T" value { type: DT_FLOAT } }
    attr { key: "transpose_b" value { b: false } } }
  ret { key: "y" value: "inner:product:0" } } }
"""


def test_strippable_attrs_are_shared_defaults():
    artifact = load_bytes(GRAPH, "graph.pbtxt")
    index = build_index(artifact.graphs[0], registry_for(default_config()), artifact)
    found = sorted((node.function or "", node.name, key) for node, key in strippable(index))
    assert found == [
        ("", "c", "data_format"),  # "NHWC" is the default
        ("", "c", "dilations"),
        ("", "c", "explicit_paddings"),  # an empty list equals the default empty list
        ("", "m", "transpose_a"),
        ("", "x", "shape"),  # unknown rank, Placeholder's default in every release
        ("f", "inner", "transpose_b"),  # function bodies included
    ]
    # Kept: use_cudnn_on_gpu=false and transpose_b=true differ from their defaults; T, strides and padding
    # have none; `_class` is internal; the call to library function `f` is not an op.


def _op(name: str, **defaults) -> protos.OpDef:
    op = protos.OpDef(name=name)
    for key, value in defaults.items():
        attr = op.attr.add(name=key, type="bool")
        if value is not None:
            attr.default_value.b = value
    return op


def test_a_default_that_differs_in_any_release_is_not_shared():
    newest = _op("Op", flag=False)
    assert _shared_default("Op", "flag", newest, [{"Op": _op("Op", flag=False)}, {}]).b is False
    assert _shared_default("Op", "flag", newest, [{"Op": _op("Op", flag=True)}]) is None
    assert _shared_default("Op", "flag", newest, [{"Op": _op("Op", flag=None)}]) is None  # required there
    assert _shared_default("Op", "flag", newest, [{"Op": _op("Op")}]) is not None  # a release without the attr
    assert _shared_default("Op", "flag", _op("Op", flag=None), []) is None
