"""Tensors and shapes as TensorFlow reads them: shape validity, DataType sizes, the `*_val` field of each dtype.

Shared by the `tensor-content` and `invalid-shape` rules. Everything here was
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
