"""Rule documentation, from the rule docstrings: `tflint explain`, `docs/rules.md`, SARIF rule help.

A rule's module docstring is its documentation: a summary line, paragraphs
on what and why, a "How to fix" paragraph, then `Okay:`/`Fail:` examples
(which the test suite runs). Everything here reads it; nothing restates it.
"""

from __future__ import annotations

import inspect
import json
import re
from collections.abc import Iterator, Mapping
from typing import Any

GENERATED_NOTE = "<!-- Generated from the rule docstrings by `tflint rules --format markdown`; do not edit by hand. -->"
# `Okay:`, `Fail (file NAME):` (what a file's name decides), `Okay (directory):` (the meta graph of a
# SavedModel directory, whose other files the rule's EXAMPLE_FILES describe).
_EXAMPLE_HEADER = re.compile(r"(?P<kind>Okay|Fail)(?: \((?:file (?P<name>[\w.-]+)|(?P<directory>directory))\))?:")


def docstring(module: Any) -> str:
    """The rule's docstring, dedented."""
    return inspect.getdoc(module) or ""


def summary_of(module: Any) -> str:
    """The first line of a rule's docstring."""
    doc = docstring(module).strip()
    return doc.splitlines()[0] if doc else ""


def description_of(module: Any) -> str:
    """The docstring after its summary line and before its examples."""
    lines = docstring(module).splitlines()[1:]
    body = []
    for line in lines:
        if _EXAMPLE_HEADER.fullmatch(line.strip()):
            break
        body.append(line)
    return "\n".join(body).strip()


def examples_of(module: Any) -> Iterator[tuple[str, str]]:
    """(`Okay` or `Fail`, example text) for each example block of the docstring.

    An example in a file of a given name starts with a comment naming it.
    """
    lines = docstring(module).splitlines()
    index = 0
    while index < len(lines):
        header = _EXAMPLE_HEADER.fullmatch(lines[index].strip())
        index += 1
        if header is None:
            continue
        body = [f"# in a file named {header['name']}"] if header["name"] else []
        if header["directory"]:
            body = ["# a meta graph of a SavedModel directory (its checkpoint and warm-up files as the rule says)"]
        while index < len(lines) and lines[index].startswith("  ") and lines[index].strip():
            body.append(lines[index][2:])
            index += 1
        yield header["kind"], "\n".join(body)


def explain_text(rule_id: str, module: Any) -> str:
    """What `tflint explain RULE` prints."""
    parts = [f"{rule_id} ({module.CATEGORY}, default level: {module.DEFAULT_SEVERITY})", "", docstring(module)]
    options = getattr(module, "OPTIONS", {})
    if options:
        parts.append("")
        parts.append("Options (defaults):")
        parts.extend(f"  {key}: {value!r}" for key, value in options.items())
    url = help_uri(rule_id, module)
    if url:
        parts.extend(["", f"See {url}"])
    return "\n".join(parts) + "\n"


def markdown(rules: Mapping[str, Any]) -> str:
    """The rules reference (docs/rules.md): an index table, then one section per rule."""
    ordered = sorted(rules.items())
    out = ["# Rules", "", GENERATED_NOTE, ""]
    out.append("Every rule has a default level; `.tflint.yaml` can change it (`off`, `info`, `warning`, `error`).")
    out.append("`tflint explain RULE` prints the same documentation in the terminal.")
    out.extend(["", "| rule | category | default level | summary |", "|---|---|---|---|"])
    for rule_id, module in ordered:
        out.append(
            f"| [`{rule_id}`](#{rule_id}) | {module.CATEGORY} | {module.DEFAULT_SEVERITY} | "
            f"{_cell(summary_of(module))} |"
        )
    for rule_id, module in ordered:
        out.extend(["", f"## {rule_id}", "", rule_markdown(module)])
    return "\n".join(out) + "\n"


def rule_markdown(module: Any) -> str:
    """One rule's documentation as Markdown (its docs/rules.md section, without the heading)."""
    out = [
        f"**{summary_of(module)}**",
        "",
        f"Category: `{module.CATEGORY}`. Default level: `{module.DEFAULT_SEVERITY}`.",
    ]
    description = description_of(module)
    if description:
        out.extend(["", description])
    options = getattr(module, "OPTIONS", {})
    if options:
        out.extend(["", "| option | default |", "|---|---|"])
        out.extend(f"| `{key}` | `{_value(value)}` |" for key, value in options.items())
    for kind, text in examples_of(module):
        out.extend(["", f"{kind}:", "", "```protobuf", text, "```"])
    return "\n".join(out)


# The project's home and its rules reference (docs/rules.md, one section per rule, anchored by rule id).
# Single source: pyproject.toml's [project.urls] repeats them, and tests/test_docs.py checks that they agree.
# Constants, not package metadata: reading that at run time cost 60-190 ms per SARIF report.
HOME_URL = "https://github.com/OWNER/tflint"
RULES_URL = f"{HOME_URL}/blob/main/docs/rules.md"


def help_uri(rule_id: str, module: Any) -> str | None:
    """Where a rule is documented on the web: the rule's own `URL` (plugins), else its section of docs/rules.md."""
    url = getattr(module, "URL", None)
    if isinstance(url, str) and url:
        return url
    if getattr(module, "__name__", "").startswith("tflint.rules."):
        return f"{RULES_URL}#{rule_id}"
    return None


def rule_name(rule_id: str) -> str:
    """A rule's name for people and SARIF viewers: `duplicate-node-name` -> `DuplicateNodeName`.

    A plugin's namespace leads: `example/no-print` -> `ExampleNoPrint`.
    """
    return "".join(word.capitalize() for word in rule_id.replace("/", "-").split("-"))


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _value(value: Any) -> str:
    try:
        return json.dumps(value if not isinstance(value, tuple) else list(value))
    except TypeError:
        return repr(value)
