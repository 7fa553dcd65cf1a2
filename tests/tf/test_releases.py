"""The bundled TensorFlow releases (tflint.tf.releases): naming, registries, masks, schema gaps.

Facts pinned here were checked against the wheels: TF 2.21's `tf.version.GRAPH_DEF_VERSION` is 2474
(min consumer and producer 0) and its registry has `XlaCallModule` with `use_shardy_partitioner`
and `BatchMatMulV3` with `grad_x`; `AddV2` is registered by 1.15 already.
"""

from __future__ import annotations

import pytest

from tflint.errors import UsageError
from tflint.tf import releases as tf_releases
from tflint.tf.releases import (
    first_release_in,
    first_release_with_attr,
    first_release_with_op,
    known_releases,
    last_release_with_op,
    release,
    release_key,
    releases,
    resolve,
    schema_gaps,
    schema_mask,
)


@pytest.mark.parametrize(
    ("spec", "name"),
    [
        ("2.11", "2.11"),
        ("2.11.1", "2.11"),
        ("v2.11", "2.11"),
        (" 2.11 ", "2.11"),
        ("2.11.0rc1", "2.11"),
        ("1.15", "1.15"),
    ],
)
def test_resolve_spellings(spec, name):
    assert resolve(spec) == name


@pytest.mark.parametrize("spec", ["2", "2.99", "3.0", "².11", "latest", "", "2.x"])
def test_resolve_rejects_unknown_versions_listing_the_known_ones(spec):
    with pytest.raises(UsageError, match="known: 1.15, 2.0"):
        resolve(spec)


def test_release_keys_order_numerically():
    assert release_key("2.10") > release_key("2.9") > release_key("1.15")
    assert [item.name for item in releases(["2.10", "v2.9", "2.9.3", "1.15"])] == ["1.15", "2.9", "2.10"]


def test_release_2_21_matches_the_wheel():
    newest = release("2.21")
    assert (newest.graph_def_version, newest.min_consumer, newest.min_producer) == (2474, 0, 0)
    assert newest.tensorflow_version.startswith("2.21.")
    assert newest.label == "TF 2.21"
    attrs = {attr.name for attr in newest.ops["XlaCallModule"].attr}
    assert {"use_shardy_partitioner", "platforms", "Sout"} <= attrs


def test_a_registry_is_the_variants_whose_mask_has_the_release_bit():
    op_defs, masks = tf_releases._op_variants()
    for name in ("1.15", "2.10", "2.21"):
        bundled = release(name)
        expected = {op.name for op, mask in zip(op_defs, masks) if mask >> bundled.bit & 1}
        assert set(bundled.ops) == expected
        assert known_releases()[bundled.bit] == name


def test_graph_def_versions_grow_across_tf2():
    versions = [release(name).graph_def_version for name in known_releases() if name != "1.15"]
    assert versions == sorted(versions)


def test_op_and_attr_history():
    assert first_release_with_op("AddV2") == "1.15"
    assert first_release_with_op("XlaCallModule") == "2.10"
    assert last_release_with_op("Conv2D") == known_releases()[-1]
    assert first_release_with_op("NoSuchOp") is None and last_release_with_op("NoSuchOp") is None
    # An attr is younger than its op; both histories come from the same variants.
    assert first_release_with_attr("XlaCallModule", "use_shardy_partitioner") == "2.20"
    assert release_key(first_release_with_attr("XlaCallModule", "platforms")) > release_key("2.10")
    assert "use_shardy_partitioner" not in {attr.name for attr in release("2.19").ops["XlaCallModule"].attr}
    assert first_release_with_attr("Conv2D", "no_such_attr") is None


def test_first_release_in_a_mask_is_its_lowest_bit():
    names = known_releases()
    assert first_release_in(1) == names[0]
    assert first_release_in(0b1100) == names[2]
    assert first_release_in(1 << (len(names) - 1)) == names[-1]


def test_schema_masks_and_gaps():
    # A field every release knows is absent from the table; a newer one has a mask without 1.15's bit.
    assert schema_mask("tensorflow.NodeDef", "name") is None
    mask = schema_mask("tensorflow.FunctionDef", "resource_arg_unique_id")
    assert mask is not None and not mask & 1 << release("1.15").bit and mask & 1 << release("2.21").bit
    gaps = schema_gaps([release("1.15")])
    assert gaps[("messages", "tensorflow.FunctionDef", "resource_arg_unique_id")] == mask
    assert all(not gap & 1 << release("1.15").bit for gap in gaps.values())
    assert len(schema_gaps([release("1.15"), release("2.21")])) >= len(gaps)
