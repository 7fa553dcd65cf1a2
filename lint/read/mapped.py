"""Big binary graphs read in place: the file is mapped, and the bytes of large constants stay in the map.

A frozen model is mostly weights: a few hundred nodes and hundreds of megabytes of
`tensor_content`. Read into memory and parsed, every weight is copied by protobuf beside
the file's own bytes, though no rule needs most of them. So a binary file of
MAP_MIN_BYTES or more is mapped, and its wire format walked down to the nodes: those of
a GraphDef, of a MetaGraphDef's graph_def, of each meta graph of a SavedModel, and of the
function bodies in their libraries (tf.function keeps constants there). In each NodeDef
of STRIP_MIN_BYTES or more, the `value` attr's TensorProto loses a `tensor_content` of
STRIP_MIN_BYTES or more, replaced by a marker field that holds its offset in the file;
protobuf then parses the small rest as it would have parsed the whole. The parsed
tensors are registered with `tflint.tf.tensors`, whose `tensor_content(tensor)` every
reader of tensor bytes goes through: the length without reading, the bytes from the map
when a rule asks. A reader that reads `.tensor_content` itself (a rule, a plugin) does not
get an empty content, as if the tensor had none: it gets MAPPED_NOTICE, which says where the
bytes are (and tests lint with every rule both ways, and find `.tensor_content` read only by
the accessor). The walk drops the pages it has read behind it, so the process holds a few MiB
of the file at a time, not the file.

A mapped file truncated while it is read kills the process that touches a page past the new end
(SIGBUS), and nothing in Python can catch that. So the map is only ever touched in a forked child
(`walk_in_child`: the sniffing and the walk), whose death this process sees as a failed child, and
the file is then read whole, as if it had not been mapped (its findings are those of what the file
holds by then); and the contents left in the file are read by position (`FileSource`, pread), where a
file grown shorter is a short read, reported as FileChanged (one line, exit 2).

Only the layout TensorFlow writes is stripped: one `value` entry (a key and a value)
holding one tensor with one `tensor_content`; a node laid out otherwise is kept whole.
Whenever the result could differ from reading the whole file (the bytes do not walk as
the expected message, the reduced bytes parse as another kind or not at all, a marker is
not where it was put), `strip` or `register` says so and the file is read whole, as
before: findings and messages are the same either way.
"""

from __future__ import annotations

import mmap
import os
from collections.abc import Callable, Iterator, Sequence
from typing import Any, BinaryIO

from tflint.errors import UsageError
from tflint.records import record
from tflint.tf import tensors
from tflint.wire import LENGTH_DELIMITED as _LENGTH_DELIMITED
from tflint.wire import VARINT as _VARINT
from tflint.wire import WireError, fields, varint

# Files from this size on are mapped (smaller ones cost less to read than to walk).
MAP_MIN_BYTES = 16 << 20
# Contents from this size on stay in the map; so does a node only when it is at least this big.
STRIP_MIN_BYTES = 64 << 10
# Never less: TensorFlow compares tensors of fewer encoded bytes by their encoding (tf.functions), so
# theirs stays in the message.
STRIP_FLOOR_BYTES = 512
# The walk drops the pages it has read behind it every this many bytes (see _Walk.release).
RELEASE_BYTES = 8 << 20
# Bigger files are past protobuf's limit: they take the ordinary path, which says what it says of them.
MAP_MAX_BYTES = (1 << 31) - 1
# A file whose first fields are small is node-heavy, not weights-heavy (or hostile: millions of
# tiny fields): walking all of it in Python would cost more than reading it, so the walk gives
# up once it has seen this many fields, unless at least half of the bytes so far were stripped.
_GIVE_UP_FIELDS = 1024

# The marker left in place of a stripped tensor_content: the largest field number protobuf
# allows (no TensorProto field comes near it), wire type varint, its value the content's offset.
MARKER_FIELD = (1 << 29) - 1
# What a stripped tensor's own `tensor_content` holds instead of its bytes: not b"", which a reader
# would take for a tensor without content (and its values from the `*_val` fields), silently. Shorter
# than STRIP_FLOOR_BYTES, so no content this short is ever stripped and mistaken for one.
MAPPED_NOTICE = (
    b"\0tflint: this tensor_content was left in a mapped file; read it with tflint.tf.tensors.tensor_content()\0"
)

# Field numbers (tensorflow/core/framework/{graph,node_def,attr_value,tensor}.proto,
# tensorflow/core/protobuf/{meta_graph,saved_model}.proto).
_GRAPH_NODE, _GRAPH_LIBRARY = 1, 2
_LIBRARY_FUNCTION = 1
_FUNCTION_NODE_DEF = 3
_NODE_ATTR = 5
_ENTRY_KEY, _ENTRY_VALUE = 1, 2
_ATTR_TENSOR = 8
_TENSOR_CONTENT = 4
_META_GRAPH_DEF = 2
_SAVED_MODEL_META_GRAPHS = 2


class FileChanged(UsageError):
    """A file read in place is no longer what it was when its reading began (it was truncated)."""


class FileSource:
    """An open file whose bytes are read by position (pread): where the contents left in it are read from.

    Unlike a map, a file grown shorter since it was opened is a short read here, not a signal.
    """

    __slots__ = ("file", "name", "size")

    def __init__(self, file: BinaryIO, name: str, size: int) -> None:
        self.file = file  # kept open as long as a content may be read (closed with this object)
        self.name = name
        self.size = size

    def __len__(self) -> int:
        return self.size

    def read_at(self, offset: int, length: int) -> bytes:
        """What tflint.read.sniff reads a file by position through (the bytes at `offset`, as `read`)."""
        return self.read(offset, length)

    def read(self, offset: int, length: int) -> bytes:
        """The `length` bytes at `offset`; FileChanged if the file no longer holds them."""
        pieces = []
        done = 0
        while done < length:
            piece = os.pread(self.file.fileno(), length - done, offset + done)
            if not piece:
                raise FileChanged(
                    f"{self.name}: the file changed while it was read: it ends before byte {offset + length:,} "
                    f"(it had {self.size:,} bytes)"
                )
            pieces.append(piece)
            done += len(piece)
        return pieces[0] if len(pieces) == 1 else b"".join(pieces)

    def read_into(self, offset: int, buffer: memoryview) -> None:
        """Fill `buffer` with the bytes at `offset`; FileChanged if the file no longer holds them.

        A diff reads a gigabyte this way into the same two buffers: a fresh bytes object per piece
        (`read`) costs ten times as much, in page faults on the new memory more than in the copy.
        """
        if not hasattr(os, "preadv"):  # not every platform has it: one copy more
            buffer[:] = self.read(offset, len(buffer))
            return
        done = 0
        while done < len(buffer):
            got = os.preadv(self.file.fileno(), [buffer[done:]], offset + done)
            if not got:
                raise FileChanged(
                    f"{self.name}: the file changed while it was read: it ends before byte {offset + len(buffer):,} "
                    f"(it had {self.size:,} bytes)"
                )
            done += got


def walk_in_child(file: BinaryIO, work: Callable[[Any], Any]) -> Any:
    """`work(buffer)` on `file` mapped, run in a forked child: what it returns (marshal's plain data), or None.

    None also when the child cannot be started (no process to spare), or dies: by SIGBUS when the
    file was truncated under the map. The caller then reads the file whole, which never touches a map.
    """
    import marshal

    from tflint.runtime import fork as forked

    def mapped_work() -> Any:
        with mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ) as buffer:
            return work(buffer)

    try:
        child = forked.start(mapped_work, marshal)
    except OSError:  # EAGAIN, ENOMEM, EMFILE: not mapped rather than unguarded
        return None
    try:
        return child.result(mapped=True)
    except forked.ChildFailed:
        return None


class _NotWalkable(Exception):
    """The bytes are not the wire format expected, or not worth walking: read the file whole."""


@record()
class Stripped:
    """A serialized message without its large tensor contents.

    `data` is the message with each stripped content replaced by a marker;
    `spans` holds (graph index, function ordinal, node ordinal, offset,
    length) per stripped content: the function's in its graph's library, -1
    for the graph's own nodes; the offset into the mapped file.
    """

    data: bytes
    spans: list[tuple[int, int, int, int, int]]

    def __init__(self, data: bytes, spans: list[tuple[int, int, int, int, int]] | None = None) -> None:
        self.data = data
        self.spans = [] if spans is None else spans


class _Walk:
    """What one walk has found so far, and how far it has handed the pages it read back."""

    def __init__(self, view: memoryview, strip_min: int, buffer: Any) -> None:
        self.view = view
        self.strip_min = strip_min
        self.spans: list[tuple[int, int, int, int, int]] = []
        self.fields = 0
        self.stripped = 0
        self.released = 0
        self._advise = getattr(buffer, "madvise", None) if hasattr(mmap, "MADV_DONTNEED") else None

    def release(self, position: int) -> None:
        """Drop the pages before `position` from the process (the walk never goes back to them).

        A page of a mapped file counts as resident once read, and the system maps whole
        folios (up to 2 MiB) at a time: reading one header of each node would make the
        whole file resident. Dropped every RELEASE_BYTES, it stays a few MiB.
        """
        if self._advise is None or position - self.released < RELEASE_BYTES:
            return
        end = position - position % mmap.PAGESIZE
        try:
            self._advise(mmap.MADV_DONTNEED, self.released, end - self.released)
        except (OSError, ValueError):  # pragma: no cover - a system that refuses the advice
            self._advise = None
        self.released = end


def release_pages(buffer: Any) -> None:
    """Drop every page of the mapped `buffer` from the process (it reads them again from the file when needed)."""
    advice = getattr(mmap, "MADV_DONTNEED", None)
    if advice is not None and hasattr(buffer, "madvise"):
        try:
            buffer.madvise(advice)
        except (OSError, ValueError):  # pragma: no cover - a system that refuses the advice
            pass


def strip(buffer: Any, kind: str, strip_min: int = STRIP_MIN_BYTES) -> Stripped | None:
    """`buffer` (a mapped file holding a serialized `kind`) without its large tensor contents.

    None when there is nothing to strip, or the bytes do not walk as `kind`
    (the file is then read whole).
    """
    with memoryview(buffer) as whole:
        view = whole.cast("B") if whole.format != "B" else whole
        walk = _Walk(view, max(STRIP_FLOOR_BYTES, strip_min), buffer)
        try:
            if kind == "GraphDef":
                result = _strip_graph(walk, 0, len(view), 0)
            elif kind == "MetaGraphDef":
                result = _strip_meta_graph(walk, 0, len(view), 0)
            elif kind == "SavedModel":
                result = _strip_saved_model(walk, len(view))
            else:
                return None
        except (_NotWalkable, WireError):
            return None
        if result is None or not walk.spans:
            return None
        data = b"".join(result[0])
        del result
    release_pages(buffer)
    return Stripped(data, walk.spans)


def register(graphs: Sequence[Any], stripped: Stripped, source: FileSource) -> list[int] | None:
    """Register the stripped contents of the parsed `graphs` with tflint.tf.tensors; the keys, to forget them.

    None (nothing left registered) when a stripped content is not found
    exactly where its marker was put, in the node the walk counted.
    """
    try:
        from google.protobuf import unknown_fields
    except ImportError:  # pragma: no cover - very old runtimes: the file is read whole
        return None
    keys: list[int] = []
    for graph_index, function, ordinal, offset, length in stripped.spans:
        tensor = _tensor_at(graphs, graph_index, function, ordinal)
        found = None
        if tensor is not None and tensor.tensor_content == MAPPED_NOTICE:
            found = [(item.field_number, item.wire_type, item.data) for item in unknown_fields.UnknownFieldSet(tensor)]
        if found != [(MARKER_FIELD, _VARINT, offset)]:
            tensors.unmap_contents(keys)
            return None
        keys.append(tensors.map_content(tensor, source, offset, length))
    return keys


def _tensor_at(graphs: Sequence[Any], graph_index: int, function: int, ordinal: int) -> Any:
    """The TensorProto of the `value` attr of a node (of a function body when `function` >= 0), or None."""
    if graph_index >= len(graphs):
        return None
    if function < 0:
        nodes = graphs[graph_index].nodes
    else:
        functions = graphs[graph_index].graph.library.function
        nodes = functions[function].node_def if function < len(functions) else ()
    if ordinal >= len(nodes):
        return None
    value = nodes[ordinal].attr.get("value")
    if value is None or value.WhichOneof("value") != "tensor":
        return None
    return value.tensor


# -- the walk, message by message -------------------------------------------------------------

_Pieces = tuple[list[bytes], int]  # the pieces of a rewritten message, their total length
_Where = tuple[int, int, int]  # graph index, function ordinal in the library (-1: the graph's own nodes), node ordinal


def _strip_saved_model(walk: _Walk, end: int) -> _Pieces | None:
    rewritten: list[tuple[int, int, _Pieces]] = []
    index = 0
    for number, wire, key_start, start, stop in _fields(walk, 0, end):
        if number == _SAVED_MODEL_META_GRAPHS and wire == _LENGTH_DELIMITED:
            meta = _strip_meta_graph(walk, start, stop, index)
            if meta is not None:
                rewritten.append((key_start, stop, _length_delimited(number, meta)))
            index += 1
    return _splice(walk.view, 0, end, rewritten)


def _strip_meta_graph(walk: _Walk, start: int, end: int, graph_index: int) -> _Pieces | None:
    graphs = [
        (key_start, value_start, stop)
        for number, wire, key_start, value_start, stop in _fields(walk, start, end)
        if number == _META_GRAPH_DEF
    ]
    if len(graphs) != 1:
        return None  # no graph, or several that protobuf merges: read as written
    key_start, value_start, stop = graphs[0]
    graph = _strip_graph(walk, value_start, stop, graph_index)
    if graph is None:
        return None
    return _splice(walk.view, start, end, [(key_start, stop, _length_delimited(_META_GRAPH_DEF, graph))])


def _strip_graph(walk: _Walk, start: int, end: int, graph_index: int) -> _Pieces | None:
    """The GraphDef at [start, end) rewritten, or None when none of its nodes was.

    Spliced as it goes (not at the end, as the smaller messages are): what was read is
    copied, so that its pages can be dropped behind the walk.
    """
    view = walk.view
    pieces: list[Any] = []
    total = 0
    copied = start  # what precedes is in `pieces`
    ordinal = 0
    libraries = 0
    strip_min = walk.strip_min
    for number, wire, key_start, value_start, stop in _fields(walk, start, end):
        if wire != _LENGTH_DELIMITED or number not in (_GRAPH_NODE, _GRAPH_LIBRARY):
            continue
        rewritten = None
        if number == _GRAPH_LIBRARY:
            libraries += 1
            if libraries > 1:
                raise _NotWalkable("a library in pieces, which protobuf merges")
            rewritten = _strip_library(walk, value_start, stop, graph_index)
        else:
            if stop - value_start >= strip_min:
                rewritten = _strip_node(walk, value_start, stop, (graph_index, -1, ordinal))
            ordinal += 1
        if rewritten is not None:
            pieces.append(bytes(view[copied:key_start]))
            replacement, length = _length_delimited(number, rewritten)
            pieces.extend(replacement)
            total += key_start - copied + length
            copied = stop
            walk.release(stop)
    if not pieces:
        return None
    pieces.append(bytes(view[copied:end]))
    return pieces, total + end - copied


def _strip_library(walk: _Walk, start: int, end: int, graph_index: int) -> _Pieces | None:
    """The FunctionDefLibrary at [start, end) with the nodes of its function bodies stripped, or None."""
    rewritten: list[tuple[int, int, _Pieces]] = []
    function = 0
    for number, wire, key_start, value_start, stop in _fields(walk, start, end):
        if number == _LIBRARY_FUNCTION and wire == _LENGTH_DELIMITED:
            if stop - value_start >= walk.strip_min:
                body = _strip_function(walk, value_start, stop, graph_index, function)
                if body is not None:
                    rewritten.append((key_start, stop, _length_delimited(number, body)))
            function += 1
    return _splice(walk.view, start, end, rewritten)


def _strip_function(walk: _Walk, start: int, end: int, graph_index: int, function: int) -> _Pieces | None:
    rewritten: list[tuple[int, int, _Pieces]] = []
    ordinal = 0
    for number, wire, key_start, value_start, stop in _fields(walk, start, end):
        if number == _FUNCTION_NODE_DEF and wire == _LENGTH_DELIMITED:
            if stop - value_start >= walk.strip_min:
                node = _strip_node(walk, value_start, stop, (graph_index, function, ordinal))
                if node is not None:
                    rewritten.append((key_start, stop, _length_delimited(number, node)))
            ordinal += 1
    return _splice(walk.view, start, end, rewritten)


def _strip_node(walk: _Walk, start: int, end: int, where: _Where) -> _Pieces | None:
    view = walk.view
    found = None
    for number, wire, key_start, value_start, stop in _fields(walk, start, end):
        if number != _NODE_ATTR:
            continue
        entry = _entry(walk, value_start, stop) if wire == _LENGTH_DELIMITED else None
        if entry is None:
            return None  # an attr entry laid out otherwise: keep the node whole
        if entry[0] == b"value":
            if found is not None:
                return None  # a repeated key: protobuf keeps the last; keep the node whole
            found = (key_start, value_start, stop, entry[1:])
    if found is None or found[2] - found[1] < walk.strip_min:
        return None
    key_start, entry_start, entry_end, (value_key_start, attr_start, attr_end) = found
    attr_value = _strip_attr_value(walk, attr_start, attr_end, where)
    if attr_value is None:
        return None
    rewritten = _splice(
        view, entry_start, entry_end, [(value_key_start, attr_end, _length_delimited(_ENTRY_VALUE, attr_value))]
    )
    assert rewritten is not None  # one range replaced
    return _splice(view, start, end, [(key_start, entry_end, _length_delimited(_NODE_ATTR, rewritten))])


def _entry(walk: _Walk, start: int, end: int) -> tuple[bytes, int, int, int] | None:
    """(key, value's key start, value start, value end) of a map entry of exactly one key and one value, else None."""
    view = walk.view
    key = value = None
    for number, wire, key_start, value_start, stop in _fields(walk, start, end):
        if wire != _LENGTH_DELIMITED or number not in (_ENTRY_KEY, _ENTRY_VALUE):
            return None
        if number == _ENTRY_KEY:
            if key is not None:
                return None
            key = bytes(view[value_start:stop])
        else:
            if value is not None:
                return None
            value = (key_start, value_start, stop)
    if key is None or value is None:
        return None
    return key, *value


def _strip_attr_value(walk: _Walk, start: int, end: int, where: _Where) -> _Pieces | None:
    """The AttrValue at [start, end) without its tensor's content, when it holds a tensor alone; else None."""
    fields = list(_fields(walk, start, end))
    if len(fields) != 1 or fields[0][:2] != (_ATTR_TENSOR, _LENGTH_DELIMITED):
        return None  # not a tensor alone (of a oneof read twice, protobuf keeps the last): keep it whole
    _, _, _, value_start, stop = fields[0]
    tensor = _strip_tensor(walk, value_start, stop, where)
    return None if tensor is None else _length_delimited(_ATTR_TENSOR, tensor)


def _strip_tensor(walk: _Walk, start: int, end: int, where: _Where) -> _Pieces | None:
    view = walk.view
    contents = [
        (key_start, value_start, stop)
        for number, wire, key_start, value_start, stop in _fields(walk, start, end)
        if number == _TENSOR_CONTENT
    ]
    if len(contents) != 1:
        return None
    key_start, value_start, stop = contents[0]
    length = stop - value_start
    if length < walk.strip_min or view[key_start] != (_TENSOR_CONTENT << 3 | _LENGTH_DELIMITED):
        return None
    walk.spans.append((*where, value_start, length))
    walk.stripped += length
    marker = _NOTICE_FIELD + varint(MARKER_FIELD << 3 | _VARINT) + varint(value_start)
    return _splice(view, start, end, [(key_start, stop, ([marker], len(marker)))])


# The notice as the tensor_content field it replaces the bytes with.
_NOTICE_FIELD = varint(_TENSOR_CONTENT << 3 | _LENGTH_DELIMITED) + varint(len(MAPPED_NOTICE)) + MAPPED_NOTICE


# -- wire format ------------------------------------------------------------------------------


def _fields(walk: _Walk, start: int, end: int) -> Iterator[tuple[int, int, int, int, int]]:
    """(number, wire type, key start, value start, value end) for each field of the message at [start, end).

    Raises WireError on bytes that are not wire format (a length past the end, a bad wire
    type, a group: protobuf reads them, from the whole file), and _NotWalkable when the walk
    has seen _GIVE_UP_FIELDS fields without stripping half of the bytes it passed.
    """
    for item in fields(walk.view, start, end):
        walk.fields += 1
        if walk.fields >= _GIVE_UP_FIELDS and walk.stripped * 2 < item[2]:
            raise _NotWalkable("not weights-heavy")
        yield item


def _length_delimited(number: int, value: _Pieces) -> _Pieces:
    """A length-delimited field (key, length, then the pieces of its value)."""
    head = varint(number << 3 | _LENGTH_DELIMITED) + varint(value[1])
    return [head, *value[0]], len(head) + value[1]


def _splice(view: memoryview, start: int, end: int, rewritten: list[tuple[int, int, _Pieces]]) -> _Pieces | None:
    """The message at [start, end) with each (entry start, entry end) range replaced by its pieces; None if none."""
    if not rewritten:
        return None
    pieces: list[Any] = []
    total = 0
    position = start
    for entry_start, entry_end, (replacement, length) in rewritten:
        if entry_start > position:
            pieces.append(bytes(view[position:entry_start]))
            total += entry_start - position
        pieces.extend(replacement)
        total += length
        position = entry_end
    if end > position:
        pieces.append(bytes(view[position:end]))
        total += end - position
    return pieces, total
