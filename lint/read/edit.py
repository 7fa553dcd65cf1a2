"""Byte-preserving edits of text-format graphs: remove attr entries, keep everything else.

Used by `--fix`. An attr entry is found from the position of its key (the `key` word or its
string), in one pass over the brackets of the text (strings and comments passed over), whatever
syntax holds it:

- a field, `attr { key: "x" value { ... } }`: cut out with the separator (`,` or `;`) that may
  follow it, and with its line when nothing else is on that line;
- an element of a list, `attr: [ { key: "x" ... }, { ... } ]`: cut out with the comma between it
  and its neighbour; when every element goes, the whole `attr: [...]` field goes.

A `# tflint: ignore[...]` directive that covered a removed line goes with it: a trailing one on
the line, and own-line ones just above (they cover the next code line, which would otherwise be
the statement after the removed one). Every other byte (comments, order, layout) is kept.

The pass is linear in the size of the text, and so is the unified diff of the edit (`unified_diff`:
built from the removed spans, not by comparing the two texts).
"""

from __future__ import annotations

import bisect
import itertools
import re
import sys
from collections.abc import Iterator, Sequence

from tflint.records import record

# A comment that is a line suppression directive (engine/suppress.py reads them; file-ignore covers
# the whole file wherever it stands, so it is never removed with a line).
_IGNORE_DIRECTIVE = re.compile(r"#+\s*tflint:\s*ignore\s*\[")
_SEPARATOR = re.compile(r"[ \t]*[,;]")
_CONTEXT = 3  # lines of context in a unified diff, as `diff -u` and difflib


@record(frozen=True)
class Removal:
    """The result of remove_attr_entries: the new text, the spans cut from the old one (sorted, disjoint)
    and, for each key position asked for, whether its entry was removed."""

    text: str
    spans: tuple[tuple[int, int], ...]
    removed: tuple[bool, ...]

    def __init__(self, text: str, spans: tuple[tuple[int, int], ...], removed: tuple[bool, ...]) -> None:
        vars(self).update(text=text, spans=spans, removed=removed)


# What nesting depends on: strings and comments (which may hold brackets), an extension's `[name]`, and
# the brackets themselves, one token each (_brackets_by_token).
_STRUCTURE = re.compile(r""""(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|#[^\n]*|[{}<>\]]|\[(?:[^\[\]\s"'{}<>]*\])?""")
# The same, from Python 3.11 (possessive quantifiers): everything up to the next bracket in one match, strings
# and comments included, so that the Python loop sees brackets only (_brackets_by_skip). Possessive, it never
# backtracks into a string or comment to find a bracket there.
_UP_TO_BRACKET = (
    re.compile(
        r"""(?:[^"'#{}<>\[\]]++|"(?:[^"\\\n]|\\.)*+"|'(?:[^'\\\n]|\\.)*+'|#[^\n]*+|\[[^\[\]\s"'{}<>]*+\])*+[{}<>\[\]]"""
    )
    if sys.version_info >= (3, 11)
    else None
)
_WORD_CHARACTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


class _Container:
    """An open `{`/`<` block or `[` list during the scan."""

    __slots__ = ("is_list", "start", "parent_list", "end", "elements", "ordinal")

    def __init__(self, is_list: bool, start: int, parent_list: _Container | None) -> None:
        self.is_list = is_list
        self.start = start
        self.parent_list = parent_list  # the list this block is an element of
        self.end = -1
        self.elements: list[_Container] = []  # a list's element blocks, in order
        self.ordinal = -1  # an element block's place in its list

    def name(self, text: str) -> tuple[int, str]:
        """(offset, name) of the field this block or list is the value of (`name {`, `name: [`); (-1, "") if none.

        A comment between the name and the bracket is not looked past: such an entry is not recognised, so
        not removed, and reported so.
        """
        base = max(0, self.start - 256)  # a bounded look back: a name and its colon are short
        head = text[base : self.start].rstrip()
        if head.endswith(":"):
            head = head[:-1].rstrip()
        begin = len(head)
        while begin > 0 and head[begin - 1] in _WORD_CHARACTERS:
            begin -= 1
        return (base + begin, head[begin:]) if begin < len(head) else (-1, "")


def remove_attr_entries(text: str, key_positions: Sequence[tuple[int, int]]) -> Removal:
    """`text` without the attr entries whose key strings are at the given (line, column)s (1-based)."""
    starts = _line_starts(text)
    wanted = sorted(
        (starts[line - 1] + column - 1, index)
        for index, (line, column) in enumerate(key_positions)
        if 0 < line <= len(starts)
    )
    owner: dict[int, _Container] = {}  # key index -> the innermost block holding its key
    # Open brackets by offset (a list's as ~offset, negative); records only for what may be edited: the
    # blocks holding a key, lists and their elements (a record per block would cost more than the scan).
    stack: list[int] = []
    containers: dict[int, _Container] = {}
    next_key = 0
    next_offset = wanted[0][0] if wanted else len(text) + 1
    for at in _brackets(text):
        if at >= next_offset:
            while next_key < len(wanted) and wanted[next_key][0] <= at:
                if stack and stack[-1] >= 0:  # the key (its `key` word or string) is in the block open here
                    start = stack[-1]
                    block = containers.get(start)
                    if block is None:
                        block = containers[start] = _Container(False, start, None)
                    owner[wanted[next_key][1]] = block
                next_key += 1
            next_offset = wanted[next_key][0] if next_key < len(wanted) else len(text) + 1
        bracket = text[at]
        if bracket == "{" or bracket == "<" or bracket == "[":
            is_list = bracket == "["
            parent = containers[~stack[-1]] if stack and stack[-1] < 0 else None
            if parent is not None or is_list:
                opened = containers[at] = _Container(is_list, at, None if is_list else parent)
                if parent is not None and not is_list:
                    opened.ordinal = len(parent.elements)
                    parent.elements.append(opened)
            stack.append(~at if is_list else at)
        elif stack:
            top = stack.pop()
            closed = containers.get(~top if top < 0 else top)
            if closed is not None:
                closed.end = at + 1

    spans: list[tuple[int, int]] = []
    removed = [False] * len(key_positions)
    going: dict[int, set[int]] = {}  # id of a list -> ordinals of its elements that go
    lists: dict[int, _Container] = {}
    for index, block in owner.items():
        if block.is_list or block.end < 0:
            continue
        parent = block.parent_list
        if parent is not None:
            if parent.name(text)[1] == "attr" and parent.end >= 0:
                going.setdefault(id(parent), set()).add(block.ordinal)
                lists[id(parent)] = parent
                removed[index] = True
            continue
        name, field = block.name(text)
        if field == "attr":
            spans.append(_with_separator(text, name, block.end))
            removed[index] = True
    for key, ordinals in going.items():
        spans.extend(_list_spans(text, lists[key], ordinals))
    cut = _merged(text, spans)
    out = []
    position = 0
    for start, end in cut:
        out.append(text[position:start])
        position = end
    out.append(text[position:])
    return Removal("".join(out), tuple(cut), tuple(removed))


def _brackets(text: str) -> Iterator[int]:
    """The offsets of the brackets that nest (`{ } < > [ ]` outside strings, comments and `[extension.names]`)."""
    return _brackets_by_skip(text) if _UP_TO_BRACKET is not None else _brackets_by_token(text)


def _brackets_by_token(text: str) -> Iterator[int]:
    for match in _STRUCTURE.finditer(text):
        at = match.start()
        first = text[at]
        if first in "{}<>]" or (first == "[" and match.end() == at + 1):
            yield at


def _brackets_by_skip(text: str) -> Iterator[int]:
    assert _UP_TO_BRACKET is not None
    match = _UP_TO_BRACKET.match
    position = 0
    while (found := match(text, position)) is not None:  # None: no bracket in the rest (whitespace, comments)
        position = found.end()
        yield position - 1


def _with_separator(text: str, start: int, end: int) -> tuple[int, int]:
    """The field at [start, end) with the `,` or `;` that follows it on its line (two in a row do not parse)."""
    separator = _SEPARATOR.match(text, end)
    return (start, separator.end()) if separator else (start, end)


def _list_spans(text: str, listed: _Container, ordinals: set[int]) -> Iterator[tuple[int, int]]:
    """What to cut from a list `attr: [ {...}, {...} ]` so that the elements `ordinals` go."""
    elements = listed.elements
    if len(ordinals) == len(elements):
        yield _with_separator(text, listed.name(text)[0], listed.end)  # not every reader takes `[]`: the field goes
        return
    ordinal = 0
    while ordinal < len(elements):
        if ordinal not in ordinals:
            ordinal += 1
            continue
        first = ordinal
        while ordinal < len(elements) and ordinal in ordinals:
            ordinal += 1
        if ordinal < len(elements):  # a run followed by a kept element: up to it, commas included
            yield elements[first].start, elements[ordinal].start
        else:  # a run at the end: from the kept element before it, the comma included
            yield elements[first - 1].end, elements[-1].end


def _merged(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Spans to cut, sorted and disjoint: neighbours on one line joined, then widened to whole lines."""
    merged: list[tuple[int, int]] = []
    for start, end in sorted(set(spans)):
        if merged and (start <= merged[-1][1] or not text[merged[-1][1] : start].strip(" \t")):
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    cut: list[tuple[int, int]] = []
    for span in merged:
        for start, end in _whole_lines(text, *span):
            if cut and start <= cut[-1][1]:
                cut[-1] = (cut[-1][0], max(end, cut[-1][1]))
            else:
                cut.append((start, end))
    return cut


def _whole_lines(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The span widened to its lines when nothing else is on them, else to one following space.

    A trailing `# tflint: ignore[...]` on a line that goes goes with it; so do own-line ones
    directly above it (between them and the line, only blank and comment lines).
    """
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    line_end = len(text) if line_end < 0 else line_end
    rest = text[end:line_end].strip()
    if text[line_start:start].strip() or (rest and not _IGNORE_DIRECTIVE.match(rest)):
        if end < len(text) and text[end] == " ":
            end += 1
        return [(start, end)]
    spans = [(line_start, min(line_end + 1, len(text)))]
    above = line_start
    while above > 0:
        previous = text.rfind("\n", 0, above - 1) + 1
        line = text[previous:above].strip()
        if line and not line.startswith("#"):
            break
        if _IGNORE_DIRECTIVE.match(line):
            spans.append((previous, above))
        above = previous
    return sorted(spans)


def unified_diff(old: str, spans: Sequence[tuple[int, int]], path: str) -> str:
    """The unified diff (`diff -u`, 3 lines of context) of cutting `spans` (sorted, disjoint) from `old`.

    Built from the spans in one pass: comparing the two texts (difflib) is quadratic in the worst case.
    Lines end at `\\n` only (a `\\r` or a Unicode line separator inside a line is part of it, as for diff).
    """
    if not spans:
        return ""
    lines = _lines(old)
    starts = _line_starts(old)

    def line_of(offset: int) -> int:
        return bisect.bisect_right(starts, offset) - 1

    # Changes: [first old line, end old line) and the new lines, each a run of lines some span touches.
    runs: list[list[int]] = []
    for start, end in spans:
        first, last = line_of(start), line_of(max(start, end - 1))
        if runs and first < runs[-1][1]:
            runs[-1][1] = max(last + 1, runs[-1][1])
        else:
            runs.append([first, last + 1])
    changes: list[tuple[int, int, list[str]]] = []
    cuts = iter(spans)
    pending = next(cuts, None)
    for first, stop in runs:
        finish = starts[stop]
        kept = []
        position = starts[first]
        while pending is not None and pending[0] < finish:
            kept.append(old[position : pending[0]])
            position = pending[1]
            pending = next(cuts, None)
        kept.append(old[position:finish])
        changes.append((first, stop, _lines("".join(kept))))

    out = [f"--- {path}\n+++ {path}\n"]
    index = 0
    shift = 0  # new line number minus old line number before the current hunk
    while index < len(changes):
        group = [changes[index]]
        index += 1
        while index < len(changes) and changes[index][0] - group[-1][1] <= 2 * _CONTEXT:
            group.append(changes[index])
            index += 1
        old_begin = max(0, group[0][0] - _CONTEXT)
        old_end = min(len(lines), group[-1][1] + _CONTEXT)
        body: list[str] = []
        cursor = old_begin
        growth = 0
        for first, stop, new_lines in group:
            body += (_block(" ", lines[cursor:first]), _block("-", lines[first:stop]), _block("+", new_lines))
            growth += len(new_lines) - (stop - first)
            cursor = stop
        body.append(_block(" ", lines[cursor:old_end]))
        old_count = old_end - old_begin
        out.append(f"@@ -{_range(old_begin, old_count)} +{_range(old_begin + shift, old_count + growth)} @@\n")
        out += body
        shift += growth
    return "".join(out)


def _block(prefix: str, lines: list[str]) -> str:
    """Lines of a hunk, each after `prefix`; a last line without its newline gets diff's remark."""
    if not lines:
        return ""
    block = prefix + prefix.join(lines)  # every line but the text's last ends with a newline
    return block if block.endswith("\n") else block + "\n\\ No newline at end of file\n"


def _line_starts(text: str) -> list[int]:
    """The offset of each line's start, and one past the end: computed in C (text.split, accumulate)."""
    return list(itertools.accumulate(map((1).__add__, map(len, text.split("\n"))), initial=0))


def _lines(text: str) -> list[str]:
    """The lines of `text`, each with its `\\n` (the last one may have none)."""
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def _range(begin: int, count: int) -> str:
    """A hunk's range as `diff -u` writes it: 1-based start, the count unless it is 1 (start - 1 when 0)."""
    if count == 1:
        return str(begin + 1)
    return f"{begin + (count > 0)},{count}"
