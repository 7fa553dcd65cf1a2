"""Which protobuf field names and enum value names a text-format file uses, and where.

An older TensorFlow parses a `.pbtxt` with its own, older schema: a field
or enum value name it does not know fails the whole parse (`Message type
"tensorflow.NodeDef" has no field named "experimental_type"`), where the
binary form of the same message parses (unknown fields are kept, unknown
enum numbers too). This walks the text the way text_format does, with the
schema tflint ships, and reports the uses of the names it is asked about.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Mapping
from typing import Any

from tflint.records import record

_TOKEN = re.compile(
    r"""\s+|\#[^\n]*|"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|\[[^\]\n{]*\]|[{}<>:;,\[\]]|[^\s{}<>:;,\[\]"'#]+""",
)
# Deeper than protobuf's own text parser allows: a file this deep failed to parse anyway.
MAX_DEPTH = 100


@record(frozen=True)
class SchemaUse:
    """One use of a watched name: field `name` of message `owner`, or enum value `name` of enum `owner`.

    `lacking` is the mask of the releases lacking it (and knowing every field it is nested in).
    """

    kind: str  # "messages" or "enums"
    owner: str
    name: str
    line: int
    column: int
    lacking: int

    def __init__(self, kind: str, owner: str, name: str, line: int, column: int, lacking: int) -> None:
        vars(self).update(kind=kind, owner=owner, name=name, line=line, column=column, lacking=lacking)


def schema_uses(text: str, root: Any, watched: Mapping[tuple[str, str, str], int], releases: int) -> list[SchemaUse]:
    """Every use in `text` (a text-format `root` message) of a (kind, owner, name) of `watched`.

    `watched` maps each name to the mask of the releases knowing it; `releases` is the mask of
    the releases asked about. A use is reported for the releases lacking it that know every
    field it is nested in (the outermost unknown field is the one their parser stops at).
    Stops quietly where the text is not well-formed (the reader reports that).
    """
    if not watched:
        return []
    names = {name for _, _, name in watched}
    if not any(name in text for name in names):
        return []
    scanner = _Scanner(text, watched)
    try:
        scanner.message(root, None, 0, releases)
    except _Stop:
        pass
    return scanner.uses


class _Stop(Exception):
    pass


class _Scanner:
    def __init__(self, text: str, watched: Mapping[tuple[str, str, str], int]) -> None:
        self.text = text
        self.watched = watched
        self.tokens = (
            (match.group(), match.start())
            for match in _TOKEN.finditer(text)
            if not match.group()[0].isspace() and match.group()[0] != "#"
        )
        self.peeked: tuple[str, int] | None = None
        self.uses: list[SchemaUse] = []
        self._lines: list[int] | None = None

    def next(self) -> tuple[str, int]:
        if self.peeked is not None:
            token, self.peeked = self.peeked, None
            return token
        try:
            return next(self.tokens)
        except StopIteration:
            raise _Stop from None

    def peek(self) -> tuple[str, int] | None:
        if self.peeked is None:
            try:
                self.peeked = next(self.tokens)
            except StopIteration:
                return None
        return self.peeked

    def record(self, kind: str, owner: str, name: str, offset: int, alive: int) -> int:
        """The releases still parsing after this name (recording a use for those it stops)."""
        known = self.watched.get((kind, owner, name))
        if known is None:
            return alive
        lacking = alive & ~known
        if not lacking:
            return alive
        if self._lines is None:
            self._lines = [match.start() for match in re.finditer("\n", self.text)]
        line = bisect.bisect_left(self._lines, offset)
        column = offset - (self._lines[line - 1] + 1 if line else 0)
        self.uses.append(SchemaUse(kind, owner, name, line + 1, column + 1, lacking))
        return alive & known

    def message(self, descriptor: Any, end: str | None, depth: int, alive: int) -> None:
        """Fields until `end` (`}` / `>`, or the end of the text)."""
        if depth > MAX_DEPTH:
            raise _Stop
        while True:
            if end is None and self.peek() is None:
                return
            token, offset = self.next()
            if token == end:
                return
            if token in ("}", ">", ":", "{", "<", ",", ";"):
                raise _Stop
            field = None
            inner = alive
            if descriptor is not None and not token.startswith("["):
                field = descriptor.fields_by_name.get(token)
                inner = self.record("messages", descriptor.full_name, token, offset, alive)
            self.value(field, depth, inner)
            following = self.peek()
            if following is not None and following[0] in (",", ";"):
                self.next()

    def value(self, field: Any, depth: int, alive: int) -> None:
        token, offset = self.next()
        if token == ":":
            token, offset = self.next()
        if token == "[":  # a list over several lines
            while True:
                token, offset = self.next()
                if token == "]":
                    return
                if token != ",":
                    self.single(token, offset, field, depth, alive)
        if token.startswith("[") and token.endswith("]"):  # a list on one line
            if field is not None and field.enum_type is not None:
                for match in re.finditer(r"[A-Za-z_][A-Za-z0-9_]*", token[1:-1]):
                    self.record("enums", field.enum_type.full_name, match.group(), offset + 1 + match.start(), alive)
            return
        self.single(token, offset, field, depth, alive)

    def single(self, token: str, offset: int, field: Any, depth: int, alive: int) -> None:
        if token in ("{", "<"):
            end = "}" if token == "{" else ">"
            self.message(field.message_type if field is not None else None, end, depth + 1, alive)
            return
        if token[0] in "\"'":
            following = self.peek()
            while following is not None and following[0][0] in "\"'":
                self.next()  # adjacent string literals concatenate
                following = self.peek()
            return
        if field is not None and field.enum_type is not None and (token[0].isalpha() or token[0] == "_"):
            self.record("enums", field.enum_type.full_name, token, offset, alive)
