"""The errors that end a run with exit 2, and the "did you mean" hint their messages share."""

from __future__ import annotations

from collections.abc import Iterable


class UsageError(Exception):
    """A problem with how tflint was called (exit 2): unreadable path, bad option."""


class ConfigError(Exception):
    """Invalid configuration (exit 2): the message names the file and the key."""


def did_you_mean(word: str, choices: Iterable[str], cutoff: float = 0.6) -> str:
    """` (did you mean 'x'?)` for the closest of `choices` to a misspelt `word`, else ''."""
    import difflib  # only when a name is misspelt

    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=cutoff)
    return f" (did you mean {close[0]!r}?)" if close else ""
