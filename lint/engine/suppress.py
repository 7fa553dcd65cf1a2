"""Inline suppressions in text graphs: `# tflint: ignore[...]` and `# tflint: file-ignore[...]`.

Text-format protobuf allows `#` comments, so a hand-maintained `.pbtxt` can
carry its own exceptions (ruff's `# ruff: ignore[...]` form):

    # tflint: ignore[unknown-op, unknown-attr] -- registered by our serving binary
    node {                              <- own line, directly above: the whole block
      name: "a"
      op: "VendorOp"
      attr { key: "x" value { i: 1 } }  # tflint: ignore[unknown-attr]   <- this line
    }

- On its own line, a directive covers the next line that is not blank or a
  comment, and the whole block when that line opens one (`node {`).
- Trailing code, it covers its own line.
- `file-ignore` covers the whole file, and is valid only in the file's
  leading comment block.
- Text after ` -- ` is the reason; `inline-suppressions: {require-reason: true}`
  makes it mandatory, `inline-suppressions: false` forbids directives.

Directives that name unknown or unsuppressible rules (invalid-graph), are
malformed, misplaced or forbidden by config become `invalid-suppression`
findings and suppress nothing; a rule a directive names but that it did not
suppress anything of becomes an `unused-suppression` finding. Neither meta
rule can itself be suppressed.
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

from tflint.config.settings import Config, InlineSuppressions
from tflint.engine.findings import configured, file_findings
from tflint.errors import Suggestions
from tflint.finding import Finding, Severity
from tflint.records import record
from tflint.runtime.patterns import lazy

# What the rules about suppressions check (their CHECKS): a Suppressions record.
SUPPRESSIONS = "suppressions"
KINDS = ("ignore", "file-ignore")
USAGE = "expected '# tflint: ignore[rule, ...]' or '# tflint: file-ignore[rule, ...]'"

_MARKER = "tflint:"
# Code up to the first `#` outside a string (text-format strings never span lines).
_CODE = lazy(r"""(?:[^"'#\n]|"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')*""")
_DIRECTIVE = lazy(r"#+\s*tflint:\s*(?P<body>.*)")
_FORM = lazy(r"(?P<kind>[A-Za-z][\w-]*)\s*\[(?P<rules>[^\]]*)\](?P<rest>.*)")
_REASON = lazy(r"\s*--\s*(?P<reason>\S.*)")
_RULE_SEPARATOR = lazy(r"[,\s]+")
# Blank or comment-only lines.
_SKIPPABLE_LINES = lazy(r"(?:[ \t\r\f\v]*(?:#[^\n]*)?\n)*")
_NOTHING_LEFT = lazy(r"\s*(?:#[^\n]*)?\Z")
_TOKEN = lazy(
    r"""(?P<string>"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')"""
    r"|(?P<comment>#[^\n]*)|(?P<open>[{<])|(?P<close>[}>])|(?P<newline>\n)"
)


@record()
class Directive:
    """One parsed suppression comment and what it covers.

    `first`/`last` are the covered lines (inclusive); a file-ignore covers
    the whole file (`whole_file`); an own-line directive with nothing after
    it covers nothing (`first` is None).
    """

    kind: str
    line: int
    column: int
    rules: tuple[str, ...]
    reason: str | None
    whole_file: bool
    first: int | None
    last: int | None
    used: dict[str, int]

    def __init__(
        self,
        kind: str,
        line: int,
        column: int,
        rules: tuple[str, ...],
        reason: str | None,
        whole_file: bool = False,
        first: int | None = None,
        last: int | None = None,
        used: dict[str, int] | None = None,
    ) -> None:
        self.kind = kind
        self.line = line
        self.column = column
        self.rules = rules
        self.reason = reason
        self.whole_file = whole_file
        self.first = first
        self.last = last
        self.used = {} if used is None else used

    def covers(self, line: int | None) -> bool:
        """Whether a finding on `line` is within this directive's reach."""
        if self.whole_file:
            return True
        return line is not None and self.first is not None and self.first <= line <= self.last  # type: ignore[operator]


@record(frozen=True)
class Problem:
    """A directive that cannot be honoured, and why (an invalid-suppression finding)."""

    line: int
    column: int
    message: str

    def __init__(self, line: int, column: int, message: str) -> None:
        vars(self).update(line=line, column=column, message=message)


@record(frozen=True)
class StaleEntry:
    """A baseline entry that matched no finding: `count` of the `recorded` findings of `rule` on
    the subject `key` in `file` (relative to the baseline's root) no longer occur, or the file
    no longer `exists`."""

    file: str
    rule: str
    key: str
    count: int
    recorded: int
    exists: bool

    def __init__(self, file: str, rule: str, key: str, count: int, recorded: int, exists: bool) -> None:
        vars(self).update(file=file, rule=rule, key=key, count=count, recorded=recorded, exists=exists)


@record(frozen=True)
class Suppressions:
    """What the rules about suppressions check (CHECKS = "suppressions"), for one file.

    `problems`: the directives that cannot be honoured; `unused`: (directive, rule id, whether
    the rule is off) for each rule a directive names but suppressed no finding of; `stale`: the
    baseline entries that matched nothing.
    """

    problems: Sequence[Problem]
    unused: Sequence[tuple[Directive, str, bool]]
    stale: Sequence[StaleEntry]

    def __init__(
        self,
        problems: Sequence[Problem] = (),
        unused: Sequence[tuple[Directive, str, bool]] = (),
        stale: Sequence[StaleEntry] = (),
    ) -> None:
        vars(self).update(problems=problems, unused=unused, stale=stale)


def apply_inline(
    findings: Sequence[Finding],
    text: str,
    path: str,
    config: Config,
    judged: Callable[[str], bool] | None = None,
    report_problems: bool = True,
) -> list[Finding]:
    """`findings` without those the file's directives suppress, plus the meta findings.

    `judged(rule)` says which rules this run ran (linting does not run the
    compat rules, `tflint compat` runs only them): a directive naming another
    rule is never unused. Malformed directives are reported unless
    `report_problems` is false (`tflint compat`: linting the file reports them).
    """
    if _MARKER not in text:
        return list(findings)
    directives, problems = parse_directives(text, config.modules, config.inline_suppressions)
    if not report_problems:
        problems = []
    by_rule: dict[str, _Reach] = {}
    for directive in directives:
        for rule_id in directive.rules:
            by_rule.setdefault(rule_id, _Reach()).add(directive)
    kept = []
    for finding in findings:
        reach = by_rule.get(finding.rule)
        covering = reach.covering(finding.line) if reach is not None else []
        if not covering or not suppressible(finding.rule, config.modules):
            kept.append(finding)
            continue
        for directive in covering:
            directive.used[finding.rule] = directive.used.get(finding.rule, 0) + 1
    kept.extend(_meta_findings(directives, problems, path, config, judged))
    kept.sort(key=Finding.sort_key)
    return kept


class _Reach:
    """The directives naming one rule, indexed so that a finding's lookup stays logarithmic.

    Line ranges are sorted by their first line, with the running maximum of
    their last lines, so that the search walks back only over ranges that
    may still reach the finding (node blocks do not overlap; only nesting does).
    """

    def __init__(self) -> None:
        self.whole_file: list[Directive] = []
        self.ranges: list[Directive] = []
        self._firsts: list[int] | None = None
        self._reach: list[int] = []

    def add(self, directive: Directive) -> None:
        if directive.whole_file:
            self.whole_file.append(directive)
        elif directive.first is not None:
            self.ranges.append(directive)
            self._firsts = None

    def covering(self, line: int | None) -> list[Directive]:
        """The directives whose reach includes `line`."""
        found = list(self.whole_file)
        if line is None or not self.ranges:
            return found
        if self._firsts is None:
            self.ranges.sort(key=lambda d: d.first)  # type: ignore[arg-type, return-value]
            self._firsts = [d.first for d in self.ranges]  # type: ignore[misc]
            self._reach = list(itertools.accumulate((d.last for d in self.ranges), max))  # type: ignore[arg-type]
        index = bisect.bisect_right(self._firsts, line) - 1
        while index >= 0 and self._reach[index] >= line:
            if self.ranges[index].covers(line):
                found.append(self.ranges[index])
            index -= 1
        return found


def suppressible(rule_id: str, modules: Mapping[str, Any]) -> bool:
    """Whether findings of `rule_id` may be suppressed (inline or by a baseline)."""
    module = modules.get(rule_id)
    return module is None or getattr(module, "SUPPRESSIBLE", True)


def parse_directives(
    text: str, modules: Mapping[str, Any], governance: InlineSuppressions | None = None
) -> tuple[list[Directive], list[Problem]]:
    """Every well-formed, permitted directive of `text`, and a Problem for every other one.

    `modules` are the rules directives may name; `governance` what the config permits.
    """
    directives: list[Directive] = []
    problems: list[Problem] = []
    suggestions = (Suggestions(KINDS), Suggestions(modules))  # bounded: a file may hold a million misspellings
    leading = _SKIPPABLE_LINES.match(text)
    first_code_line = text.count("\n", 0, leading.end() if leading else 0) + 1
    line_number, counted_to = 1, 0
    for start, end in _marked_lines(text):
        line_number += text.count("\n", counted_to, start)
        counted_to = start
        source_line = text[start:end]
        code = _CODE.match(source_line)
        code_end = code.end() if code else 0
        directive_match = _DIRECTIVE.match(source_line, code_end)
        if directive_match is None:
            continue  # the marker is inside a string, or not the start of the comment
        column = code_end + 1
        own_line = not source_line[:code_end].strip()
        parsed = _parse_body(directive_match.group("body"), line_number, column, modules, problems, suggestions)
        if parsed is None:
            continue
        if governance is not None and not governance.allowed:
            problems.append(
                Problem(
                    line_number,
                    column,
                    "Inline suppressions are disabled by configuration (inline-suppressions: false)",
                )
            )
            continue
        if governance is not None and governance.require_reason and parsed.reason is None:
            problems.append(
                Problem(
                    line_number,
                    column,
                    "Suppression gives no reason, and the configuration requires one: add ' -- why' after the rules",
                )
            )
            continue
        if parsed.kind == "file-ignore":
            if not own_line or line_number >= first_code_line:
                problems.append(
                    Problem(
                        line_number,
                        column,
                        "file-ignore is valid only in the file's leading comment block; use ignore[...] here",
                    )
                )
                continue
            parsed.whole_file = True
        elif own_line:
            parsed.first, parsed.last = _next_statement(text, end, line_number)
        else:
            parsed.first = parsed.last = line_number
        if parsed.rules:
            directives.append(parsed)
    return directives, problems


def _parse_body(
    body: str,
    line: int,
    column: int,
    modules: Mapping[str, Any],
    problems: list[Problem],
    suggestions: tuple[Suggestions, Suggestions],
) -> Directive | None:
    form = _FORM.match(body)
    if form is None:
        problems.append(Problem(line, column, f"Malformed suppression: {USAGE}"))
        return None
    kind = form.group("kind")
    if kind not in KINDS:
        hint = suggestions[0].hint(kind)
        problems.append(Problem(line, column, f"Unknown suppression kind '{kind}'{hint}: {USAGE}"))
        return None
    names = [name for name in _RULE_SEPARATOR.split(form.group("rules")) if name]
    if not names:
        problems.append(Problem(line, column, f"Suppression names no rule: {USAGE}"))
        return None
    rules = []
    for name in names:
        if name not in modules:
            if name.lower() == "all":
                problems.append(
                    Problem(line, column, "Blanket suppressions are not supported: name the rules to suppress")
                )
                continue
            hint = suggestions[1].hint(name)
            problems.append(Problem(line, column, f"Suppression names unknown rule '{name}'{hint}"))
        elif not suppressible(name, modules):
            problems.append(Problem(line, column, f"Rule '{name}' cannot be suppressed"))
        elif name not in rules:
            rules.append(name)
    reason = _REASON.match(form.group("rest"))
    return Directive(
        kind=kind,
        line=line,
        column=column,
        rules=tuple(rules),
        reason=reason.group("reason").strip() if reason else None,
    )


def _marked_lines(text: str) -> Iterator[tuple[int, int]]:
    """(start, end) offsets of each line holding the marker, found with str.find (huge files)."""
    position = text.find(_MARKER)
    while position >= 0:
        start = text.rfind("\n", 0, position) + 1
        end = text.find("\n", position)
        if end < 0:
            end = len(text)
        yield start, end
        position = text.find(_MARKER, end)


def _next_statement(text: str, line_end: int, line: int) -> tuple[int | None, int | None]:
    """The lines of the statement after the directive on `line` (ending at offset `line_end`):
    its whole block if it opens one."""
    if line_end >= len(text):
        return None, None
    skipped = _SKIPPABLE_LINES.match(text, line_end + 1)
    offset = skipped.end() if skipped else line_end + 1
    if _NOTHING_LEFT.match(text, offset):
        return None, None
    first = line + 1 + text.count("\n", line_end + 1, offset)
    depth, current = 0, first
    for token in _TOKEN.finditer(text, offset):
        kind = token.lastgroup
        if kind == "open":
            depth += 1
        elif kind == "close":
            depth -= 1
        elif kind == "newline":
            if depth <= 0:
                return first, current
            current += 1
    return first, current


def _meta_findings(
    directives: Iterable[Directive],
    problems: Sequence[Problem],
    path: str,
    config: Config,
    judged: Callable[[str], bool] | None = None,
) -> list[Finding]:
    """The findings of the rules about suppressions on this file's directives."""

    def off(rule_id: str) -> bool:
        rule = config.rules.get(rule_id)
        return rule is None or rule.severity == Severity.OFF

    unused = [
        (directive, rule_id, off(rule_id))
        for directive in directives
        for rule_id in directive.rules
        if not directive.used.get(rule_id) and (judged is None or judged(rule_id))
    ]
    return file_findings(SUPPRESSIONS, Suppressions(problems, unused), path, configured(config))
