"""Module-level regular expressions compiled on first use.

Compiling a pattern costs 0.1-1 ms; tflint has dozens at module level, most of which a lint of
one small GraphDef never uses (suppression comments, SavedModel signatures, files that are not
graphs). `lazy(pattern, flags)` stands for `re.compile(pattern, flags)` and compiles it when one of
its methods is first called. Not for a pattern used in a per-node loop: each call goes through one
more Python frame.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterator
from typing import Any, AnyStr, Generic


class LazyPattern(Generic[AnyStr]):
    """`re.compile(pattern, flags)`, compiled when first used."""

    __slots__ = ("_pattern", "_flags", "_compiled")

    def __init__(self, pattern: AnyStr, flags: int = 0) -> None:
        self._pattern: AnyStr = pattern
        self._flags = flags
        self._compiled: re.Pattern[AnyStr] | None = None

    def compiled(self) -> re.Pattern[AnyStr]:
        """The compiled pattern (compiled now if it was not yet)."""
        if self._compiled is None:
            self._compiled = re.compile(self._pattern, self._flags)
        return self._compiled

    @property
    def pattern(self) -> AnyStr:
        return self._pattern

    def match(self, string: AnyStr, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[AnyStr] | None:
        return self.compiled().match(string, pos, endpos)

    def fullmatch(self, string: AnyStr, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[AnyStr] | None:
        return self.compiled().fullmatch(string, pos, endpos)

    def search(self, string: AnyStr, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[AnyStr] | None:
        return self.compiled().search(string, pos, endpos)

    def finditer(self, string: AnyStr, pos: int = 0, endpos: int = sys.maxsize) -> Iterator[re.Match[AnyStr]]:
        return self.compiled().finditer(string, pos, endpos)

    def findall(self, string: AnyStr, pos: int = 0, endpos: int = sys.maxsize) -> list[Any]:
        return self.compiled().findall(string, pos, endpos)

    def split(self, string: AnyStr, maxsplit: int = 0) -> list[AnyStr | Any]:
        return self.compiled().split(string, maxsplit)

    def sub(self, repl: AnyStr | Callable[[re.Match[AnyStr]], AnyStr], string: AnyStr, count: int = 0) -> AnyStr:
        return self.compiled().sub(repl, string, count)


def lazy(pattern: AnyStr, flags: int = 0) -> LazyPattern[AnyStr]:
    """A pattern compiled on first use, for a module-level constant (see the module's docstring)."""
    return LazyPattern(pattern, flags)
