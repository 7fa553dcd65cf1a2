"""A fast reader for text graphs in TensorFlow's canonical layout.

protobuf's text parser reads about 2 MB/s: a 100k-node graph takes 15 s.
TensorFlow (and protobuf's printer) write text in one fixed layout: one field
per line, two spaces per level, fields in field-number order. This reader
matches whole `node { ... }` blocks of that layout with one compiled regex,
so the structure is scanned in C; Python only touches each node once.

It is conservative: whatever it does not recognise is left in a residual
text that protobuf's own parser reads (line numbers kept: each consumed block
becomes the same number of newlines). If the residual still holds nodes, or
anything looks unusual, the caller falls back to the general reader, so the
two always agree (tests/test_textfast.py checks that on real graphs).

Attr values are decoded once per distinct text (graphs repeat `T: DT_FLOAT`
thousands of times), into plain AttrValue messages: through wire bytes
(`textvalues`) when the text is in TensorFlow's layout, by protobuf's text
parser otherwise. Nodes whose attr texts are equal share one attr dict.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator, Mapping
from typing import Any

from tflint.textpos import excess_nesting
from tflint.textvalues import attr_value_bytes

# A double-quoted text-format string body: no raw newline, backslash escapes allowed.
_STRING = r'[^"\\\n]*(?:\\.[^"\\\n]*)*'


class NotCanonical(Exception):
    """The text is not in the layout this reader handles; use the general reader."""


def _node_pattern(indent: str) -> re.Pattern[str]:
    inner = indent + "  "
    deeper = indent + "    "
    return re.compile(
        rf"^{indent}node \{{\n"
        rf'(?:{inner}name: "(?P<name>{_STRING})"\n)?'
        rf'(?:{inner}op: "(?P<op>{_STRING})"\n)?'
        rf'(?P<inputs>(?:{inner}input: "{_STRING}"\n)*)'
        rf'(?:{inner}device: "(?P<device>{_STRING})"\n)?'
        rf"(?P<attrs>(?:{inner}attr \{{\n(?:{deeper}.*\n)*?{inner}\}}\n)*)"
        rf"(?P<extra>(?:{inner}(?:experimental_debug_info|experimental_type) \{{\n(?:{deeper}.*\n)*?{inner}\}}\n)*)"
        rf"{indent}\}}\n",
        re.MULTILINE,
    )


_NODE_PATTERNS = {depth: _node_pattern(" " * depth) for depth in (0, 2, 4)}
_INPUT = re.compile(rf'^ *input: "({_STRING})"$', re.MULTILINE)
_ATTR_ENTRY = re.compile(
    rf'(?P<indent> *)attr \{{\n(?P=indent)  key: "(?P<key>{_STRING})"\n'
    r"(?:(?P=indent)  value \{\n(?P<value>(?:(?P=indent)    .*\n)*?)(?P=indent)  \}\n)?"
    r"(?P=indent)\}\n"
)


class TextNode:
    """A NodeDef read by the fast reader: the fields rules read, and positions."""

    __slots__ = ("name", "op", "input", "device", "attr", "line", "column", "attr_positions")

    def __init__(self, name: str, op: str, inputs: list[str], device: str, attr: Mapping[str, Any], line: int, column: int, attr_positions: Mapping[str, tuple[int, int]]) -> None:
        self.name = name
        self.op = op
        self.input = inputs
        self.device = device
        self.attr = attr
        self.line = line
        self.column = column
        self.attr_positions = attr_positions


class _AttrBlock:
    """One distinct attrs text: its decoded values and each key's offset within it."""

    __slots__ = ("values", "offsets")

    def __init__(self, values: dict[str, Any], offsets: dict[str, tuple[int, int]]) -> None:
        self.values = values
        self.offsets = offsets


class _ShiftedPositions(Mapping):
    """Attr positions of one node: the block's relative offsets moved to the node's lines."""

    __slots__ = ("_offsets", "_first_line")

    def __init__(self, offsets: dict[str, tuple[int, int]], first_line: int) -> None:
        self._offsets = offsets
        self._first_line = first_line

    def __getitem__(self, key: str) -> tuple[int, int]:
        line, column = self._offsets[key]
        return self._first_line + line, column

    def __iter__(self) -> Iterator[str]:
        return iter(self._offsets)

    def __len__(self) -> int:
        return len(self._offsets)


class LineMap:
    """Maps lines of a residual text (node blocks cut out) back to the original text.

    Blocks start and end at line boundaries, so each kept segment keeps its
    columns and only shifts its line numbers.
    """

    def __init__(self) -> None:
        self._residual_lines: list[int] = []
        self._original_lines: list[int] = []
        self._next_residual_line = 1

    def add(self, segment: str, original_line: int) -> None:
        """Record that `segment` (whole lines) starts at `original_line` of the original."""
        self._residual_lines.append(self._next_residual_line)
        self._original_lines.append(original_line)
        self._next_residual_line += segment.count("\n")

    def original(self, line: int) -> int:
        """The original line number of residual line `line`."""
        index = bisect.bisect_right(self._residual_lines, line) - 1
        return self._original_lines[index] + line - self._residual_lines[index]


class FastReader:
    """Reads the node blocks of one text file; caches shared attr texts."""

    def __init__(self) -> None:
        self._blocks: dict[str, _AttrBlock] = {}
        self._values: dict[str, Any] = {}

    def read_nodes(self, text: str, depth: int) -> tuple[list[tuple[int, TextNode]], str, LineMap]:
        """Find every node block at indentation `depth`.

        Returns ([(offset, node)], residual, line_map): the residual is
        `text` without the node blocks, and `line_map` turns its line numbers
        back into `text`'s. Raises NotCanonical when something is outside
        this reader's layout.
        """
        pattern = _NODE_PATTERNS[depth]
        inner = depth + 2
        nodes: list[tuple[int, TextNode]] = []
        pieces: list[str] = []
        line_map = LineMap()
        kept_from = 0
        kept_line = 1
        line = 1
        counted_to = 0
        for match in pattern.finditer(text):
            start = match.start()
            line += text.count("\n", counted_to, start)
            counted_to = start
            name, op, inputs_text, device, attrs_text = match.group("name", "op", "inputs", "device", "attrs")
            inputs = _INPUT.findall(inputs_text) if inputs_text else []
            header_lines = (name is not None) + (op is not None) + len(inputs) + (device is not None)
            header = text[start : match.start("attrs")]
            if "\\" in header:
                name, op, inputs, device = _unescape_header(header)
            block = self._attr_block(attrs_text, depth) if attrs_text else _EMPTY_BLOCK
            node = TextNode(
                name or "",
                op or "",
                inputs,
                device or "",
                block.values,
                line + 1 if name is not None else line,
                inner + 1 if name is not None else depth + 1,
                _ShiftedPositions(block.offsets, line + 1 + header_lines) if block.offsets else _NO_POSITIONS,
            )
            nodes.append((start, node))
            if start > kept_from:
                pieces.append(text[kept_from:start])
                line_map.add(pieces[-1], kept_line)
            kept_from = match.end()
            kept_line = line + match.group(0).count("\n")
        pieces.append(text[kept_from:])
        line_map.add(pieces[-1], kept_line)
        return nodes, "".join(pieces), line_map

    def _attr_block(self, attrs_text: str, depth: int) -> _AttrBlock:
        block = self._blocks.get(attrs_text)
        if block is not None:
            return block
        values: dict[str, Any] = {}
        offsets: dict[str, tuple[int, int]] = {}
        position = 0
        line = 0
        expected_indent = " " * (depth + 2)
        for entry in _ATTR_ENTRY.finditer(attrs_text):
            if entry.start() != position or entry.group("indent") != expected_indent:
                raise NotCanonical("unexpected text between attr entries")
            key = entry.group("key")
            if "\\" in key:
                raise NotCanonical("escaped attr key")
            value_text = entry.group("value") or ""
            value = self._values.get(value_text)
            if value is None:
                value = self._values[value_text] = _parse_attr_value(value_text)
            values[key] = value  # a repeated key: the last entry wins, as in protobuf maps
            offsets[key] = (line + 1, depth + 5)
            line += entry.group(0).count("\n")
            position = entry.end()
        if position != len(attrs_text):
            raise NotCanonical("unrecognised attr entry")
        block = _AttrBlock(values, offsets)
        self._blocks[attrs_text] = block
        return block


_EMPTY_BLOCK = _AttrBlock({}, {})
_NO_POSITIONS: Mapping[str, tuple[int, int]] = {}


def _parse_attr_value(text: str) -> Any:
    """The AttrValue whose text body is `text`; NotCanonical if protobuf's parser refuses it.

    The general reader then reports the error at its place in the file.
    """
    from google.protobuf import text_format
    from google.protobuf.message import DecodeError

    from tflint import protos

    data = attr_value_bytes(text)
    if data is not None:
        try:
            return protos.AttrValue.FromString(data)
        except DecodeError:  # a transcoder bug: let the text parser decide
            pass
    if excess_nesting(text) is not None:
        raise NotCanonical("attr value nested too deeply")
    value = protos.AttrValue()
    try:
        text_format.Parse(text, value, descriptor_pool=protos.POOL)
    except (text_format.ParseError, ValueError) as error:
        raise NotCanonical(f"attr value does not parse: {error}") from None
    return value


def _unescape_header(header: str) -> tuple[str, str, list[str], str]:
    """Let protobuf itself read the name/op/input/device lines of a node with escapes."""
    from google.protobuf import text_format

    from tflint import protos

    node = protos.NodeDef()
    try:
        text_format.Parse(header.split("\n", 1)[1], node, descriptor_pool=protos.POOL)
    except text_format.ParseError as error:
        raise NotCanonical(f"node header does not parse: {error}") from None
    return node.name, node.op, list(node.input), node.device
