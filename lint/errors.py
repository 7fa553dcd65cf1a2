"""The errors that end a run with exit 2, and the "did you mean" hint their messages share."""

from __future__ import annotations

from collections.abc import Iterable


class UsageError(Exception):
    """A problem with how tflint was called (exit 2): unreadable path, bad option."""


class ConfigError(Exception):
    """Invalid configuration (exit 2): the message names the file and the key."""


LISTS_RULES = "'tflint rules' lists them"
# Up to this many choices are listed when none is close to the misspelt word.
LISTED_CHOICES = 10


def did_you_mean(
    word: str, choices: Iterable[str], cutoff: float = 0.6, *, more: str = "", list_choices: bool = True
) -> str:
    """` (did you mean 'x'?)` for the closest of `choices` to a misspelt `word`.

    With none close: ` (expected one of: a, b, c)` when there are few choices (and `list_choices`), else
    ` (` + `more` + `)` (e.g. "'tflint rules' lists them"), or '' without `more`.
    """
    import difflib  # only when a name is misspelt

    options = list(choices)
    close = difflib.get_close_matches(word, options, n=1, cutoff=cutoff)
    if close:
        return f" (did you mean {close[0]!r}?)"
    if list_choices and options and len(options) <= LISTED_CHOICES:
        return f" (expected one of: {', '.join(options)})"
    return f" ({more})" if more else ""


# How many misspellings one Suggestions answers with a close-match search, and the longest
# word searched: each search compares the word with every choice (difflib), so a graph with
# thousands of distinct unknown names, or a very long one, would otherwise cost minutes.
MAX_SEARCHES = 64
MAX_WORD_LENGTH = 200
# ... and at most this many word-to-choice comparisons in all (fewer searches among many choices).
MAX_COMPARISONS = 200_000


class Suggestions:
    """`did_you_mean` for many words against one fixed set of choices, at a bounded cost.

    The choices are listed and case-folded once; each word is answered once; a
    case-insensitive match is always found; close spellings are searched for the
    first MAX_SEARCHES distinct words no longer than MAX_WORD_LENGTH, and fewer when the
    choices are many (MAX_COMPARISONS in all); later words get no close-spelling hint: a
    hint is a courtesy, never worth the run.
    """

    def __init__(self, choices: Iterable[str], cutoff: float = 0.6, limit: int = MAX_SEARCHES) -> None:
        self._choices = list(choices)
        self._folded: dict[str, str] = {}
        for choice in self._choices:
            self._folded.setdefault(choice.lower(), choice)
        self._cutoff = cutoff
        self._searches_left = min(limit, max(1, MAX_COMPARISONS // max(1, len(self._choices))))
        self._answers: dict[str, str | None] = {}

    def closest(self, word: str) -> str | None:
        """The choice closest to `word` (the same name in other case first), or None."""
        if word in self._answers:
            return self._answers[word]
        answer = self._folded.get(word.lower())
        if answer is None and self._searches_left > 0 and len(word) <= MAX_WORD_LENGTH:
            import difflib  # only when a name is misspelt

            self._searches_left -= 1
            close = difflib.get_close_matches(word, self._choices, n=1, cutoff=self._cutoff)
            answer = close[0] if close else None
        self._answers[word] = answer
        return answer

    def hint(self, word: str) -> str:
        """` (did you mean 'x'?)`, or ''."""
        answer = self.closest(word)
        return f" (did you mean '{answer}'?)" if answer is not None else ""
