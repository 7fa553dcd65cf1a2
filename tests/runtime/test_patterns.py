"""tflint.runtime.patterns: a lazy pattern answers as re.compile's would, and compiles only when first used."""

from __future__ import annotations

import re

import pytest

from tflint.runtime.patterns import lazy

TEXT = "a1 b22 c333"
PATTERN = r"([a-z])(\d+)"


def test_nothing_is_compiled_until_first_use():
    pattern = lazy(r"(unbalanced")
    assert pattern.pattern == "(unbalanced"  # a bad pattern would fail here if it were compiled now
    with pytest.raises(re.error):
        pattern.search("text")


@pytest.mark.parametrize("flags", [0, re.IGNORECASE])
def test_every_method_answers_as_the_compiled_pattern(flags):
    pattern, compiled = lazy(PATTERN, flags), re.compile(PATTERN, flags)
    assert pattern.compiled() is pattern.compiled() and pattern.compiled().flags == compiled.flags
    assert pattern.match(TEXT).group(0) == compiled.match(TEXT).group(0) == "a1"
    assert pattern.match(TEXT, 3).span() == compiled.match(TEXT, 3).span()
    assert pattern.match(TEXT, 0, 1) is None
    assert pattern.fullmatch("b22").groups() == ("b", "22")
    assert pattern.search(TEXT, 1).group(0) == "b22"
    assert [m.span() for m in pattern.finditer(TEXT)] == [m.span() for m in compiled.finditer(TEXT)]
    assert pattern.findall(TEXT) == compiled.findall(TEXT)
    assert pattern.split(TEXT) == compiled.split(TEXT) and pattern.split(TEXT, 1) == compiled.split(TEXT, 1)
    assert pattern.sub(r"\2\1", TEXT) == compiled.sub(r"\2\1", TEXT) == "1a 22b 333c"
    assert pattern.sub(lambda m: m.group(1).upper(), TEXT, 1) == "A b22 c333"


def test_bytes_patterns():
    pattern = lazy(rb"[\x00-\x08]")
    assert pattern.search(b"ab\x01") is not None and pattern.search(b"abc") is None
