"""A model's weights for review: each tensor's dtype, shape, bytes and a content hash, read in pieces.

Two homes hold weights. A frozen graph keeps them in its Consts' `tensor_content`
(left in the mapped file for a big binary graph: `tflint.tf.tensors.content_chunks`
reads it a piece at a time). A SavedModel keeps its variables in a tensor bundle:
`variables/variables.index`, a table (LevelDB's sorted-string-table layout) from
checkpoint key to a `BundleEntryProto` (dtype, shape, shard, offset, size,
crc32c), and the data files `variables.data-<shard>-of-<n>` the entries point into.

Nothing here keeps a weight: a content is hashed (BLAKE2b, 16 bytes) as it is
read, PIECE_BYTES at a time, and two versions of a tensor are compared the same
way (`compare`), so memory does not grow with the model. Every size read from the
index is checked against the file it points into before it drives a read.
"""

from __future__ import annotations

import hashlib
import math
import os
import struct
from array import array
from collections.abc import Iterable, Iterator
from typing import Any, BinaryIO

from tflint.errors import UsageError
from tflint.read.guarded import open_regular, read_bytes
from tflint.records import record
from tflint.wire import FIXED32, LENGTH_DELIMITED, VARINT, WireError, fields, read_varint

# Weights are read this much at a time (a multiple of every element size).
PIECE_BYTES = 1 << 20
# An index larger than this is not a variables index tflint reads (TensorFlow's are kilobytes to a few MiB).
MAX_INDEX_BYTES = 64 << 20
MAX_ENTRIES = 1 << 20
MAX_SHARDS = 1 << 16
HASH_CHARS = 12
# The table's footer: two block handles padded to 40 bytes, then this magic number (little-endian).
_FOOTER_BYTES = 48
_TABLE_MAGIC = 0xDB4775248B80FB57
_BLOCK_TRAILER_BYTES = 5  # compression type, crc32c
_NO_COMPRESSION = 0
# BundleEntryProto (tensorflow/core/protobuf/tensor_bundle.proto) and TensorShapeProto fields.
_ENTRY_DTYPE, _ENTRY_SHAPE, _ENTRY_SHARD, _ENTRY_OFFSET, _ENTRY_SIZE, _ENTRY_CRC, _ENTRY_SLICES = 1, 2, 3, 4, 5, 6, 7
_HEADER_NUM_SHARDS = 1
_SHAPE_DIM, _SHAPE_UNKNOWN_RANK, _DIM_SIZE = 2, 3, 1
# Element formats `compare` can read as numbers, by DataType.
_NUMERIC_FORMATS = {1: "f", 2: "d", 3: "i", 9: "q", 4: "B", 6: "b", 5: "h", 17: "H"}


@record(frozen=True)
class BundleEntry:
    """Where one tensor of a checkpoint lies: dtype, shape, and `size` bytes at `offset` of shard `shard`."""

    key: str
    dtype: int
    shape: tuple[int, ...] | None
    shard: int
    offset: int
    size: int
    sliced: bool

    def __init__(
        self, key: str, dtype: int, shape: tuple[int, ...] | None, shard: int, offset: int, size: int, sliced: bool
    ) -> None:
        vars(self).update(key=key, dtype=dtype, shape=shape, shard=shard, offset=offset, size=size, sliced=sliced)


@record(frozen=True)
class Bundle:
    """A checkpoint's entries by key, and its data files by shard (paths)."""

    prefix: str
    entries: dict[str, BundleEntry]
    shards: tuple[str, ...]

    def __init__(self, prefix: str, entries: dict[str, BundleEntry], shards: tuple[str, ...]) -> None:
        vars(self).update(prefix=prefix, entries=entries, shards=shards)


def variables_prefix(saved_model_dir: str) -> str | None:
    """`<dir>/variables/variables` when the SavedModel directory has a variables index, else None."""
    prefix = os.path.join(saved_model_dir, "variables", "variables")
    return prefix if os.path.isfile(prefix + ".index") else None


def read_bundle(prefix: str) -> Bundle:
    """The entries of the tensor bundle `prefix` (.index and its data shards); UsageError when unreadable."""
    index = prefix + ".index"
    data = read_bytes(index, "variables index", limit=MAX_INDEX_BYTES)
    try:
        raw = dict(_table_entries(data))
    except (WireError, IndexError, struct.error) as error:
        raise UsageError(f"{index}: not a readable variables index ({error})") from None
    shards = 1
    header = raw.pop("", None)
    if header is not None:
        for number, wire, _, start, end in fields(header):
            if number == _HEADER_NUM_SHARDS and wire == VARINT:
                shards = read_varint(header, start, end)[0]
    if not 1 <= shards <= MAX_SHARDS:
        raise UsageError(f"{index}: a variables index claiming {shards} data shards")
    entries = {}
    for key, value in raw.items():
        try:
            entries[key] = _entry(key, value)
        except WireError as error:
            raise UsageError(f"{index}: entry {key!r} is not a BundleEntryProto ({error})") from None
    paths = tuple(f"{prefix}.data-{shard:05d}-of-{shards:05d}" for shard in range(shards))
    return Bundle(prefix, entries, paths)


def _entry(key: str, value: bytes) -> BundleEntry:
    dtype = shard = offset = size = 0
    shape: tuple[int, ...] | None = ()
    sliced = False
    for number, wire, _, start, end in fields(value):
        if wire == VARINT:
            number_value = read_varint(value, start, end)[0]
            if number == _ENTRY_DTYPE:
                dtype = number_value
            elif number == _ENTRY_SHARD:
                shard = number_value
            elif number == _ENTRY_OFFSET:
                offset = number_value
            elif number == _ENTRY_SIZE:
                size = number_value
        elif wire == LENGTH_DELIMITED and number == _ENTRY_SHAPE:
            shape = _shape(value[start:end])
        elif wire == LENGTH_DELIMITED and number == _ENTRY_SLICES:
            sliced = True
        elif wire == FIXED32 and number == _ENTRY_CRC:
            pass  # TensorFlow's own check of the data; tflint hashes the bytes itself
    return BundleEntry(key, dtype, shape, shard, offset, size, sliced)


def _shape(data: bytes) -> tuple[int, ...] | None:
    dims = []
    for number, wire, _, start, end in fields(data):
        if number == _SHAPE_UNKNOWN_RANK and wire == VARINT and read_varint(data, start, end)[0]:
            return None
        if number == _SHAPE_DIM and wire == LENGTH_DELIMITED:
            size = 0
            for inner, inner_wire, _, dim_start, dim_end in fields(data, start, end):
                if inner == _DIM_SIZE and inner_wire == VARINT:
                    size = read_varint(data, dim_start, dim_end)[0]
                    size = size - (1 << 64) if size >= 1 << 63 else size
            dims.append(size)
    return tuple(dims)


def _table_entries(data: bytes) -> Iterator[tuple[str, bytes]]:
    """(key, value) of every entry of a LevelDB-layout table without compression, in order."""
    if len(data) < _FOOTER_BYTES or struct.unpack_from("<Q", data, len(data) - 8)[0] != _TABLE_MAGIC:
        raise WireError("no table footer")
    footer = len(data) - _FOOTER_BYTES
    _, position = _handle(data, footer)  # the metaindex block: TensorFlow's bundles leave it empty
    index_offset, index_size = _handle(data, position)[0]
    seen = 0
    for _, handle in _block_entries(data, index_offset, index_size):
        (offset, size), _ = _handle(handle, 0)
        for key, value in _block_entries(data, offset, size):
            seen += 1
            if seen > MAX_ENTRIES:
                raise WireError(f"more than {MAX_ENTRIES} entries")
            yield key.decode("utf-8", "replace"), value


def _handle(data: bytes, position: int) -> tuple[tuple[int, int], int]:
    offset, position = read_varint(data, position, len(data))
    size, position = read_varint(data, position, len(data))
    return (offset, size), position


def _block_entries(data: bytes, offset: int, size: int) -> Iterator[tuple[bytes, bytes]]:
    """The entries of one block: keys share a prefix with the key before them (the block's restarts skipped)."""
    end = offset + size
    if offset < 0 or end + _BLOCK_TRAILER_BYTES > len(data) or size < 4:
        raise WireError("a block outside the file")
    if data[end] != _NO_COMPRESSION:
        raise WireError("a compressed block")
    restarts = struct.unpack_from("<I", data, end - 4)[0]
    limit = end - 4 - 4 * restarts
    if limit < offset:
        raise WireError("a block's restart array is larger than the block")
    position, key = offset, b""
    while position < limit:
        shared, position = read_varint(data, position, limit)
        unshared, position = read_varint(data, position, limit)
        length, position = read_varint(data, position, limit)
        if shared > len(key) or position + unshared + length > limit:
            raise WireError("an entry runs past its block")
        key = key[:shared] + data[position : position + unshared]
        position += unshared
        yield key, data[position : position + length]
        position += length


# -- reading contents in pieces ----------------------------------------------------------------


def _pieces(handle: BinaryIO, offset: int, size: int) -> Iterator[bytes]:
    handle.seek(offset)
    left = size
    while left > 0:
        piece = handle.read(min(PIECE_BYTES, left))
        if not piece:
            raise UsageError(f"{handle.name}: ends inside a tensor ({left} bytes missing)")
        left -= len(piece)
        yield piece


def content_hash(pieces: Iterable[bytes | memoryview]) -> str:
    """A short hash of a content given in pieces (the same for the same bytes, however they are cut)."""
    digest = hashlib.blake2b(digest_size=16)
    for piece in pieces:
        digest.update(piece)
    return digest.hexdigest()[:HASH_CHARS]


class ShardReader:
    """The data files of a bundle, opened on first use and checked against the sizes entries claim."""

    def __init__(self, bundle: Bundle) -> None:
        self.bundle = bundle
        self._open: dict[int, tuple[BinaryIO, int]] = {}

    def pieces(self, entry: BundleEntry) -> Iterator[bytes]:
        """The bytes of `entry`, PIECE_BYTES at a time; UsageError when its shard is missing or too short."""
        if not 0 <= entry.shard < len(self.bundle.shards):
            raise UsageError(f"{self.bundle.prefix}.index: entry {entry.key!r} names shard {entry.shard}")
        if entry.shard not in self._open:
            handle = open_regular(self.bundle.shards[entry.shard], "variables data")
            self._open[entry.shard] = (handle, os.fstat(handle.fileno()).st_size)
        handle, length = self._open[entry.shard]
        if entry.offset + entry.size > length:
            raise UsageError(f"{handle.name}: entry {entry.key!r} points past the end of the file")
        return _pieces(handle, entry.offset, entry.size)

    def close(self) -> None:
        for handle, _ in self._open.values():
            handle.close()
        self._open.clear()

    def __enter__(self) -> ShardReader:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def same_content(old: Iterable[bytes], new: Iterable[bytes]) -> bool:
    """Whether two contents given in pieces (cut anywhere) hold the same bytes; stops at the first difference."""
    old_rest = new_rest = b""
    old_iter, new_iter = iter(old), iter(new)
    while True:
        old_piece, new_piece = next(old_iter, None), next(new_iter, None)
        if old_piece is None and new_piece is None:
            return old_rest == new_rest
        old_rest += old_piece or b""
        new_rest += new_piece or b""
        usable = min(len(old_rest), len(new_rest))
        if old_rest[:usable] != new_rest[:usable]:
            return False
        old_rest, new_rest = old_rest[usable:], new_rest[usable:]


@record(frozen=True)
class Change:
    """How far a tensor's values moved, from the elements compared (all, or an even sample of a big tensor).

    `total` is the element count, `compared` how many were compared, `changed` the fraction of those that
    differ, `relative` ||new - old|| / ||old|| over them (L2 norms; None for a dtype not read as numbers,
    or old values all zero).
    """

    total: int
    compared: int
    changed: float | None
    relative: float | None

    def __init__(self, total: int, compared: int, changed: float | None, relative: float | None) -> None:
        vars(self).update(total=total, compared=compared, changed=changed, relative=relative)


# Bigger tensors are compared on an even sample of this many elements (every k-th): pure Python reads
# a few million elements a second, a weight of 64 MiB holds sixteen million, and a quarter of a million
# evenly spread say how much a weight moved to well within a percent.
MAX_COMPARED = 1 << 18


def compare(old: Iterable[bytes], new: Iterable[bytes], dtype: int, size: int) -> Change:
    """How two contents of `size` bytes and `dtype`, given in pieces, differ (a piece of each at a time)."""
    code = _NUMERIC_FORMATS.get(dtype)
    width = array(code).itemsize if code else 1
    count = size // width
    step = max(1, -(-count // MAX_COMPARED))
    total = compared = differing = 0
    moved = base = 0.0
    old_rest = new_rest = b""
    old_iter, new_iter = iter(old), iter(new)
    while True:
        old_piece, new_piece = next(old_iter, None), next(new_iter, None)
        if old_piece is None and new_piece is None:
            break
        old_rest += old_piece or b""
        new_rest += new_piece or b""
        usable = min(len(old_rest), len(new_rest)) // width * width
        a, b, old_rest, new_rest = old_rest[:usable], new_rest[:usable], old_rest[usable:], new_rest[usable:]
        if code is None or not usable:
            total += usable // width
            continue
        first = -total % step  # the sample continues across pieces: elements total + first, + step, ...
        total += usable // width
        left, right = array(code, a)[first::step], array(code, b)[first::step]
        compared += len(left)
        if a == b:
            base += math.fsum(x * x for x in left)
            continue
        for x, y in zip(left, right):
            base += x * x
            if x != y:
                differing += 1
                moved += (x - y) * (x - y)
    if code is None:
        return Change(total, 0, None, None)
    relative = math.sqrt(moved / base) if base > 0 else None
    return Change(total, compared, differing / compared if compared else 0.0, relative)
