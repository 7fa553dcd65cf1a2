"""Every rule is registered, documented, and its docstring examples hold (pycodestyle's trick).

A `Fail:` example gives exactly the findings its `# rule-id` comments mark, on those lines; an
`Okay:` example gives no finding of its rule and no warning or error of any other, so the docs
never show a bad graph as good.
"""

from __future__ import annotations

import pkgutil
import re
from pathlib import Path

import pytest
from conftest import compat_text, lint_text

import tflint.rules
from tflint.finding import Severity
from tflint.rules import RULES

_EXPECTED = re.compile(r"#\s*(?P<rules>[a-z][a-z0-9-]*(?:\s*,\s*[a-z][a-z0-9-]*)*)\s*$")
# `Okay:`, `Fail:`, `Fail (file saved_model.cpb):` for what a file's name decides, or `Okay (directory):`
# for a meta graph linted in a SavedModel directory whose other files the rule's EXAMPLE_FILES describe.
_HEADER = re.compile(r"(?P<kind>Okay|Fail)(?: \((?:file (?P<name>[\w.-]+)|(?P<directory>directory))\))?:")
DIRECTORY = "<directory>"


def _examples(module):
    """Yield (kind, text, [(rule, line)], file name) for each Okay:/Fail: block of the docstring."""
    lines = (module.__doc__ or "").splitlines()
    index = 0
    while index < len(lines):
        header = _HEADER.fullmatch(lines[index].strip())
        if header:
            body = []
            index += 1
            while index < len(lines) and lines[index].startswith("  ") and lines[index].strip():
                body.append(lines[index][2:])
                index += 1
            expected = []
            for number, line in enumerate(body, start=1):
                match = _EXPECTED.search(line)
                if match and header["kind"] == "Fail":
                    expected.extend((rule.strip(), number) for rule in match.group("rules").split(","))
            name = DIRECTORY if header["directory"] else header["name"] or "graph.pbtxt"
            yield header["kind"], "\n".join(body) + "\n", expected, name
        else:
            index += 1


def _cases():
    for rule_id, module in sorted(RULES.items()):
        for number, (kind, text, expected, name) in enumerate(_examples(module)):
            yield pytest.param(rule_id, kind, text, expected, name, id=f"{rule_id}-{kind.lower()}{number}")


def test_every_rule_module_is_registered():
    names = {info.name for info in pkgutil.iter_modules(tflint.rules.__path__)}
    assert {module.__name__.rsplit(".", 1)[1] for module in RULES.values()} == names


@pytest.mark.parametrize("rule_id", sorted(RULES))
def test_every_rule_has_a_test_module(rule_id):
    """tests/rules/test_<rule>.py, which names the rule."""
    name = RULES[rule_id].__name__.rsplit(".", 1)[1]
    own = Path(__file__).parent / "rules" / f"test_{name}.py"
    assert own.is_file(), f"no tests/rules/test_{name}.py"
    text = own.read_text(encoding="utf-8")
    assert rule_id in text, f"tests/rules/test_{name}.py does not name {rule_id}"


@pytest.mark.parametrize("rule_id", sorted(RULES))
def test_rule_declares_its_contract(rule_id):
    module = RULES[rule_id]
    assert module.ID == rule_id
    assert module.__name__.rsplit(".", 1)[1] == rule_id.replace("-", "_")
    assert re.fullmatch(r"[a-z][a-z0-9]*(-[a-z0-9]+)*", rule_id)
    assert isinstance(module.DEFAULT_SEVERITY, Severity)
    assert module.CATEGORY
    assert callable(module.check)
    assert isinstance(module.OPTIONS, dict)
    kinds = [kind for kind, _, _, _ in _examples(module)]
    assert "Fail" in kinds, f"{rule_id} documents no failing example"
    assert "Okay" in kinds, f"{rule_id} documents no passing example"


@pytest.mark.parametrize("rule_id, kind, text, expected, name", list(_cases()))
def test_docstring_example(rule_id, kind, text, expected, name, tmp_path):
    module = RULES[rule_id]
    config = {"rules": {rule_id: "error"}} if module.DEFAULT_SEVERITY == Severity.OFF else None
    # A rule about how a graph is used shows it with the configuration or import arguments it names.
    config = getattr(module, "EXAMPLE_CONFIG", config)
    import_args = getattr(module, "EXAMPLE_IMPORT_ARGS", None)
    if module.CATEGORY == "compat":
        # Two versions: the old one, a line `---`, the new one (where findings land, lines counted from it).
        old, new = text.split("\n---\n")
        offset = old.count("\n") + 2
        expected = [(rule, line - offset) for rule, line in expected]
        findings = compat_text(old + "\n", new)
    elif name == DIRECTORY:
        # The meta graph is written inside `meta_graphs {` (one line before it) in the directory's saved_model.pbtxt.
        from savedmodel_files import write_example_directory

        from tflint.api import lint_file

        root = write_example_directory(tmp_path / "model", text, module.EXAMPLE_FILES, kind)
        if config is None:
            config = {}
        report = lint_file(root, config=config)
        findings = [finding.replace(line=(finding.line or 1) - 1) for finding in report.findings]
    else:
        findings = lint_text(text, config, import_args=import_args, name=name)
    if kind == "Okay":
        # Nothing of the rule, and nothing to fix from any other (an info note, such as api-added's, may remain).
        assert [(f.rule, f.line, f.message) for f in findings if f.rule == rule_id or f.severity > Severity.INFO] == []
    else:
        assert sorted((f.rule, f.line) for f in findings if f.rule == rule_id) == sorted(expected)
