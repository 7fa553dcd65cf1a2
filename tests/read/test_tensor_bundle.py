"""The checkpoint index reader: TF-written indexes, and hostile tables (bounded problems, never exceptions)."""

from __future__ import annotations

import os
import pathlib

import pytest

from tflint.read import crc32c
from tflint.read.tensor_bundle import (
    MAX_BLOCK_BYTES,
    BundleEntry,
    BundleError,
    BundleHeader,
    BundleIndex,
    header_problem,
    parse_bundle_index,
    read_bundle_index,
    read_entry_bytes,
    shard_name,
    verify_entries,
)
from tflint.wire import varint

REAL = pathlib.Path(__file__).resolve().parents[1] / "data" / "real" / "savedmodel_dirs"
MAGIC = (0xDB4775248B80FB57).to_bytes(8, "little")


# -- a tiny table writer, so that tests can say exactly which bytes are wrong ---------------------


def block(entries: list[tuple[bytes, bytes]], restarts: list[int] | None = None) -> bytes:
    """A block of entries with no shared prefixes, and its restart array."""
    body = b"".join(varint(0) + varint(len(key)) + varint(len(value)) + key + value for key, value in entries)
    points = [0] if restarts is None else restarts
    return body + b"".join(point.to_bytes(4, "little") for point in points) + len(points).to_bytes(4, "little")


def trailer(contents: bytes, kind: int = 0) -> bytes:
    return bytes([kind]) + crc32c.mask(crc32c.value(contents + bytes([kind]))).to_bytes(4, "little")


def handle(offset: int, size: int) -> bytes:
    return varint(offset) + varint(size)


def table(entries: list[tuple[bytes, bytes]], data_block: bytes | None = None) -> bytes:
    """A table with one data block (given, or made of `entries`), an empty metaindex and an index block."""
    data = block(entries) if data_block is None else data_block
    out = data + trailer(data)
    meta = block([])
    meta_at = len(out)
    out += meta + trailer(meta)
    index = block([(b"\xff", handle(0, len(data)))])
    index_at = len(out)
    out += index + trailer(index)
    footer = handle(meta_at, len(meta)) + handle(index_at, len(index))
    return out + footer.ljust(40, b"\0") + MAGIC


def header(num_shards: int = 1, min_consumer: int = 0) -> bytes:
    version = varint(1 << 3) + varint(1) + (varint(2 << 3) + varint(min_consumer) if min_consumer else b"")
    return varint(1 << 3) + varint(num_shards) + varint(3 << 3 | 2) + varint(len(version)) + version


def entry(dtype: int = 1, dims: tuple[int, ...] = (2,), offset: int = 0, size: int = 8, shard: int = 0) -> bytes:
    shape = b"".join(varint(2 << 3 | 2) + varint(len(d)) + d for d in (varint(1 << 3) + varint(n) for n in dims))
    out = varint(1 << 3) + varint(dtype) + varint(2 << 3 | 2) + varint(len(shape)) + shape
    if shard:
        out += varint(3 << 3) + varint(shard)
    return out + varint(4 << 3) + varint(offset) + varint(5 << 3) + varint(size) + varint(6 << 3 | 5) + bytes(4)


# -- TF-written checkpoints -----------------------------------------------------------------------


@pytest.mark.parametrize("model", ["tf1_builder_lookup_asset", "tf2_assets_hashtable", "tf2_module_signatures"])
def test_tf_written_indexes_read_whole_and_their_checksums_match(model):
    index = read_bundle_index(str(REAL / model / "variables" / "variables.index"))
    assert index.problem is None
    assert index.header == BundleHeader(1, 0, 1, 0, ())
    assert header_problem(index.header) is None
    assert index.entries
    results = list(verify_entries(index))
    assert [result.entry.key for result in results if not result.matches] == []
    assert len(results) == len(index.entries)


def test_a_tf2_index_names_the_object_graph_and_its_variables():
    index = read_bundle_index(str(REAL / "tf2_module_signatures" / "variables" / "variables.index"))
    assert "_CHECKPOINTABLE_OBJECT_GRAPH" in index.entries
    assert index.entries["_CHECKPOINTABLE_OBJECT_GRAPH"].dtype == 7  # DT_STRING
    assert any(key.endswith("/.ATTRIBUTES/VARIABLE_VALUE") for key in index.entries)


def test_entry_bytes_are_read_with_a_cap(tmp_path):
    index = read_bundle_index(str(REAL / "tf2_module_signatures" / "variables" / "variables.index"))
    graph = index.entries["_CHECKPOINTABLE_OBJECT_GRAPH"]
    data = read_entry_bytes(index, "_CHECKPOINTABLE_OBJECT_GRAPH", limit=graph.size)
    assert len(data) == graph.size
    with pytest.raises(BundleError, match="more than the 3 asked for"):
        read_entry_bytes(index, "_CHECKPOINTABLE_OBJECT_GRAPH", limit=3)
    with pytest.raises(BundleError, match="not in the checkpoint"):
        read_entry_bytes(index, "nope", limit=100)


def test_a_corrupted_shard_byte_fails_its_entrys_checksum(tmp_path):
    source = REAL / "tf2_module_signatures" / "variables"
    for name in os.listdir(source):
        (tmp_path / name).write_bytes((source / name).read_bytes())
    index = read_bundle_index(str(tmp_path / "variables.index"))
    victim = max(index.entries.values(), key=lambda entry: entry.size)
    shard = tmp_path / os.path.basename(shard_name("variables", victim.shard_id, 1))
    data = bytearray(shard.read_bytes())
    data[victim.offset] ^= 0xFF
    shard.write_bytes(bytes(data))
    failed = [result.entry.key for result in verify_entries(index) if not result.matches]
    assert failed == [victim.key]


def test_a_truncated_shard_is_a_problem_of_the_entries_past_its_end(tmp_path):
    source = REAL / "tf2_module_signatures" / "variables"
    for name in os.listdir(source):
        (tmp_path / name).write_bytes((source / name).read_bytes())
    index = read_bundle_index(str(tmp_path / "variables.index"))
    last = max(index.entries.values(), key=lambda entry: entry.offset)
    shard = tmp_path / "variables.data-00000-of-00001"
    shard.write_bytes(shard.read_bytes()[: last.offset + 1])
    problems = {result.entry.key: result.problem for result in verify_entries(index) if result.problem}
    assert list(problems) == [last.key]
    assert "shard ends" in problems[last.key]
    with pytest.raises(BundleError, match="shard ends"):
        read_entry_bytes(index, last.key, limit=1 << 30)


def test_progress_counts_every_byte_once():
    index = read_bundle_index(str(REAL / "tf2_assets_hashtable" / "variables" / "variables.index"))
    seen: list[tuple[int, int]] = []
    list(verify_entries(index, progress=lambda done, total: seen.append((done, total))))
    total = sum(entry.size for entry in index.entries.values())
    assert seen[-1] == (total, total)


# -- built tables: what each broken byte becomes --------------------------------------------------


def test_a_built_table_reads_back():
    index = parse_bundle_index(table([(b"", header()), (b"a", entry()), (b"b", entry(dtype=3, dims=(2, 3)))]))
    assert index.problem is None
    assert index.entries["b"].shape == (2, 3)
    assert index.entries["b"].dtype == 3


def test_prefix_compressed_keys_are_rebuilt():
    body = (
        varint(0) + varint(0) + varint(len(header())) + header()
        + varint(0) + varint(6) + varint(len(entry())) + b"layer1" + entry()
        + varint(5) + varint(1) + varint(len(entry())) + b"2" + entry()
    )  # fmt: skip
    data_block = body + (0).to_bytes(4, "little") + (1).to_bytes(4, "little")
    index = parse_bundle_index(table([], data_block=data_block))
    assert index.problem is None
    assert list(index.entries) == ["layer1", "layer2"]


def test_a_snappy_block_is_read():
    plain = block([(b"", header()), (b"weights", entry())])
    # Snappy: the length, one literal of everything (tag 60: a one-byte length - 1 follows).
    compressed = varint(len(plain)) + bytes([60 << 2, len(plain) - 1]) + plain
    out = compressed + trailer(compressed, kind=1)
    meta = block([])
    meta_at = len(out)
    out += meta + trailer(meta)
    index_block = block([(b"\xff", handle(0, len(compressed)))])
    index_at = len(out)
    out += index_block + trailer(index_block)
    out += (handle(meta_at, len(meta)) + handle(index_at, len(index_block))).ljust(40, b"\0") + MAGIC
    index = parse_bundle_index(out)
    assert index.problem is None
    assert list(index.entries) == ["weights"]


def _broken(data: bytes) -> str:
    index = parse_bundle_index(data)
    assert index.problem is not None
    return str(index.problem)


GOOD = table([(b"", header()), (b"a", entry())])


@pytest.mark.parametrize(
    "data, expected",
    [
        pytest.param(b"", "shorter than a table's 48-byte footer", id="empty"),
        pytest.param(GOOD[:-1], "bad magic number", id="truncated"),
        pytest.param(GOOD[20:], "points past the end of the file", id="head-cut"),
        pytest.param(b"\x07" * 4096, "bad magic number", id="garbage"),
        pytest.param(bytes([GOOD[0] ^ 1]) + GOOD[1:], "block checksum mismatch", id="flipped-byte"),
        pytest.param(table([(b"a", entry())]), "not the header entry", id="no-header"),
        pytest.param(table([]), 'header entry (key "") is missing', id="empty-table"),
        pytest.param(table([(b"", header()), (b"b", entry()), (b"a", entry())]), "ascending order", id="unsorted"),
        pytest.param(table([(b"", header()), (b"a", b"\xff")]), "not a BundleEntryProto", id="bad-entry"),
        pytest.param(table([(b"", b"\x0a\xff")]), "not a BundleHeaderProto", id="bad-header"),
        pytest.param(table([], data_block=b"\x00\x00\x00"), "shorter than its restart count", id="tiny-block"),
        pytest.param(
            table([], data_block=(1 << 30).to_bytes(4, "little")), "restart points in a block", id="huge-restarts"
        ),
        pytest.param(
            table([], data_block=varint(0) + varint(1 << 62) + varint(1) + (1).to_bytes(4, "little") * 2),
            "bad entry in block",
            id="entry-2^62",
        ),
        pytest.param(
            table([], data_block=varint(3) + varint(1) + varint(0) + b"a" + (0).to_bytes(4, "little") * 2),
            "bad entry in block",
            id="shared-past-key",
        ),
    ],
)
def test_broken_tables_are_one_problem_with_where_they_broke(data, expected):
    assert expected in _broken(data)


def test_a_handle_of_2_to_the_62_is_past_the_end():
    footer = (handle(0, 0) + handle(1 << 62, 1 << 62)).ljust(40, b"\0") + MAGIC
    assert "points past the end of the file" in _broken(footer)


def test_an_index_pointing_twice_at_one_block_is_a_loop():
    data = block([(b"", header())])
    out = data + trailer(data)
    meta = block([])
    meta_at = len(out)
    out += meta + trailer(meta)
    index_block = block([(b"a", handle(0, len(data))), (b"b", handle(0, len(data)))])
    index_at = len(out)
    out += index_block + trailer(index_block)
    out += (handle(meta_at, len(meta)) + handle(index_at, len(index_block))).ljust(40, b"\0") + MAGIC
    assert "overlap" in _broken(out)


def test_a_snappy_block_announcing_too_much_is_refused():
    compressed = varint(MAX_BLOCK_BYTES + 1) + b"\x00a"
    out = compressed + trailer(compressed, kind=1)
    index_block = block([(b"\xff", handle(0, len(compressed)))])
    index_at = len(out)
    out += index_block + trailer(index_block)
    out += (handle(0, 0) + handle(index_at, len(index_block))).ljust(40, b"\0") + MAGIC
    assert "announces" in _broken(out)


def test_a_snappy_copy_before_the_start_is_refused():
    compressed = varint(8) + bytes([0 << 2, ord("a")]) + bytes([(3 << 2) | 2]) + (9).to_bytes(2, "little")
    out = compressed + trailer(compressed, kind=1)
    index_block = block([(b"\xff", handle(0, len(compressed)))])
    index_at = len(out)
    out += index_block + trailer(index_block)
    out += (handle(0, 0) + handle(index_at, len(index_block))).ljust(40, b"\0") + MAGIC
    assert "corrupted compressed block" in _broken(out)


def test_an_unknown_block_type_is_named():
    data = block([(b"", header())])
    out = data + trailer(data, kind=7)
    index_block = block([(b"\xff", handle(0, len(data)))])
    index_at = len(out)
    out += index_block + trailer(index_block)
    out += (handle(0, 0) + handle(index_at, len(index_block))).ljust(40, b"\0") + MAGIC
    assert "bad block type 7" in _broken(out)


def test_entries_read_before_the_break_are_kept():
    index = parse_bundle_index(table([(b"", header()), (b"a", entry()), (b"b", b"\xff")]))
    assert index.problem is not None
    assert list(index.entries) == ["a"]


@pytest.mark.parametrize(
    "made, expected",
    [
        pytest.param(BundleHeader(0, 0, 1, 0, ()), "0 data shards", id="no-shards"),
        pytest.param(BundleHeader(1, 5, 1, 0, ()), "endianness is 5", id="endianness"),
        pytest.param(BundleHeader(1, 0, 1, 2, ()), "version 2 or newer", id="min-consumer"),
        pytest.param(BundleHeader(1, 0, 1, 0, (1,)), "bad_consumers", id="bad-consumer"),
    ],
)
def test_headers_tensorflow_refuses(made, expected):
    assert expected in (header_problem(made) or "")


def test_an_unreadable_index_is_a_problem_not_an_exception(tmp_path):
    index = read_bundle_index(str(tmp_path / "variables.index"))
    assert index.problem is not None
    assert "No such file" in str(index.problem)


def test_an_entry_past_its_shard_count_is_refused_when_read(tmp_path):
    (tmp_path / "variables.index").write_bytes(table([(b"", header()), (b"a", entry(shard=5))]))
    index = read_bundle_index(str(tmp_path / "variables.index"))
    with pytest.raises(BundleError, match="names shard 5"):
        read_entry_bytes(index, "a", limit=100)


def test_the_fast_entry_reader_agrees_with_the_field_by_field_one():
    """TF-written entries take the fast path; it gives what the general reader gives, and declines the rest."""
    from tflint.read.tensor_bundle import _entry_as_written, _parse_entry_fields

    seen = 0
    for model in ("tf1_builder_lookup_asset", "tf2_assets_hashtable", "tf2_module_signatures"):
        index = read_bundle_index(str(REAL / model / "variables" / "variables.index"))
        for key in index.entries:
            raw = _raw_values(REAL / model / "variables" / "variables.index")[key]
            fast = _entry_as_written(key, raw)
            assert fast is not None
            assert fast == _parse_entry_fields(key, memoryview(raw), 0) == index.entries[key]
            seen += 1
    assert seen >= 5
    sliced = entry() + b"\x3a\x06\x0a\x04\x08\x00\x10\x02"  # a TensorSliceProto: the general reader's
    assert _entry_as_written("a", sliced) is None
    assert _parse_entry_fields("a", memoryview(sliced), 0).slices == (((0, 2),),)


def _raw_values(path):
    from tflint.read.tensor_bundle import _table_items

    return {key.decode(): bytes(value) for key, value, _ in _table_items(path.read_bytes()) if key}


def test_more_entries_than_tflint_reads_is_a_problem(monkeypatch):
    from tflint.read import tensor_bundle

    monkeypatch.setattr(tensor_bundle, "MAX_ENTRIES", 2)
    index = parse_bundle_index(table([(b"", header()), (b"a", entry()), (b"b", entry()), (b"c", entry())]))
    assert str(index.problem).startswith("more than 2 entries (tflint reads no more)")
    assert list(index.entries) == ["a", "b"]


VARIANT = pathlib.Path(__file__).resolve().parents[1] / "data" / "checkpoint_variant"


def test_variant_entries_checksum_as_tensorflow_writes_them():
    index = read_bundle_index(str(VARIANT / "ckpt.index"))
    results = {result.entry.key: result for result in verify_entries(index)}
    variants = [key for key, entry in index.entries.items() if entry.dtype == 21]
    assert sorted(variants) == ["it/.ATTRIBUTES/ITERATOR_STATE", "tl/.ATTRIBUTES/VARIABLE_VALUE"]
    assert [key for key, result in results.items() if not result.matches] == []


def test_a_flipped_variant_byte_fails_where_tensorflow_fails(tmp_path):
    """tools/gen_variant_checkpoint.py recorded, per shard byte flipped, whether TF 2.21's RestoreV2 read each entry."""
    import json

    verdicts = json.loads((VARIANT / "verdicts.json").read_text(encoding="utf-8"))["entries"]
    (tmp_path / "ckpt.index").write_bytes((VARIANT / "ckpt.index").read_bytes())
    shard = (VARIANT / "ckpt.data-00000-of-00001").read_bytes()
    index = read_bundle_index(str(tmp_path / "ckpt.index"))
    for key, verdict in verdicts.items():
        assert verdict["intact"] == "ok"
        entry = index.entries[key]
        for position in range(entry.offset, entry.offset + entry.size):
            data = bytearray(shard)
            data[position] ^= 0xFF
            (tmp_path / "ckpt.data-00000-of-00001").write_bytes(bytes(data))
            (result,) = [result for result in verify_entries(index) if result.entry.key == key]
            assert result.matches is (position not in verdict["refused"]), (key, position, result.problem)


def test_a_variant_count_that_cannot_fit_is_a_problem(tmp_path):
    index = read_bundle_index(str(VARIANT / "ckpt.index"))
    entry = index.entries["tl/.ATTRIBUTES/VARIABLE_VALUE"]
    wide = BundleEntry(entry.key, entry.dtype, (1 << 62,), entry.shard_id, entry.offset, entry.size, entry.crc32c, ())
    (result,) = verify_entries(BundleIndex(index.path, index.header, {entry.key: wide}, None))
    assert result.problem is not None and "cannot fit" in result.problem
