"""FLOPs per op from shapes (TensorFlow's profiler's counts), and what keras.applications models cost.

tests/data/review/apps holds keras.applications models frozen at batch 1 by
tools/gen_review_pairs.py --apps, their big constants' contents dropped (shapes
kept); expected.json holds Keras's `count_params()` and TensorFlow's profiler
`total_float_ops` for each, recorded when they were generated.
"""

from __future__ import annotations

import gzip
import json

import pytest
from conftest import DATA

from tflint.api import registry_for, resolve_config
from tflint.engine.review import view_of
from tflint.read.load import load_bytes
from tflint.tf.cost import elements, node_flops, tensor_bytes

APPS = DATA / "review" / "apps"
EXPECTED = json.loads((APPS / "expected.json").read_text())


class _Node:
    def __init__(self, op, **attrs):
        from tflint import protos

        self.op = op
        self.attr = {}
        for key, value in attrs.items():
            message = protos.AttrValue()
            if isinstance(value, bool):
                message.b = value
            else:
                message.list.i.extend(value)
            self.attr[key] = message


@pytest.mark.parametrize(
    "node, inputs, outputs, expected",
    [
        pytest.param(_Node("MatMul"), [(2, 8), (8, 16)], [(2, 16)], (2 * 8 * 2 * 16, True), id="matmul"),
        pytest.param(_Node("MatMul", transpose_a=True), [(8, 2), (8, 16)], [(2, 16)], (512, True), id="matmul-t"),
        pytest.param(_Node("MatMul"), [(-1, 8), (8, 16)], [(-1, 16)], (0, False), id="matmul-unknown"),
        pytest.param(_Node("BatchMatMulV2"), [(3, 2, 8), (3, 8, 4)], [(3, 2, 4)], (2 * 8 * 24, True), id="bmm"),
        pytest.param(_Node("Conv2D"), [(1, 8, 8, 3), (3, 3, 3, 16)], [(1, 8, 8, 16)], (2 * 27 * 1024, True), id="conv"),
        pytest.param(
            _Node("DepthwiseConv2dNative"),
            [(1, 8, 8, 4), (3, 3, 4, 1)],
            [(1, 8, 8, 4)],
            (2 * 9 * 256, True),
            id="depthwise",
        ),
        pytest.param(_Node("AddV2"), [(4, 1), (1, 5)], [(4, 5)], (20, True), id="broadcast-add"),
        pytest.param(_Node("Rsqrt"), [(10,)], [(10,)], (20, True), id="rsqrt"),
        pytest.param(_Node("Softmax"), [(2, 10)], [(2, 10)], (100, True), id="softmax"),
        pytest.param(_Node("Mean"), [(2, 10), ()], [(2,)], (20, True), id="mean"),
        pytest.param(_Node("Sum"), [(2, 10), ()], [(2,)], (18, True), id="sum"),
        pytest.param(_Node("MaxPool", ksize=[1, 2, 2, 1]), [(1, 4, 4, 1)], [(1, 2, 2, 1)], (16, True), id="pool"),
        pytest.param(_Node("AddN"), [(3,), (3,), (3,)], [(3,)], (6, True), id="addn"),
        pytest.param(_Node("Relu"), [(1000,)], [(1000,)], (0, True), id="free-as-in-tensorflow"),
        pytest.param(_Node("Reshape"), [None, (2,)], [None], (0, True), id="free-and-unknown"),
    ],
)
def test_node_flops(node, inputs, outputs, expected):
    assert node_flops(node, inputs, outputs) == expected


def test_sizes():
    assert elements((2, 3)) == 6
    assert elements(()) == 1
    assert elements((2, -1)) is None and elements(None) is None
    assert tensor_bytes((4, 4), 1) == 64
    assert tensor_bytes((4,), 2) == 32
    assert tensor_bytes((-1, 4), 1) is None


@pytest.fixture(scope="module")
def views():
    registry = registry_for(resolve_config(None))
    found = {}
    for name in EXPECTED:
        data = gzip.decompress((APPS / f"{name}.pb.gz").read_bytes())
        found[name] = view_of(load_bytes(data, f"{name}.pb"), registry)
    return found


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_flops_agree_with_tensorflows_profiler(name, views):
    (graph,) = views[name].graphs
    (cost,) = graph.costs
    expected = EXPECTED[name]["float_ops"]
    assert cost.exact
    assert abs(cost.flops - expected) <= 0.05 * expected
    assert cost.flops == expected  # today they agree exactly: a change here is worth knowing about


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_parameters_agree_with_keras(name, views):
    assert views[name].parameters() == EXPECTED[name]["params"]
    assert views[name].parameters_from == "constants"


def test_batch_scales_what_depends_on_it():
    """A feed of unknown batch: --batch N sets it; the FLOPs of a dense layer scale with it."""
    from tflint.engine.review import load_view

    registry = registry_for(resolve_config(None))
    pair = DATA / "review" / "retrained" / "old"
    one = load_view(str(pair), registry, batch=1)[0].graphs[0].costs[0]
    eight = load_view(str(pair), registry, batch=8)[0].graphs[0].costs[0]
    assert one.exact and eight.exact
    assert (one.flops, eight.flops) == (404, 8 * 404)  # 2*8*16 + 16 + 2*16*4 + 4 per example
    assert eight.activation_bytes == 8 * one.activation_bytes
