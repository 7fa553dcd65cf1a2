"""Which protobuf message a file with a graph's extension really holds, from a bounded look at its content.

`classify(data, filename)` looks at a bounded prefix of `data` (bytes,
bytearray, memoryview or mmap) and says whether the file is a TensorFlow graph
(GraphDef / MetaGraphDef / SavedModel), some other protobuf (label map, Triton
config, MediaPipe graph, fingerprint.pb, ...), not a protobuf at all (JSON,
TFLite flatbuffer, HTML, ...), a chunked SavedModel (.cpb), or "unsure". The
loader (tflint.read.load) lints graphs and unsure files and skips the others;
tests/data/nongraphs holds a sample of every kind (tests/nongraph_samples.py).
What it matches against is data, in formats.json beside it: the text vocabularies of
the graph messages and of the other formats, their magic numbers, and file names.

Design rules:
* content decides; the file name is only a tie-breaker / hint for files whose
  content is not decisive (empty files, 2-byte tfhub_module.pb, ...);
* a text that is clearly a graph but broken is still "graph" (tflint then
  reports invalid-graph), and so is a binary whose first node reads as a
  NodeDef, however damaged the rest;
* "unsure" means "lint it as a graph anyway": bytes that are not identified
  as anything (noise, a zero-filled or truncated file) are unsure, never skipped;
* the sniffer never skips what protobuf would read as a graph: a field protobuf
  keeps as unknown (any other number, a known number with another wire type, a
  group) is no evidence either way, at the top level or inside a node; a binary
  file is skipped only when it is recognised as another message, or when the
  fields looked at hold no field of a graph message at all;
* bounded effort: text looks at the first TEXT_WINDOW bytes (at most
  TEXT_WINDOW_MAX when undecided) and a few top-level fields; binary walks at
  most MAX_FIELDS top-level fields, reads tags inside the first TOP_WINDOW
  bytes plus at most MIN_FIELDS far tags, and peeks NESTED_WINDOW bytes into a
  nested message. Nothing is ever allocated by a length prefix, and no regex
  here can backtrack through the ways of splitting its input.
"""

from __future__ import annotations

import json
import os
import re
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, cast

from tflint.records import record
from tflint.runtime.patterns import lazy
from tflint.wire import Truncated, WireError, read_varint

if TYPE_CHECKING:
    import mmap
    from typing import Protocol

    class Positional(Protocol):
        """A file read by position, never mapped (tflint.read.mapped.FileSource)."""

        def __len__(self) -> int: ...

        def read_at(self, offset: int, length: int) -> bytes: ...

    # What classify() reads: a file's content in memory, mapped, or read by position.
    Content = bytes | bytearray | memoryview | mmap.mmap | Positional

__all__ = ["Verdict", "classify", "KINDS"]

KINDS = ("graph", "other-protobuf", "not-protobuf", "chunked-saved-model", "unsure")
EMPTY = "empty"  # the reason given for a file with no field at all

# How sure a check is that the bytes hold its message.
_Sure = Literal["yes", "maybe", "no"]
# (kind, message) that a file name suggests (_name_hint).
_Hint = tuple[str, str] | None

# ---------------------------------------------------------------------------
# Budgets
TEXT_WINDOW = 16 << 10  # first look at a text
TEXT_WINDOW_MAX = 256 << 10  # second look when the first was not decisive
TEXT_TOKENS = 3000  # tokens scanned at most
TEXT_TOP_ENOUGH = 4  # stop once this many top-level fields are complete
SNIFF_BYTES = 1024  # control bytes in this prefix mean binary
TOP_WINDOW = 4096  # binary: top-level tags read freely inside this prefix
NESTED_WINDOW = 2048  # binary: bytes read of a nested message
MAX_FIELDS = 64  # binary: fields walked per message at most
MIN_FIELDS = 3  # binary: tags read even beyond the window (one small read each)
META_FAR_FIELDS = 8  # ... in a MetaGraphDef, whose graph_def may follow a large object graph
FAR_PEEK = 64  # binary: bytes read for a tag beyond the window


@record(frozen=True)
class Verdict:
    """kind: one of KINDS; message: what the file holds; reason: why we think so."""

    kind: str
    message: str
    reason: str
    form: str | None  # "text" | "binary" | None (empty / magic-number formats)

    def __init__(self, kind: str, message: str, reason: str, form: str | None = None) -> None:
        vars(self).update(kind=kind, message=message, reason=reason, form=form)


# ---------------------------------------------------------------------------
# Bounded access to the data


class _Source:
    """Bounded reads from bytes / memoryview / mmap, counting what is read."""

    __slots__ = ("_buf", "_read_at", "size", "bytes_read", "_head")

    def __init__(self, data: Content) -> None:
        self._buf: bytes | bytearray | memoryview
        self._read_at = getattr(data, "read_at", None)
        if isinstance(data, (bytes, bytearray)):
            self._buf = data
        elif self._read_at is not None:
            self._buf = b""
        else:
            view = memoryview(cast("bytes", data))
            if view.ndim != 1 or view.itemsize != 1:
                view = view.cast("B")
            self._buf = view
        self.size = len(data) if self._read_at is not None else len(self._buf)
        self.bytes_read = 0
        self._head = b""

    def get(self, offset: int, length: int) -> bytes:
        end = min(self.size, offset + length)
        if offset >= end:
            return b""
        head = self._head
        if end <= len(head):
            return head[offset:end]
        if offset == 0:  # the head grows: read only what is new
            self._head = head + self._bytes(len(head), end)
            self.bytes_read += end - len(head)
            return self._head
        self.bytes_read += end - offset
        return self._bytes(offset, end)

    def _bytes(self, start: int, end: int) -> bytes:
        if self._read_at is not None:
            piece: bytes = self._read_at(start, end - start)
            return piece
        return bytes(self._buf[start:end])

    def release(self) -> None:
        if isinstance(self._buf, memoryview):
            self._buf.release()


# ---------------------------------------------------------------------------
# Protobuf wire format

LEN, VARINT, I64, I32, START_GROUP, END_GROUP = 2, 0, 1, 5, 3, 4
MAX_FIELD_NUMBER = (1 << 29) - 1  # protobuf refuses a larger one


class _Field(NamedTuple):
    """One field of a message as the walk met it."""

    num: int
    wt: int  # wire type
    value: int  # VARINT: the value; LEN: the payload's start (absolute); I64/I32: 0
    stop: int  # where the field ends (LEN: the payload's end, absolute, maybe beyond the data when it is truncated)


@record()
class _Walk:
    fields: list[_Field]
    status: Literal["complete", "partial", "truncated", "invalid"]
    where: int  # offset where the walk stopped

    def __init__(
        self,
        fields: list[_Field],
        status: Literal["complete", "partial", "truncated", "invalid"],
        where: int,
    ) -> None:
        self.fields = fields
        self.status = status
        self.where = where


def _walk(
    src: _Source, start: int, stop: int, *, window: int, max_fields: int = MAX_FIELDS, min_fields: int = MIN_FIELDS
) -> _Walk:
    """Walk the fields of the message at [start, stop) (stop may lie beyond the data)."""
    data_end = min(stop, src.size)
    fields: list[_Field] = []
    append = fields.append
    count = 0
    limit = start + window
    base = start
    chunk = src.get(start, min(window, data_end - start) + 16) if data_end > start else b""
    have = base + len(chunk)
    buf_end = min(have, data_end) - base
    p = start
    while True:
        if p == stop:
            return _Walk(fields, "complete", p)
        if p >= data_end:
            return _Walk(fields, "truncated", p)
        if count >= max_fields:
            return _Walk(fields, "partial", p)
        if p + 21 > have and have < data_end:
            if p >= limit and count >= min_fields:
                return _Walk(fields, "partial", p)
            chunk = src.get(p, FAR_PEEK if p >= limit else max(FAR_PEEK, limit - p))
            base = p
            have = base + len(chunk)
            buf_end = min(have, data_end) - base
        i = p - base
        tag = chunk[i]  # one-byte tags are the common case
        if tag < 0x80:
            i += 1
        else:
            try:
                tag, i = read_varint(chunk, i, buf_end)
            except Truncated:
                return _Walk(fields, "truncated", p)
            except WireError:
                return _Walk(fields, "invalid", p)
        num, wt = tag >> 3, tag & 7
        if num == 0 or num > MAX_FIELD_NUMBER or wt not in (0, 1, 2, 3, 5):
            return _Walk(fields, "invalid", p)  # an end-group tag (4) here closes nothing: protobuf fails too
        if wt == START_GROUP:
            # A group: protobuf keeps one of any number as an unknown field, so the walk steps over it.
            q, state = _skip_group(src, base + i, num, data_end, max(limit, p + FAR_PEEK))
            if state == "truncated" and stop < src.size:
                state = "invalid"  # the group runs past the end of its message
            if state != "complete":
                return _Walk(fields, state, p)
            append(_Field(num, wt, 0, q))
            count += 1
            p = q
            continue
        if wt == VARINT or wt == LEN:
            try:
                value, i = read_varint(chunk, i, buf_end)
            except Truncated:
                return _Walk(fields, "truncated", p)
            except WireError:
                return _Walk(fields, "invalid", p)
            if wt == LEN:
                begin = base + i
                q = begin + value
                field = _Field(num, wt, begin, q)
            else:
                q = base + i
                field = _Field(num, wt, value, q)
        else:
            q = base + i + (8 if wt == I64 else 4)
            field = _Field(num, wt, 0, q)
        if q > stop:
            if stop >= src.size and q > src.size:
                append(field)
                return _Walk(fields, "truncated", p)  # the data ends inside this field
            return _Walk(fields, "invalid", p)  # a field overruns its message
        append(field)
        count += 1
        p = q


def _skip_group(
    src: _Source, at: int, num: int, data_end: int, budget_end: int
) -> tuple[int, Literal["complete", "partial", "truncated", "invalid"]]:
    """Where the group `num` whose start tag ends at `at` ends (just after its end tag), and how the look went.

    A group has no length: its fields are walked (nested groups counted, payloads stepped over by
    their length, never read) up to `budget_end`; beyond it the look is "partial".
    """
    open_groups = [num]
    p = at
    while open_groups:
        if p >= data_end:
            return p, "truncated"
        if p >= budget_end:
            return p, "partial"
        chunk = src.get(p, 21)
        try:
            tag, i = read_varint(chunk, 0, len(chunk))
            fnum, wt = tag >> 3, tag & 7
            if fnum == 0 or fnum > MAX_FIELD_NUMBER or wt > 5:
                return p, "invalid"
            if wt == START_GROUP:
                open_groups.append(fnum)
            elif wt == END_GROUP:
                if open_groups.pop() != fnum:
                    return p, "invalid"  # an end tag that closes another group
            elif wt == VARINT:
                _, i = read_varint(chunk, i, len(chunk))
            elif wt == LEN:
                length, i = read_varint(chunk, i, len(chunk))
                i += length
            else:
                i += 8 if wt == I64 else 4
        except Truncated:
            return p, "truncated" if p + len(chunk) >= data_end else "invalid"
        except WireError:
            return p, "invalid"
        p += i
    if p > data_end:
        return p, "truncated"
    return p, "complete"


def _string(src: _Source, f: _Field, cap: int = 256) -> str | None:
    """The field's payload as text when it is valid UTF-8 without control characters."""
    if f.wt != LEN:
        return None
    length = f.stop - f.value
    raw = src.get(f.value, min(length, cap))
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        if len(raw) < length and error.start >= len(raw) - 3:
            text = raw[: error.start].decode("utf-8")  # cut inside a character by the cap
        else:
            return None
    return text if text.isprintable() else None


_OP = lazy(r"[A-Za-z0-9_][A-Za-z0-9_>.\-/]*\Z")

# The fields of the graph messages, (number -> wire type), from tensorflow/core/framework/graph.proto,
# node_def.proto, versions.proto, protobuf/meta_graph.proto and saved_model.proto. Protobuf keeps any
# other field (another number, or a known number with another wire type) as an unknown field and reads
# the rest of the message, so such a field is no evidence either way: the checks step over it.
_GRAPHDEF_FIELDS = {1: LEN, 2: LEN, 3: VARINT, 4: LEN, 5: LEN}
_NODEDEF_WIRE = {number: LEN for number in range(1, 8)}
_METAGRAPH_FIELDS = {number: LEN for number in range(1, 8)}
_META_INFO_FIELDS = {1: LEN, 2: LEN, 3: LEN, 4: LEN, 5: LEN, 6: LEN, 7: VARINT, 8: LEN}
_SAVED_MODEL_FIELDS = {1: VARINT, 2: LEN}


def _not_a_message(src: _Source, f: _Field) -> bool:
    """Whether the payload of the length-delimited field `f` surely is not wire format (a small look)."""
    return f.value < src.size and _walk(src, f.value, f.stop, window=64, max_fields=4).status == "invalid"


def _known(fields: list[_Field], schema: dict[int, int]) -> list[_Field]:
    """The fields that protobuf reads as fields of the message `schema` describes (the others are unknown)."""
    return [f for f in fields if schema.get(f.num) == f.wt]


# Graph messages. Each check says how sure it is (and most say why).
def _check_node(src: _Source, f: _Field) -> tuple[_Sure, str]:
    if f.wt != LEN:
        return "no", "node is not a message"
    walk = _walk(src, f.value, f.stop, window=NESTED_WINDOW, max_fields=8, min_fields=2)
    if walk.status == "invalid" and not walk.fields:
        return "no", "node payload is not a message"
    name = op = None
    seen: set[int] = set()
    checked: set[int] = set()
    for g in _known(walk.fields, _NODEDEF_WIRE):
        if g.num in (1, 2, 4) and g.num in seen:
            return "no", "a singular NodeDef string repeats"
        seen.add(g.num)
        if g.num in (1, 2, 3, 4):
            text = _string(src, g)
            if text is None:
                # A NodeDef's shape with a bad string (not UTF-8, a NUL): a broken graph, for the parser to report.
                return "maybe", f"NodeDef field {g.num} is not printable text"
            if g.num == 1:
                name = text
            elif g.num == 2:
                op = text
        elif g.num == 5 and 5 not in checked:  # first attr map entry: key = 1 (string), value = 2 (AttrValue)
            checked.add(5)
            entry = _walk(src, g.value, g.stop, window=256, max_fields=2, min_fields=1)
            first = entry.fields[0] if entry.fields else None
            if first is None and entry.status == "truncated":
                continue  # the file ends inside this entry
            if first is None or first.num != 1 or first.wt != LEN:
                return "no", "attr entry without a key"
            if _string(src, first) is None:
                return "maybe", "attr key is not printable text"
    if walk.status == "invalid":
        return ("maybe" if name else "no"), "node payload malformed"
    if name and op is not None:
        return ("yes" if _OP.match(op) else "maybe"), f"node {name!r} op {op!r}"
    if name or op:
        return "maybe", "node with a name but no op" if name else "node with an op but no name"
    return "maybe", "node without name or op"


def _check_versions(src: _Source, f: _Field) -> bool:
    if f.wt != LEN:
        return False
    walk = _walk(src, f.value, f.stop, window=64, max_fields=8)
    return walk.status != "invalid"


def _check_library(src: _Source, f: _Field) -> _Sure:
    walk = _walk(src, f.value, f.stop, window=NESTED_WINDOW, max_fields=8)
    if walk.status == "invalid" or not walk.fields:
        return "no" if walk.status == "invalid" else "maybe"
    g = walk.fields[0]
    if g.num not in (1, 2, 3) or g.wt != LEN:
        return "no"
    inner = _walk(src, g.value, g.stop, window=512, max_fields=4, min_fields=1)
    if not inner.fields or inner.fields[0].num != 1 or inner.fields[0].wt != LEN:
        return "no"
    if g.num == 1:  # FunctionDef.signature (OpDef) -> name = 1
        sig = inner.fields[0]
        name = _walk(src, sig.value, sig.stop, window=256, max_fields=1, min_fields=1)
        ok = name.fields and name.fields[0].num == 1 and _string(src, name.fields[0])
        return "yes" if ok else "no"
    return "yes" if _string(src, inner.fields[0]) else "no"


def _check_graphdef(src: _Source, walk: _Walk) -> tuple[_Sure, str]:
    nodes = versions = library = 0
    verdicts = []
    known = _known(walk.fields, _GRAPHDEF_FIELDS)
    for f in known:
        if f.num == 1:
            nodes += 1
            if nodes <= 2 and f.value < src.size:
                verdicts.append(_check_node(src, f))
        elif f.num == 2:
            library += 1
            if library == 1 and f.value < src.size:
                if _check_library(src, f) == "no":
                    return "no", "library is not a FunctionDefLibrary"
        elif f.num == 4:
            if f.value < src.size and not _check_versions(src, f):
                return "no", "versions is not a VersionDef"
            versions += 1
        elif f.num == 5 and _not_a_message(src, f):
            return "no", "debug_info is not a message"  # protobuf would fail to read it as a GraphDef
    if verdicts and verdicts[0][0] == "yes":
        bad = [note for state, note in verdicts if state == "no"]
        return "yes", verdicts[0][1] + (f"; a later node is malformed ({bad[0]})" if bad else "")
    for state, note in verdicts:
        if state == "no":
            return "no", note
    if any(state == "yes" for state, _ in verdicts):
        return "yes", next(note for state, note in verdicts if state == "yes")
    if walk.status == "invalid":
        return ("maybe" if nodes else "no"), "malformed after the first fields"
    if verdicts:
        return "maybe", verdicts[0][1]
    if library:
        return "yes", "function library"
    if versions:
        return "yes", "versions only (a graph without nodes)"
    if known or walk.status == "partial":
        return "maybe", "no nodes" if known else "no GraphDef field in the fields looked at"
    return "no", "no GraphDef field"


def _check_meta_info(src: _Source, f: _Field) -> _Sure:
    walk = _walk(src, f.value, f.stop, window=NESTED_WINDOW, max_fields=16)
    if walk.status == "invalid" and not walk.fields:
        return "no"
    evidence = False
    for g in _known(walk.fields, _META_INFO_FIELDS):
        if g.num in (1, 4, 5, 6):
            if g.value < src.size and _string(src, g) is None:
                return "no"
            evidence = evidence or g.num in (4, 5)
        elif g.num == 2 and g.value < src.size:  # OpList -> op = 1 -> OpDef.name = 1
            ops = _walk(src, g.value, g.stop, window=256, max_fields=1, min_fields=1)
            if not ops.fields or ops.fields[0].num != 1 or ops.fields[0].wt != LEN:
                return "no"
            opdef = _walk(src, ops.fields[0].value, ops.fields[0].stop, window=128, max_fields=1, min_fields=1)
            if not opdef.fields or opdef.fields[0].num != 1 or not _string(src, opdef.fields[0]):
                return "no"
            evidence = True
        elif g.num == 3 and g.value < src.size:  # Any -> type_url = 1
            any_ = _walk(src, g.value, g.stop, window=256, max_fields=1, min_fields=1)
            if not any_.fields or not _string(src, any_.fields[0]):
                return "no"
    return "yes" if evidence else "maybe"


def _check_metagraph(src: _Source, walk: _Walk) -> tuple[_Sure, str]:
    info = graph = None
    checked: set[int] = set()
    known = _known(walk.fields, _METAGRAPH_FIELDS)
    for f in known:
        if f.num == 1 and info is None and f.value < src.size:
            info = _check_meta_info(src, f)
            if info == "no":
                return "no", "meta_info_def is not a MetaInfoDef"
        elif f.num == 2 and graph is None and f.value < src.size:
            inner = _walk(src, f.value, f.stop, window=TOP_WINDOW, max_fields=16)
            graph, note = _check_graphdef(src, inner)
            if graph == "no":
                return "no", "graph_def: " + note
        elif f.num >= 3 and f.num not in checked:
            checked.add(f.num)
            if _not_a_message(src, f):
                return "no", f"field {f.num} is not a message"  # protobuf would fail to read it
    if graph == "yes":
        return "yes", "graph_def holds a graph"
    if info == "yes":
        return "yes", "meta_info_def (tags / op list / version)"
    if (known or walk.status == "partial") and walk.status != "invalid":
        return "maybe", "MetaGraphDef-shaped"
    return "no", "nothing of a MetaGraphDef"


def _check_savedmodel(src: _Source, walk: _Walk) -> tuple[_Sure, str]:
    metas = 0
    version = None
    for f in _known(walk.fields, _SAVED_MODEL_FIELDS):
        if f.num == 1:
            version = f.value
        else:
            metas += 1
            if metas <= 2 and f.value < src.size:
                inner = _walk(src, f.value, f.stop, window=TOP_WINDOW, min_fields=META_FAR_FIELDS)
                state, note = _check_metagraph(src, inner)
                if state == "no":
                    return "no", "meta_graphs: " + note
                if state == "yes":
                    return "yes", f"schema version {version}, meta graph: {note}"
    if metas and version == 1:
        return "yes", "schema version 1 and a MetaGraphDef-shaped meta graph"
    if metas:
        return "maybe", "meta_graphs present"
    if version == 1 and walk.status == "complete" and len(walk.fields) == 1:
        return "maybe", "schema version only, no meta graphs"
    return "no", "no meta graphs"


# Other binary protobufs, recognised from their own structure.
def _other_binary(src: _Source, walk: _Walk, base: str) -> tuple[str, str] | None:
    fields = walk.fields
    nums = {(f.num, f.wt) for f in fields}
    if not fields:
        return None
    # FingerprintDef: uint64 hashes 1..5, VersionDef version = 6 (uuid string = 7 in newer TF).
    varints = [f for f in fields if f.wt == VARINT and 1 <= f.num <= 5]
    if len(varints) >= 2 and all(
        (1 <= f.num <= 5 and f.wt == VARINT) or (f.num == 6 and f.wt in (LEN, VARINT)) or (f.num == 7 and f.wt == LEN)
        for f in fields
    ):
        return "SavedModel fingerprint (FingerprintDef)", f"uint64 hashes in fields {sorted(f.num for f in varints)}"
    # TF Hub ModuleDef: a single enum `format = 1` (FORMAT_V3 = 3): the whole file is 08 03.
    if len(fields) == 1 and fields[0].num == 1 and fields[0].wt == VARINT and walk.status == "complete":
        if fields[0].value == 3 or base == "tfhub_module.pb":
            return "TF Hub module (ModuleDef)", f"a single varint field 1 = {fields[0].value}"
    # ONNX ModelProto: ir_version = 1 (varint), producer_name = 2, graph = 7, opset_import = 8.
    if fields[0].num == 1 and fields[0].wt == VARINT and 1 <= fields[0].value <= 64:
        second = fields[1] if len(fields) > 1 else None
        if second is not None and second.num in (2, 3, 7, 8) and second.wt == LEN:
            if second.num in (2, 3) and _string(src, second) or second.num in (7, 8):
                if any(f.num in (7, 8) for f in fields) or second.num in (2, 3):
                    return "ONNX ModelProto", f"ir_version {fields[0].value} then field {second.num}"
    if all(f.num == 1 and f.wt == LEN for f in fields):
        first = fields[0]
        inner = _walk(src, first.value, first.stop, window=NESTED_WINDOW, max_fields=16)
        inums = [(g.num, g.wt) for g in inner.fields]
        if inner.status != "invalid" and inums:
            # Keras SavedMetadata: nodes = 1 -> SavedObject {node_id 2, node_path 3, identifier 4, metadata 5,
            # version 6 (keras-team/keras; TF's older copy numbered version 1)}
            allowed = {(1, LEN), (2, VARINT), (3, LEN), (4, LEN), (5, LEN), (6, LEN)}
            if set(inums) <= allowed:
                texts = {g.num: _string(src, g, 64) for g in inner.fields if g.num in (3, 4, 5)}
                ident = texts.get(4) or ""
                if ident.startswith("_tf_keras") or (texts.get(5) or "").startswith("{"):
                    return "Keras metadata (SavedMetadata)", f"node identifier {ident!r}"
            # TFDV DatasetFeatureStatisticsList: datasets = 1 ->
            # {name 1, num_examples 2, features 3, weighted 4 (double)}
            if set(inums) <= {(1, LEN), (2, VARINT), (3, LEN), (4, I64), (5, LEN)} and (
                (2, VARINT) in inums or (4, I64) in inums
            ):
                return "TFDV statistics (DatasetFeatureStatisticsList)", "datasets with num_examples / features"
            # tf.train.Example: features = 1 -> Features {feature = 1 map<string, Feature>}
            if len(fields) == 1 and set(inums) == {(1, LEN)}:
                entry = _walk(src, inner.fields[0].value, inner.fields[0].stop, window=NESTED_WINDOW, max_fields=2)
                enums = [(g.num, g.wt) for g in entry.fields]
                if enums[:1] == [(1, LEN)] and _string(src, entry.fields[0]) is not None and (2, LEN) in enums:
                    feature = entry.fields[enums.index((2, LEN))]
                    kind = _walk(src, feature.value, feature.stop, window=64, max_fields=1, min_fields=1)
                    if kind.fields and kind.fields[0].num in (1, 2, 3) and kind.fields[0].wt == LEN:
                        key = _string(src, entry.fields[0])
                        return "tf.train.Example", f"features map with key {key!r}"
    if nums <= {(1, LEN), (2, LEN)} and (2, LEN) in nums and (1, LEN) in nums:
        # tf.train.SequenceExample: context = 1 (Features), feature_lists = 2 (FeatureLists)
        second = next(f for f in fields if f.num == 2)
        entry = _walk(src, second.value, second.stop, window=NESTED_WINDOW, max_fields=4)
        if entry.fields and entry.fields[0].num == 1 and entry.fields[0].wt == LEN:
            kv = _walk(src, entry.fields[0].value, entry.fields[0].stop, window=256, max_fields=2)
            if kv.fields and kv.fields[0].num == 1 and _string(src, kv.fields[0]) is not None:
                if len(kv.fields) < 2 or (kv.fields[1].num == 2 and kv.fields[1].wt == LEN):
                    return "tf.train.SequenceExample", "context and feature_lists"
    return None


# ---------------------------------------------------------------------------
# Magic numbers

# Riegeli/records files start with these 64 fixed bytes (google/riegeli doc/riegeli_records_file_format.md).
_RIEGELI = bytes.fromhex(
    "83af70d10d884a3f0000000000000000"
    "400000000000000091bac23c9287e1a9"
    "0000000000000000e19f13c0e9b1c372"
    "73000000000000000000000000000000"
)
_LFS = lazy(rb"version https://git-lfs\.github\.com/spec/v\d+\r?\n")


def _magic(src: _Source, base: str) -> Verdict | None:
    head = src.get(0, 64)
    if head and _RIEGELI.startswith(head[:64]) and len(head) >= 24:
        if base.endswith(".cpb") or base.startswith("saved_model"):
            return Verdict(
                "chunked-saved-model",
                "chunked SavedModel (riegeli, proto splitter)",
                "Riegeli/records file signature",
                "binary",
            )
        return Verdict("not-protobuf", "Riegeli/records file", "Riegeli/records file signature", "binary")
    if len(head) >= 8 and head[4:8] == b"TFL3":
        root = int.from_bytes(head[:4], "little")
        if root % 4 == 0 and 8 <= root < src.size:
            return Verdict("not-protobuf", "TFLite flatbuffer", "flatbuffer identifier 'TFL3' at offset 4", "binary")
    for magic, what in _MAGIC:
        if head.startswith(magic):
            return Verdict("not-protobuf", what, f"magic number {magic[:4]!r}", None)
    if _LFS.match(head):
        return Verdict("not-protobuf", "Git LFS pointer", "the graph itself was never fetched (git lfs pull)", "text")
    return None


# ---------------------------------------------------------------------------
# File-name hints (weak: used only when the content is not decisive)


def _name_hint(filename: str) -> tuple[str, str] | None:
    """(kind, message) suggested by the file name alone."""
    path = filename.replace("\\", "/").lower()
    base = os.path.basename(path)
    if base in _FILE_NAMES:
        return "other-protobuf", _FILE_NAMES[base]
    if base.endswith(".cpb"):
        return "chunked-saved-model", "chunked SavedModel (riegeli, proto splitter)"
    if "label_map" in base:
        return "other-protobuf", "Object Detection label map (StringIntLabelMap)"
    if base.startswith("api_def_"):
        return "other-protobuf", "ApiDefs"
    if "/api/golden/" in path or (base.startswith("tensorflow.") and base.endswith(".pbtxt")):
        return "other-protobuf", "TF API golden file"
    if base.startswith("saved_model."):
        return "graph", "SavedModel"
    if base.endswith(".meta"):
        return "graph", "MetaGraphDef"
    return None


# ---------------------------------------------------------------------------
# Text format

# Whitespace is skipped one character per repetition and a comment runs to its line's end, so
# that no input can make the match backtrack through the ways of splitting a run of blanks (a
# nested `(?:\s+)*` took seconds on 20 blanks before a character no branch accepts); and every
# character is some token (`bad` at worst), so the skip never has to be undone.
_TOKEN = re.compile(
    r"""(?:[ \t\r\n\f\v]|\#[^\n]*(?![^\n]))*
    (?:(?P<id>[A-Za-z_][A-Za-z0-9_]*)
      |(?P<str>"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')
      |(?P<num>[-+]?\.?[0-9][A-Za-z0-9_.+\-]*)
      |(?P<p>[{}<>\[\]:;,\-])
      |(?P<bad>.)
      |(?P<end>\Z))""",
    re.X | re.S,
)
_SKIP = re.compile(r"""[^{}<>\[\]"'\#]+|"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|\#[^\n]*|.""", re.S)
_PROTO_HEADER = lazy(r"#\s*proto-message:\s*([A-Za-z_][\w.]*)")
_BINARY_BYTES = lazy(rb"[\x00-\x08\x0e-\x1f]")


class _TextInfo:
    __slots__ = ("top", "children", "values", "error", "error_pos", "at_end", "tokens", "stopped")

    def __init__(self) -> None:
        self.top: list[str] = []  # top-level field names in order (distinct)
        self.children: dict[str, list[str]] = {}  # first block of each top-level field: its field names
        self.values: dict[str, str] = {}  # first scalar of each top-level field
        self.error: str | None = None
        self.error_pos = -1
        self.at_end = False  # the scan reached the end of the text it was given
        self.tokens: float = 0  # a token is 1, a skipped piece of a nested block 0.25
        self.stopped = False  # stopped early on purpose (enough seen)


@record()
class _Frame:
    """A block open in the scan: a message or a list, inside the top-level field `top`."""

    kind: Literal["msg", "list"]
    closer: str  # "}", ">" or "]"
    top: str
    record: bool  # whether its field names are recorded (the first block of a top-level field)

    def __init__(self, kind: Literal["msg", "list"], closer: str, top: str, record: bool) -> None:
        self.kind = kind
        self.closer = closer
        self.top = top
        self.record = record


def _skip_block(text: str, pos: int, info: _TextInfo) -> int:
    """The position just after the block whose opener ends at `pos`, or -1 at the end of the text."""
    depth = 1
    match = _SKIP.match
    n = len(text)
    while pos < n:
        m = cast("re.Match[str]", match(text, pos))  # never None: the last branch takes any character
        pos = m.end()
        c = text[m.start()]
        if c in "{<[":
            depth += 1
        elif c in "}>]":
            depth -= 1
            if depth == 0:
                return pos
        info.tokens += 0.25
    return -1


def _scan_text(text: str) -> _TextInfo:
    """Top-level field names (and the names inside each field's first block) of a text proto."""
    info = _TextInfo()
    match = _TOKEN.match
    pos = 0
    n = len(text)
    stack: list[_Frame] = []
    completed = 0

    def token() -> tuple[str | None, str]:
        """The next token's kind (a group of _TOKEN) and text; (None, "") at the end of the text."""
        nonlocal pos
        m = match(text, pos)
        if m is None or m.lastgroup is None or m.lastgroup == "end":
            pos = n
            return None, ""
        pos = m.end()
        info.tokens += 1
        kind = m.lastgroup
        return kind, m.group(kind)

    def scalar(kind: str | None, value: str) -> str | None:
        """Consume a scalar value that starts with (kind, value); its text, or None on error."""
        if kind == "str":
            out = value[1:-1]
            while True:  # adjacent strings concatenate
                m = match(text, pos)
                if m is None or m.lastgroup != "str":
                    return out
                token()
        if kind in ("id", "num"):
            return value
        if kind == "p" and value == "-":
            k, v = token()
            return "-" + v if k in ("id", "num") else None
        return None

    while True:
        if info.tokens >= TEXT_TOKENS:
            info.stopped = True
            break
        frame = stack[-1] if stack else None
        kind, value = token()
        if kind is None:
            info.at_end = True
            if stack:
                info.error = "unexpected end inside a block"
            break
        msg_depth = sum(1 for f in stack if f.kind == "msg")
        if frame is not None and frame.kind == "list":
            if kind == "p" and value == "]":
                stack.pop()
                if not stack:
                    completed += 1
            elif kind == "p" and value == ",":
                pass
            elif kind == "p" and value in "{<":
                stack.append(_Frame("msg", "}" if value == "{" else ">", frame.top, frame.record and msg_depth == 0))
                frame.record = False  # only the first element's fields are recorded
            elif scalar(kind, value) is None:
                info.error = f"bad list element {value!r}"
                break
            if not stack and completed >= TEXT_TOP_ENOUGH:
                info.stopped = True
                break
            continue
        if kind == "p" and frame is not None and value == frame.closer:
            stack.pop()
            if not stack:
                completed += 1
                if completed >= TEXT_TOP_ENOUGH:
                    info.stopped = True
                    break
            continue
        if kind == "p" and value in ";,":
            continue
        if kind == "id":
            name = value
        elif kind == "p" and value == "[":
            close = text.find("]", pos, pos + 300)
            if close < 0:
                info.error = "unterminated extension name"
                break
            name = "[" + text[pos:close].strip() + "]"
            pos = close + 1
        else:
            info.error = f"expected a field name, found {value!r}"
            break
        if msg_depth == 0:
            if name not in info.top:
                info.top.append(name)
            if len(info.top) == 1 and name in _GRAPH_ONLY_TOP:
                info.stopped = True  # meta_info_def, meta_graphs, ...: nothing else has these
                break
        elif msg_depth == 1 and frame is not None and frame.record:
            kids = info.children[frame.top]
            if len(kids) < 32 and name not in kids:
                kids.append(name)
            if frame.top == "node" and name in _NODEDEF_STRONG and info.top[0] == "node":
                info.stopped = True  # the first node has an op: a graph (MediaPipe nodes never do)
                break
            if frame.top == "library" and name in ("function", "gradient") and info.top[0] == "library":
                info.stopped = True  # a FunctionDefLibrary first: a graph of functions
                break
        kind, value = token()
        colon = kind == "p" and value == ":"
        if colon:
            kind, value = token()
        if kind == "p" and value in ("{", "<", "[") and msg_depth >= 1:
            pos = _skip_block(text, pos, info)  # nothing below the first level is recorded
            if pos < 0:
                info.at_end = True
                info.error = "unexpected end inside a block"
                break
            continue
        # From here on the field is a top-level one (msg_depth 0): a block opens its first level.
        if kind == "p" and value in ("{", "<", "["):
            record = name not in info.children
            if record:
                info.children[name] = []
            if value == "[":
                stack.append(_Frame("list", "]", name, record))
            else:
                stack.append(_Frame("msg", "}" if value == "{" else ">", name, record))
            continue
        if kind is None:
            info.at_end = True
            info.error = "unexpected end after a field name"
            break
        text_value = scalar(kind, value) if colon else None
        if text_value is None:
            info.error = f"field {name!r} has no value" if not colon else f"bad value {value!r} for {name!r}"
            break
        if msg_depth == 0:
            info.values.setdefault(name, text_value[:200])
            completed += 1
            if completed >= TEXT_TOP_ENOUGH:
                info.stopped = True
                break
    if info.error:
        info.error_pos = pos
    return info


@record(frozen=True)
class _Kind:
    message: str
    keys: frozenset[str]  # top-level names that point at this message on their own
    fields: frozenset[str]  # other top-level names it has
    # (top-level name, names inside its first block that point here)
    child_keys: tuple[tuple[str, frozenset[str]], ...]

    def __init__(
        self,
        message: str,
        keys: frozenset[str],
        fields: frozenset[str] = frozenset(),
        child_keys: tuple[tuple[str, frozenset[str]], ...] = (),
    ) -> None:
        vars(self).update(message=message, keys=keys, fields=fields, child_keys=child_keys)


def _vocabulary() -> dict[str, Any]:
    """formats.json beside this module: the vocabularies of the graph messages and of the other formats."""
    with open(os.path.join(os.path.dirname(__file__), "formats.json"), encoding="utf-8") as data:
        return cast("dict[str, Any]", json.load(data))


_VOCABULARY = _vocabulary()
_GRAPH_TOP = {message: frozenset(names) for message, names in _VOCABULARY["graph_top"].items()}
_ALL_GRAPH_TOP = frozenset().union(*_GRAPH_TOP.values())
_NODEDEF_FIELDS = frozenset(_VOCABULARY["nodedef_fields"])
_NODEDEF_STRONG = frozenset(_VOCABULARY["nodedef_strong"])  # a block with one of these is a NodeDef
_GRAPH_ONLY_TOP = frozenset(_VOCABULARY["graph_only_top"])  # top-level names no other message has
_ONNX_NODE = frozenset(_VOCABULARY["onnx_node"])  # text dumps of ONNX graphs also have `node {` blocks
_MEDIAPIPE_NODE = frozenset(_VOCABULARY["mediapipe_node"])
_COSTGRAPH_NODE = frozenset(_VOCABULARY["costgraph_node"])
# Other protobufs kept with graph extensions, in the order ties are decided.
_OTHER_TEXT = tuple(
    _Kind(
        kind["message"],
        frozenset(kind["keys"]),
        frozenset(kind["fields"]),
        tuple((top, frozenset(kids)) for top, kids in kind["child_keys"]),
    )
    for kind in _VOCABULARY["other_text"]
)
_MAGIC = tuple((bytes.fromhex(magic), what) for magic, what in _VOCABULARY["magic"])
_FILE_NAMES: dict[str, str] = _VOCABULARY["file_names"]
del _VOCABULARY


def _node_look(kids: list[str] | None) -> str:
    """What the first `node { }` block looks like: nodedef | mediapipe | costgraph | onnx | unknown | empty | absent."""
    if kids is None:
        return "absent"
    if not kids:
        return "empty"
    names = set(kids)
    if names & _NODEDEF_STRONG:
        return "nodedef"  # op / attr / device ...: a graph, even with misspelt neighbours
    if names & (_MEDIAPIPE_NODE - {"name"}):
        return "mediapipe"
    if names & (_COSTGRAPH_NODE - {"name", "control_input"}):
        return "costgraph"
    if names & _ONNX_NODE:
        return "onnx"
    if names & {"name", "input"}:
        return "nodedef"  # a name / inputs and misspelt fields: a broken graph
    return "unknown"


def _best_other(info: _TextInfo) -> tuple[tuple[int, int], _Kind, list[str]] | None:
    """The best-matching other message: (score, kind, evidence) or None."""
    top = set(info.top)
    best = None
    for kind in _OTHER_TEXT:
        evidence = sorted(top & kind.keys)
        for name, kids in kind.child_keys:
            got = kids & set(info.children.get(name) or ())
            if got:
                evidence.append(f"{name} {{ {', '.join(sorted(got))} }}")
        if not evidence:
            continue
        known = kind.keys | kind.fields | {name for name, _ in kind.child_keys}
        explained = len(top & known)
        score = (len(evidence) * 2 + explained, -len(top - known))
        if best is None or score > best[0]:
            best = (score, kind, evidence)
    return best


def _header_message(text: str) -> str | None:
    """`# proto-message: X` in the comment block at the top of the file."""
    for line in text[:4096].splitlines():
        stripped = line.strip()
        if not stripped:
            continue
        if not stripped.startswith("#"):
            return None
        m = _PROTO_HEADER.match(stripped)
        if m:
            return m.group(1).rsplit(".", 1)[-1]
    return None


def _describe(info: _TextInfo) -> str:
    parts = []
    for name in info.top[:6]:
        kids = info.children.get(name)
        parts.append(f"{name} {{ {', '.join(kids[:5])} }}" if kids else name)
    return "top-level fields " + ", ".join(parts) if parts else "no fields"


def _decide_text(info: _TextInfo, text: str, hint: _Hint) -> Verdict:
    form = "text"
    header = _header_message(text)
    top = set(info.top)
    look = _node_look(info.children.get("node"))
    if header is not None and header in _GRAPH_TOP:
        return Verdict("graph", header, f"'# proto-message: {header}' header; {_describe(info)}", form)
    if not info.top:
        if info.error:
            return Verdict("unsure", "GraphDef", f"not text format ({info.error})", form)
        if hint and hint[0] != "graph":
            return Verdict(hint[0], hint[1], "empty file; the file name suggests it", form)
        return Verdict("graph", "GraphDef", EMPTY, form)
    graph_kinds = [name for name, vocab in _GRAPH_TOP.items() if top <= vocab]
    broken = f" (syntax error: {info.error})" if info.error else ""
    if graph_kinds:
        kind = graph_kinds[0]
        if kind == "GraphDef" and look in ("mediapipe", "costgraph", "onnx", "unknown"):
            pass  # decided below
        elif top == {"version"}:
            return Verdict("unsure", "GraphDef", "only the deprecated top-level field 'version'" + broken, form)
        else:
            return Verdict("graph", kind, _describe(info) + broken, form)
    other = _best_other(info)
    if header is not None:
        message = other[1].message if other else header
        return Verdict("other-protobuf", message, f"'# proto-message: {header}' header; {_describe(info)}", form)
    graph_names = top & _ALL_GRAPH_TOP
    if other is not None and look != "nodedef":
        _, best, evidence = other
        return Verdict("other-protobuf", best.message, f"{_describe(info)}; evidence: {', '.join(evidence)}", form)
    if graph_names and (look == "nodedef" or info.top[0] in _ALL_GRAPH_TOP):
        unknown = ", ".join(sorted(top - _ALL_GRAPH_TOP))
        kind = next((k for k, vocab in _GRAPH_TOP.items() if graph_names <= vocab), "GraphDef")
        return Verdict("graph", kind, f"{_describe(info)}; unknown top-level fields {unknown}{broken}", form)
    if graph_names or look == "nodedef" or _nodedef_like_block(info):
        return Verdict("unsure", "GraphDef", _describe(info) + broken, form)
    if hint is not None and hint[0] == "other-protobuf":
        return Verdict("other-protobuf", hint[1], f"{_describe(info)}; the file name suggests it" + broken, form)
    if not info.error and len(info.top) >= 1:
        return Verdict(
            "other-protobuf",
            "unrecognised protobuf message",
            f"well-formed text format without any graph field: {_describe(info)}",
            form,
        )
    return Verdict("unsure", "unknown", f"{_describe(info)}{broken}", form)


def _nodedef_like_block(info: _TextInfo) -> bool:
    return any({"name", "op"} <= set(kids) for kids in info.children.values())


_JSON_START = lazy(r'\s*(?:\{\s*(?:"|\})|\[\s*(?:[\[{"\]]|-?\d|(?:true|false|null)\s*[,\]]))')
_MARKUP = lazy(r"\s*<(?:!doctype\s+html|html|\?xml|!--|[A-Za-z])", re.I)


def _classify_text(src: _Source, head: bytes, base: str, hint: _Hint) -> Verdict | None:
    """Verdict for a text file, or None when the bytes are not text after all."""
    window = TEXT_WINDOW
    while True:
        raw = head if len(head) >= min(window, src.size) else src.get(0, window)
        complete = len(raw) >= src.size
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as error:
            if not complete and error.start >= len(raw) - 3:
                text = raw[: error.start].decode("utf-8", "replace")
            elif _BINARY_BYTES.search(raw) is not None:
                return None  # control bytes after the first KiB: binary after all
            else:
                # Text with a stray byte (Latin-1, a damaged file): still read as text, so that a graph
                # with a bad string is a broken graph, not binary noise.
                text = raw.decode("utf-8", "replace")
        if text.startswith("\ufeff"):
            text = text[1:]
        if _JSON_START.match(text):
            if complete:
                try:
                    json.loads(text)
                    return Verdict("not-protobuf", "JSON", "the file is a JSON document", "text")
                except (ValueError, RecursionError):  # nesting deeper than the interpreter's stack
                    pass
            return Verdict("not-protobuf", "JSON", "starts like a JSON document", "text")
        if _MARKUP.match(text):
            what = "HTML" if re.match(r"\s*<(?:!doctype\s+html|html)", text, re.I) else "XML/markup"
            return Verdict("not-protobuf", what, "starts with a markup tag", "text")
        if not complete:
            cut = text.rfind("\n")
            text = text[: cut + 1] if cut > 0 else text  # no token cut in half by the window
        info = _scan_text(text)
        if not complete and info.error and (info.at_end or info.error_pos >= len(text) - 256):
            info.error = None  # the window ended, not the file
            info.at_end = True
        verdict = _decide_text(info, text, hint)
        if complete or verdict.kind != "unsure" or window >= TEXT_WINDOW_MAX or not info.at_end:
            return verdict
        window = TEXT_WINDOW_MAX


# ---------------------------------------------------------------------------
# Entry points


GRAPH_MESSAGES = ("GraphDef", "MetaGraphDef", "SavedModel")


def looks_like_text(data: bytes) -> bool:
    """Whether `data` reads as text format rather than binary wire format: no control byte in its first KiB.

    Binary GraphDefs start with 0x0a (a newline!) and are full of control
    bytes; text format never contains bytes below 0x20 other than whitespace.
    """
    return _BINARY_BYTES.search(data, 0, SNIFF_BYTES) is None


def text_message(text: str) -> str:
    """Which graph message a text holds (GraphDef when the text does not say)."""
    verdict = classify(text[:TEXT_WINDOW_MAX].encode("utf-8", "surrogatepass"), "")
    return verdict.message if verdict.message in GRAPH_MESSAGES else "GraphDef"


def classify(data: Content, filename: str = "") -> Verdict:
    """Classify the content `data` of file `filename` (bytes, bytearray, memoryview, mmap, or a file read by
    position: an object with `len()` and `read_at(offset, length)`)."""
    src = _Source(data)
    try:
        return _classify_source(src, filename)
    finally:
        src.release()


def _classify_source(src: _Source, filename: str) -> Verdict:
    base = os.path.basename(filename.replace("\\", "/")).lower()
    hint = _name_hint(filename)
    if src.size == 0:
        if hint and hint[0] != "graph":
            return Verdict(hint[0], hint[1], "empty file; the file name suggests it", None)
        return Verdict("graph", "GraphDef", EMPTY, None)
    magic = _magic(src, base)
    if magic is not None:
        return magic
    head = src.get(0, SNIFF_BYTES)
    if _BINARY_BYTES.search(head) is None:
        verdict = _classify_text(src, head, base, hint)
        if verdict is not None and verdict.kind != "unsure":
            return verdict
        binary = _classify_binary(src, base, hint, whole=verdict is not None)
        if verdict is None:
            return binary
        if binary.kind in ("graph",) or (
            binary.kind == "other-protobuf" and binary.message != "unrecognised protobuf message"
        ):
            return binary
        return verdict
    return _classify_binary(src, base, hint)


def _classify_binary(src: _Source, base: str, hint: _Hint, whole: bool = False) -> Verdict:
    """The verdict on `src` as wire format; `whole`: another message is named only for bytes that are one
    complete message (text that is not text format comes here too: runs of blanks are varints)."""
    form = "binary"
    walk = _walk(src, 0, src.size, window=TOP_WINDOW, min_fields=META_FAR_FIELDS)
    if not walk.fields:
        # Unidentified bytes (noise, a zero-filled or damaged file): not known to be anything else, so linted.
        what = "truncated" if walk.status == "truncated" else "not protobuf wire format"
        return Verdict("unsure", hint[1] if hint and hint[0] == "graph" else "unknown", f"{what} at byte 0", form)
    tail = ""
    if walk.status == "truncated":
        tail = f"; truncated at byte {walk.where}"
    elif walk.status == "invalid":
        tail = f"; malformed at byte {walk.where}"
    results = {}
    for message, check in (
        ("SavedModel", _check_savedmodel),
        ("MetaGraphDef", _check_metagraph),
        ("GraphDef", _check_graphdef),
    ):
        state, note = results[message] = check(src, walk)
        if state == "yes":  # the first message in this order that surely fits is the verdict
            return Verdict("graph", message, note + tail, form)
    other = _other_binary(src, walk, base)
    if other is not None and (walk.status == "complete" if whole else walk.status != "invalid"):
        return Verdict("other-protobuf", other[0], other[1] + tail, form)
    maybes = [(m, note) for m, (state, note) in results.items() if state == "maybe"]
    if maybes:
        message, note = maybes[-1] if len(maybes) > 1 and maybes[-1][0] == "GraphDef" else maybes[0]
        if hint and hint[0] == "other-protobuf":
            return Verdict("other-protobuf", hint[1], f"{note}{tail}; the file name suggests it", form)
        return Verdict("unsure", message, note + tail, form)
    shape = ", ".join(f"{f.num}:{('varint', 'i64', 'len', '', '', 'i32')[f.wt]}" for f in walk.fields[:6])
    if walk.status == "invalid" and len(walk.fields) < 2:
        return Verdict("unsure", "unknown", f"not protobuf wire format (fields {shape}{tail})", form)
    if hint and hint[0] == "other-protobuf":
        return Verdict("other-protobuf", hint[1], f"top-level fields {shape}; the file name suggests it{tail}", form)
    if walk.status in ("invalid", "truncated"):
        # Cut short or broken inside the fields it has: a damaged file, maybe a graph; tflint reads it and says.
        return Verdict("unsure", "unknown", f"top-level fields {shape}{tail}", form)
    why = "; ".join(note for _, (_, note) in results.items())
    return Verdict("other-protobuf", "unrecognised protobuf message", f"top-level fields {shape} ({why}){tail}", form)
