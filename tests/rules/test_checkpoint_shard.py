"""checkpoint-shard: the shards restored entries live in exist and hold them whole (sizes only)."""

from __future__ import annotations

import shutil

import pytest
from conftest import DATA
from savedmodel_files import restore_line, restoring_meta_graph, table, write_model

from tflint.api import lint_file

RULE = "checkpoint-shard"
TEXT = restoring_meta_graph([("w", "DT_FLOAT")])
SHARD = "variables.data-00000-of-00001"


@pytest.mark.parametrize(
    "keep, expected",
    [
        pytest.param(None, None, id="whole"),
        pytest.param(4, f"variables/{SHARD}, which is 4 bytes; they need 8", id="truncated"),
        pytest.param(0, f"variables/{SHARD}, which is 0 bytes; they need 8", id="emptied"),
    ],
)
def test_rule(keep, expected, tmp_path):
    model = write_model(tmp_path / "m", TEXT, {"w": ("DT_FLOAT", [2])})
    if keep is not None:
        shard = model / "variables" / SHARD
        shard.write_bytes(shard.read_bytes()[:keep])
    findings = [f for f in lint_file(model).findings if f.rule == RULE]
    assert [(f.rule, f.node, f.line) for f in findings] == ([(RULE, None, restore_line(TEXT))] if expected else [])
    if expected:
        assert (
            f"Checkpoint key 'w' that the restore op reads is in {expected}: every loader fails" in findings[0].message
        )
        assert str(findings[0].severity) == "error"


def test_an_entry_nothing_restores_in_a_short_shard_is_a_warning(tmp_path):
    model = write_model(tmp_path / "m", TEXT, {"w": ("DT_FLOAT", [2]), "z": ("DT_FLOAT", [2])})
    shard = model / "variables" / SHARD
    shard.write_bytes(shard.read_bytes()[:8])  # 'w' whole, 'z' (sorted after it) cut off
    (finding,) = [f for f in lint_file(model).findings if f.rule == RULE]
    assert str(finding.severity) == "warning"
    assert "Checkpoint key 'z', which nothing restores, is in" in finding.message


def test_a_missing_shard_of_two(tmp_path):
    base = DATA / "serving_load" / "bases" / "tf1_sharded"
    model = tmp_path / "m"
    shutil.copytree(base, model)
    (model / "variables" / "variables.data-00001-of-00002").unlink()
    (finding,) = [f for f in lint_file(model).findings if f.rule == RULE]
    assert "variables/variables.data-00001-of-00002, which does not exist" in finding.message
    assert [f.rule for f in lint_file(model).findings if f.rule == "missing-variables"] == []


def test_an_entry_in_a_shard_the_header_does_not_count(tmp_path):
    model = write_model(tmp_path / "m", TEXT, {"w": ("DT_FLOAT", [2])})
    header = b"\x08\x01\x1a\x02\x08\x01"
    entry = b"\x08\x01\x12\x04\x12\x02\x08\x02\x18\x05\x20\x00\x28\x08\x35\x00\x00\x00\x00"  # shard_id 5
    (model / "variables" / "variables.index").write_bytes(table([(b"", header), (b"w", entry)]))
    (finding,) = [f for f in lint_file(model).findings if f.rule == RULE]
    assert "shard 5, which the header's 1 shards do not include" in finding.message


def test_a_missing_shard_that_holds_no_entry_is_a_warning(tmp_path):
    model = write_model(tmp_path / "m", TEXT, {"w": ("DT_FLOAT", [2])})
    header = b"\x08\x03\x1a\x02\x08\x01"  # three shards
    entry = b"\x08\x01\x12\x04\x12\x02\x08\x02\x20\x00\x28\x08\x35\x00\x00\x00\x00"  # in shard 0
    (model / "variables" / "variables.index").write_bytes(table([(b"", header), (b"w", entry)]))
    (model / "variables" / SHARD).rename(model / "variables" / "variables.data-00000-of-00003")
    (model / "variables" / "variables.data-00002-of-00003").write_bytes(b"")
    (finding,) = [f for f in lint_file(model).findings if f.rule == RULE]
    assert str(finding.severity) == "warning"
    assert finding.message.startswith(
        "The index's header counts 3 data shards but variables/variables.data-00001-of-00003 does not exist"
    )


def test_a_header_counting_two_billion_shards_is_compared_up_to_a_bound(tmp_path):
    model = write_model(tmp_path / "m", TEXT, {"w": ("DT_FLOAT", [2])})
    header = b"\x08\xff\xff\xff\xff\x07\x1a\x02\x08\x01"  # 2**31 - 1 shards
    entry = b"\x08\x01\x12\x04\x12\x02\x08\x02\x20\x00\x28\x08\x35\x00\x00\x00\x00"
    (model / "variables" / "variables.index").write_bytes(table([(b"", header), (b"w", entry)]))
    findings = [f for f in lint_file(model).findings if f.rule == RULE]
    assert [str(f.severity) for f in findings] == ["error", "warning"]
    assert "and 99,998 more do not exist" in findings[1].message
