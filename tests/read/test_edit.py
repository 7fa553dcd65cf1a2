"""read/edit: cut attr entries out of text graphs, keep every other byte, and diff the cut in one pass."""

from __future__ import annotations

import difflib
import re

import pytest
from google.protobuf import text_format

from tflint import protos
from tflint.read import edit
from tflint.read.edit import remove_attr_entries, unified_diff


def _key_positions(text: str, *keys: str) -> list[tuple[int, int]]:
    """(line, column) of the key strings `"k"` that follow `key:`, as the readers report them."""
    found = []
    for match in re.finditer(r'key:\s*(?P<key>"(?P<name>[^"]*)")', text):
        if match["name"] in keys:
            offset = match.start("key")
            line = text.count("\n", 0, offset) + 1
            found.append((line, offset - (text.rfind("\n", 0, offset) + 1) + 1))
    return found


def _parses(text: str) -> protos.GraphDef:
    return text_format.Parse(text, protos.GraphDef(), descriptor_pool=protos.POOL)


X = 'attr { key: "x" value { i: 1 } }'
Y = 'attr { key: "y" value { i: 2 } }'
Z = 'attr { key: "z" value { i: 3 } }'


@pytest.mark.parametrize(
    "before, keys, after",
    [
        pytest.param(f'node {{ name: "a" {X} {Y} }}\n', ["x"], f'node {{ name: "a" {Y} }}\n', id="one-line"),
        pytest.param(
            f'node {{ name: "a", {X}, {Y}, {Z}; }}\n', ["y"], f'node {{ name: "a", {X}, {Z}; }}\n', id="commas"
        ),
        pytest.param(f'node {{ name: "a"; {X}; {Y}; }}\n', ["x", "y"], 'node { name: "a"; }\n', id="semicolons"),
        pytest.param(
            'node { name: "a" attr: [ { key: "x" value { i: 1 } }, { key: "y" value { i: 2 } } ] }\n',
            ["x"],
            'node { name: "a" attr: [ { key: "y" value { i: 2 } } ] }\n',
            id="list-first",
        ),
        pytest.param(
            'node { name: "a" attr: [ { key: "x" value { i: 1 } }, { key: "y" value { i: 2 } } ] }\n',
            ["y"],
            'node { name: "a" attr: [ { key: "x" value { i: 1 } }] }\n',
            id="list-last",
        ),
        pytest.param(
            'node { name: "a" attr: [ { key: "x" value { i: 1 } }, { key: "y" value { i: 2 } } ] }\n',
            ["x", "y"],
            'node { name: "a" }\n',
            id="list-all",
        ),
        pytest.param(
            'node {\n  name: "a"\n  attr: [\n    { key: "x" value { i: 1 } },\n    { key: "y" value { i: 2 } },\n'
            '    { key: "z" value { i: 3 } }\n  ]\n}\n',
            ["x", "z"],
            'node {\n  name: "a"\n  attr: [\n    { key: "y" value { i: 2 } }\n  ]\n}\n',
            id="list-lines",
        ),
        pytest.param(
            f'node {{\n  name: "a"\n  {X}  # tflint: ignore[target-attr]\n  {Y}\n}}\n',
            ["x"],
            f'node {{\n  name: "a"\n  {Y}\n}}\n',
            id="trailing-directive-goes",
        ),
        pytest.param(
            f'node {{\n  name: "a"\n  # tflint: ignore[target-attr] -- old TF\n  # why\n  {X}\n  {Y}\n}}\n',
            ["x"],
            f'node {{\n  name: "a"\n  # why\n  {Y}\n}}\n',
            id="own-line-directive-above-goes",
        ),
        pytest.param(
            f'node {{\n  name: "a"\n  {X}  # a plain comment\n  {Y}\n}}\n',
            ["x"],
            f'node {{\n  name: "a"\n   # a plain comment\n  {Y}\n}}\n',
            id="plain-comment-stays",
        ),
        pytest.param(
            f'node {{ name: "a" {X} }}  # tflint: ignore[unknown-op]\n',
            ["x"],
            'node { name: "a" }  # tflint: ignore[unknown-op]\n',
            id="directive-of-a-kept-line-stays",
        ),
        pytest.param(
            f'node {{\r\n  name: "a"\r\n  {X}\r\n  {Y}\r\n}}\r\n',
            ["x"],
            f'node {{\r\n  name: "a"\r\n  {Y}\r\n}}\r\n',
            id="crlf",
        ),
    ],
)
def test_removal_keeps_every_other_byte_and_parses(before, keys, after):
    _parses(before)
    positions = _key_positions(before, *keys)
    removal = remove_attr_entries(before, positions)
    assert removal.text == after
    assert removal.removed == (True,) * len(positions)
    assert not set(keys) & set(_parses(after).node[0].attr)


def test_a_key_that_is_not_an_attr_entry_is_reported_as_not_removed():
    text = 'node { name: "a" attr { key: "x" value { list { s: "key" } } } }\n'
    outside = (1, text.index('"key"') + 1)  # a string inside the value, not an attr key
    removal = remove_attr_entries(text, [outside, (9, 1)])
    assert removal.removed == (False, False) and removal.text == text and removal.spans == ()


def test_the_unified_diff_is_what_difflib_gives():
    lines = [f'node {{ name: "n{i}" op: "NoOp" {X if i % 7 == 0 else ""} }}\n' for i in range(60)]
    text = "".join(lines) + f'node {{\n  name: "last"\n  {X}\n}}\n'
    removal = remove_attr_entries(text, _key_positions(text, "x"))
    expected = "".join(difflib.unified_diff(text.splitlines(True), removal.text.splitlines(True), "g.pbtxt", "g.pbtxt"))
    assert unified_diff(text, removal.spans, "g.pbtxt") == expected
    assert unified_diff(text, (), "g.pbtxt") == ""


def test_the_unified_diff_marks_a_last_line_without_newline():
    text = f'node {{ name: "a" }}\nnode {{ name: "b" {X} }}'
    removal = remove_attr_entries(text, _key_positions(text, "x"))
    assert unified_diff(text, removal.spans, "g") == (
        "--- g\n+++ g\n@@ -1,2 +1,2 @@\n"
        ' node { name: "a" }\n'
        f'-node {{ name: "b" {X} }}\n\\ No newline at end of file\n'
        '+node { name: "b" }\n\\ No newline at end of file\n'
    )


def _patched(old: str, diff: str) -> str:
    """`old` with a unified diff applied (what `patch` does), for diffs of removals and replacements."""
    lines = old.split("\n")
    lines = [line + "\n" for line in lines[:-1]] + ([lines[-1]] if lines[-1] else [])
    result: list[str] = []
    position = 0
    for hunk in re.split(r"^(?=@@ )", diff.split("\n", 2)[2], flags=re.M)[1:]:
        header, _, body = hunk.partition("\n")
        old_start, old_count, new_start, new_count = re.match(
            r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))?", header
        ).groups()
        start = int(old_start) - (old_count != "0")
        result += lines[position:start]
        position = start
        assert int(new_start) - (new_count != "0") == len(result)  # the hunk says where it lands in the new text
        for line in body.splitlines(keepends=True):
            if line.startswith("\\"):  # the line before has no newline
                if result and previous == "+":
                    result[-1] = result[-1][:-1]
                continue
            previous, content = line[0], line[1:]
            if previous == " ":
                assert lines[position].rstrip("\n") == content.rstrip("\n")
                result.append(lines[position])
            if previous in " -":
                position += 1
            else:
                result.append(content)
    return "".join(result + lines[position:])


def test_the_unified_diff_applies_to_the_old_text_giving_the_new():
    import random

    chooser = random.Random(29)
    for _ in range(400):
        nodes = []
        for number in range(chooser.randint(1, 25)):
            layout = chooser.random()
            if layout < 0.35:
                nodes.append(f'node {{ name: "n{number}" {X} }}\n')
            elif layout < 0.6:
                nodes.append(f'node {{\n  name: "n{number}"\n  {X}\n}}\n')
            else:
                nodes.append('node { name: "same" }\n')  # repeated lines, which a text comparison may align anywhere
        text = "".join(nodes)
        if chooser.random() < 0.3:
            text = text.rstrip("\n")
        keys = [where for where in _key_positions(text, "x") if chooser.random() < 0.7]
        removal = remove_attr_entries(text, keys)
        diff = unified_diff(text, removal.spans, "g")
        assert (diff == "") == (removal.text == text)
        if diff:
            assert _patched(text, diff) == removal.text, diff


TRICKY = [
    pytest.param(
        'node { name: "{[<" op: \'}]>\' attr { key: "x" value { s: "\\"}" } } }  # } ] > { [ <\n', "{{{}}}", id="quoted"
    ),
    pytest.param(
        'node { [ext.name] { a: 1 } attr: [] attr: [ { key: "x" value { i: 1 } }, < key: "y" value < i: 2 > > ] }\n',
        "{{}[{{}}<<>>]}",
        id="lists-and-extensions",
    ),
    pytest.param('node {\n  # a " quote and a { brace\n  name: "a"\n}\n# trailing { [ <\n', "{}", id="comments"),
]


@pytest.mark.parametrize("text, brackets", TRICKY)
def test_only_the_brackets_that_nest_are_found_by_both_scans(text, brackets):
    found = list(edit._brackets_by_token(text))
    assert "".join(text[at] for at in found) == brackets
    if edit._UP_TO_BRACKET is not None:  # Python 3.11+: the scan that skips to the next bracket
        assert list(edit._brackets_by_skip(text)) == found
