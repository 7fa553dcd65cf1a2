"""Regular expressions from a configuration: compiled within a size bound, searched within a time budget.

A pattern is code a config file hands to tflint. Two things make one expensive:

- Compiling. The `regex` package expands counted repeats, so `(?:(?:a{1000}){1000}){1000}`
  (28 characters) asks for a billion-step program and gigabytes. `compile` estimates the
  expanded size from the pattern text first (every atom counts 1, a counted repeat multiplies
  what it repeats by its largest count, alternatives and groups add up) and refuses a pattern
  above MAX_WEIGHT, or longer than MAX_LENGTH, before the engine sees it. The estimate is an
  over-approximation of what the engine builds, done by a linear scan: nothing to time out.
- Searching. Each search runs with the `regex` package's timeout, and all searches over one
  file share one budget: BUDGET_SECONDS to start with, plus ALLOWANCE_SECONDS for each search. A
  pattern that takes just under the per-search timeout on every name stops after about two
  seconds, not after names x timeout; a cheap pattern on a million names never notices.

Imports nothing of tflint; `regex` is imported on first use.
"""

from __future__ import annotations

import time
from typing import Any

MAX_LENGTH = 1_000
MAX_WEIGHT = 10_000
SEARCH_SECONDS = 0.5
BUDGET_SECONDS = 2.0
ALLOWANCE_SECONDS = 0.000_05

_WEIGHT_CAP = MAX_WEIGHT * 1000  # expanded_weight stops counting here
_left = [BUDGET_SECONDS]


class BudgetSpent(TimeoutError):
    """The time for user patterns on this file is used up."""


def reset_budget() -> None:
    """Start a new budget (the engine calls this for each file it lints)."""
    _left[0] = BUDGET_SECONDS


def search(pattern: Any, text: str, timeout: float = SEARCH_SECONDS) -> Any:
    """`pattern.search(text)` within `timeout` and the run's budget.

    TimeoutError when this search took too long, BudgetSpent when the run's budget is spent.
    """
    left = _left[0] + ALLOWANCE_SECONDS
    if left <= 0:
        _left[0] = left
        raise BudgetSpent("the time for user patterns on this file is spent")
    started = time.perf_counter()
    try:
        return pattern.search(text, timeout=min(timeout, left))
    except TimeoutError:
        if left < timeout:
            raise BudgetSpent("the time for user patterns on this file is spent") from None
        raise
    finally:
        _left[0] = left - (time.perf_counter() - started)


def compile(pattern: str) -> Any:  # noqa: A001 - regex.compile's name, on purpose
    """The compiled pattern; ValueError saying why when it is too long, too big or invalid."""
    if len(pattern) > MAX_LENGTH:
        raise ValueError(f"it is {len(pattern):,} characters long; at most {MAX_LENGTH:,} are accepted")
    weight = expanded_weight(pattern)
    if weight > MAX_WEIGHT:
        about = "more than" if weight >= _WEIGHT_CAP else "about"
        raise ValueError(f"its counted repeats expand to {about} {weight:,} steps; at most {MAX_WEIGHT:,} are accepted")
    import regex

    try:
        return regex.compile(pattern)
    except regex.error as error:
        raise ValueError(str(error)) from None


def expanded_weight(pattern: str) -> int:
    """An upper estimate of how many steps a regex engine that expands counted repeats builds for `pattern`.

    Atoms (a character, an escape, a class) weigh 1; `X{m}`, `X{m,n}` and `X{m,}` weigh
    X times the largest count; a group weighs what it holds. Stops counting past a cap so
    that the numbers stay small.
    """
    cap = _WEIGHT_CAP
    stack: list[list[int]] = [[0, 0]]  # per open group: [weight so far, weight of the last atom]
    index = 0
    length = len(pattern)
    while index < length:
        char = pattern[index]
        frame = stack[-1]
        if char == "\\":
            index += 2
            frame[0] += 1
            frame[1] = 1
            continue
        if char == "[":
            end = index + 1
            if end < length and pattern[end] == "^":
                end += 1
            if end < length and pattern[end] == "]":
                end += 1
            while end < length and pattern[end] != "]":
                end += 2 if pattern[end] == "\\" else 1
            index = end + 1
            frame[0] += 1
            frame[1] = 1
            continue
        if char == "(":
            stack.append([0, 0])
            index += 1
            if pattern.startswith("?", index):  # (?:  (?=  (?!  (?<=  (?<!  (?P<name>  (?<name>: no atom
                index += 1
                if pattern.startswith(("P<", "<"), index) and not pattern.startswith(("<=", "<!"), index):
                    index = pattern.find(">", index) + 1 or length
                elif index < length and pattern[index] in ":=!<":
                    index += 2 if pattern.startswith(("<=", "<!"), index) else 1
            continue
        if char == ")" and len(stack) > 1:
            inner = stack.pop()[0]
            frame = stack[-1]
            frame[0] = min(cap, frame[0] + inner)
            frame[1] = inner
            index += 1
            continue
        if char == "{":
            end = pattern.find("}", index)
            counts = pattern[index + 1 : end].split(",") if end > 0 else []
            if 1 <= len(counts) <= 2 and all(part.strip().isdigit() or part.strip() == "" for part in counts):
                numbers = [int(part) for part in counts if part.strip().isdigit()]
                if numbers:
                    largest = max(numbers)
                    frame[0] = min(cap, frame[0] - frame[1] + frame[1] * largest)
                    frame[1] = frame[1] * largest
                    index = end + 1
                    continue
        frame[0] = min(cap, frame[0] + 1)
        frame[1] = 1
        index += 1
    while len(stack) > 1:
        inner = stack.pop()[0]
        stack[-1][0] = min(cap, stack[-1][0] + inner)
    return stack[0][0]
