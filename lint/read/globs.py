"""Gitignore-style globs: every path pattern (`exclude`, `extend-exclude`, `per-file-ignores`, `interface`, `.ignore`).

The syntax is git's (gitignore(5)), matched against paths relative to a base
directory (the config file's, the ignore file's, or the working directory):

- `*` matches anything but `/`, `?` one character but `/`, `[a-z]` / `[!a-z]` a class;
- a pattern with a `/` at its start or in its middle is anchored at the base
  (`/build`, `models/tmp`); otherwise it matches a name at any depth (`*.pbtxt`);
- a trailing `/` matches directories only (`build/`);
- `**/` at the start or `/**/` in the middle match any number of directories,
  `/**` at the end everything inside;
- `!pattern` re-includes what an earlier pattern excluded (the last match wins);
  as in git, nothing inside an excluded directory can be re-included;
- `\\` escapes the next character.

Patterns are translated once into one regular expression each; matching a path
is string work only (no file system access).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable

from tflint.records import record


@record(frozen=True)
class Glob:
    """One compiled pattern."""

    pattern: str  # as written
    regex: re.Pattern[str]
    directory_only: bool
    negated: bool
    anchored: bool  # matches paths from the base, not a name at any depth

    def __init__(
        self,
        pattern: str,
        regex: re.Pattern[str],
        directory_only: bool,
        negated: bool,
        anchored: bool,
    ) -> None:
        vars(self).update(
            pattern=pattern, regex=regex, directory_only=directory_only, negated=negated, anchored=anchored
        )


def compile_glob(pattern: str) -> Glob | None:
    """Compile one gitignore-style pattern; None for a blank line or a comment."""
    text = _strip_trailing_spaces(pattern)
    if not text or text.startswith("#"):
        return None
    negated = text.startswith("!")
    if negated:
        text = text[1:]
    elif text.startswith("\\!") or text.startswith("\\#"):
        text = text[1:]
    directory_only = text.endswith("/") and not text.endswith("\\/")
    text = text.rstrip("/") if directory_only else text
    if not text:
        return None
    anchored = "/" in text
    text = text.lstrip("/")
    if not text:
        return None
    if anchored:
        body = _translate_path(text)
    else:
        body = "(?:.*/)?" + _translate_segment(text)
    return Glob(pattern, re.compile(body + r"\Z", re.DOTALL), directory_only, negated, anchored)


def _strip_trailing_spaces(pattern: str) -> str:
    """Trailing spaces are dropped unless escaped with a backslash (gitignore(5))."""
    text = pattern.rstrip("\r\n")
    stripped = text.rstrip(" ")
    if len(stripped) < len(text) and stripped.endswith("\\"):
        return stripped[:-1] + " "
    return stripped


def _translate_path(text: str) -> str:
    segments = text.split("/")
    parts = []
    for number, segment in enumerate(segments):
        last = number == len(segments) - 1
        if segment == "**":
            parts.append(".*" if last else "(?:[^/]*/)*")
        else:
            parts.append(_translate_segment(segment) + ("" if last else "/"))
    return "".join(parts)


def _translate_segment(segment: str) -> str:
    """One path segment: `*`, `?`, `[...]` and `\\x`; a run of asterisks is one `*`."""
    out = []
    index, size = 0, len(segment)
    while index < size:
        char = segment[index]
        index += 1
        if char == "*":
            while index < size and segment[index] == "*":
                index += 1
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "\\" and index < size:
            out.append(re.escape(segment[index]))
            index += 1
        elif char == "[":
            end = _class_end(segment, index)
            if end is None:
                out.append(re.escape(char))
            else:
                out.append(_translate_class(segment[index:end]))
                index = end + 1
        else:
            out.append(re.escape(char))
    return "".join(out)


def _class_end(segment: str, start: int) -> int | None:
    """The index of the `]` closing a class opened just before `start`, or None."""
    index = start
    if index < len(segment) and segment[index] in "!^":
        index += 1
    if index < len(segment) and segment[index] == "]":
        index += 1  # a leading ] is a member
    while index < len(segment):
        if segment[index] == "\\":
            index += 2
            continue
        if segment[index] == "]":
            return index
        index += 1
    return None


def _translate_class(members: str) -> str:
    negate = members[:1] in ("!", "^")
    if negate:
        members = members[1:]
    out = []
    index = 0
    while index < len(members):
        char = members[index]
        if char == "\\" and index + 1 < len(members):
            out.append(re.escape(members[index + 1]))
            index += 2
            continue
        if char == "-" and out and index + 1 < len(members):
            out.append("-")
        else:
            out.append(re.escape(char))
        index += 1
    body = "".join(out)
    return f"(?!/)[^{body}]" if negate else f"(?!/)[{body}]"


class GlobSet:
    """Ordered patterns relative to one base directory; the last pattern that matches decides."""

    __slots__ = ("base", "globs", "_prefix")

    def __init__(self, patterns: Iterable[str], base: str) -> None:
        self.base = os.path.abspath(base)
        self.globs = tuple(glob for glob in map(compile_glob, patterns) if glob is not None)
        self._prefix = self.base.rstrip(os.sep) + os.sep

    def __bool__(self) -> bool:
        return bool(self.globs)

    def __repr__(self) -> str:
        return f"GlobSet({[glob.pattern for glob in self.globs]!r}, base={self.base!r})"

    @property
    def patterns(self) -> tuple[str, ...]:
        """The patterns as written."""
        return tuple(glob.pattern for glob in self.globs)

    def relative(self, path: str) -> str | None:
        """`path` (absolute) relative to the base, with `/` separators; None outside the base."""
        if not path.startswith(self._prefix):
            return None
        relative = path[len(self._prefix) :]
        return relative.replace(os.sep, "/") if os.sep != "/" else relative

    def decision(self, path: str, is_dir: bool) -> bool | None:
        """True (excluded), False (re-included by `!`) or None (no pattern matches) for the absolute `path`.

        Outside the base only the unanchored patterns apply, to the name (`build/` is a
        build directory wherever a walk meets one).
        """
        relative = self.relative(path)
        if relative is None:
            return self.decide(os.path.basename(path), is_dir, anchored=False)
        if not relative:
            return None
        return self.decide(relative, is_dir)

    def decide(self, relative: str, is_dir: bool, anchored: bool = True) -> bool | None:
        """As `decision`, for a path already relative to the base (`anchored`: whether anchored patterns apply)."""
        for glob in reversed(self.globs):
            if glob.directory_only and not is_dir or glob.anchored and not anchored:
                continue
            if glob.regex.match(relative):
                return not glob.negated
        return None

    def decide_within(self, path: str, is_dir: bool) -> bool | None:
        """As `decision`, but None for a path outside the base (an ignore file rules only below itself)."""
        relative = self.relative(path)
        return self.decide(relative, is_dir) if relative else None

    def matches(self, path: str, is_dir: bool) -> bool:
        """Whether the absolute `path` itself is excluded."""
        return self.decision(path, is_dir) is True

    def covers(self, path: str, is_dir: bool) -> bool:
        """Whether a glob naming files (a key of `per-file-ignores` or `interface`) covers the absolute `path`."""
        return self.matches_path_or_parent(path, is_dir)

    def matches_path_or_parent(self, path: str, is_dir: bool) -> bool:
        """Whether the absolute `path` or a directory above it is excluded.

        What a walk would have decided on its way down: an excluded directory hides everything in
        it. Below the base, every directory between it and the path counts; outside it (a config
        named with `--config` elsewhere), as `decision` has it there, the unanchored patterns on the
        names of the path and of each directory above it (ruff's force-exclude does the same).
        """
        relative = self.relative(path)
        if relative is None:
            if self.decide(os.path.basename(path), is_dir, anchored=False) is True:
                return True
            directory, parent = os.path.dirname(path), os.path.dirname(os.path.dirname(path))
            while directory != parent:
                if self.decide(os.path.basename(directory), True, anchored=False) is True:
                    return True
                directory, parent = parent, os.path.dirname(parent)
            return False
        if not relative:
            return False
        parts = relative.split("/")
        for depth in range(1, len(parts)):
            if self.decide("/".join(parts[:depth]), True) is True:
                return True
        return self.decide(relative, is_dir) is True
