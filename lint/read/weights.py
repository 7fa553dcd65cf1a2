"""A model's weights for review: contents hashed and compared a piece at a time, never held whole.

Two homes hold weights. A frozen graph keeps them in its Consts' `tensor_content`
(left in the mapped file for a big binary graph: `tflint.tf.tensors.MappedBytes`). A
SavedModel keeps its variables in a tensor bundle, whose index `tflint.read.tensor_bundle`
reads; `ShardReader` reads an entry's bytes from its data file, after checking the entry
against the file's size.

Either is read through a `Content` (bytes read by position), PIECE_BYTES at a time into
buffers reused from piece to piece: a fresh bytes object per piece costs ten times as
much. Nothing here keeps a weight: a content is hashed (BLAKE2b, 16 bytes) as it is read
(`hash_of`), two versions of a tensor are compared with one memcmp per piece
(`equal_contents`, stopping at the first difference) and measured on an even sample
(`compare_contents`), so memory does not grow with the model.
"""

from __future__ import annotations

import hashlib
import math
import os
from array import array
from collections.abc import Iterable, Iterator
from typing import Any, BinaryIO, Protocol

from tflint.errors import UsageError
from tflint.read.guarded import open_regular
from tflint.read.tensor_bundle import BundleEntry, BundleIndex
from tflint.records import record
from tflint.tf.checkpoint import shard_name

# Weights are read this much at a time (a multiple of every element size).
PIECE_BYTES = 1 << 20
HASH_CHARS = 12
# Element formats `compare` can read as numbers, by DataType.
_NUMERIC_FORMATS = {1: "f", 2: "d", 3: "i", 9: "q", 4: "B", 6: "b", 5: "h", 17: "H"}


# -- reading contents in pieces ----------------------------------------------------------------


def content_hash(pieces: Iterable[bytes | memoryview]) -> str:
    """A short hash of a content given in pieces (the same for the same bytes, however they are cut)."""
    digest = hashlib.blake2b(digest_size=16)
    for piece in pieces:
        digest.update(piece)
    return digest.hexdigest()[:HASH_CHARS]


class ShardReader:
    """The data files of a checkpoint, opened on first use and checked against the sizes entries claim."""

    def __init__(self, index: BundleIndex) -> None:
        self.index = index
        self._open: dict[int, tuple[BinaryIO, int]] = {}

    def read_into(self, entry: BundleEntry, start: int, buffer: memoryview) -> None:
        """Fill `buffer` with `entry`'s bytes from `start` on (within its size).

        UsageError when its shard is missing, or shorter than the index says.
        """
        if start < 0 or start + len(buffer) > entry.size:
            raise ValueError(f"bytes {start}+{len(buffer)} of an entry of {entry.size}")
        handle = self._shard(entry)
        handle.seek(entry.offset + start)
        done = 0
        while done < len(buffer):
            got = handle.readinto(buffer[done:])  # type: ignore[attr-defined]
            if not got:
                raise UsageError(f"{handle.name}: ends inside a tensor ({len(buffer) - done} bytes missing)")
            done += got

    def _shard(self, entry: BundleEntry) -> BinaryIO:
        header = self.index.header
        if header is None or not 0 <= entry.shard_id < header.num_shards or entry.offset < 0 or entry.size < 0:
            raise UsageError(f"{self.index.path}: entry {entry.key!r} names shard {entry.shard_id}")
        if entry.shard_id not in self._open:
            handle = open_regular(shard_name(self.index.prefix, entry.shard_id, header.num_shards), "variables data")
            self._open[entry.shard_id] = (handle, os.fstat(handle.fileno()).st_size)
        handle, length = self._open[entry.shard_id]
        if entry.offset + entry.size > length:
            raise UsageError(f"{handle.name}: entry {entry.key!r} points past the end of the file")
        return handle

    def close(self) -> None:
        for handle, _ in self._open.values():
            handle.close()
        self._open.clear()

    def __enter__(self) -> ShardReader:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


# -- reading contents into reused buffers ---------------------------------------------------------


class Content(Protocol):
    """A weight's bytes where they lie: `size` of them, read by position into a caller's buffer."""

    @property
    def size(self) -> int: ...

    def read_into(self, start: int, buffer: memoryview) -> None: ...


class BytesContent:
    """A content already in memory (a small Const's `tensor_content`, or a serialized TensorProto)."""

    __slots__ = ("data",)

    def __init__(self, data: bytes) -> None:
        self.data = data

    @property
    def size(self) -> int:
        return len(self.data)

    def read_into(self, start: int, buffer: memoryview) -> None:
        buffer[:] = memoryview(self.data)[start : start + len(buffer)]


class MappedContent:
    """A Const's `tensor_content` left in its file (tflint.tf.tensors.MappedBytes), read by position."""

    __slots__ = ("mapped",)

    def __init__(self, mapped: Any) -> None:
        self.mapped = mapped

    @property
    def size(self) -> int:
        return int(self.mapped.length)

    def read_into(self, start: int, buffer: memoryview) -> None:
        self.mapped.read_into(start, buffer)


class EntryContent:
    """A checkpoint entry's bytes in its data file, read through a ShardReader (which the caller closes)."""

    __slots__ = ("reader", "entry")

    def __init__(self, reader: ShardReader, entry: BundleEntry) -> None:
        self.reader = reader
        self.entry = entry

    @property
    def size(self) -> int:
        return self.entry.size

    def read_into(self, start: int, buffer: memoryview) -> None:
        self.reader.read_into(self.entry, start, buffer)


def _piece_pairs(old: Content, new: Content, size: int) -> Iterator[tuple[bytearray | bytes, bytearray | bytes]]:
    """The first `size` bytes of two contents, PIECE_BYTES at a time, side by side.

    Both pieces of a pair live in two buffers reused from one pair to the next (a pair is only valid until the
    next one is asked for): allocating a fresh piece per read costs ten times the copy. A short last pair is a
    copy, so that `a == b` is always a memcmp (a memoryview compares element by element).
    """
    old_buffer, new_buffer = bytearray(min(PIECE_BYTES, size)), bytearray(min(PIECE_BYTES, size))
    old_view, new_view = memoryview(old_buffer), memoryview(new_buffer)
    for start in range(0, size, PIECE_BYTES):
        length = min(PIECE_BYTES, size - start)
        old.read_into(start, old_view[:length])
        new.read_into(start, new_view[:length])
        if length == len(old_buffer):
            yield old_buffer, new_buffer
        else:
            yield bytes(old_view[:length]), bytes(new_view[:length])


def equal_contents(old: Content, new: Content) -> bool:
    """Whether two contents hold the same bytes, compared a piece at a time; stops at the first difference."""
    if old.size != new.size:
        return False
    return all(a == b for a, b in _piece_pairs(old, new, old.size))


def hash_of(content: Content) -> str:
    """content_hash of a content, read a piece at a time into one reused buffer."""
    digest = hashlib.blake2b(digest_size=16)
    buffer = memoryview(bytearray(min(PIECE_BYTES, content.size)))
    for start in range(0, content.size, PIECE_BYTES):
        piece = buffer[: min(PIECE_BYTES, content.size - start)]
        content.read_into(start, piece)
        digest.update(piece)
    return digest.hexdigest()[:HASH_CHARS]


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


def compare_contents(old: Content, new: Content, dtype: int) -> Change:
    """How two contents of the same size and `dtype` differ, read a piece at a time into two reused buffers."""
    code = _NUMERIC_FORMATS.get(dtype)
    width = array(code).itemsize if code else 1
    size = min(old.size, new.size)
    return _measure(_piece_pairs(old, new, size), code, width, size)


def _sampled(piece: bytes | bytearray, usable: int, code: str, first: int, step: int) -> list[float]:
    """Elements first, first + step, ... of a piece's first `usable` bytes read as `code` (a strided view: no copy)."""
    view: Any = memoryview(piece)[:usable]  # Any: cast() is typed for literal formats only
    with view.cast(code) as elements:
        sample: list[float] = elements[first::step].tolist()
    return sample


def _measure(
    pairs: Iterable[tuple[bytes | bytearray, bytes | bytearray]], code: str | None, width: int, size: int
) -> Change:
    """The Change over pairs of pieces (each a whole number of elements, the two of a pair as long)."""
    count = size // width
    step = max(1, -(-count // MAX_COMPARED))
    total = compared = differing = 0
    moved = base = 0.0
    for a, b in pairs:
        usable = len(a) // width * width
        if code is None or not usable:
            total += usable // width
            continue
        first = -total % step  # the sample continues across pieces: elements total + first, + step, ...
        total += usable // width
        # Only the sampled elements become Python numbers (a strided view: no copy of the piece).
        left, right = _sampled(a, usable, code, first, step), _sampled(b, usable, code, first, step)
        compared += len(left)
        if a == b:  # bytes or bytearray: a memcmp
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
