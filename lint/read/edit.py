"""Byte-preserving edits of text-format graphs: remove attr entries, keep everything else.

Used by `--fix`: an attr entry (`attr { key: "x" value { ... } }`) is found
from the position of its key, its block is matched brace by brace, and it is
cut out with its line when it stands on lines of its own; comments, order
and formatting elsewhere are untouched.
"""

from __future__ import annotations

import bisect
import re

from tflint.read.positions import TOKEN


def remove_attr_entries(text: str, key_positions: list[tuple[int, int]]) -> str:
    """`text` without the attr entries whose key strings are at the given (line, column)s (1-based)."""
    starts = [0] + [match.end() for match in re.finditer("\n", text)]
    opens: list[int] = []  # offsets of open braces, innermost last
    blocks: list[tuple[int, int]] = []  # (open offset, close end offset)
    word_before: dict[int, int] = {}  # open brace offset -> offset of the field name before it
    last_word = last_colon_word = -1
    for match in TOKEN.finditer(text):
        kind = match.lastgroup
        if kind in ("space", "comment"):
            continue
        if kind == "word":
            last_word = match.start()
            last_colon_word = -1
        elif kind == "punct" and match.group() == ":":
            last_colon_word = last_word
        elif kind == "open":
            word_before[match.start()] = last_colon_word if last_colon_word >= 0 else last_word
            opens.append(match.start())
            last_word = last_colon_word = -1
        elif kind == "close" and opens:
            blocks.append((opens.pop(), match.end()))
            last_word = last_colon_word = -1
        else:
            last_word = last_colon_word = -1
    blocks.sort()
    block_starts = [start for start, _ in blocks]
    spans = []
    for line, column in key_positions:
        offset = starts[line - 1] + column - 1
        # The innermost block containing the key: the attr entry.
        index = bisect.bisect_left(block_starts, offset) - 1
        while index >= 0 and blocks[index][1] <= offset:
            index -= 1
        if index < 0:
            continue
        start, end = blocks[index]
        name = word_before.get(start, -1)
        if name < 0 or not text.startswith("attr", name):
            continue
        spans.append((name, end))
    merged: list[tuple[int, int]] = []
    for start, end in sorted(set(spans)):
        if merged and (start < merged[-1][1] or not text[merged[-1][1] : start].strip(" \t")):
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))  # neighbours on one line go together
        else:
            merged.append((start, end))
    out = []
    position = 0
    for start, end in (_whole_lines(text, start, end) for start, end in merged):
        if start < position:
            continue
        out.append(text[position:start])
        position = end
    out.append(text[position:])
    return "".join(out)


def _whole_lines(text: str, start: int, end: int) -> tuple[int, int]:
    """The span widened to its lines when nothing else is on them, else to one following space."""
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    line_end = len(text) if line_end < 0 else line_end
    if not text[line_start:start].strip() and not text[end:line_end].strip():
        return line_start, min(line_end + 1, len(text))
    if end < len(text) and text[end] == " ":
        end += 1
    return start, end
