"""Baselines: adopt tflint on a repository of existing graphs by hiding today's findings.

`tflint --write-baseline .tflint-baseline.json models/` records every current
finding as a count per (file, rule, severity, subject), where the file is
relative to the root of the repository holding the baseline (its directory
outside a repository) and the subject is what the finding points at: the node
(within its function and meta graph), or for a finding without a node the
thing its message names first (`Asset 'vocab.txt'`, `Function 'f'`), so that a
recorded missing asset A never hides a new missing asset B. Never a line
number: regenerating a graph moves every line, and a line-keyed baseline would
then hide nothing (ruff#1149) or the wrong thing. The severity is part of the
key: a finding recorded as a warning is not hidden once its rule makes it an
error (version 1 files, which recorded no severity, keep matching at any
severity under the key `any` until they are written again).

Later runs with `--baseline FILE` (or `baseline:` in the config) hide up to
that many findings per key and report the rest as new, plus every entry that
matched nothing (`unused-suppression`), so that the baseline shrinks as
problems get fixed (ESLint's bulk suppressions). An entry is stale only when
the run looked for it: its file was linted (or no longer exists) and its rule
ran on that file; entries of rules turned off (`--select`, `--ignore`, the
config, per-file ignores) or of the other kind of run (lint / `compat`) are
neither reported nor pruned, nor dropped when `--write-baseline` rewrites the file (with the
entries of existing files the run did not lint).

Findings of rules that cannot be suppressed (`invalid-graph`, the meta
rules) are never recorded and never hidden.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from tflint.config.settings import Config
from tflint.engine.findings import RuleLevel, configured, file_findings, is_compat_rule
from tflint.engine.suppress import SUPPRESSIONS, StaleEntry, Suppressions, suppressible
from tflint.errors import UsageError
from tflint.escape import quote
from tflint.finding import Finding, Severity
from tflint.records import record
from tflint.report.identity import find_root, repo_path, subject
from tflint.report.output import write_atomically
from tflint.report.summary import quiet_skip
from tflint.runtime.patterns import lazy

VERSION = 2
VERSIONS = (1, 2)  # version 1: file -> rule -> subject -> count, without severities
ANY = "any"  # the severity of an entry of a version 1 file: it matches a finding at any severity
SEVERITIES = ("info", "warning", "error")
Counts = dict[str, dict[str, dict[str, dict[str, int]]]]  # file -> rule -> severity -> subject -> count
Key = tuple[str, str, str, str]  # (file, rule, severity, subject)
# judged(shown file or None for a file that is gone, rule): whether the run ran that rule on that file
Judged = Callable[[str | None, str], bool]

# The first name a message quotes ('...' after a blank or a bracket, so that "SaverDef's" is not one).
_QUOTED = lazy(r"(?:^|(?<=[\s(\[]))'[^'\n]{0,200}'")


def target(finding: Finding) -> str:
    """What a finding points at, its key in a baseline: the subject (node within function and meta graph),
    or for a finding without a node, its meta graph or function and the start of its message up to the
    first name it quotes (or its first `:`), so that two findings about two different things never share
    a key."""
    about = subject(finding)
    if finding.node is not None:
        return about
    message = finding.message
    quoted = _QUOTED.search(message)
    cut = quoted.end() if quoted is not None else -1
    colon = min((i for i in (message.find(": "), message.find("; ")) if i >= 0), default=-1)
    if colon >= 0 and (quoted is None or colon < quoted.start()):
        cut = colon
    named = message[:cut] if cut > 0 else message[:200]
    return f"{about} > {named}" if about else named


@record(frozen=True)
class Applied:
    """What applying a baseline gave: the findings let through (with stale entries as
    unused-suppression findings), how many it hid, and the count each entry matched."""

    findings: list[Finding]
    hidden: int
    matched: dict[Key, int]
    stale: int

    def __init__(self, findings: list[Finding], hidden: int, matched: dict[Key, int], stale: int) -> None:
        vars(self).update(findings=findings, hidden=hidden, matched=matched, stale=stale)


class Baseline:
    """The counts of one baseline file; paths in it are relative to its repository's root."""

    def __init__(self, path: str | os.PathLike[str], counts: Counts) -> None:
        self.path = os.fspath(path)
        self.root = find_root(os.path.dirname(os.path.abspath(self.path)))
        self.counts = counts

    @classmethod
    def from_findings(
        cls, path: str | os.PathLike[str], findings: Iterable[Finding], modules: Mapping[str, Any]
    ) -> Baseline:
        """A baseline recording `findings` (those of suppressible rules, and no file skipped quietly
        as not a graph: nothing to fix there), to be stored at `path`."""
        baseline = cls(path, {})
        for finding in findings:
            if suppressible(finding.rule, modules) and not quiet_skip(finding):
                baseline._add(
                    (repo_path(finding.file, baseline.root), finding.rule, _severity(finding), target(finding))
                )
        return baseline

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Baseline:
        """Read and validate a baseline file; UsageError (exit 2) names the problem."""
        import errno

        from tflint.read.guarded import MAX_BASELINE_BYTES, UnreadableFile, read_bytes

        shown = os.fspath(path)
        try:
            data = json.loads(read_bytes(shown, "baseline", MAX_BASELINE_BYTES).decode("utf-8"))
        except UnreadableFile as error:
            if error.errno == errno.ENOENT:
                raise UsageError(
                    f"{shown}: baseline not found (create it with: tflint --write-baseline {shown} PATH...)"
                ) from None
            raise
        except (ValueError, UnicodeDecodeError) as error:  # JSONDecodeError, an integer of 5,000 digits
            raise UsageError(f"{shown}: not a tflint baseline: invalid JSON ({quote(str(error), 200)})") from None
        except RecursionError:
            raise UsageError(f"{shown}: not a tflint baseline: nested too deeply") from None
        return cls(shown, _validated(data, shown))

    def _add(self, key: Key, count: int = 1) -> None:
        file, rule, severity, about = key
        subjects = self.counts.setdefault(file, {}).setdefault(rule, {}).setdefault(severity, {})
        subjects[about] = subjects.get(about, 0) + count

    def entries(self) -> dict[Key, int]:
        """Every entry as (file, rule, severity, subject) -> count."""
        return {
            (file, rule, severity, about): count
            for file, rules in self.counts.items()
            for rule, severities in rules.items()
            for severity, subjects in severities.items()
            for about, count in subjects.items()
        }

    def total(self) -> int:
        """How many findings the baseline records."""
        return sum(self.entries().values())

    def to_json(self) -> str:
        """The file's text: sorted keys, two-space indent, one entry per line, final newline."""
        return (
            json.dumps({"version": VERSION, "files": self.counts}, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
        )

    def write(self) -> None:
        """Store the baseline at its path, atomically."""
        try:
            write_atomically(self.path, self.to_json())
        except OSError as error:
            raise UsageError(f"{self.path}: cannot write baseline: {error.strerror or error}") from None

    def apply(
        self,
        findings: Sequence[Finding],
        linted: Iterable[str],
        modules: Mapping[str, Any],
        rules_for: Callable[[str | None], Sequence[RuleLevel]],
        judged: Judged | None = None,
    ) -> Applied:
        """Hide the recorded findings; report entries that matched nothing.

        `linted` are the files of this run (as findings name them): only
        their entries, and entries of files that no longer exist, can be
        stale, since a run over some files says nothing of the others.
        Likewise `judged(file, rule)` says whether the run ran a rule on a
        file (None: a file that no longer exists): entries of other rules
        are never stale.
        `rules_for(file)` are the (id, module, severity, options) of the
        rules for a linted file (None: for a file that no longer exists):
        those about suppressions report stale entries; none reports nothing.
        """
        remaining = self.entries()
        matched: dict[Key, int] = {}
        kept = []
        for finding in findings:
            if not suppressible(finding.rule, modules):
                kept.append(finding)
                continue
            file = repo_path(finding.file, self.root)
            exact = (file, finding.rule, _severity(finding), target(finding))
            legacy = (file, finding.rule, ANY, subject(finding))  # a version 1 entry: any severity, node subject
            key = exact if remaining.get(exact, 0) > 0 else legacy
            if remaining.get(key, 0) > 0:
                remaining[key] -= 1
                matched[key] = matched.get(key, 0) + 1
            else:
                kept.append(finding)
        shown_names = {repo_path(path, self.root): path for path in linted}
        stale = 0
        for (file, rule, severity, about), count in sorted(remaining.items()):
            if count <= 0 or (file not in shown_names and self._exists(file)):
                continue  # all matched, or a file not linted in this run: nothing is known of it
            shown = shown_names.get(file)
            if judged is not None and not judged(shown, rule):
                continue  # a rule this run did not run on the file: nothing is known of it either
            stale += 1
            recorded = self.counts[file][rule][severity][about]
            labelled = rule if severity == ANY else f"{rule} ({severity})"
            entry = StaleEntry(file, labelled, about, count, recorded, exists=shown is not None)
            where = shown if shown is not None else _display(self.path)
            kept.extend(file_findings(SUPPRESSIONS, Suppressions(stale=(entry,)), where, rules_for(shown)))
        kept.sort(key=Finding.sort_key)
        return Applied(kept, sum(matched.values()), matched, stale)

    def pruned(self, matched: Mapping[Key, int], linted: Iterable[str], judged: Judged | None = None) -> Baseline:
        """This baseline without its stale entries: never more than `apply` matched for linted
        files (and rules the run `judged`), nothing for files that no longer exist, and never
        anything new."""
        linted_files = {repo_path(path, self.root): path for path in linted}
        result = Baseline(self.path, {})
        for key, count in self.entries().items():
            file, rule = key[0], key[1]
            if file not in linted_files and not self._exists(file):
                continue
            if file in linted_files and (judged is None or judged(linted_files[file], rule)):
                count = min(count, matched.get(key, 0))
            if count:
                result._add(key, count)
        return result

    def _exists(self, file: str) -> bool:
        return os.path.exists(os.path.join(self.root, file))

    def keep_unjudged(self, previous: Baseline, linted: Iterable[str], judged: Judged) -> None:
        """Add the entries of `previous` (the file being rewritten) that this run did not look for: of
        files it did not lint that still exist, and of rules it did not run on a file it linted (`--select`,
        `--ignore`, the config; the other kind of run, lint or `compat`). Rewriting records the run's
        findings; it never drops what the run could not have found."""
        linted_files = {repo_path(path, self.root): path for path in linted}
        for key, count in previous.entries().items():
            file, rule = key[0], key[1]
            shown = linted_files.get(file)
            if (shown is None and previous._exists(file)) or (shown is not None and not judged(shown, rule)):
                self._add(key, count)


def _severity(finding: Finding) -> str:
    return str(finding.severity)


@record(frozen=True)
class RunResult:
    """A run's findings after its baselines: what is shown, how many were hidden, how many entries pruned."""

    findings: list[Finding]
    hidden: int
    pruned: int

    def __init__(self, findings: list[Finding], hidden: int, pruned: int) -> None:
        vars(self).update(findings=findings, hidden=hidden, pruned=pruned)


def named_baseline(baseline: str | os.PathLike[str] | bool | None, write_baseline: Any) -> Baseline | None:
    """The baseline file a run names (`--baseline FILE`), loaded before the work so that a bad one fails first."""
    if isinstance(baseline, (str, os.PathLike)) and write_baseline is None:
        return Baseline.load(baseline)
    return None


def apply_to_run(
    findings: Sequence[Finding],
    files: Sequence[tuple[str, Config]],
    modules: Mapping[str, Any],
    *,
    compat: bool,
    baseline: str | os.PathLike[str] | bool | None,
    named: Baseline | None = None,
    write_baseline: str | os.PathLike[str] | None = None,
    prune: bool = False,
) -> RunResult:
    """Record (`write_baseline`), apply and (`prune`) prune the baselines of a lint or a `compat` run.

    `files` are (shown path, resolved configuration) of each file the run read; `baseline` is None
    for each configuration's `baseline:`, a path for one file applied to every file (`named`, when
    already loaded), False for none. A lint run judges the rules other than the compat rules, a
    compat run only those; either only those its configuration turns on for a file.
    Raises UsageError for `prune` without a baseline in force.
    """
    config_of = {shown: resolved for shown, resolved in files}
    shown_files = [shown for shown, _ in files]
    result = sorted(findings, key=Finding.sort_key)
    if write_baseline is not None:
        written = Baseline.from_findings(write_baseline, result, modules)
        if files and os.path.isfile(write_baseline):
            try:
                previous = Baseline.load(write_baseline)
            except UsageError:
                previous = None  # not a baseline (or not readable as one): replaced, as asked
            if previous is not None:
                written.keep_unjudged(previous, shown_files, _judged(config_of, files[0][1], modules, compat))
        written.write()
        baselines = {os.fspath(write_baseline): (written, shown_files)}
    else:
        groups = _groups(files, baseline)
        baselines = {path: (named or Baseline.load(path), members) for path, members in groups.items()}
        if prune and not baselines and files:
            raise UsageError(
                "--prune-baseline: no baseline in force (give --baseline FILE, or baseline: in .tflint.yaml)"
            )
    hidden = pruned = 0
    for loaded, members in baselines.values():
        if not members:
            continue  # nothing was linted (an empty directory): nothing to hide, nothing known to be stale
        fallback = config_of[members[0]]
        ran = _judged(config_of, fallback, modules, compat)

        def rules_for(shown: str | None, fallback: Config = fallback) -> list[RuleLevel]:
            if prune:
                return []  # the entries are being removed: nothing to report
            return configured(config_of.get(shown, fallback) if shown is not None else fallback)

        member_set = set(members)
        applied = loaded.apply([f for f in result if f.file in member_set], members, modules, rules_for, ran)
        outside = [f for f in result if f.file not in member_set]
        result = sorted(outside + applied.findings, key=Finding.sort_key)
        hidden += applied.hidden
        if prune:
            loaded.pruned(applied.matched, members, ran).write()
            pruned += applied.stale
    return RunResult(result, hidden, pruned)


def _judged(config_of: Mapping[str, Config], fallback: Config, modules: Mapping[str, Any], compat: bool) -> Judged:
    """Whether the run ran a rule on a file (shown path; None for a file gone: judged by `fallback`)."""

    def ran(shown: str | None, rule_id: str) -> bool:
        if is_compat_rule(rule_id, modules) != compat:
            return False
        resolved = config_of.get(shown, fallback) if shown is not None else fallback
        rule = resolved.rules.get(rule_id)
        return rule is not None and rule.severity > Severity.OFF

    return ran


def _groups(
    files: Sequence[tuple[str, Config]], baseline: str | os.PathLike[str] | bool | None
) -> dict[str, list[str]]:
    """Baseline path -> the files it applies to (a named one applies to all)."""
    groups: dict[str, list[str]] = {}
    if baseline is False:
        return groups
    for shown, resolved in files:
        path = resolved.baseline if baseline is None or baseline is True else os.fspath(baseline)
        if path:
            groups.setdefault(path, []).append(shown)
    return groups


def _display(path: str) -> str:
    """`path` relative to the current directory when below it (config-derived paths are absolute)."""
    relative = os.path.relpath(path)
    return path if relative.startswith(os.pardir) else relative


def _key(text: str) -> str:
    """A key of the baseline file in a message: escaped, at most 80 characters."""
    return quote(text)[1:-1] if isinstance(text, str) else quote(text)


# The largest count a baseline entry may record (far more findings than one file can have).
MAX_COUNT = 1 << 31


def _validated(data: Any, shown: str) -> Counts:
    version = data.get("version") if isinstance(data, dict) else None
    if isinstance(version, bool) or version not in VERSIONS or not isinstance(data.get("files"), dict):
        raise UsageError(f'{shown}: not a tflint baseline (expected {{"version": {VERSION}, "files": {{...}}}})')
    counts: Counts = {}
    for file, rules in data["files"].items():
        if not isinstance(rules, dict):
            expected = "subjects" if version == 1 else "severities"
            raise UsageError(f"{shown}: files.{_key(file)}: expected a mapping of rule to {expected}")
        for rule, value in rules.items():
            where = f"{shown}: files.{_key(file)}.{_key(rule)}"
            severities = {ANY: value} if version == 1 else value
            if not isinstance(severities, dict):
                raise UsageError(f"{where}: expected a mapping of severity ({', '.join(SEVERITIES)}) to subjects")
            for severity, subjects in severities.items():
                if version != 1 and severity not in SEVERITIES + (ANY,):
                    raise UsageError(
                        f"{where}: {quote(str(severity))} is not a severity (expected {', '.join(SEVERITIES)})"
                    )
                if not isinstance(subjects, dict) or not all(
                    isinstance(count, int) and not isinstance(count, bool) and 0 < count <= MAX_COUNT
                    for count in subjects.values()
                ):
                    inner = where if version == 1 else f"{where}.{_key(severity)}"
                    raise UsageError(
                        f"{inner}: expected a mapping of subject to a positive count (at most {MAX_COUNT:,})"
                    )
                if subjects:
                    counts.setdefault(file, {}).setdefault(rule, {})[severity] = dict(subjects)
    return counts
