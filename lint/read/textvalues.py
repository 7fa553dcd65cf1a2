"""Canonical text of a message, transcoded to wire bytes for protobuf's C parser.

protobuf's Python text parser costs tens of microseconds per field; a text
graph's attr values (every Const tensor is a distinct text) made it the
slowest part of reading a text graph, and function libraries and op lists
(what is left of a file around its nodes) come next. TensorFlow writes text
in one layout (one field per line, `name: scalar`, `name {`, `}`), so this
module reads that layout a line at a time, encodes each scalar as protobuf's
wire format, and lets `FromString` (upb, C) build the message.

The contract: `message_bytes(text, descriptor)` returns bytes only for text
it fully understands, and then `FromString(bytes) == text_format.Parse(text)`.
Anything else (comments, `[1, 2]` lists, `'` quotes, `Any` expansions, hex
integers, `1.5f`, escapes whose meaning depends on Python's codecs, a field
given twice where the text parser refuses or overwrites it) gives None, and
the caller asks `text_format`, which also reports errors where they are.
"""

from __future__ import annotations

import codecs
import re
import struct
from collections.abc import Callable
from typing import Any, cast

from tflint.runtime.patterns import lazy
from tflint.wire import varint

_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
# A message holding one scalar, on three lines (`dim {` `size: 4` `}`).
_ONE_SCALAR = rf" *{_NAME} \{{\n *{_NAME}: [^\n]+\n *\}}\n"
_ONE_SCALARS = lazy(rf" *({_NAME}) \{{\n *({_NAME}): ([^\n]+)\n *\}}\n")  # (name, inner name, scalar)
# One token per line, or several: a message of one-scalar messages (`tensor_shape {`, its dims,
# `}`), or a message holding one scalar. (name, its one-scalar messages, inner name, inner scalar,
# scalar, unread line): `}` is all empty, `name {` has only a name.
# Compiled on first use: most texts are read through their layout (_layout), without tokens.
_TOKEN = lazy(
    rf" *(?:({_NAME})(?: \{{\n((?:{_ONE_SCALAR})+) *\}}| \{{\n *({_NAME}): ([^\n]+)\n *\}}| \{{|: ([^\n]+))|\}})\n"
    r"|([^\n]*\n)"
)

_DECIMAL = re.compile(r"-?(?:0|[1-9][0-9]*)")
# TensorFlow's and Python's float spellings; text_format also takes `1.5f`, `01.5` (an error), `1_0`...
_FLOAT = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]*)?(?:[eE][+-]?[0-9]+)?|-?inf|nan")
# After escaped backslashes are removed, an escape whose meaning escape_decode and protobuf's
# CUnescape (unicode_escape underneath) might not share: \u \U \N, unknown letters, and octal
# escapes above \377 (CUnescape fails on them, escape_decode wraps them round).
_UNSHARED_ESCAPE = re.compile(r"\\(?:[^\\'\"abfnrtvx0-7]|[4-7][0-7][0-7])")

# Text parsers nest in Python recursion and upb refuses binary nested deeper than 100.
MAX_DEPTH = 64
# Encoded fields remembered per field (dims, dtypes and flags repeat across values), short scalars only.
_MEMO_ENTRIES = 4096
_MEMO_SCALAR = 64
_MEMO_BLOCK = 512

_BOOLEANS = {
    "true": b"\x01",
    "t": b"\x01",
    "1": b"\x01",
    "True": b"\x01",
    "false": b"\x00",
    "f": b"\x00",
    "0": b"\x00",
    "False": b"\x00",
}


def _integer(low: int, high: int) -> Callable[[str], bytes | None]:
    """An encoder for decimal integers in [low, high]; negatives as 64-bit two's complement."""

    def encode(scalar: str) -> bytes | None:
        if len(scalar) > 21 or not _DECIMAL.fullmatch(scalar):  # int() refuses over 4300 digits
            return None
        number = int(scalar)
        if not low <= number <= high:
            return None
        return varint(number & 0xFFFFFFFFFFFFFFFF)

    return encode


def _float(scalar: str) -> bytes | None:
    if not _FLOAT.fullmatch(scalar):
        return None
    try:
        # struct rounds as upb's C cast does, and refuses what would overflow to inf.
        return struct.pack("<f", float(scalar))
    except OverflowError:
        return None


def _double(scalar: str) -> bytes | None:
    if not _FLOAT.fullmatch(scalar):
        return None
    return struct.pack("<d", float(scalar))


def _bytes_literal(scalar: str) -> bytes | None:
    """The bytes of one double-quoted literal, unescaped as text_format's CUnescape does."""
    if len(scalar) < 2 or scalar[0] != '"' or scalar[-1] != '"' or "\n" in scalar:
        return None
    body = scalar[1:-1]
    try:
        if "\\" not in body:
            return None if '"' in body else body.encode("utf-8")
        # One literal, checked without a regex loop per escape (a tensor's bytes are mostly escapes):
        # once escaped backslashes are removed, every quote is escaped and no backslash ends the body.
        plain = body.replace("\\\\", "")
        if plain.count('"') != plain.count('\\"') or plain[-1:] == "\\" or _UNSHARED_ESCAPE.search(plain):
            return None
        # Equal to CUnescape for every other escape (tests/read/test_textvalues.py), ten times faster.
        return codecs.escape_decode(body.encode("utf-8"))[0]
    except ValueError:  # \x without two hex digits (CUnescape pads one, refuses none); surrogates
        return None


def _length_delimited(scalar: str) -> bytes | None:
    data = _bytes_literal(scalar)
    return None if data is None else varint(len(data)) + data


def _string(scalar: str) -> bytes | None:
    data = _bytes_literal(scalar)
    if data is None:
        return None
    try:
        data.decode("utf-8")  # text_format refuses a string field that is not UTF-8
    except UnicodeDecodeError:
        return None
    return varint(len(data)) + data


def _enum(enum_type: Any) -> Callable[[str], bytes | None]:
    """An encoder for an enum by name, or by decimal number (any number if the enum is open)."""
    by_name = {value.name: varint(value.number & 0xFFFFFFFFFFFFFFFF) for value in enum_type.values}
    number = _integer(-(2**31), 2**31 - 1)
    known = {value.number for value in enum_type.values}

    def encode(scalar: str) -> bytes | None:
        found = by_name.get(scalar)
        if found is not None:
            return found
        if getattr(enum_type, "is_closed", True) and (not _DECIMAL.fullmatch(scalar) or int(scalar) not in known):
            return None
        return number(scalar)

    return encode


def _fixed(low: int, high: int, layout: str) -> Callable[[str], bytes | None]:
    """An encoder for decimal integers in [low, high] as fixed-width little-endian `layout`."""
    packer = struct.Struct(layout).pack

    def encode(scalar: str) -> bytes | None:
        if len(scalar) > 21 or not _DECIMAL.fullmatch(scalar):
            return None
        number = int(scalar)
        return packer(number) if low <= number <= high else None

    return encode


def _zigzag(low: int, high: int) -> Callable[[str], bytes | None]:
    """An encoder for decimal integers in [low, high] as zigzag varints (sint32, sint64)."""
    plain = _integer(low, high)

    def encode(scalar: str) -> bytes | None:
        if plain(scalar) is None:
            return None
        number = int(scalar)
        return varint(-2 * number - 1 if number < 0 else 2 * number)

    return encode


_INT32, _INT64, _UINT32, _UINT64 = (-(2**31), 2**31 - 1), (-(2**63), 2**63 - 1), (0, 2**32 - 1), (0, 2**64 - 1)


def _scalar_encoder(field: Any) -> tuple[int, Callable[[str], bytes | None]] | None:
    """(wire type, encoder) of a scalar field: 0 varint, 1 fixed 64-bit, 2 length-delimited, 5 fixed 32-bit."""
    kind = field.type
    if kind == field.TYPE_ENUM:
        return 0, _enum(field.enum_type)
    if kind in (field.TYPE_INT32, field.TYPE_INT64, field.TYPE_UINT32, field.TYPE_UINT64):
        return 0, _integer(
            *{
                field.TYPE_INT32: _INT32,
                field.TYPE_INT64: _INT64,
                field.TYPE_UINT32: _UINT32,
                field.TYPE_UINT64: _UINT64,
            }[kind]
        )
    if kind in (field.TYPE_SINT32, field.TYPE_SINT64):
        return 0, _zigzag(*(_INT32 if kind == field.TYPE_SINT32 else _INT64))
    fixed = {
        field.TYPE_FIXED32: (5, _UINT32, "<I"),
        field.TYPE_SFIXED32: (5, _INT32, "<i"),
        field.TYPE_FIXED64: (1, _UINT64, "<Q"),
        field.TYPE_SFIXED64: (1, _INT64, "<q"),
    }.get(kind)
    if fixed is not None:
        wire_type, (low, high), layout = fixed
        return wire_type, _fixed(low, high, layout)
    others = {
        field.TYPE_BOOL: (0, _BOOLEANS.get),
        field.TYPE_FLOAT: (5, _float),
        field.TYPE_DOUBLE: (1, _double),
        field.TYPE_BYTES: (2, _length_delimited),
        field.TYPE_STRING: (2, _string),
    }
    return cast("tuple[int, Callable[[str], bytes | None]] | None", others.get(kind))  # groups: not read


# A message's fields by name: (tag bytes, scalar encoder or None, presence key, sub-message
# fields or None, memo). The presence key is what may appear once: the field, or its oneof; None
# for repeated fields. The memo maps a scalar (or an (inner name, scalar) pair, for a message
# holding one scalar) to the field's whole encoding.
_Field = tuple[bytes, Any, Any, Any, dict[Any, Any]]
_Fields = dict[str, _Field]

# Every message's fields, by full name, built on first use.
_SCHEMAS: dict[str, _Fields] = {}


def _schema(descriptor: Any) -> _Fields:
    from tflint.protos import is_repeated

    if descriptor.full_name in _SCHEMAS:
        return _SCHEMAS[descriptor.full_name]  # done, or being built higher up (messages nest recursively)
    fields: _Fields = {}
    _SCHEMAS[descriptor.full_name] = fields
    for field in descriptor.fields:
        once = None if is_repeated(field) else (field.containing_oneof.name if field.containing_oneof else field.name)
        if field.type == field.TYPE_MESSAGE:
            fields[field.name] = (varint(field.number << 3 | 2), None, once, _schema(field.message_type), {})
            continue
        scalar = _scalar_encoder(field)
        if scalar is not None:
            wire_type, encode = scalar
            fields[field.name] = (varint(field.number << 3 | wire_type), encode, once, None, {})
    return fields


def _one_scalar_field(fields: _Fields, name: str, scalar: str) -> bytes | None:
    """`name: scalar` of a message with `fields`, encoded; None if `name` is no scalar field."""
    field = fields.get(name)
    return None if field is None else _scalar_field(field, scalar)


def _one_scalar_messages(fields: _Fields, text: str) -> bytes | None:
    """The body of a message with `fields` whose text is only messages holding one scalar each."""
    chunks: list[bytes] = []
    seen = set()
    for name, inner, scalar in _ONE_SCALARS.findall(text):
        field = fields.get(name)
        if field is None or field[3] is None:
            return None
        once = field[2]
        if once is not None:
            if once in seen:
                return None
            seen.add(once)
        body = _one_scalar_field(field[3], inner, scalar)
        if body is None:
            return None
        chunks += (field[0], varint(len(body)), body)
    return b"".join(chunks)


def _scalar_field(field: _Field, scalar: str) -> bytes | None:
    """`field: scalar` encoded (tag and value), or None."""
    encode = field[1]
    if encode is None:
        return None  # a message field written as a scalar
    value = encode(scalar)
    return None if value is None else field[0] + value


def message_bytes(text: str, descriptor: Any) -> bytes | None:
    """The wire bytes of the message (of type `descriptor`) whose canonical text is `text`, or None.

    `text` is whole lines (each ending in a newline), as a file or a block
    of it holds them. None means "ask text_format": the text is outside the
    layout this reads, or text_format would refuse it.
    """
    if text[-1:] not in ("\n", ""):
        return None
    full_name = descriptor.full_name
    fields = _SCHEMAS.get(full_name) or _schema(descriptor)
    if len(text) <= _LAYOUT_TEXT:
        # Values of a graph differ mostly in their scalars (a tensor's numbers): the rest, their
        # layout, is read once into a _Layout and each value of it is only its scalars' encodings.
        parts = _SCALAR_VALUE.split(text)
        shape = tuple(parts[::2])
        layouts = _LAYOUTS.get(full_name)
        if layouts is None:
            layouts = _LAYOUTS[full_name] = {}
        layout = layouts.get(shape, _UNREAD)
        if layout is _UNREAD:
            layout = _layout(parts, fields)
            if len(layouts) < _MEMO_ENTRIES:
                layouts[shape] = layout
        if layout is not None:
            return _filled(cast("_Layout", layout), parts[1::2])
    return _token_bytes(text, fields)


def _token_bytes(text: str, fields: _Fields) -> bytes | None:
    """message_bytes of `text` (ending in a newline) for a message with `fields`, token by token."""
    chunks: list[bytes] = []
    seen: set[str] = set()
    open_messages: list[tuple[bytes, _Fields, list[bytes], set[str]]] = []
    for name, one_scalars, inner, inner_scalar, scalar, unread in _TOKEN.findall(text):
        if not name:
            if unread or not open_messages:
                return None
            closed = b"".join(chunks)  # `}`
            tag, fields, chunks, seen = open_messages.pop()
            chunks += (tag, varint(len(closed)), closed)
            continue
        field = fields.get(name)
        if field is None:
            return None
        tag, _, once, sub_fields, memo = field
        if once is not None:
            if once in seen:
                return None  # text_format refuses most repeats of a singular field and overwrites the rest
            seen.add(once)
        if scalar:
            encoded = memo.get(scalar)
            if encoded is None:
                encoded = _encoded_scalar(field, scalar, memo)
                if encoded is None:
                    return None
            chunks.append(encoded)
            continue
        if sub_fields is None or len(open_messages) >= MAX_DEPTH - 2:
            return None
        if one_scalars or inner:
            key = one_scalars or (inner, inner_scalar)
            encoded = memo.get(key)
            if encoded is None:
                body = (
                    _one_scalar_messages(sub_fields, one_scalars)
                    if one_scalars
                    else _one_scalar_field(sub_fields, inner, inner_scalar)
                )
                if body is None:
                    return None
                encoded = tag + varint(len(body)) + body
                if len(one_scalars) + len(inner_scalar) <= _MEMO_BLOCK and len(memo) < _MEMO_ENTRIES:
                    memo[key] = encoded
            chunks.append(encoded)
            continue
        open_messages.append((tag, fields, chunks, seen))  # `name {`
        fields, chunks, seen = sub_fields, [], set()
    if open_messages:
        return None
    return b"".join(chunks)


# A text's layout: the text without the scalar of each `name: scalar` line. Texts up to this long
# are read through their layout's steps (_layout), at most _MEMO_ENTRIES layouts per message type.
_LAYOUT_TEXT = 4096
_SCALAR_VALUE = re.compile(r": ([^\n]+)\n")
_OPEN_LINE = re.compile(rf" *({_NAME}) \{{")
_CLOSE_LINE = re.compile(r" *\}")
_SCALAR_NAME = re.compile(rf" *({_NAME})")
# The steps of a layout, each (kind, data, memo): (_SCALAR, its field, the field's memo) for its
# next scalar, (_CONSTANT, bytes, None) for a part without scalars, (_OPEN, None, None) for
# `name {`, (_CLOSE, the message's tag, None) for its `}`, (_PACKED, (its field, packed tag, count),
# {scalar: value without tag}) for a run of numbers of one repeated field (a tensor's `float_val`s):
# packed, as protobuf writes them (the split read's child used to send them so; the 300k-node text
# graph's peak RSS varied more with unpacked ones). _filled tests kinds by number.
_SCALAR, _CONSTANT, _OPEN, _CLOSE, _PACKED = range(5)
_Layout = list[tuple[int, Any, Any]]
_LAYOUTS: dict[str, dict[tuple[str, ...], _Layout | None]] = {}  # by message type, then layout
_UNREAD: Any = object()
# Per repeated number field (by id: fields live as long as _SCHEMAS), its scalars' encodings without tag.
_NUMBERS: dict[int, dict[str, bytes]] = {}


def _layout(parts: list[str], fields: _Fields) -> _Layout | None:
    """The steps that encode texts split as `parts` (_SCALAR_VALUE.split) given their scalars, or None.

    None when the layout is outside what _token_bytes reads the same way (it
    then reads the text); otherwise _filled(steps, scalars) decodes to the message
    of _token_bytes' result (numbers packed, where it writes them one by one).
    """
    steps: _Layout = []
    open_messages: list[tuple[_Fields, set[str], int, bytes]] = []
    seen: set[str] = set()
    last = len(parts) - 1
    for index in range(0, len(parts), 2):  # the layout's pieces; each but the last ends with a scalar's name
        *lines, tail = parts[index].split("\n")
        for line in lines:
            opening = _OPEN_LINE.fullmatch(line)
            if opening is not None:
                field = fields.get(opening.group(1))
                if field is None or field[3] is None or len(open_messages) >= MAX_DEPTH - 2:
                    return None
                if not _first(field, seen):
                    return None
                open_messages.append((fields, seen, len(steps), field[0]))
                steps.append((_OPEN, None, None))
                fields, seen = field[3], set()
            elif _CLOSE_LINE.fullmatch(line) and open_messages:
                fields, seen, opened, tag = open_messages.pop()
                inner = steps[opened + 1 :]
                if all(kind == _CONSTANT for kind, _, _ in inner):  # encoded once, here
                    body = b"".join(data for _, data, _ in inner)
                    del steps[opened:]
                    steps.append((_CONSTANT, tag + varint(len(body)) + body, None))
                else:
                    steps.append((_CLOSE, tag, None))
            else:
                return None
        if index == last:
            return None if tail or open_messages else steps
        named = _SCALAR_NAME.fullmatch(tail)
        if named is None:
            return None
        field = fields.get(named.group(1))
        if field is None or field[1] is None or not _first(field, seen):
            return None
        if field[2] is None and field[0][0] & 7 in (0, 1, 5):  # a number of a repeated field: packed
            if steps and steps[-1][0] == _PACKED and steps[-1][1][0] is field:  # with the numbers before it
                _, (_, tag, count), numbers = steps[-1]
                steps[-1] = (_PACKED, (field, tag, count + 1), numbers)
            else:
                steps.append((_PACKED, (field, _packed_tag(field[0]), 1), _NUMBERS.setdefault(id(field), {})))
            continue
        steps.append((_SCALAR, field, field[4]))
    return None  # not reached: `parts` has an odd length


def _packed_tag(tag: bytes) -> bytes:
    """The tag of the field of `tag` with wire type 2 (length-delimited, as packed numbers are)."""
    number = 0
    for shift, byte in enumerate(tag):
        number |= (byte & 0x7F) << 7 * shift
    return varint(number >> 3 << 3 | 2)


def _first(field: _Field, seen: set[str]) -> bool:
    """Whether `field` may appear here: repeated, or the first of its field or oneof in `seen` (then noted)."""
    once = field[2]
    if once is None:
        return True
    if once in seen:
        return False  # text_format refuses most repeats of a singular field and overwrites the rest
    seen.add(once)
    return True


def _encoded_scalar(field: _Field, scalar: str, memo: dict[Any, bytes]) -> bytes | None:
    """The wire bytes of `scalar` as `field` (None: it does not encode), kept in the field's memo when short.

    The callers look `memo` up first, inline: this is the miss.
    """
    encoded = _scalar_field(field, scalar)
    if encoded is not None and len(scalar) <= _MEMO_SCALAR and len(memo) < _MEMO_ENTRIES:
        memo[scalar] = encoded
    return encoded


def _filled(layout: _Layout, scalars: list[str]) -> bytes | None:
    """The wire bytes of the text of `layout` with `scalars`, or None if one of them does not encode."""
    chunks: list[bytes] = []
    outer: list[list[bytes]] = []
    next_scalar = iter(scalars).__next__
    for kind, data, memo in layout:
        if not kind:  # _SCALAR
            scalar = next_scalar()
            encoded = memo.get(scalar)
            if encoded is None:
                encoded = _encoded_scalar(data, scalar, memo)
                if encoded is None:
                    return None
            chunks.append(encoded)
        elif kind == 1:  # _CONSTANT
            chunks.append(data)
        elif kind == 4:  # _PACKED
            field, packed_tag, count = data
            numbers = []
            for _ in range(count):
                scalar = next_scalar()
                number = memo.get(scalar)
                if number is None:
                    number = field[1](scalar)
                    if number is None:
                        return None
                    if len(scalar) <= _MEMO_SCALAR and len(memo) < _MEMO_ENTRIES:
                        memo[scalar] = number
                numbers.append(number)
            body = b"".join(numbers)
            chunks += (packed_tag, varint(len(body)), body)
        elif kind == 2:  # _OPEN
            outer.append(chunks)
            chunks = []
        else:
            body = b"".join(chunks)
            chunks = outer.pop()
            chunks += (data, varint(len(body)), body)
    return b"".join(chunks)


def read_message(text: str, message_class: Any) -> Any | None:
    """The message of `message_class` whose canonical text is `text`, decoded by upb; or None, as above."""
    data = message_bytes(text, message_class.DESCRIPTOR)
    if data is None:
        return None
    try:
        return message_class.FromString(data)
    except Exception:  # DecodeError: bytes upb refuses would be a bug here; text_format decides
        return None
