"""Memos keyed on the identity of objects the readers share (one AttrValue among equal attr entries).

An `id()` is unique only while its object lives: a memo keyed on ids of objects it does not hold
could find the verdict of a freed object under the id of a new one. An IdentityMemo keeps each
object of a key alive beside its value, so while the memo lives no other object can take that id.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar

V = TypeVar("V")


class IdentityMemo(Generic[V]):
    """Values computed once per combination of objects (by identity) and plain hashable parts."""

    __slots__ = ("_entries",)

    def __init__(self) -> None:
        # key -> (value, the objects whose ids are in the key: held so that the ids stay theirs)
        self._entries: dict[tuple[Any, ...], tuple[V, tuple[Any, ...]]] = {}

    def get(self, parts: tuple[Any, ...], objects: tuple[Any, ...], compute: Callable[[], V]) -> V:
        """The value for `parts` (hashable values) and `objects` (compared by identity): memoized, else
        `compute()`."""
        key = (*parts, *map(id, objects))
        entry = self._entries.get(key)
        if entry is None:
            entry = self._entries[key] = (compute(), objects)
        return entry[0]

    def __len__(self) -> int:
        return len(self._entries)
