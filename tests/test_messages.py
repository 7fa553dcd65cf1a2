"""Finding messages stay short: at most 200 characters before the location suffix.

A graph chooses its names and device strings, so a quoted value counts as at most
32 characters; what tflint writes around them (the template, its lists) must fit.
Lists are shortened with a count ("and 3 more ops").
"""

from __future__ import annotations

import re

import pytest
from conftest import DATA, WILD, lint_text, shared

from tflint.api import lint_paths
from tflint.report.rulesdoc import examples_of
from tflint.rules import RULES

LIMIT = 200
NAME_LIMIT = 32
# Every rule on, the ones off by default too.
EVERYTHING = {"rules": {rule_id: "info" for rule_id, module in RULES.items() if str(module.DEFAULT_SEVERITY) == "off"}}


def measured(message: str) -> int:
    """The message's length with each quoted value (or path) longer than NAME_LIMIT counted as NAME_LIMIT."""
    message = re.sub(r"(?<![\w'])/[^\s']{%d,}" % NAME_LIMIT, "/" + "x" * (NAME_LIMIT - 1), message)
    return len(re.sub(r"'[^']{%d,}'" % (NAME_LIMIT + 1), "'" + "x" * NAME_LIMIT + "'", message))


def too_long(findings) -> list[tuple[str, int, str]]:
    return [(f.rule, measured(f.message), f.message) for f in findings if measured(f.message) > LIMIT]


def test_measured_counts_long_quoted_values_as_the_name_limit():
    assert measured("Node 'a' is fine") == 16
    assert measured(f"Node '{'n' * 100}' x") == len("Node '' x") + NAME_LIMIT


@pytest.mark.parametrize("rule_id", sorted(RULES))
def test_fail_examples_have_short_messages(rule_id, tmp_path):
    module = RULES[rule_id]
    # A rule about how a graph is used shows it with the configuration or import arguments it names.
    config = getattr(module, "EXAMPLE_CONFIG", EVERYTHING)
    import_args = getattr(module, "EXAMPLE_IMPORT_ARGS", None)
    findings = []
    for number, (kind, text) in enumerate(examples_of(module)):
        if kind != "Fail":
            continue
        if hasattr(module, "EXAMPLE_FILES"):  # a meta graph in a SavedModel directory, with the files it describes
            from savedmodel_files import write_example_directory

            from tflint.api import lint_file

            root = write_example_directory(tmp_path / str(number), text, module.EXAMPLE_FILES, kind)
            findings.extend(lint_file(root, config=config).findings)
        else:
            findings.extend(lint_text(text, config, import_args=import_args))
    assert findings, rule_id
    assert too_long(findings) == []


def test_the_test_graphs_findings_have_short_messages():
    findings = lint_paths([str(DATA)], EVERYTHING, baseline=False).findings
    assert len(findings) > 50  # the serving rules' policies make plenty on TensorFlow's own graphs
    assert too_long(findings) == []


@shared
def test_the_wild_graphs_findings_have_short_messages():
    findings = lint_paths([str(WILD)], EVERYTHING, baseline=False).findings
    assert too_long(findings) == []
