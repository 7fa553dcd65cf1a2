"""Floating-point constants hold no NaN or infinity.

A NaN in a frozen weight or a constant spreads through every result that
touches it; an infinity turns into NaN at the first `0 * inf` or
`inf - inf`. TensorFlow loads and runs such constants without a word, so
the model serves garbage. Typical causes: a diverged training run frozen
into the graph, a division by zero in a hand-made constant, an
uninitialized buffer, or a text-format value beyond the dtype's range
(`float_val: 3.5e38` is stored as `inf`). Intentional uses exist (a `-inf` attention mask, a
NaN sentinel): silence those with `ignore-nodes`. This is a warning.

Checks the `value` of `Const` and `HostConst` nodes in the graph and in
function bodies, for every floating-point dtype (`float`, `double`, `half`,
`bfloat16`, `complex64` / `complex128` (either part), and the float8 types
that have a NaN or infinity), whether the values are in `tensor_content` or
in the dtype's `*_val` field. Scanning is done on the raw bytes, so even
huge weights cost little. Off by default; the `serving` preset makes it a
warning.

How to fix: find where the value came from (re-freeze from a good
checkpoint), or replace infinities with large finite values.

Okay:
  node { name: "c" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } } float_val: 1.0
      float_val: -3.4e38 } } } }
Fail:
  node { name: "c" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } }   # non-finite-constant
      float_val: 1.0 float_val: nan } } } }
  node { name: "d" op: "Const" attr { key: "dtype" value { type: DT_DOUBLE } }
    attr { key: "value" value { tensor { dtype: DT_DOUBLE tensor_shape { }   # non-finite-constant
      double_val: -inf } } } }
"""

from __future__ import annotations

import math
import struct
import sys
from array import array
from collections.abc import Iterator, Mapping
from typing import Any

from tflint.finding import Issue, Severity
from tflint.tf.index import GraphIndex
from tflint.tf.op_signatures import dtype_name
from tflint.tf.tensors import content_chunks, tensor_content

ID = "non-finite-constant"
CATEGORY = "serving"
DEFAULT_SEVERITY = Severity.OFF
OPTIONS: dict[str, Any] = {}

CONST_OPS = frozenset({"Const", "HostConst"})


def _table(test: Any) -> bytes:
    """A bytes.translate table mapping each byte to 1 where `test(byte)` holds, else 0."""
    return bytes(1 if test(value) else 0 for value in range(256))


# Per dtype: element width in bytes, and (byte offset, translate table) conditions on the
# little-endian bytes of each value that together mean "exponent all ones" (NaN or infinity).
_EXPONENT_ALL_ONES: dict[int, tuple[int, tuple[tuple[int, bytes], ...]]] = {
    1: (4, ((3, _table(lambda b: b & 0x7F == 0x7F)), (2, _table(lambda b: b & 0x80 == 0x80)))),  # float
    8: (4, ((3, _table(lambda b: b & 0x7F == 0x7F)), (2, _table(lambda b: b & 0x80 == 0x80)))),  # complex64 parts
    2: (8, ((7, _table(lambda b: b & 0x7F == 0x7F)), (6, _table(lambda b: b & 0xF0 == 0xF0)))),  # double
    18: (8, ((7, _table(lambda b: b & 0x7F == 0x7F)), (6, _table(lambda b: b & 0xF0 == 0xF0)))),  # complex128 parts
    19: (2, ((1, _table(lambda b: b & 0x7C == 0x7C)),)),  # half
    14: (2, ((1, _table(lambda b: b & 0x7F == 0x7F)), (0, _table(lambda b: b & 0x80 == 0x80)))),  # bfloat16
    24: (1, ((0, _table(lambda b: b & 0x7C == 0x7C)),)),  # float8_e5m2 (IEEE-like: inf and NaN)
    25: (1, ((0, _table(lambda b: b & 0x7F == 0x7F)),)),  # float8_e4m3fn (NaN only)
    26: (1, ((0, _table(lambda b: b == 0x80)),)),  # float8_e4m3fnuz (NaN is 0x80)
    27: (1, ((0, _table(lambda b: b == 0x80)),)),  # float8_e4m3b11fnuz
    28: (1, ((0, _table(lambda b: b == 0x80)),)),  # float8_e5m2fnuz
}
_COMPLEX = frozenset({8, 18})


def check(graph: GraphIndex, options: Mapping[str, Any]) -> Iterator[Issue]:
    """Yield an issue for each floating-point Const holding a NaN or an infinity."""
    for scope in graph.scopes():
        for node in scope.nodes:
            if node.op not in CONST_OPS or "value" not in node.attr:
                continue
            value = node.attr["value"]
            if value.WhichOneof("value") != "tensor" or value.tensor.dtype not in _EXPONENT_ALL_ONES:
                continue
            found = non_finite(value.tensor)
            if found is None:
                continue
            count, first, shown = found
            what = "a NaN or infinite value" if count == 1 else f"{count} NaN or infinite values"
            yield Issue(
                node,
                f"Node '{node.name}' (op {node.op}, {dtype_name(value.tensor.dtype)}) holds {what} (element {first} "
                f"is {shown})",
                field="value",
            )


def non_finite(tensor: Any) -> tuple[int, int, str] | None:
    """(count, index of the first, its value as text) of the NaN/infinite values stored in `tensor`, or None.

    The bytes are scanned a few MiB at a time (CHUNK_BYTES, a multiple of every width), so a
    weight left in a mapped file is never in memory whole.
    """
    dtype = tensor.dtype
    width, conditions = _EXPONENT_ALL_ONES[dtype]
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
