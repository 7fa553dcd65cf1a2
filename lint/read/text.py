"""A fast reader for text graphs in TensorFlow's canonical layout.

protobuf's text parser reads about 2 MB/s: a 100k-node graph takes 15 s.
TensorFlow (and protobuf's printer) write text in one fixed layout: one field
per line, two spaces per level, fields in field-number order. This reader
finds each `node {` block of that layout by its first and last lines, reads
its name, op, inputs and device with one regex, and its attrs as one text,
decoded once however many nodes repeat it; the scanning is done in C, and
Python touches each node once, building the `tflint.tf.node.Node` rules see.

It is conservative: whatever it does not recognise is left in a residual
text that protobuf's own parser reads (a LineMap keeps its line numbers
those of the file). If the residual still holds nodes, or anything looks
unusual, the caller falls back to the general reader, so the two always
agree (tests/read/test_text.py checks that on real graphs).

Attr values are decoded once per distinct text (graphs repeat `T: DT_FLOAT`
thousands of times), into plain AttrValue messages: through wire bytes
(`textvalues`) when the text is in TensorFlow's layout, by protobuf's text
parser otherwise. Nodes whose attr texts are equal share one attr dict.
"""

from __future__ import annotations

import bisect
import re
import sys
from array import array
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from tflint.read.positions import excess_nesting
from tflint.read.textvalues import message_bytes, read_message
from tflint.tf.node import AttrLines, Node
from tflint.wire import varint

# A double-quoted text-format string body: no raw newline, backslash escapes allowed.
_STRING = r'[^"\\\n]*(?:\\.[^"\\\n]*)*'


class NotCanonical(Exception):
    """The text is not in the layout this reader handles; use the general reader."""


def _node_header(indent: str, string: str) -> re.Pattern[str]:
    """The `node {` line of a block at `indent` and its name, op, input and device lines.

    The lookahead checks that the header ends where attrs, extras or the
    closing brace begin; `string` is the pattern of a string's body.
    """
    inner = indent + "  "
    field = rf'{inner}input: "{string}"\n'
    # `(?:x|)` rather than `(?:x)?`, and the first two inputs unrolled: the same matches, but sre
    # runs a repeat with a context it allocates, a branch without (a fifth of the match's cost).
    return re.compile(
        rf"{indent}node \{{\n"
        rf'(?:{inner}name: "(?P<name>{string})"\n|)'
        rf'(?:{inner}op: "(?P<op>{string})"\n|)'
        rf"(?P<inputs>{field}(?:{field}(?:{field})*|)|)"
        rf'(?:{inner}device: "(?P<device>{string})"\n|)'
        rf"(?={inner}attr \{{\n|{inner}experimental_|{indent}\}}\n)"
    )


def _node_extras(indent: str) -> re.Pattern[str]:
    """The fields after a node's attrs, kept but not read: debug info and full type."""
    inner = indent + "  "
    return re.compile(
        rf"(?:{inner}(?:experimental_debug_info|experimental_type) \{{\n(?:{inner}  [^\n]*\n)*{inner}\}}\n)*"
    )


class _PerDepth(dict[int, re.Pattern[str]]):
    """Patterns by the depth of node blocks, each compiled when first used.

    A file has node blocks at one depth (0 in a GraphDef, 2 in a MetaGraphDef, 4 in a SavedModel):
    compiling the patterns of all three at import took 3-4 ms of every run on a text file.
    """

    def __init__(self, build: Callable[[str], re.Pattern[str]]) -> None:
        super().__init__()
        self._build = build

    def __missing__(self, depth: int) -> re.Pattern[str]:
        pattern = self[depth] = self._build(" " * depth)
        return pattern


# Headers without escapes, read as they are; with escapes, protobuf reads them (_unescape_header).
_PLAIN_HEADERS = _PerDepth(lambda indent: _node_header(indent, r'[^"\\\n]*'))
_ESCAPED_HEADERS = _PerDepth(lambda indent: _node_header(indent, _STRING))
_NODE_EXTRAS = _PerDepth(_node_extras)


def _attr_entry(indent: str) -> str:
    """One `attr { key value }` entry of a node at `indent`: (key, "value" if present, value body)."""
    inner = indent + "  "
    return (
        rf'{inner}attr \{{\n{inner}  key: "({_STRING})"\n'
        rf"(?:{inner}  (value) \{{\n((?:{inner}    [^\n]*\n)*){inner}  \}}\n)?"
        rf"{inner}\}}\n"
    )


def _attr_entry_lengths(indent: str) -> tuple[int, int]:
    """The length of an entry at `indent` without its key and value text: (without a value, with one)."""
    inner = indent + "  "
    bare = len(f'{inner}attr {{\n{inner}  key: ""\n{inner}}}\n')
    return bare, bare + len(f"{inner}  value {{\n{inner}  }}\n")


_ATTR_ENTRIES = _PerDepth(lambda indent: re.compile(_attr_entry(indent)))
_ATTR_ENTRY_LENGTHS = {depth: _attr_entry_lengths(" " * depth) for depth in (0, 2, 4)}


class _AttrBlock(AttrLines):
    """One distinct attrs text: its values, its length in lines, each key's line within it.

    Nodes with this text share it as their attr positions (AttrLines) when their header has
    a line per field it sets (the usual case); others get a _ShiftedPositions of it.
    """

    __slots__ = ("values", "lines")

    def __init__(self, values: dict[str, Any], lines: int, key_lines: dict[str, int], column: int) -> None:
        self.key_lines = key_lines  # AttrLines' fields, set here: one call less per distinct attrs text
        self.column = column
        self.values = values
        self.lines = lines


class _NumberedBlock(_AttrBlock):
    """A block of a reader that numbers them (the split read's child): its index in the reader's _created.

    Only there: the other readers' blocks, kept for the whole run, do without the slot.
    """

    __slots__ = ("number",)

    def __init__(self, values: dict[str, Any], lines: int, key_lines: dict[str, int], column: int, number: int) -> None:
        super().__init__(values, lines, key_lines, column)
        self.number = number  # -1: the empty block


class _ShiftedPositions(Mapping[str, tuple[int, int]]):
    """Attr positions of one node: the block's key lines moved to the node's lines."""

    __slots__ = ("_block", "_first_line")

    def __init__(self, block: _AttrBlock, first_line: int) -> None:
        self._block = block
        self._first_line = first_line

    def __getitem__(self, key: str) -> tuple[int, int]:
        return self._first_line + self._block.key_lines[key], self._block.column

    def __iter__(self) -> Iterator[str]:
        return iter(self._block.key_lines)

    def __len__(self) -> int:
        return len(self._block.key_lines)


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

    def extend(self, later: LineMap, lines_before: int) -> None:
        """Append the map of the residual that follows this one's `lines_before` lines."""
        self._residual_lines.extend(line + lines_before for line in later._residual_lines)
        self._original_lines.extend(later._original_lines)
        self._next_residual_line = later._next_residual_line + lines_before

    def portable(self) -> tuple[list[int], list[int], int]:
        """This map as plain data (for marshal); LineMap.restored turns it back into a map."""
        return self._residual_lines, self._original_lines, self._next_residual_line

    @classmethod
    def restored(cls, data: tuple[list[int], list[int], int]) -> LineMap:
        """The map whose portable() gave `data`."""
        line_map = cls()
        line_map._residual_lines, line_map._original_lines, line_map._next_residual_line = data
        return line_map

    def original(self, line: int) -> int:
        """The original line number of residual line `line`."""
        index = bisect.bisect_right(self._residual_lines, line) - 1
        return self._original_lines[index] + line - self._residual_lines[index]


# Value texts longer than this are tensors, rarely in two different attr blocks: not remembered.
_LONG_VALUE = 512


class FastReader:
    """Reads the node blocks of one text file; caches shared attr texts."""

    def __init__(self, numbered: bool = False) -> None:
        """A reader; `numbered` for read_nodes' `as_rows`, whose rows name their blocks by number."""
        from tflint import protos

        self._attr_value = protos.AttrValue
        self._blocks: dict[int, tuple[int, int, _AttrBlock]] = {}  # by hash: the first text's span
        self._colliding: dict[str, _AttrBlock] = {}  # texts whose hash an earlier text has
        self._created: list[_AttrBlock] | None = [] if numbered else None  # every block read, in order
        self._values: dict[str, Any] = {}
        self._keys: dict[str, str] = {}  # one string per attr key
        # One key_lines dict per layout (keys and their lines): most attr blocks differ in values only.
        self._layouts: dict[tuple[tuple[str, int], ...], dict[str, int]] = {}
        # Values encoded but not decoded yet (_decode_pending): their wire bytes and texts, the
        # attr dicts holding their _Pending stand-ins, and the texts self._values maps to one.
        self._pending: list[bytes] = []
        self._pending_texts: list[str] = []
        self._pending_dicts: list[dict[str, Any]] = []
        self._pending_cached: list[str] = []

    def read_nodes(
        self, text: str, depth: int, begin: int = 0, end: int | None = None, *, as_rows: bool = False
    ) -> tuple[list[Any], array[int], str, LineMap]:
        """Read every node block at indentation `depth` (of `text[begin:end]`, whole lines).

        Returns (nodes, offsets, residual, line_map): each node's offset in
        `text`, the residual (the text without the node blocks) and a map from
        the residual's line numbers back to `text`'s. Raises NotCanonical
        when a node block is outside this reader's layout. With `as_rows` (a
        reader made `numbered`), each node is a tuple (name, op, device, inputs,
        its _AttrBlock's number, line, column, the line its attrs start on if its
        header is unusual (an empty op or device written out), else 0), for a
        process that sends them elsewhere, and attr values are left encoded
        (_portable sends their bytes).
        """
        if end is None:
            end = len(text)
        indent = " " * depth
        plain_header = _PLAIN_HEADERS[depth]
        opening = indent + "node {\n"
        closing = "\n" + indent + "}\n"
        closing_tail = len(closing) - 1
        extras_line = "\n" + indent + "  experimental_"
        extras_probe = extras_line[1:]  # in every attrs text followed by extras, and rarely in others
        name_column = depth + 3
        nodes: list[Any] = []
        offsets = array("q")
        # Node names as read, so that inputs naming a node share its string (a third of the memory).
        names: dict[str, str] = {}
        # Methods and names the loop uses, bound once (each lookup costs as much as a small step).
        header_match = plain_header.match
        find = text.find
        add_node = nodes.append
        add_offset = offsets.append
        blocks_get = self._blocks.get
        intern = sys.intern
        node_class = Node
        pieces: list[str] = []
        line_map = LineMap()
        kept_from = begin
        kept_line = 1 + text.count("\n", 0, begin)
        start = _line_starting(text, opening, begin)
        inputs: tuple[str, ...]
        while 0 <= start < end:
            match = header_match(text, start)
            if match is not None:
                name, op, inputs_text, device = match.groups()  # its groups: name, op, inputs, device
                named = name is not None
                if inputs_text:
                    quoted = inputs_text.split('"')[1::2]  # without escapes, every other piece is an input
                    inputs = tuple(map(names.get, quoted, quoted))  # never None: the default
                else:
                    inputs = ()
                header_lines = 1 + named + (op is not None) + len(inputs) + (device is not None)
                # Whether its attrs start where Node.attr_position looks: not after an empty op or device.
                usual_header = op != "" and device != ""
            elif not text.startswith(opening, start):  # `start` is where the last block ended: no node there
                start = _line_starting(text, opening, start)
                continue
            else:
                match = _ESCAPED_HEADERS[depth].match(text, start)
                if match is None:
                    raise NotCanonical("a node header outside the layout")
                header = match.group()
                named = match.group("name") is not None
                name, op, inputs, device = _unescape_header(header)
                header_lines = header.count("\n")
                usual_header = header_lines == 1 + named + (op != "") + len(inputs) + (device != "")
            line = kept_line if start == kept_from else kept_line + text.count("\n", kept_from, start)
            body_start = match.end()
            # The block ends at the first line holding only its closing brace: lines inside are
            # deeper, and what lies between is checked (attrs, extras) or left to the residual parse.
            close_line = find(closing, body_start - 1) + 1
            if not close_line:
                raise NotCanonical("node block without its closing brace")
            node_lines = header_lines + 1
            attrs_text = text[body_start:close_line]
            if extras_probe in attrs_text:  # debug info or a full type after the attrs, perhaps
                extras = find(extras_line, body_start - 1, close_line) + 1 or close_line
                if extras < close_line:
                    if not _NODE_EXTRAS[depth].fullmatch(text, extras, close_line):
                        raise NotCanonical("unexpected fields after a node's attrs")
                    node_lines += text.count("\n", extras, close_line)
                attrs_text = text[body_start:extras]
            if attrs_text:
                text_hash = hash(attrs_text)
                seen = blocks_get(text_hash)  # _block_read's common case, inline
                if seen is not None and seen[1] - seen[0] == len(attrs_text) and text.startswith(attrs_text, seen[0]):
                    block = seen[2]
                else:
                    block = self._block_read(text, attrs_text, text_hash) or self._unseen_attr_block(
                        attrs_text, text_hash, body_start, depth
                    )
            else:
                block = _EMPTY_BLOCK
            if named:
                names[name] = name
                position = (line + 1, name_column)
            else:  # positioned at its `node {`, as the general reader does
                name, position = "", (line, depth + 1)
            op = intern(op) if op else ""
            device = intern(device) if device else ""
            positions: Mapping[str, tuple[int, int]] | AttrLines
            if as_rows:
                number = block.number  # type: ignore[attr-defined]  # a numbered reader's blocks, and the empty one
                # The line its attrs start on when not where Node.attr_position looks for them, else 0.
                add_node((name, op, device, inputs, number, *position, 0 if usual_header else line + header_lines))
            else:
                if not block.key_lines:
                    positions = _NO_POSITIONS
                elif usual_header:
                    positions = block  # as in rebuilt
                else:
                    positions = _ShiftedPositions(block, line + header_lines)
                add_node(node_class(name, op, device, block.values, inputs, None, len(nodes), position, positions))
            add_offset(start)
            if start > kept_from:
                pieces.append(text[kept_from:start])
                line_map.add(pieces[-1], kept_line)
            kept_line = line + node_lines + block.lines
            start = kept_from = close_line + closing_tail  # the next node's, most often
        pieces.append(text[kept_from:end])
        line_map.add(pieces[-1], kept_line)
        if not as_rows:
            self._decode_pending()
        return nodes, offsets, "".join(pieces), line_map

    def rebuilt(
        self, text: str, payload: tuple[Any, ...], first_ordinal: int
    ) -> tuple[list[Node], array[int], str, LineMap] | None:
        """The nodes read_nodes_split's child read, as read_nodes returns them (None: read them here).

        A block this reader has read too (the same attrs text) gives its nodes
        this reader's shared attr dict, as if one reader had read the file.
        None when upb refuses one of the values the child encoded (read_nodes
        then decides what it is).
        """
        _, rows, blocks, values, offsets_bytes, residual, line_map = payload
        try:
            messages = decoded_together(values)
        except Exception:  # DecodeError
            return None
        keys = self._keys
        rebuilt: list[_AttrBlock] = []
        block: _AttrBlock | None
        for entries, (begin, end), shape in blocks:
            block = None if shape is not None else _EMPTY_BLOCK
            if block is None and end > begin:
                attrs_text = text[begin:end]
                block = self._block_read(text, attrs_text, hash(attrs_text))
            if block is None:
                lines, key_lines, column = shape
                key_lines = self._layouts.setdefault(tuple(key_lines.items()), key_lines)
                attrs = {keys.setdefault(key, key): messages[number] for key, number in entries}
                block = _AttrBlock(attrs, lines, key_lines, column)
            rebuilt.append(block)
        rebuilt.append(_EMPTY_BLOCK)  # number -1
        nodes: list[Node] = []
        append = nodes.append
        positions: Mapping[str, tuple[int, int]] | AttrLines
        # Ops and devices come interned: the child interned them, and marshal keeps that.
        for ordinal, (name, op, device, inputs, number, line, column, first_line) in enumerate(rows, first_ordinal):
            block = rebuilt[number]
            if not block.key_lines:
                positions = _NO_POSITIONS
            elif not first_line:
                positions = block  # where Node.attr_position finds its attrs: nothing to keep per node
            else:  # a header with an empty op or device written out: its attrs start a line further
                positions = _ShiftedPositions(block, first_line)
            append(Node(name, op, device, block.values, inputs, None, ordinal, (line, column), positions))
        offsets = array("q")
        offsets.frombytes(offsets_bytes)
        return nodes, offsets, residual, LineMap.restored(line_map)

    def _block_read(self, text: str, attrs_text: str, text_hash: int) -> _AttrBlock | None:
        """The block this reader already read from an attrs text equal to `attrs_text`, or None.

        Blocks are found by the hash of their text (`self._blocks`) and compared with
        their first occurrence in the file: keeping every distinct attrs text (each
        tensor's) was a tenth of the peak memory. A text whose hash an earlier,
        different text has is kept whole, in `self._colliding`.
        """
        seen = self._blocks.get(text_hash)
        if seen is None:
            return None
        if seen[1] - seen[0] == len(attrs_text) and text.startswith(attrs_text, seen[0]):
            return seen[2]
        return self._colliding.get(attrs_text)

    def _unseen_attr_block(self, attrs_text: str, text_hash: int, start: int, depth: int) -> _AttrBlock:
        """The block of `attrs_text` (at `start` in the file), which _block_read did not find."""
        seen = self._blocks.get(text_hash)
        values: dict[str, Any] = {}
        key_lines: dict[str, int] = {}
        keys = self._keys
        line = 0
        bare, valued = _ATTR_ENTRY_LENGTHS[depth]
        read = 0  # entries found cover the text exactly when their lengths add up to its length
        pending = False
        for key, has_value, value_text in _ATTR_ENTRIES[depth].findall(attrs_text):
            read += len(key) + (valued + len(value_text) if has_value else bare)
            if "\\" in key:
                raise NotCanonical("escaped attr key")
            if len(value_text) > _LONG_VALUE:
                value = self._parse_value(value_text)
            else:
                value = self._values.get(value_text)
                if value is None:
                    value = self._values[value_text] = self._parse_value(value_text)
                    if value.__class__ is _Pending:
                        self._pending_cached.append(value_text)
            if value.__class__ is _Pending:
                pending = True
            key = keys.setdefault(key, key)
            values[key] = value  # a repeated key: the last entry wins, as in protobuf maps
            key_lines.setdefault(key, line + 1)  # and its position is the first, as the general reader's
            line += 5 + value_text.count("\n") if has_value else 3
        if read != len(attrs_text):
            raise NotCanonical("unrecognised attr entries")
        if pending:
            self._pending_dicts.append(values)
        key_lines = self._layouts.setdefault(tuple(key_lines.items()), key_lines)
        if self._created is None:
            block = _AttrBlock(values, line, key_lines, depth + 5)
        else:
            block = _NumberedBlock(values, line, key_lines, depth + 5, len(self._created))
            self._created.append(block)
        if seen is None:
            self._blocks[text_hash] = (start, start + len(attrs_text), block)
        else:
            self._colliding[attrs_text] = block
        return block

    def _parse_value(self, text: str) -> Any:
        """The AttrValue whose text body is `text`, or a _Pending stand-in for it (_decode_pending).

        NotCanonical if protobuf's parser refuses it: the general reader then reports
        the error at its place in the file.
        """
        data = message_bytes(text, self._attr_value.DESCRIPTOR)
        if data is None:
            return self._parsed_now(text)
        self._pending.append(data)
        self._pending_texts.append(text)
        return _Pending(len(self._pending) - 1)

    def _decode_pending(self) -> None:
        """Decode the values _parse_value encoded, all at once, and put them in place of their stand-ins."""
        if not self._pending:
            return
        try:
            messages = decoded_together(self._pending)
        except Exception:  # DecodeError: one of them upb refuses; text_format decides, value by value
            messages = [self._parsed_now(text) for text in self._pending_texts]
        for values in self._pending_dicts:
            for key, value in values.items():
                if value.__class__ is _Pending:
                    values[key] = messages[value.number]
        cached = self._values
        for text in self._pending_cached:
            cached[text] = messages[cached[text].number]
        self._pending, self._pending_texts, self._pending_dicts, self._pending_cached = [], [], [], []

    def _parsed_now(self, text: str) -> Any:
        """The AttrValue whose text body is `text`, by upb or protobuf's text parser; NotCanonical if refused."""
        value = read_message(text, self._attr_value)
        if value is not None:
            return value
        from google.protobuf import text_format

        from tflint import protos

        if excess_nesting(text) is not None:
            raise NotCanonical("attr value nested too deeply")
        value = self._attr_value()
        try:
            text_format.Parse(text, value, descriptor_pool=protos.POOL)
        except (text_format.ParseError, ValueError) as error:
            raise NotCanonical(f"attr value does not parse: {error}") from None
        return value


class _Pending:
    """An attr value encoded and waiting to be decoded with others: its number among them."""

    __slots__ = ("number",)

    def __init__(self, number: int) -> None:
        self.number = number


# The tag of OpDef.attr (field 4) and of AttrDef.default_value (field 3), both length-delimited.
_OP_ATTR_TAG = b"\x22"
_DEFAULT_VALUE_TAG = b"\x1a"


def decoded_together(encoded: list[bytes]) -> list[Any]:
    """The AttrValues of `encoded` (wire bytes each), decoded by upb in one go.

    Each message upb decodes on its own gets its own arena, about 600 bytes more than
    the message needs; a big graph has tens of thousands of distinct values. Decoded as
    the default values of one OpDef's attrs, they share its arena. Raises DecodeError
    when upb refuses one of them.
    """
    from tflint import protos

    parts: list[bytes] = []
    for data in encoded:
        size = varint(len(data))
        parts += (_OP_ATTR_TAG, varint(1 + len(size) + len(data)), _DEFAULT_VALUE_TAG, size, data)
    return [attr.default_value for attr in protos.OpDef.FromString(b"".join(parts)).attr]


# A GraphDef text at least this long is read by two processes (read_nodes_split).
SPLIT_MIN_CHARS = 8 << 20


# The percentage of the text this process reads. The child also packs what it read (its values are
# sent as encoded, not decoded), this process then builds the child's nodes (rebuilt): with 51, both
# halves take as many instructions on the generated and TF-written 10k-node graphs (1-3% apart).
_PARENT_SHARE = 51


def read_nodes_split(text: str) -> tuple[list[Node], array[int], str, LineMap]:
    """FastReader.read_nodes on a GraphDef's text, its later part (about half) read by a forked process.

    The child sends back what it read as plain data (marshal): each node's
    fields, each distinct attr block once (values as wire bytes), its residual
    and line map; this process rebuilds those nodes, sharing the attr dict of
    any block it read too. The result is read_nodes'. NotCanonical in either
    half is raised here; if the child cannot be started or fails otherwise,
    this process reads that half too.
    """
    import marshal

    from tflint.runtime import fork as forked

    split = _line_starting(text, "node {\n", len(text) * _PARENT_SHARE // 100)
    if split <= 0:
        return FastReader().read_nodes(text, 0)
    try:
        child: forked.Child | None = forked.start(lambda: _portable(text, FastReader(numbered=True), split), marshal)
    except OSError:  # no process to spare (EAGAIN, ENOMEM): one reader does it all
        child = None
    reader = FastReader()
    try:
        nodes, offsets, residual, line_map = reader.read_nodes(text, 0, 0, split)
    except BaseException:
        if child is not None:
            child.stop()
        raise
    try:
        payload = child.result() if child is not None else None
    except forked.ChildFailed:
        payload = None
    if payload is None:
        later = _renumbered(reader.read_nodes(text, 0, split), len(nodes))
    elif payload[0] == "not canonical":
        raise NotCanonical(payload[1])
    else:
        rebuilt = reader.rebuilt(text, payload, len(nodes))
        del payload  # as big as the child's half of the attr values: not kept while they are merged
        later = rebuilt if rebuilt is not None else _renumbered(reader.read_nodes(text, 0, split), len(nodes))
    later_nodes, later_offsets, later_residual, later_map = later
    nodes.extend(later_nodes)
    offsets.extend(later_offsets)
    line_map.extend(later_map, residual.count("\n"))
    return nodes, offsets, residual + later_residual, line_map


def _renumbered(
    read: tuple[list[Node], array[int], str, LineMap], first_ordinal: int
) -> tuple[list[Node], array[int], str, LineMap]:
    """What read_nodes read, its nodes numbered from `first_ordinal`."""
    for ordinal, node in enumerate(read[0], start=first_ordinal):
        node.ordinal = ordinal
    return read


def _portable(text: str, reader: FastReader, split: int) -> tuple[Any, ...]:
    """What the child of read_nodes_split read from `split` on, as data marshal can carry.

    Its rows name their blocks by number: each block read, in order, as its
    entries (key, value number), its span in the text and its shape; each
    distinct value once, as wire bytes (as encoded from its text, not decoded).
    """
    try:
        rows, offsets, residual, line_map = reader.read_nodes(text, 0, split, as_rows=True)
    except NotCanonical as error:
        return ("not canonical", str(error))
    spans = {id(block): (begin, end) for begin, end, block in reader._blocks.values()}
    blocks: list[tuple[Any, ...]] = []
    value_numbers: dict[int, int] = {}
    values: list[bytes] = []
    pending = reader._pending
    for block in reader._created or ():
        entries = []
        for key, value in block.values.items():
            value_number = value_numbers.get(id(value))
            if value_number is None:
                value_number = value_numbers[id(value)] = len(values)
                values.append(pending[value.number] if value.__class__ is _Pending else value.SerializeToString())
            entries.append((key, value_number))
        # Without keys (no attrs), a node gets the empty block, and no attr positions.
        shape = (block.lines, block.key_lines, block.column) if block.key_lines else None
        blocks.append((tuple(entries), spans.get(id(block), (0, 0)), shape))
    return ("nodes", rows, blocks, values, offsets.tobytes(), residual, line_map.portable())


def _line_starting(text: str, prefix: str, position: int) -> int:
    """The offset of the first line starting at or after `position` that begins with `prefix`, or -1."""
    if (position == 0 or text[position - 1 : position] == "\n") and text.startswith(prefix, position):
        return position
    found = text.find("\n" + prefix, position)
    return found + 1 if found >= 0 else -1


_EMPTY_BLOCK = _NumberedBlock({}, 0, {}, 0, -1)
_NO_POSITIONS: Mapping[str, tuple[int, int]] = {}


def _unescape_header(header: str) -> tuple[str, str, tuple[str, ...], str]:
    """Let protobuf itself read the name/op/input/device lines of a node with escapes."""
    from google.protobuf import text_format

    from tflint import protos

    node = protos.NodeDef()
    try:
        text_format.Parse(header.split("\n", 1)[1], node, descriptor_pool=protos.POOL)
    except text_format.ParseError as error:
        raise NotCanonical(f"node header does not parse: {error}") from None
    return node.name, node.op, tuple(node.input), node.device
