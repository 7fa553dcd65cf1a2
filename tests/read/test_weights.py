"""A SavedModel's variables read for review: the tensor bundle index, contents hashed and compared in pieces."""

from __future__ import annotations

import struct
from array import array

import pytest
from conftest import DATA

from tflint.errors import UsageError
from tflint.read.weights import ShardReader, compare, content_hash, read_bundle

SAVED = DATA / "review" / "retrained" / "old"


def test_bundle_index_lists_every_variable_with_its_place():
    bundle = read_bundle(str(SAVED / "variables" / "variables"))
    shapes = {key: entry.shape for key, entry in bundle.entries.items() if key.endswith("VARIABLE_VALUE")}
    assert sorted(shapes.values()) == sorted([(8, 16), (16,), (16, 4), (4,)] * (len(shapes) // 4))
    assert all(
        entry.dtype == 1 and entry.size == 4 * (entry.shape[0] * (entry.shape[1:] or (1,))[0])
        for key, entry in bundle.entries.items()
        if key in shapes
    )
    assert len(bundle.shards) == 1


def test_contents_hash_the_same_however_they_are_cut():
    data = bytes(range(256)) * 1000
    assert content_hash([data]) == content_hash([data[:7], data[7:100_000], data[100_000:]])
    assert content_hash([data]) != content_hash([data[:-1]])


def test_shard_reader_reads_what_the_index_says():
    bundle = read_bundle(str(SAVED / "variables" / "variables"))
    entry = next(entry for entry in bundle.entries.values() if entry.shape == (16, 4))
    with ShardReader(bundle) as reader:
        content = b"".join(reader.pieces(entry))
    assert len(content) == entry.size == 256


def test_a_truncated_index_is_one_clear_error(tmp_path):
    data = (SAVED / "variables" / "variables.index").read_bytes()
    (tmp_path / "v.index").write_bytes(data[:-10])
    with pytest.raises(UsageError, match="not a readable variables index"):
        read_bundle(str(tmp_path / "v"))


def test_an_entry_past_the_end_of_its_shard_is_refused(tmp_path):
    for name in ("variables.index",):
        (tmp_path / name).write_bytes((SAVED / "variables" / name).read_bytes())
    (tmp_path / "variables.data-00000-of-00001").write_bytes(b"\0" * 10)
    bundle = read_bundle(str(tmp_path / "variables"))
    entry = next(entry for entry in bundle.entries.values() if entry.size > 10)
    with ShardReader(bundle) as reader, pytest.raises(UsageError, match="past the end"):
        b"".join(reader.pieces(entry))


def _floats(values):
    return array("f", values).tobytes()


@pytest.mark.parametrize(
    "old, new, changed, relative",
    [
        pytest.param([1, 2, 3, 4], [1, 2, 3, 4], 0.0, 0.0, id="same"),
        pytest.param([3, 4, 0, 0], [3, 4, 0, 1], 0.25, 0.2, id="one-of-four"),
        pytest.param([1, 1, 1, 1], [2, 2, 2, 2], 1.0, 1.0, id="all-doubled"),
    ],
)
def test_compare(old, new, changed, relative):
    a, b = _floats(old), _floats(new)
    result = compare([a[:5], a[5:]], [b[:3], b[3:]], 1, len(a))
    assert (result.total, result.compared) == (4, 4)
    assert result.changed == changed
    assert result.relative == pytest.approx(relative)


def test_compare_samples_a_big_tensor_evenly(monkeypatch):
    from tflint.read import weights

    monkeypatch.setattr(weights, "MAX_COMPARED", 10)
    a = _floats(range(100))
    b = _floats([v if v % 2 else v + 1 for v in range(100)])  # every even element moved
    result = compare([a[i : i + 36] for i in range(0, len(a), 36)], [b], 1, len(a))
    assert (result.total, result.compared) == (100, 10)
    assert result.changed == 1.0  # every 10th element: all even


def test_compare_of_bytes_it_cannot_read_as_numbers():
    result = compare([b"abc"], [b"abd"], 7, 3)
    assert (result.total, result.changed, result.relative) == (3, None, None)


def test_big_endian_free():
    assert struct.calcsize("<I") == 4  # the table layout is little-endian whatever the machine
