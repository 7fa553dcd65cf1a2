"""A model's weights read for review: a checkpoint's entries and a graph's constants read by position into reused
buffers, hashed and compared a piece at a time."""

from __future__ import annotations

from array import array

import pytest
from conftest import DATA

from tflint.errors import UsageError
from tflint.read.tensor_bundle import read_bundle_index
from tflint.read.weights import BytesContent, EntryContent, ShardReader, compare_contents, content_hash, hash_of

SAVED = DATA / "review" / "retrained" / "old"


def test_contents_hash_the_same_however_they_are_cut(monkeypatch):
    from tflint.read import weights

    data = bytes(range(256)) * 1000
    assert content_hash([data]) == content_hash([data[:7], data[7:100_000], data[100_000:]])
    assert content_hash([data]) != content_hash([data[:-1]])
    monkeypatch.setattr(weights, "PIECE_BYTES", 1000)
    assert hash_of(BytesContent(data)) == content_hash([data])  # read into a reused buffer: the same hash


def _kernel(index):
    return next(entry for entry in index.entries.values() if entry.shape == (16, 4))


def test_shard_reader_reads_what_the_index_says(monkeypatch):
    from tflint.read import weights

    monkeypatch.setattr(weights, "PIECE_BYTES", 100)  # 256 bytes: two pieces and a short one
    index = read_bundle_index(str(SAVED / "variables" / "variables.index"))
    entry = _kernel(index)
    stored = (SAVED / "variables" / "variables.data-00000-of-00001").read_bytes()[entry.offset : entry.offset + 256]
    with ShardReader(index) as reader:
        assert entry.size == 256 and hash_of(EntryContent(reader, entry)) == content_hash([stored])
        buffer = bytearray(40)
        EntryContent(reader, entry).read_into(200, memoryview(buffer))
        assert bytes(buffer) == stored[200:240]
        with pytest.raises(ValueError):
            EntryContent(reader, entry).read_into(240, memoryview(buffer))  # past the entry's 256 bytes


def test_an_entry_past_the_end_of_its_shard_is_refused(tmp_path):
    (tmp_path / "variables.index").write_bytes((SAVED / "variables" / "variables.index").read_bytes())
    (tmp_path / "variables.data-00000-of-00001").write_bytes(b"\0" * 10)
    index = read_bundle_index(str(tmp_path / "variables.index"))
    entry = next(entry for entry in index.entries.values() if entry.size > 10)
    with ShardReader(index) as reader, pytest.raises(UsageError, match="past the end"):
        EntryContent(reader, entry).read_into(0, memoryview(bytearray(entry.size)))


def test_a_broken_index_is_a_note_and_the_graph_is_still_shown(tmp_path):
    import shutil

    from tflint.api import show_model

    shutil.copytree(SAVED, tmp_path / "model")
    index = tmp_path / "model" / "variables" / "variables.index"
    index.write_bytes(index.read_bytes()[:-10])
    view = show_model(tmp_path / "model")
    assert any(note.startswith("variables not read:") for note in view.notes)
    assert view.graphs and view.parameters() == 212  # from the variables the graph declares


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
def test_compare(monkeypatch, old, new, changed, relative):
    from tflint.read import weights

    monkeypatch.setattr(weights, "PIECE_BYTES", 8)  # two elements a piece
    result = compare_contents(BytesContent(_floats(old)), BytesContent(_floats(new)), 1)
    assert (result.total, result.compared) == (4, 4)
    assert result.changed == changed
    assert result.relative == pytest.approx(relative)


def test_compare_samples_a_big_tensor_evenly(monkeypatch):
    from tflint.read import weights

    monkeypatch.setattr(weights, "MAX_COMPARED", 10)
    monkeypatch.setattr(weights, "PIECE_BYTES", 36)  # the sample continues across pieces of 9 elements
    a = _floats(range(100))
    b = _floats([v if v % 2 else v + 1 for v in range(100)])  # every even element moved
    result = compare_contents(BytesContent(a), BytesContent(b), 1)
    assert (result.total, result.compared) == (100, 10)
    assert result.changed == 1.0  # every 10th element: all even


def test_compare_of_bytes_it_cannot_read_as_numbers():
    result = compare_contents(BytesContent(b"abc"), BytesContent(b"abd"), 7)
    assert (result.total, result.changed, result.relative) == (3, None, None)


# -- contents read by position into reused buffers ------------------------------------------------


def _contents(tmp_path, data: bytes):
    """The same bytes three ways: in memory, left in a file (as a mapped graph leaves a Const), and in a file object."""
    from tflint.read import mapped
    from tflint.read.weights import MappedContent
    from tflint.tf.tensors import MappedBytes

    path = tmp_path / f"content{len(list(tmp_path.iterdir()))}"
    path.write_bytes(b"head" + data + b"tail")
    file = open(path, "rb")  # noqa: SIM115 - the caller closes it
    source = mapped.FileSource(file, path.name, len(data) + 8)
    return file, [BytesContent(data), MappedContent(MappedBytes(None, source, 4, len(data)))]


@pytest.fixture
def small_pieces(monkeypatch):
    from tflint.read import weights

    monkeypatch.setattr(weights, "PIECE_BYTES", 16)  # every content below crosses pieces, and ends in a short one


@pytest.mark.parametrize(
    "old, new, changed, relative",
    [
        pytest.param(list(range(50)), list(range(50)), 0.0, 0.0, id="same"),
        pytest.param([3, 4] + [0] * 48, [3, 4] + [0] * 47 + [1], 0.02, 0.2, id="last-of-fifty"),
        pytest.param([1] * 50, [2] * 50, 1.0, 1.0, id="all-doubled"),
    ],
)
def test_contents_compared_in_reused_buffers_measure_as_pieces_do(tmp_path, small_pieces, old, new, changed, relative):
    from tflint.read.weights import equal_contents

    a, b = _floats(old), _floats(new)
    old_file, old_contents = _contents(tmp_path, a)
    new_file, new_contents = _contents(tmp_path, b)
    try:
        for old_side, new_side in zip(old_contents, new_contents):
            assert equal_contents(old_side, new_side) == (a == b)
            result = compare_contents(old_side, new_side, 1)
            assert (result.total, result.compared, result.changed) == (50, 50, changed)
            assert result.relative == pytest.approx(relative)
            assert result == compare_contents(BytesContent(a), BytesContent(b), 1)  # mapped or in memory: the same
            assert hash_of(old_side) == content_hash([a]) and hash_of(new_side) == content_hash([b])
    finally:
        old_file.close()
        new_file.close()


def test_equal_contents_stops_at_the_first_difference(small_pieces):
    from tflint.read.weights import equal_contents

    class Counted(BytesContent):
        reads = 0

        def read_into(self, start, buffer):
            Counted.reads += 1
            super().read_into(start, buffer)

    data = bytes(range(160))
    assert not equal_contents(Counted(b"x" + data[1:]), Counted(data))
    assert Counted.reads == 2  # the first piece of each side, of ten
    assert not equal_contents(BytesContent(data), BytesContent(data[:-1]))  # another size
