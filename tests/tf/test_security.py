"""tflint.tf.security: the catalogue against every bundled release, target classification, bounded nesting."""

from __future__ import annotations

import pytest

from tflint.tf.releases import _op_variants
from tflint.tf.security import CAPABILITIES, CATALOGUE, GRAPH_INPUTS, OUTSIDE, RELATIVE, EMPTY, classify_path


def _variants():
    ops, _ = _op_variants()
    found: dict[str, list] = {}
    for op in ops:
        found.setdefault(op.name, []).append(op)
    return found


VARIANTS = _variants()


@pytest.mark.parametrize("op", sorted(CATALOGUE))
def test_every_catalogued_op_and_its_target_exist_in_the_bundled_releases(op):
    danger = CATALOGUE[op]
    assert danger.capability in CAPABILITIES
    variants = VARIANTS.get(op)
    assert variants, f"{op} is in no bundled release"
    for variant in variants:
        if danger.kind == "input":
            args = list(variant.input_arg)
            assert args[danger.position].name == danger.name
            for before in args[: danger.position + 1]:  # single tensors: the position is the input's index
                assert not before.number_attr and not before.type_list_attr
        elif danger.kind == "attr":
            assert danger.name in {attr.name for attr in variant.attr}


@pytest.mark.parametrize("op", sorted(GRAPH_INPUTS))
def test_graph_running_ops(op):
    position, name = GRAPH_INPUTS[op]
    for variant in VARIANTS[op]:
        assert variant.input_arg[position].name == name


@pytest.mark.parametrize(
    "value, expected",
    [
        ("/etc/passwd", OUTSIDE),
        ("~/.ssh/id_rsa", OUTSIDE),
        ("../../x", OUTSIDE),
        ("a/../../x", OUTSIDE),
        ("gs://bucket/x", OUTSIDE),
        ("file:///tmp/x", OUTSIDE),
        ("C:\\Windows", OUTSIDE),
        ("/proc/self/environ", OUTSIDE),
        ("vocab.txt", RELATIVE),
        ("assets/vocab.txt", RELATIVE),
        ("", EMPTY),
    ],
)
def test_classify_path(value, expected):
    assert classify_path(value) == expected


def test_catalogue_covers_the_red_team_list():
    for op in (
        "DebugIdentity",
        "DebugNanCount",
        "DebugNumericSummary",
        "Copy",
        "InitializeTableFromTextFileV2",
        "CacheDatasetV2",
        "GenerateVocabRemapping",
        "LoadAndRemapMatrix",
        "DecodeProtoV2",
        "EncodeProto",
        "DataServiceDatasetV4",
        "RegisterDatasetV2",
        "RemoteCall",
    ):
        assert op in CATALOGUE


def test_rule_documents_every_catalogued_op():
    from tflint.rules import unsafe_op

    doc = unsafe_op.__doc__
    for op in CATALOGUE:
        stem = op[:-2] if op.endswith(("V2", "V3", "V4")) else op
        assert f"`{op}`" in doc or f"`{stem}(" in doc, op
