"""checkpoint-index: variables/variables.index reads as TensorFlow reads it, reported once per SavedModel."""

from __future__ import annotations

import pytest
from savedmodel_files import flip, restore_line, restoring_meta_graph, truncate, write_model

from tflint.api import lint_file

RULE = "checkpoint-index"
TEXT = restoring_meta_graph([("w", "DT_FLOAT")])


def _break_nothing(path):
    pass


def _garbage(path):
    path.write_bytes(b"\x07" * 300)


def _empty(path):
    path.write_bytes(b"")


@pytest.mark.parametrize(
    "damage, expected",
    [
        pytest.param(_break_nothing, None, id="sound"),
        pytest.param(truncate, "not an sstable (bad magic number) (at byte 53)", id="truncated"),
        pytest.param(_garbage, "not an sstable (bad magic number) (at byte 292)", id="garbage"),
        pytest.param(_empty, "the file is 0 bytes, shorter than a table's 48-byte footer (at byte 0)", id="empty"),
        pytest.param(lambda path: flip(path, 3), "block checksum mismatch (at byte 0)", id="flipped"),
    ],
)
def test_rule(damage, expected, tmp_path):
    model = write_model(tmp_path / "m", TEXT, {"w": ("DT_FLOAT", [2])})
    damage(model / "variables" / "variables.index")
    findings = [f for f in lint_file(model).findings if f.rule == RULE]
    assert [(f.rule, f.node, f.line) for f in findings] == ([(RULE, None, restore_line(TEXT))] if expected else [])
    if expected:
        assert findings[0].message == (
            f"variables/variables.index cannot be read: {expected}; every loader fails at load, before any variable "
            "is restored"
        )


def test_a_graph_that_restores_nothing_does_not_read_the_index(tmp_path):
    text = '  graph_def { node { name: "x" op: "NoOp" } }\n'
    model = write_model(tmp_path / "m", text, {"w": ("DT_FLOAT", [2])})
    _garbage(model / "variables" / "variables.index")
    assert [f for f in lint_file(model).findings if f.rule == RULE] == []


MAGIC = (0xDB4775248B80FB57).to_bytes(8, "little")


def _hostile_2_to_the_62(path):
    from tflint.wire import varint

    path.write_bytes((varint(0) + varint(0) + varint(1 << 62) + varint(1 << 62)).ljust(40, b"\0") + MAGIC)


def _hostile_loop(path):
    from savedmodel_files import block, trailer

    from tflint.wire import varint

    data = block([(b"", b"\x08\x01")])
    out = data + trailer(data)
    index = block([(b"a", varint(0) + varint(len(data))), (b"b", varint(0) + varint(len(data)))])
    at = len(out)
    out += index + trailer(index)
    path.write_bytes(out + (varint(0) + varint(0) + varint(at) + varint(len(index))).ljust(40, b"\0") + MAGIC)


@pytest.mark.parametrize(
    "damage, expected",
    [
        pytest.param(_hostile_2_to_the_62, "points past the end of the file", id="handle-2^62"),
        pytest.param(_hostile_loop, "two blocks overlap", id="loop"),
    ],
)
def test_hostile_indexes_are_one_bounded_finding(damage, expected, tmp_path):
    model = write_model(tmp_path / "m", TEXT, {"w": ("DT_FLOAT", [2])})
    damage(model / "variables" / "variables.index")
    findings = [f for f in lint_file(model).findings if f.rule.startswith("checkpoint-")]
    assert [f.rule for f in findings] == [RULE]
    assert expected in findings[0].message
