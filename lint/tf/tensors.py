"""Tensors and shapes as TensorFlow reads them: shape validity, DataType sizes, the `*_val` field of each dtype.

Shared by the `tensor-content`, `invalid-shape` and `non-finite-constant`
rules (the last asks which values are NaN or infinite: scanned here, on the raw bytes). Everything here was
checked against TensorFlow 2.21 (`Tensor::FromProto`, `PartialTensorShape::
IsValidShape`, running Consts built from hand-written TensorProtos):

- A shape proto is valid as a *partial* shape when it has at most 254 dims,
  no dim below -1, `unknown_rank` only without dims, and the product of the
  known dims up to the first -1 fits in an int64 (TF multiplies left to right
  and stops at the first -1, so `[2**32, 2**32, 0]` overflows but
  `[-1, 2**32, 2**32]` does not).
- A tensor's shape must also be fully defined (no -1). TensorFlow ignores
  `unknown_rank` in a tensor's shape and reads its dims.
- `tensor_content`, when non-empty, wins over the `*_val` fields and must hold
  exactly elements × dtype size bytes (bools: bytes 0 or 1; strings:
  varint lengths then the bytes). Otherwise the dtype's own `*_val` field is
  read: no values means all zeros, fewer values than elements repeat the last
  one, extra values are dropped, values in another field are ignored.
"""

from __future__ import annotations

import functools
import math
import struct
import sys
from array import array
from collections.abc import Iterable, Iterator
from typing import Any

from tflint.tf.index import GraphIndex
from tflint.tf.node import Node

# TensorShape::MaxDimensions().
MAX_DIMS = 254
INT64_MAX = (1 << 63) - 1

DT_STRING = 7
DT_BOOL = 10
DT_COMPLEX64 = 8
DT_COMPLEX128 = 18

# Bytes per element in tensor_content (int4/uint4/int2/uint2/float4 take one byte each in TF).
DTYPE_SIZE: dict[int, int] = {
    1: 4,
    2: 8,
    3: 4,
    4: 1,
    5: 2,
    6: 1,
    8: 8,
    9: 8,
    10: 1,
    11: 1,
    12: 1,
    13: 4,
    14: 2,
    15: 2,
    16: 2,
    17: 2,
    18: 16,
    19: 2,
    22: 4,
    23: 8,
    24: 1,
    25: 1,
    26: 1,
    27: 1,
    28: 1,
    29: 1,
    30: 1,
    31: 1,
    32: 1,
    33: 1,
}

# The TensorProto field TensorFlow reads a dtype's values from when tensor_content is empty.
_INT_VAL_TYPES = (3, 4, 5, 6, 11, 12, 13, 15, 16, 17, 29, 30, 31, 32)
VALUE_FIELD: dict[int, str] = {
    **{dtype: "int_val" for dtype in _INT_VAL_TYPES},
    1: "float_val",
    2: "double_val",
    7: "string_val",
    8: "scomplex_val",
    9: "int64_val",
    10: "bool_val",
    14: "half_val",
    18: "dcomplex_val",
    19: "half_val",
    20: "resource_handle_val",
    21: "variant_val",
    22: "uint32_val",
    23: "uint64_val",
    24: "float8_val",
    25: "float8_val",
    26: "float8_val",
    27: "float8_val",
    28: "float8_val",
    33: "float8_val",
}

# Values outside these ranges are silently wrapped by TensorFlow's runtime (a C++ cast) and
# rejected by Python's `tf.make_ndarray`. half_val holds the 16 bits of a half or bfloat16.
VALUE_RANGE: dict[int, tuple[int, int]] = {
    4: (0, 255),
    5: (-(1 << 15), (1 << 15) - 1),
    6: (-128, 127),
    11: (-128, 127),
    12: (0, 255),
    14: (0, 65535),
    15: (-(1 << 15), (1 << 15) - 1),
    16: (0, 65535),
    17: (0, 65535),
    19: (0, 65535),
    29: (-8, 7),
    30: (0, 15),
    31: (-2, 1),
    32: (0, 3),
}


def shape_text(dims: list[int], unknown_rank: bool = False) -> str:
    """A shape written like TensorFlow's DebugString: `[2,?,3]`, `<unknown>`; long shapes abbreviated."""
    head = "<unknown>" if unknown_rank else ""
    if unknown_rank and not dims:
        return head
    shown = ["?" if size == -1 else str(size) for size in dims[:8]]
    if len(dims) > 8:
        shown.append(f"... ({len(dims)} dims)")
    return head + "[" + ",".join(shown) + "]"


def partial_shape_problem(dims: list[int], unknown_rank: bool) -> str | None:
    """Why TensorFlow rejects this shape even as a partial shape (`PartialTensorShape::IsValidShape`), or None."""
    if unknown_rank:
        return (
            "unknown_rank is set but the shape also lists dimensions (an unknown shape must not have any)"
            if dims
            else None
        )
    if len(dims) > MAX_DIMS:
        return f"it has {len(dims)} dimensions; TensorFlow allows at most {MAX_DIMS}"
    count = 1
    for position, size in enumerate(dims):
        if size < -1:
            return f"dimension {position} is {size}; a size must be at least -1 (-1 means unknown)"
        if size == -1:
            count = -1
        elif count >= 0:
            count *= size
            if count > INT64_MAX:
                return "it has more than 2**63 - 1 elements"
    return None


def element_count(dims: list[int]) -> int:
    """Elements of a fully defined shape (dims all >= 0)."""
    count = 1
    for size in dims:
        count *= size
    return count


def string_content_problem(content: bytes | MappedBytes, count: int) -> str | None:
    """Why TensorFlow cannot decode `content` as `count` strings (`DecodeStringList`), or None.

    The layout is `count` varint32 lengths followed by exactly that many bytes.
    """
    if isinstance(content, MappedBytes):
        content = bytes(content)
    position = 0
    total = 0
    end = len(content)
    for index in range(count):
        value = 0
        shift = 0
        while True:
            if position >= end:
                return f"it ends inside the length of string {index} ({count} lengths expected)"
            if shift > 28:
                return f"the length of string {index} is not a valid varint32"
            byte = content[position]
            position += 1
            value |= (byte & 0x7F) << shift
            if byte < 0x80:
                break
            shift += 7
        total += value & 0xFFFFFFFF
    if total != end - position:
        return f"its {count} lengths add up to {total} bytes but {end - position} bytes follow them"
    return None


# -- tensor bytes left in a mapped file ----------------------------------------------------------

# Bytes per piece when a mapped content is scanned: a few MiB in memory at a time, whatever its size.
CHUNK_BYTES = 4 << 20


class MappedBytes:
    """The `tensor_content` of a TensorProto, left in the file it was read from.

    Its length is known without reading; its bytes are read when asked
    (`bytes()`, `chunks()`, `count()`), a bounded piece at a time, so scanning
    a 2 GB weight holds a few MiB. `source` reads the file by position
    (tflint.read.mapped.FileSource: `source.read(offset, length)`), never through a map: a file
    truncated meanwhile is an error it raises, not a SIGBUS.
    """

    __slots__ = ("tensor", "source", "offset", "length")

    def __init__(self, tensor: Any, source: Any, offset: int, length: int) -> None:
        self.tensor = tensor  # held, so that the id it is registered under stays its own
        self.source = source
        self.offset = offset
        self.length = length

    def __len__(self) -> int:
        return self.length

    def __bool__(self) -> bool:
        return self.length > 0

    def __bytes__(self) -> bytes:
        return b"".join(self.chunks())

    def chunks(self, size: int | None = None) -> Iterator[bytes]:
        """The content in pieces of `size` bytes (default CHUNK_BYTES; the last one shorter)."""
        size = size or CHUNK_BYTES
        end = self.offset + self.length
        for start in range(self.offset, end, size):
            yield self.source.read(start, min(size, end - start))

    def read_into(self, start: int, buffer: memoryview) -> None:
        """Fill `buffer` with the content's bytes from `start` on (the caller keeps within `length`)."""
        self.source.read_into(self.offset + start, buffer)

    def count(self, value: int) -> int:
        """How many bytes equal `value` (bytes.count, a piece at a time)."""
        return sum(chunk.count(value) for chunk in self.chunks())


# id(TensorProto) -> its content in a mapped file. Filled by the reader of a mapped file and
# emptied when its artifact goes (tflint.read.mapped); empty for every other graph.
_MAPPED: dict[int, MappedBytes] = {}


def tensor_content(tensor: Any) -> bytes | MappedBytes:
    """A TensorProto's `tensor_content`: its bytes, or where they lie in a mapped file (empty: b"")."""
    if _MAPPED:
        found = _MAPPED.get(id(tensor))
        if found is not None:
            return found
    content: bytes = tensor.tensor_content
    return content


def mapped_content(tensor: Any) -> MappedBytes | None:
    """The content of `tensor` when it was left in a mapped file, else None (its bytes are in the message)."""
    return _MAPPED.get(id(tensor)) if _MAPPED else None


def content_chunks(content: bytes | MappedBytes, size: int | None = None) -> Iterable[bytes]:
    """`content` in pieces of at most `size` bytes (default CHUNK_BYTES, a multiple of every element size)."""
    size = size or CHUNK_BYTES
    if isinstance(content, MappedBytes):
        return content.chunks(size)
    if len(content) <= size:
        return (content,)
    return (content[start : start + size] for start in range(0, len(content), size))


def map_content(tensor: Any, source: Any, offset: int, length: int) -> int:
    """Register `tensor`'s content as `length` bytes at `offset` of the file `source` reads; returns the key."""
    key = id(tensor)
    _MAPPED[key] = MappedBytes(tensor, source, offset, length)
    return key


def unmap_contents(keys: Iterable[int]) -> None:
    """Forget contents registered by map_content (the artifact holding them is gone)."""
    for key in keys:
        _MAPPED.pop(key, None)


# -- NaN and infinity in floating-point values --------------------------------------------------
# Scanned on the raw bytes a chunk at a time (Python work per chunk, never per value), so a big
# weight costs little and one left in a mapped file is never in memory whole.


@functools.cache
def _table(mask: int, value: int) -> bytes:
    """A bytes.translate table mapping each byte b to 1 where `b & mask == value`, else 0 (built on first use)."""
    return bytes(1 if byte & mask == value else 0 for byte in range(256))


# Per dtype: element width in bytes, and (byte offset, mask, value) conditions on the little-endian
# bytes of each value that together mean "exponent all ones" (NaN or infinity). The translate tables
# they stand for are built when a tensor of the dtype is first scanned, not at import.
_EXPONENT_ALL_ONES: dict[int, tuple[int, tuple[tuple[int, int, int], ...]]] = {
    1: (4, ((3, 0x7F, 0x7F), (2, 0x80, 0x80))),  # float
    8: (4, ((3, 0x7F, 0x7F), (2, 0x80, 0x80))),  # complex64 parts
    2: (8, ((7, 0x7F, 0x7F), (6, 0xF0, 0xF0))),  # double
    18: (8, ((7, 0x7F, 0x7F), (6, 0xF0, 0xF0))),  # complex128 parts
    19: (2, ((1, 0x7C, 0x7C),)),  # half
    14: (2, ((1, 0x7F, 0x7F), (0, 0x80, 0x80))),  # bfloat16
    24: (1, ((0, 0x7C, 0x7C),)),  # float8_e5m2 (IEEE-like: inf and NaN)
    25: (1, ((0, 0x7F, 0x7F),)),  # float8_e4m3fn (NaN only)
    26: (1, ((0, 0xFF, 0x80),)),  # float8_e4m3fnuz (NaN is 0x80)
    27: (1, ((0, 0xFF, 0x80),)),  # float8_e4m3b11fnuz
    28: (1, ((0, 0xFF, 0x80),)),  # float8_e5m2fnuz
}
_COMPLEX = frozenset({8, 18})
NON_FINITE_DTYPES = frozenset(_EXPONENT_ALL_ONES)


def non_finite(tensor: Any) -> tuple[int, int, str] | None:
    """(count, index of the first, its value as text) of the NaN/infinite values stored in `tensor`, or None.

    The bytes are scanned a few MiB at a time (CHUNK_BYTES, a multiple of every width), so a
    weight left in a mapped file is never in memory whole.
    """
    dtype = tensor.dtype
    width, spec = _EXPONENT_ALL_ONES[dtype]
    conditions = tuple((offset, _table(mask, value)) for offset, mask, value in spec)
    content = tensor_content(tensor)
    pieces = content_chunks(content) if content else (_stored_values(tensor),)
    count = 0
    first: tuple[int, str] | None = None
    base = 0  # values before this piece
    for raw in pieces:
        usable = len(raw) - len(raw) % width  # only the last piece can end inside a value
        found = _piece_non_finite(raw[:usable] if usable < len(raw) else raw, width, conditions)
        if found is not None:
            count += found[0]
            if first is None:
                first = base + found[1], _value_text(dtype, raw[found[1] * width : (found[1] + 1) * width])
        base += usable // width
    if first is None:
        return None
    position, shown = first
    element = position // 2 if dtype in _COMPLEX else position
    return count, element, shown


def _piece_non_finite(raw: bytes, width: int, conditions: tuple[tuple[int, bytes], ...]) -> tuple[int, int] | None:
    """(count, index of the first) of the values of `raw` whose exponent bits are all ones, or None."""
    if not raw:
        return None
    flags = None
    for offset, table in conditions:
        column = raw[offset::width].translate(table)
        if 1 not in column:
            return None  # most weights: no value even passes the first test
        number = int.from_bytes(column, "big")
        flags = number if flags is None else flags & number
    if not flags:
        return None
    marks = flags.to_bytes(len(raw) // width, "big")
    return marks.count(1), marks.find(1)


def _stored_values(tensor: Any) -> bytes:
    """The `*_val` field of a TensorProto as little-endian bytes (tensor_content's layout)."""
    dtype = tensor.dtype
    if dtype in (1, 8):
        values = array("f", tensor.float_val if dtype == 1 else tensor.scomplex_val)
    elif dtype in (2, 18):
        values = array("d", tensor.double_val if dtype == 2 else tensor.dcomplex_val)
    elif dtype in (14, 19):
        values = array("H", (item & 0xFFFF for item in tensor.half_val))
    else:
        return bytes(tensor.float8_val)
    if sys.byteorder == "big":
        values.byteswap()
    return values.tobytes()


def _value_text(dtype: int, raw: bytes) -> str:
    """`nan`, `inf` or `-inf` for one stored value."""
    if dtype in (1, 8):
        value = struct.unpack("<f", raw)[0]
    elif dtype in (2, 18):
        value = struct.unpack("<d", raw)[0]
    elif dtype == 19:
        value = struct.unpack("<e", raw)[0]
    elif dtype == 14:
        value = struct.unpack("<f", b"\x00\x00" + raw)[0]
    elif dtype == 24:
        value = struct.unpack("<e", b"\x00" + raw)[0]
    else:
        return "nan"
    if math.isnan(value):
        return "nan"
    return "inf" if value > 0 else "-inf"


# -- memoized shape facts ------------------------------------------------------------------------


class ShapeFacts:
    """What the rules need to know about one TensorShapeProto."""

    __slots__ = ("dims", "unknown_rank", "problem", "tensor_problem", "elements")

    def __init__(self, dims: list[int], unknown_rank: bool) -> None:
        self.dims = dims
        self.unknown_rank = unknown_rank
        self.problem = partial_shape_problem(dims, unknown_rank)
        self.tensor_problem = partial_shape_problem(dims, False) if unknown_rank else self.problem
        # Elements of a tensor of this shape; None when it is not a valid, fully defined shape.
        self.elements: int | None = element_count(dims) if self.tensor_problem is None and -1 not in dims else None

    @property
    def text(self) -> str:
        """The shape as TensorFlow prints it."""
        return shape_text(self.dims, self.unknown_rank)


class ShapeMemo:
    """ShapeFacts per distinct shape: graphs repeat a few shapes many times.

    Keyed by the serialized shape, which protobuf builds faster than Python
    walks the dims.
    """

    __slots__ = ("_facts",)

    def __init__(self) -> None:
        self._facts: dict[bytes, ShapeFacts] = {}

    def facts(self, shape: Any) -> ShapeFacts:
        """The facts of a TensorShapeProto."""
        key = shape.SerializeToString()
        found = self._facts.get(key)
        if found is None:
            found = ShapeFacts([dim.size for dim in shape.dim], shape.unknown_rank)
            self._facts[key] = found
        return found


# -- which attrs of an op hold tensors or shapes --------------------------------


class OpPlan:
    """What the tensor rules read of one op: its tensor-typed and shape-typed attrs, its output count.

    `tensors` / `shapes` hold (attr name, is_list); `outputs` is the number of
    outputs when the OpDef fixes it (no `number_attr` / `type_list_attr`
    output), else None.
    """

    __slots__ = ("known", "tensors", "shapes", "outputs")

    def __init__(self, schema: Any) -> None:
        self.known = schema is not None
        if schema is None:
            self.tensors: tuple[tuple[str, bool], ...] = ()
            self.shapes: tuple[tuple[str, bool], ...] = ()
            self.outputs: int | None = None
            return
        attrs = schema.op_def.attr
        self.tensors = tuple(
            (attr.name, attr.type == "list(tensor)") for attr in attrs if attr.type in ("tensor", "list(tensor)")
        )
        self.shapes = tuple(
            (attr.name, attr.type == "list(shape)") for attr in attrs if attr.type in ("shape", "list(shape)")
        )
        variable = any(arg.number_attr or arg.type_list_attr for arg in schema.outputs)
        self.outputs = None if variable else len(schema.outputs)


class OpPlans:
    """OpPlan per op name for one graph (the graph's function library first, then the registry).

    `_`-prefixed attrs are never declared by OpDefs, so they never appear;
    unknown ops have no typed attrs: without an OpDef nothing says how
    TensorFlow reads an attr.
    """

    __slots__ = ("_graph", "table")

    def __init__(self, graph: GraphIndex) -> None:
        self._graph = graph
        # Plans made so far; hot loops may read it directly and call the OpPlans only on a miss.
        self.table: dict[str, OpPlan] = {}

    def __call__(self, op: str) -> OpPlan:
        plan = self.table.get(op)
        if plan is None:
            plan = OpPlan(self._graph.schema_for(op) if op else None)
            self.table[op] = plan
        return plan


def typed_values(
    node: Node, declared: tuple[tuple[str, bool], ...], kind: str
) -> Iterator[tuple[str, int | None, Any]]:
    """(attr key, list index or None, message) for each `kind` ("tensor" or "shape") the declared attrs hold.

    `declared` is an OpPlan's `tensors` or `shapes`. Values of another kind
    (attr-type-mismatch's findings) and placeholders (bound when a function
    is instantiated) are skipped.
    """
    attrs = node.attr
    for name, is_list in declared:
        value = attrs.get(name)
        if value is None:
            continue
        which = value.WhichOneof("value")
        if which == kind and not is_list:
            yield name, None, getattr(value, kind)
        elif which == "list" and is_list:
            for index, item in enumerate(getattr(value.list, kind)):
                yield name, index, item


def tensor_values(node: Node, plan: OpPlan) -> Iterator[tuple[str, int | None, Any]]:
    """(attr key, list index or None, TensorProto) for each tensor the node's tensor-typed attrs hold."""
    return typed_values(node, plan.tensors, "tensor")
