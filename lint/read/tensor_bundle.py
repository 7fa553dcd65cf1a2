"""A checkpoint's index (`variables/variables.index`): TensorFlow's table format and the tensor bundle inside it.

A SavedModel's variables are a *tensor bundle*: one index file, a sorted table mapping each
checkpoint key to a BundleEntryProto (dtype, shape, which data shard, offset, size, CRC-32C,
slices), plus the data shards `variables.data-NNNNN-of-MMMMM` holding the bytes. The entry
under the empty key is the BundleHeaderProto (number of shards, endianness, version).

The table is LevelDB's format as TensorFlow keeps it (tsl/lib/io): a 48-byte footer at the end
(the metaindex and index block handles, zero padding, a magic number), an index block whose
entries point at the data blocks, and blocks of prefix-compressed entries (per entry: the
length of the key prefix shared with the previous key, the length of the rest, the value's
length, the rest of the key, the value) closed by restart offsets and their count. Each block
is followed by a 5-byte trailer: its compression (0 none, 1 Snappy) and the masked CRC-32C of
the block and that byte, which TensorFlow verifies on every read.

TensorFlow writes the index uncompressed (BundleWriter and MergeBundles set kNoCompression:
Snappy "may not be supported on all platforms"), but its reader accepts Snappy blocks, so this
reader decompresses them too (bounded). Every handle, length and count read from the file is
checked against the bytes before it is used, a block is parsed at most once and blocks may not
overlap (no loop through the block structure), keys must ascend (TensorFlow's lookups
binary-search them), and the number of entries is capped. A broken index is not an exception:
`BundleIndex.problem` says what broke and at which byte, with the entries read before it.

The data shards are never read here, only named (`shard_name`); `read_entry_bytes` reads one
entry's bytes with a size cap, and `verify_entries` streams them to check their CRC-32C.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping
from typing import BinaryIO

from tflint.read import crc32c
from tflint.read.guarded import UnreadableFile, open_regular, read_bytes
from tflint.records import record
from tflint.tf.checkpoint import header_problem, shard_name
from tflint.wire import LENGTH_DELIMITED, VARINT, WireError, fields, read_varint

# The footer: two block handles of at most 20 bytes each, padding, and the magic number.
FOOTER_SIZE = 48
TABLE_MAGIC = 0xDB4775248B80FB57
BLOCK_TRAILER_SIZE = 5
NO_COMPRESSION, SNAPPY_COMPRESSION = 0, 1
# The header entry's key: the empty string sorts first.
HEADER_KEY = b""

# Bounds on what a hostile index can make tflint do. A real index is a few bytes to a few
# megabytes (about 100 bytes a variable); these are far above any model's.
MAX_INDEX_BYTES = 256 << 20
MAX_ENTRIES = 2_000_000
# A block's uncompressed size (TensorFlow's blocks are 256 KiB unless one entry is bigger).
MAX_BLOCK_BYTES = 64 << 20
MAX_SLICES = 100_000
MAX_RANK = 254  # TensorShape's own limit


class BundleError(Exception):
    """What went wrong reading a checkpoint's index or one of its entries (a finding, never a crash)."""


@record(frozen=True)
class BundleHeader:
    """The BundleHeaderProto: how many data shards, their byte order, and the format version."""

    num_shards: int
    endianness: int
    producer: int
    min_consumer: int
    bad_consumers: tuple[int, ...]

    def __init__(
        self, num_shards: int, endianness: int, producer: int, min_consumer: int, bad_consumers: tuple[int, ...]
    ) -> None:
        vars(self).update(
            num_shards=num_shards,
            endianness=endianness,
            producer=producer,
            min_consumer=min_consumer,
            bad_consumers=bad_consumers,
        )


@record(frozen=True)
class BundleEntry:
    """One checkpoint key's BundleEntryProto.

    `shape` is None when the proto says the rank is unknown; `slices` holds, for a tensor saved
    in partitions, each slice's extents as (start, length) pairs, a length of -1 meaning "all".
    `crc32c` is the CRC-32C of the entry's bytes (the proto holds it masked; this is unmasked).
    """

    key: str
    dtype: int
    shape: tuple[int, ...] | None
    shard_id: int
    offset: int
    size: int
    crc32c: int
    slices: tuple[tuple[tuple[int, int], ...], ...]

    def __init__(
        self,
        key: str,
        dtype: int,
        shape: tuple[int, ...] | None,
        shard_id: int,
        offset: int,
        size: int,
        crc32c: int,
        slices: tuple[tuple[tuple[int, int], ...], ...] = (),
    ) -> None:
        vars(self).update(
            key=key, dtype=dtype, shape=shape, shard_id=shard_id, offset=offset, size=size, crc32c=crc32c, slices=slices
        )


@record(frozen=True)
class BundleProblem:
    """Where reading the index broke: what TensorFlow would say, and the byte of the index file."""

    message: str
    offset: int | None

    def __init__(self, message: str, offset: int | None = None) -> None:
        vars(self).update(message=message, offset=offset)

    def __str__(self) -> str:
        return self.message if self.offset is None else f"{self.message} (at byte {self.offset:,})"


@record(hidden=("entries",))
class BundleIndex:
    """A checkpoint's index: its header, its entries by key (in file order), and what broke reading it, if anything."""

    path: str
    header: BundleHeader | None
    entries: dict[str, BundleEntry]
    problem: BundleProblem | None

    def __init__(
        self, path: str, header: BundleHeader | None, entries: dict[str, BundleEntry], problem: BundleProblem | None
    ) -> None:
        self.path = path
        self.header = header
        self.entries = entries
        self.problem = problem

    @property
    def prefix(self) -> str:
        """The checkpoint prefix: the index's path without `.index` (`variables/variables`)."""
        return self.path[: -len(".index")] if self.path.endswith(".index") else self.path


def read_bundle_index(path: str) -> BundleIndex:
    """The index file at `path`, read and parsed (an unreadable or oversized file is the index's problem)."""
    try:
        data = read_bytes(path, "checkpoint index", limit=MAX_INDEX_BYTES)
    except UnreadableFile as error:
        return BundleIndex(path, None, {}, BundleProblem(str(error).removeprefix(f"{path}: ")))
    return parse_bundle_index(data, path)


def parse_bundle_index(data: bytes, path: str = "<bytes>") -> BundleIndex:
    """The tensor bundle held by the table `data`, whatever the bytes (see BundleIndex.problem)."""
    entries: dict[str, BundleEntry] = {}
    header: BundleHeader | None = None
    try:
        for key, value, where in _table_items(data):
            if key == HEADER_KEY:
                header = _parse_header(value, where)
                continue
            if header is None:
                raise _Broken('the first key is not the header entry ("")', where)
            if len(entries) >= MAX_ENTRIES:
                raise _Broken(f"more than {MAX_ENTRIES:,} entries (tflint reads no more)", where)
            name = key.decode("utf-8", "backslashreplace")
            entries[name] = _parse_entry(name, value, where)
        if header is None:
            raise _Broken('the header entry (key "") is missing', None)
    except _Broken as broken:
        return BundleIndex(path, header, entries, BundleProblem(broken.message, broken.offset))
    return BundleIndex(path, header, entries, None)


def read_entry_bytes(index: BundleIndex, key: str, limit: int) -> bytes:
    """The bytes of one entry, from its data shard, at most `limit` of them.

    Raises BundleError when the key is not in the index, its size is over `limit`, its shard
    cannot be opened, or the shard ends before the entry does.
    """
    entry = index.entries.get(key)
    if entry is None or index.header is None:
        raise BundleError(f"key {key!r} is not in the checkpoint")
    if entry.size > limit:
        raise BundleError(f"key {key!r} holds {entry.size:,} bytes, more than the {limit:,} asked for")
    with _open_shard(index, entry) as shard:
        shard.seek(entry.offset)
        data = shard.read(entry.size)
    if len(data) != entry.size:
        raise BundleError(f"key {key!r}: its shard ends {entry.size - len(data):,} bytes before the entry does")
    return data


@record(frozen=True)
class ChecksumResult:
    """One entry's CRC-32C as computed from its shard, or why it could not be (`problem`)."""

    entry: BundleEntry
    actual: int | None
    problem: str | None
    damaged: bool  # the problem is in the entry's own bytes (TensorFlow fails reading them), not a short shard

    def __init__(
        self, entry: BundleEntry, actual: int | None, problem: str | None = None, damaged: bool = False
    ) -> None:
        vars(self).update(entry=entry, actual=actual, problem=problem, damaged=damaged)

    @property
    def matches(self) -> bool:
        """Whether the bytes are what the index says they are."""
        return self.problem is None and self.actual == self.entry.crc32c


# Bytes read from a shard at a time when checksumming: memory stays at one chunk.
CHUNK_BYTES = 1 << 20


def verify_entries(index: BundleIndex, progress: Callable[[int, int], None] | None = None) -> Iterator[ChecksumResult]:
    """Each entry's checksum computed from its shard, in shard and offset order (reads every byte once).

    `progress(done, total)` is called after each chunk with the bytes checksummed so far.
    """
    if index.header is None:
        return
    ordered = sorted(index.entries.values(), key=lambda entry: (entry.shard_id, entry.offset))
    total = sum(entry.size for entry in ordered if entry.size > 0)
    done = 0
    for entry in ordered:
        try:
            with _open_shard(index, entry) as shard:
                shard.seek(entry.offset)
                reader = _ChecksumReader(shard, entry.size, progress, done, total)
                if entry.dtype == DT_STRING:
                    crc = _string_crc(reader, entry)
                elif entry.dtype == DT_VARIANT:
                    crc = _variant_crc(reader, entry)
                else:
                    crc = reader.rest(0)
                done = reader.done
        except _Damaged as error:
            yield ChecksumResult(entry, None, str(error), damaged=True)
            continue
        except (BundleError, OSError, ValueError) as error:
            yield ChecksumResult(entry, None, str(error))
            continue
        yield ChecksumResult(entry, crc)


DT_STRING = 7
DT_VARIANT = 21
# The most string elements whose lengths are held at once to checksum a string tensor.
MAX_STRING_ELEMENTS = 1 << 22


class _ChecksumReader:
    """An entry's bytes read in chunks from its shard, counting progress."""

    def __init__(
        self, shard: BinaryIO, size: int, progress: Callable[[int, int], None] | None, done: int, total: int
    ) -> None:
        self.shard, self.remaining, self.progress, self.done, self.total = shard, size, progress, done, total

    def read(self, count: int) -> bytes:
        chunk = self.shard.read(min(count, self.remaining))
        if len(chunk) < min(count, self.remaining):
            raise BundleError(f"the shard ends {self.remaining - len(chunk):,} bytes before the entry does")
        self.remaining -= len(chunk)
        self.done += len(chunk)
        if self.progress is not None:
            self.progress(self.done, self.total)
        return chunk

    def rest(self, crc: int) -> int:
        """`crc` extended with the rest of the entry's bytes."""
        while self.remaining > 0:
            crc = crc32c.extend(crc, self.read(CHUNK_BYTES))
        return crc


def _string_crc(reader: _ChecksumReader, entry: BundleEntry) -> int:
    """A string tensor's CRC as TensorFlow computes it when writing and restoring.

    A string tensor is stored as the varint length of each element, the masked CRC-32C of
    those lengths, then the elements' bytes; but the CRC of the lengths, and the entry's, are
    taken over each length as a 4-byte little-endian number (8 bytes above 2**32), not over the
    varints, then over the stored length checksum and the bytes.
    """
    count = 1
    for dim in entry.shape or ():
        count *= max(dim, 0)
    if count > min(MAX_STRING_ELEMENTS, entry.size):
        raise BundleError(
            f"key {entry.key!r}: {count:,} string elements (tflint checks at most {MAX_STRING_ELEMENTS:,})"
        )
    head = reader.read(min(entry.size, 10 * count + 4))
    crc = position = 0
    for _ in range(count):
        try:
            length, position = read_varint(head, position, len(head))
        except WireError:
            raise BundleError(f"key {entry.key!r}: the string lengths are not varints") from None
        crc = crc32c.extend(crc, length.to_bytes(4 if length <= 0xFFFFFFFF else 8, "little"))
    crc = crc32c.extend(crc, head[position:])
    return reader.rest(crc)


# The smallest stored variant element: a 1-byte varint length, no bytes, its 4-byte checksum.
MIN_VARIANT_BYTES = 5


def _variant_crc(reader: _ChecksumReader, entry: BundleEntry) -> int:
    """A variant tensor's CRC as TensorFlow computes it when writing and restoring (tensor_bundle.cc).

    Each element is stored as the varint length of its serialized VariantTensorDataProto, those
    bytes, then the masked running CRC so far (4 bytes, little-endian). The running CRC is taken
    over each length as an 8-byte little-endian number (not the varint), the element's bytes, and
    the 4 stored checksum bytes; the entry's CRC is the last running CRC. TensorFlow's reader
    checks each element's stored checksum too ("The checksum after Variant N does not match").
    """
    count = 1
    for dim in entry.shape or ():
        count *= max(dim, 0)
    if count * MIN_VARIANT_BYTES > entry.size:
        raise _Damaged(f"its shape has {count:,} variant elements, which cannot fit in its {entry.size:,} bytes")
    crc = 0
    for number in range(count):
        length = shift = 0
        while True:
            if shift > 63:
                raise _Damaged(f"the length of variant {number} is not a varint")
            byte = reader.read(1)
            if not byte:
                raise _Damaged(f"the entry ends inside variant {number}")
            length |= (byte[0] & 0x7F) << shift
            shift += 7
            if byte[0] < 0x80:
                break
        if length > reader.remaining:
            raise _Damaged(f"variant {number} has {length:,} bytes, past the entry's end")
        crc = crc32c.extend(crc, length.to_bytes(8, "little"))
        while length > 0:
            chunk = reader.read(min(length, CHUNK_BYTES))
            crc = crc32c.extend(crc, chunk)
            length -= len(chunk)
        stored = reader.read(4)
        if len(stored) < 4:
            raise _Damaged(f"the entry ends inside variant {number}")
        if int.from_bytes(stored, "little") != crc32c.mask(crc):
            raise _Damaged(f"The checksum after Variant {number} does not match")
        crc = crc32c.extend(crc, stored)
    return crc


class _Damaged(BundleError):
    """An entry whose own bytes TensorFlow cannot read (its shard is long enough)."""


def _open_shard(index: BundleIndex, entry: BundleEntry) -> BinaryIO:
    assert index.header is not None
    if not 0 <= entry.shard_id < index.header.num_shards or entry.offset < 0 or entry.size < 0:
        raise BundleError(f"key {entry.key!r} names shard {entry.shard_id}, offset {entry.offset}, size {entry.size}")
    path = shard_name(index.prefix, entry.shard_id, index.header.num_shards)
    try:
        return open_regular(path, "checkpoint shard")
    except UnreadableFile as error:
        raise BundleError(str(error)) from None


# -- the table ------------------------------------------------------------------------------------


class _Broken(Exception):
    def __init__(self, message: str, offset: int | None) -> None:
        super().__init__(message)
        self.message = message
        self.offset = offset


def _table_items(data: bytes) -> Iterator[tuple[bytes, memoryview, int]]:
    """(key, value, offset of the entry in the file) of every entry of the table, in order."""
    size = len(data)
    if size < FOOTER_SIZE:
        raise _Broken(f"the file is {size} bytes, shorter than a table's {FOOTER_SIZE}-byte footer", 0)
    view = memoryview(data)
    footer = size - FOOTER_SIZE
    if int.from_bytes(data[size - 8 :], "little") != TABLE_MAGIC:
        raise _Broken("not an sstable (bad magic number)", size - 8)
    _, position = _handle(view, footer, size - 8)  # the metaindex block: TensorFlow writes it empty
    index_offset, index_size = _handle(view, position, size - 8)[0]
    index_block = _block(view, index_offset, index_size, 0, footer)
    previous_key: bytes | None = None
    # TensorFlow's TableBuilder writes the data blocks in order, then the index block: each data block
    # must start where the previous one ended or later, and end before the index block. So no byte is
    # read twice, whatever the handles say (a loop through the structure is a finding).
    floor = 0
    for _, handle_value, where in _block_entries(view, index_block, index_offset):
        (offset, length), _ = _handle(handle_value, 0, len(handle_value), where)
        if offset < floor:
            raise _Broken("two blocks overlap (a loop in the table's structure)", offset)
        block = _block(view, offset, length, floor, index_offset)
        floor = offset + length + BLOCK_TRAILER_SIZE
        for key, value, at in _block_entries(view, block, offset):
            if previous_key is not None and key <= previous_key:
                raise _Broken("keys are not in ascending order (TensorFlow's lookups would miss entries)", at)
            previous_key = key
            yield key, value, at


def _handle(view: memoryview, position: int, end: int, where: int | None = None) -> tuple[tuple[int, int], int]:
    """A BlockHandle (offset, size) at `view[position:end]`, and the position after it."""
    try:
        offset, position = read_varint(view, position, end)
        length, position = read_varint(view, position, end)
    except WireError:
        raise _Broken("bad block handle", where if where is not None else position) from None
    return (offset, length), position


def _block(view: memoryview, offset: int, length: int, start: int, end: int) -> memoryview:
    """The contents of the block at `offset`, which must lie in `[start, end)` (checked: bounds, trailer, CRC)."""
    stop = offset + length + BLOCK_TRAILER_SIZE
    if stop > len(view) - FOOTER_SIZE:
        raise _Broken(f"a block handle (offset {offset:,}, size {length:,}) points past the end of the file", offset)
    if offset < start or stop > end:
        raise _Broken("two blocks overlap (a loop in the table's structure)", offset)
    kind = view[offset + length]
    stored = int.from_bytes(view[offset + length + 1 : stop], "little")
    if crc32c.unmask(stored) != crc32c.value(view[offset : offset + length + 1]):
        raise _Broken("block checksum mismatch", offset)
    if kind == NO_COMPRESSION:
        contents = view[offset : offset + length]
    elif kind == SNAPPY_COMPRESSION:
        contents = memoryview(_snappy_uncompress(view[offset : offset + length], offset))
    else:
        raise _Broken(f"bad block type {kind}", offset + length)
    if len(contents) < 4:
        raise _Broken("bad block contents (shorter than its restart count)", offset)
    return contents


def _block_entries(view: memoryview, block: memoryview, offset: int) -> Iterator[tuple[bytes, memoryview, int]]:
    """(key, value, file offset) of each entry of a block; `offset` is the block's in the file (for messages)."""
    size = len(block)
    restarts = int.from_bytes(block[size - 4 :], "little")
    if restarts > (size - 4) // 4:
        raise _Broken(f"bad block contents ({restarts:,} restart points in a block of {size:,} bytes)", offset)
    limit = size - 4 * (1 + restarts)
    for number in range(restarts):
        point = int.from_bytes(block[limit + 4 * number : limit + 4 * number + 4], "little")
        if point > limit or (point == limit and limit > 0):
            raise _Broken(f"bad block contents (restart point {point:,} is past the entries)", offset)
    key = b""
    position = 0
    while position < limit:
        at = offset + position
        try:
            shared, position = read_varint(block, position, limit)
            unshared, position = read_varint(block, position, limit)
            length, position = read_varint(block, position, limit)
        except WireError:
            raise _Broken("bad entry in block", at) from None
        if shared > len(key) or position + unshared + length > limit:
            raise _Broken("bad entry in block", at)
        key = key[:shared] + bytes(block[position : position + unshared])
        position += unshared
        yield key, block[position : position + length], at
        position += length


def _snappy_uncompress(compressed: memoryview, offset: int) -> bytes:
    """A Snappy block, uncompressed; its announced size is capped and every copy is checked."""
    try:
        expected, position = read_varint(compressed, 0, len(compressed))
    except WireError:
        raise _Broken("corrupted compressed block contents", offset) from None
    if expected > MAX_BLOCK_BYTES:
        raise _Broken(
            f"a compressed block announces {expected:,} bytes (tflint reads at most {MAX_BLOCK_BYTES:,})", offset
        )
    out = bytearray()
    end = len(compressed)
    while position < end:
        tag = compressed[position]
        position += 1
        kind = tag & 3
        if kind == 0:  # a literal: its length - 1 in the tag, or in the 1-4 bytes after it
            length = tag >> 2
            if length >= 60:
                extra = length - 59
                length = int.from_bytes(compressed[position : position + extra], "little")
                position += extra
            length += 1
            if position + length > end or len(out) + length > expected:
                raise _Broken("corrupted compressed block contents", offset)
            out += compressed[position : position + length]
            position += length
            continue
        if kind == 1:
            length, distance = 4 + ((tag >> 2) & 7), ((tag >> 5) << 8) | (compressed[position] if position < end else 0)
            position += 1
        else:
            width = 2 if kind == 2 else 4
            length, distance = 1 + (tag >> 2), int.from_bytes(compressed[position : position + width], "little")
            position += width
        if position > end or distance == 0 or distance > len(out) or len(out) + length > expected:
            raise _Broken("corrupted compressed block contents", offset)
        for _ in range(length):  # a copy may overlap what it writes (a run)
            out.append(out[-distance])
    if len(out) != expected:
        raise _Broken("corrupted compressed block contents", offset)
    return bytes(out)


# -- the bundle's messages ------------------------------------------------------------------------


def _parse_header(value: memoryview, where: int) -> BundleHeader:
    num_shards = endianness = producer = min_consumer = 0
    bad: list[int] = []
    try:
        for number, wire, _, start, stop in fields(value):
            if number == 1 and wire == VARINT:
                num_shards = _int64(read_varint(value, start, stop)[0])
            elif number == 2 and wire == VARINT:
                endianness = read_varint(value, start, stop)[0]
            elif number == 3 and wire == LENGTH_DELIMITED:
                for inner, inner_wire, _, begin, finish in fields(value, start, stop):
                    if inner_wire != VARINT:
                        continue
                    number_read = _int64(read_varint(value, begin, finish)[0])
                    if inner == 1:
                        producer = number_read
                    elif inner == 2:
                        min_consumer = number_read
                    elif inner == 3 and len(bad) < MAX_SLICES:
                        bad.append(number_read)
    except WireError:
        raise _Broken("the header entry is not a BundleHeaderProto", where) from None
    return BundleHeader(num_shards, endianness, producer, min_consumer, tuple(bad))


def _parse_entry(key: str, value: memoryview, where: int) -> BundleEntry:
    """A BundleEntryProto: the layout TensorFlow writes read directly, anything else field by field."""
    data = bytes(value)
    try:
        written = _entry_as_written(key, data)
    except IndexError:  # ran past the end: the general reader says what is wrong
        written = None
    return written if written is not None else _parse_entry_fields(key, memoryview(data), where)


# The fields of a BundleEntryProto holding varints, by tag byte: dtype, shard_id, offset, size.
_VARINT_TAGS = {0x08: 0, 0x18: 1, 0x20: 2, 0x28: 3}
_CRC_TAG, _SHAPE_TAG, _DIM_TAG, _SIZE_TAG = 0x35, 0x12, 0x12, 0x08


def _entry_as_written(key: str, data: bytes) -> BundleEntry | None:
    """The entry, when it has only the fields TensorFlow writes for an unsliced tensor, in one-byte tags.

    This is a fast path (an index has an entry per variable; field-by-field decoding is most of
    reading it): None sends any other layout to _parse_entry_fields, which checks everything.
    """
    numbers = [0, 0, 0, 0]
    shape: tuple[int, ...] = ()
    crc = 0
    position, end = 0, len(data)
    while position < end:
        tag = data[position]
        position += 1
        slot = _VARINT_TAGS.get(tag)
        if slot is not None:
            numbers[slot], position = _uvarint(data, position, end)
        elif tag == _CRC_TAG:
            if position + 4 > end:
                return None
            crc = crc32c.unmask(int.from_bytes(data[position : position + 4], "little"))
            position += 4
        elif tag == _SHAPE_TAG:
            length = data[position]
            stop = position + 1 + length
            if length >= 0x80 or stop > end:
                return None
            position += 1
            dims: list[int] = []
            while position < stop:
                dim_length = data[position + 1]
                dim_end = position + 2 + dim_length
                if data[position] != _DIM_TAG or dim_length >= 0x80 or dim_end > stop:
                    return None
                dim, position = 0, position + 2
                if position < dim_end:
                    if data[position] != _SIZE_TAG:
                        return None
                    dim, position = _uvarint(data, position + 1, dim_end)
                if position != dim_end or len(dims) >= MAX_RANK:
                    return None
                dims.append(_int64(dim))
            shape = tuple(dims)
        else:
            return None
    dtype, shard_id, offset, size = (_int64(number) for number in numbers)
    return BundleEntry(key, dtype, shape, shard_id, offset, size, crc)


def _uvarint(data: bytes, position: int, end: int) -> tuple[int, int]:
    """An unsigned varint and the position after it; IndexError when it runs past `end` or 10 bytes."""
    byte = data[position]
    if byte < 0x80:
        return byte, position + 1
    value, shift = byte & 0x7F, 7
    position += 1
    while True:
        if position >= end or shift > 63:
            raise IndexError("varint")
        byte = data[position]
        position += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, position
        shift += 7


def _parse_entry_fields(key: str, value: memoryview, where: int) -> BundleEntry:
    dtype = shard_id = offset = size = crc = 0
    shape: tuple[int, ...] | None = ()
    slices: list[tuple[tuple[int, int], ...]] = []
    try:
        for number, wire, _, start, stop in fields(value):
            if wire == VARINT:
                number_read = _int64(read_varint(value, start, stop)[0])
                if number == 1:
                    dtype = number_read
                elif number == 3:
                    shard_id = number_read
                elif number == 4:
                    offset = number_read
                elif number == 5:
                    size = number_read
            elif number == 6 and wire == 5:
                crc = crc32c.unmask(int.from_bytes(value[start:stop], "little"))
            elif number == 2 and wire == LENGTH_DELIMITED:
                shape = _parse_shape(value, start, stop)
            elif number == 7 and wire == LENGTH_DELIMITED:
                if len(slices) >= MAX_SLICES:
                    raise _Broken(f"key {key!r} has more than {MAX_SLICES:,} slices", where)
                slices.append(_parse_slice(value, start, stop))
    except WireError:
        raise _Broken(f"the entry of key {key!r} is not a BundleEntryProto", where) from None
    return BundleEntry(key, dtype, shape, shard_id, offset, size, crc, tuple(slices))


def _parse_shape(value: memoryview, start: int, stop: int) -> tuple[int, ...] | None:
    dims: list[int] = []
    for number, wire, _, begin, finish in fields(value, start, stop):
        if number == 3 and wire == VARINT and read_varint(value, begin, finish)[0]:
            return None  # unknown_rank
        if number == 2 and wire == LENGTH_DELIMITED:
            if len(dims) >= MAX_RANK:
                raise WireError("too many dimensions")
            dim = 0
            for inner, inner_wire, _, low, high in fields(value, begin, finish):
                if inner == 1 and inner_wire == VARINT:
                    dim = _int64(read_varint(value, low, high)[0])
            dims.append(dim)
    return tuple(dims)


def _parse_slice(value: memoryview, start: int, stop: int) -> tuple[tuple[int, int], ...]:
    extents: list[tuple[int, int]] = []
    for number, wire, _, begin, finish in fields(value, start, stop):
        if number != 1 or wire != LENGTH_DELIMITED:
            continue
        if len(extents) >= MAX_RANK:
            raise WireError("too many extents")
        first, length = 0, -1
        for inner, inner_wire, _, low, high in fields(value, begin, finish):
            if inner_wire != VARINT:
                continue
            if inner == 1:
                first = _int64(read_varint(value, low, high)[0])
            elif inner == 2:
                length = _int64(read_varint(value, low, high)[0])
        extents.append((first, length))
    return tuple(extents)


def _int64(number: int) -> int:
    """A varint as protobuf's int64/int32: the top bit set means negative."""
    return number - (1 << 64) if number >= 1 << 63 else number


def shard_sizes(index: BundleIndex, listing: Mapping[str, int]) -> dict[int, int | None]:
    """The size of each shard the entries use (None: absent), from a directory listing's sizes by file name."""
    if index.header is None:
        return {}
    base = os.path.basename(index.prefix)
    sizes: dict[int, int | None] = {}
    for entry in index.entries.values():
        if entry.shard_id not in sizes:
            sizes[entry.shard_id] = listing.get(
                os.path.basename(shard_name(base, entry.shard_id, index.header.num_shards))
            )
    return sizes


__all__ = [
    "BundleEntry",
    "BundleError",
    "BundleHeader",
    "BundleIndex",
    "BundleProblem",
    "ChecksumResult",
    "header_problem",  # re-exported: TensorFlow's semantics of a header live in tflint.tf.checkpoint
    "parse_bundle_index",
    "read_bundle_index",
    "read_entry_bytes",
    "shard_name",
    "shard_sizes",
    "verify_entries",
]
