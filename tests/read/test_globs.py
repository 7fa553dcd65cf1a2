"""Gitignore-style globs (tflint.read.globs): the syntax of exclude, extend-exclude, per-file-ignores and .ignore."""

from __future__ import annotations

import pytest

from tflint.read.globs import GlobSet, compile_glob

BASE = "/repo"


def _decide(patterns, path, is_dir=False):
    return GlobSet(patterns, BASE).decision(f"{BASE}/{path}", is_dir)


@pytest.mark.parametrize(
    "pattern, path, is_dir, expected",
    [
        # A name without a slash matches at any depth.
        ("*.pbtxt", "a.pbtxt", False, True),
        ("*.pbtxt", "x/y/a.pbtxt", False, True),
        ("*.pbtxt", "a.pb", False, None),
        ("label_map.pbtxt", "data/label_map.pbtxt", False, True),
        # `*` and `?` never cross a slash.
        ("models/*.pb", "models/a.pb", False, True),
        ("models/*.pb", "models/x/a.pb", False, None),
        ("?.pb", "a.pb", False, True),
        ("?.pb", "ab.pb", False, None),
        # A slash at the start or in the middle anchors at the base.
        ("/top.pb", "top.pb", False, True),
        ("/top.pb", "sub/top.pb", False, None),
        ("models/tmp", "models/tmp", True, True),
        ("models/tmp", "x/models/tmp", True, None),
        # A trailing slash matches directories only.
        ("build/", "build", True, True),
        ("build/", "build", False, None),
        ("build/", "a/build", True, True),
        # `**`: any number of directories at the start, the middle, or everything inside at the end.
        ("**/golden/*.pbtxt", "golden/a.pbtxt", False, True),
        ("**/golden/*.pbtxt", "x/y/golden/a.pbtxt", False, True),
        ("a/**/b.pb", "a/b.pb", False, True),
        ("a/**/b.pb", "a/x/y/b.pb", False, True),
        ("a/**/b.pb", "x/a/b.pb", False, None),
        ("testdata/**", "testdata/x/y.pb", False, True),
        ("testdata/**", "testdata", True, None),
        ("a**b", "axxb", False, True),  # not a whole segment: a plain star
        ("a**b", "ax/xb", False, None),
        # Classes, negated classes, ranges; a class never matches a slash.
        ("[abc].pb", "b.pb", False, True),
        ("[abc].pb", "d.pb", False, None),
        ("[!abc].pb", "d.pb", False, True),
        ("[!abc].pb", "a.pb", False, None),
        ("[a-c]x.pb", "bx.pb", False, True),
        ("x[!a]y", "x/y", False, None),
        ("[unclosed.pb", "[unclosed.pb", False, True),
        # Escapes and special first characters.
        (r"\#notes.pb", "#notes.pb", False, True),
        (r"\!bang.pb", "!bang.pb", False, True),
        (r"a\*.pb", "a*.pb", False, True),
        (r"a\*.pb", "ab.pb", False, None),
        ("dots.in.name.pb", "dotsXinXname.pb", False, None),
        ("trailing.pb   ", "trailing.pb", False, True),
    ],
)
def test_one_pattern(pattern, path, is_dir, expected):
    assert _decide([pattern], path, is_dir) is expected


@pytest.mark.parametrize("line", ["", "   ", "# a comment", "/", "!"])
def test_blank_lines_and_comments_are_no_patterns(line):
    assert compile_glob(line) is None


def test_the_last_matching_pattern_wins_and_negation_reincludes():
    patterns = ["*.pbtxt", "!keep.pbtxt", "keep.pbtxt.bak"]
    assert _decide(patterns, "a.pbtxt") is True
    assert _decide(patterns, "keep.pbtxt") is False
    assert _decide(["!keep.pbtxt", "*.pbtxt"], "keep.pbtxt") is True


def test_paths_outside_the_base():
    globs = GlobSet(["build/", "/anchored.pb", "*.tmp.pb"], BASE)
    assert globs.decision("/elsewhere/build", True) is True  # a name pattern applies to the name
    assert globs.decision("/elsewhere/anchored.pb", False) is None  # an anchored one does not
    assert globs.decision("/elsewhere/x.tmp.pb", False) is True
    assert globs.decide_within("/elsewhere/x.tmp.pb", False) is None  # an ignore file rules only below itself
    assert globs.decision(BASE, True) is None  # the base itself is never matched


def test_a_parent_directory_excludes_what_is_inside():
    globs = GlobSet(["generated/", "/third_party"], BASE)
    assert globs.matches_path_or_parent(f"{BASE}/generated/x/g.pb", False)
    assert globs.matches_path_or_parent(f"{BASE}/third_party/m/g.pb", False)
    assert not globs.matches_path_or_parent(f"{BASE}/src/third_party/g.pb", False)
    assert not globs.matches_path_or_parent(f"{BASE}/src/g.pb", False)
    # Outside the base, as a walk decides there: the unanchored patterns, on the names of the path and its parents.
    assert globs.matches_path_or_parent("/generated/g.pb", False)
    assert globs.matches_path_or_parent("/elsewhere/generated/deep/g.pb", False)
    assert not globs.matches_path_or_parent("/elsewhere/third_party/g.pb", False)  # anchored at the base
    assert not globs.matches_path_or_parent("/elsewhere/src/g.pb", False)


def test_a_key_covers_what_it_excludes_inside_and_outside_the_base():
    globs = GlobSet(["tests/", "*.tmp.pb"], BASE)
    for path in (f"{BASE}/tests/a/g.pb", "/elsewhere/tests/a/g.pb", f"{BASE}/x.tmp.pb", "/elsewhere/x.tmp.pb"):
        assert globs.covers(path, False) is globs.matches_path_or_parent(path, False) is True, path
    assert not globs.covers("/elsewhere/src/g.pb", False)


def test_patterns_keep_their_text():
    globs = GlobSet(["# comment", "*.pb", "", "!a.pb"], BASE)
    assert globs.patterns == ("*.pb", "!a.pb")
    assert bool(globs) and not GlobSet(["# only a comment"], BASE)
