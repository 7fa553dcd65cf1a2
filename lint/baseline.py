"""Baselines: adopt tflint on a repository of existing graphs by hiding today's findings.

`tflint --write-baseline .tflint-baseline.json models/` records every current
finding as a count per (file, rule, subject), where the file is relative to
the root of the repository holding the baseline (its directory outside a
repository) and the subject is the node (within its function and meta
graph). Never a line number: regenerating a graph moves
every line, and a line-keyed baseline would then hide nothing (ruff#1149) or
the wrong thing. Later runs with `--baseline FILE` (or `baseline:` in the
config) hide up to that many findings per key and report the rest as new,
plus every entry that matched nothing (`unused-suppression`), so that the
baseline shrinks as problems get fixed (ESLint's bulk suppressions).

Findings of rules that cannot be suppressed (`invalid-graph`, the meta
rules) are never recorded and never hidden.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from tflint.engine.findings import RuleLevel, file_findings
from tflint.engine.suppress import SUPPRESSIONS, StaleEntry, Suppressions, suppressible
from tflint.errors import UsageError
from tflint.escape import quote
from tflint.finding import Finding
from tflint.records import record
from tflint.report.identity import find_root, repo_path, subject
from tflint.report.output import write_atomically
from tflint.report.summary import quiet_skip

VERSION = 1
Counts = dict[str, dict[str, dict[str, int]]]  # file -> rule -> subject -> count


@record(frozen=True)
class Applied:
    """What applying a baseline gave: the findings let through (with stale entries as
    unused-suppression findings), how many it hid, and the count each entry matched."""

    findings: list[Finding]
    hidden: int
    matched: dict[tuple[str, str, str], int]
    stale: int

    def __init__(
        self,
        findings: list[Finding],
        hidden: int,
        matched: dict[tuple[str, str, str], int],
        stale: int,
    ) -> None:
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
                rules = baseline.counts.setdefault(repo_path(finding.file, baseline.root), {})
                subjects = rules.setdefault(finding.rule, {})
                key = subject(finding)
                subjects[key] = subjects.get(key, 0) + 1
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

    def total(self) -> int:
        """How many findings the baseline records."""
        return sum(
            count for rules in self.counts.values() for subjects in rules.values() for count in subjects.values()
        )

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
        judged: Callable[[str], bool] | None = None,
    ) -> Applied:
        """Hide the recorded findings; report entries that matched nothing.

        `linted` are the files of this run (as findings name them): only
        their entries, and entries of files that no longer exist, can be
        stale, since a run over some files says nothing of the others.
        Likewise `judged(rule)` says which rules the run ran (linting does
        not run the compat rules, `tflint compat` runs only them): entries
        of other rules are never stale.
        `rules_for(file)` are the (id, module, severity, options) of the
        rules for a linted file (None: for a file that no longer exists):
        those about suppressions report stale entries; none reports nothing.
        """
        remaining = {
            (file, rule, key): count
            for file, rules in self.counts.items()
            for rule, subjects in rules.items()
            for key, count in subjects.items()
        }
        matched: dict[tuple[str, str, str], int] = {}
        kept = []
        for finding in findings:
            key = (repo_path(finding.file, self.root), finding.rule, subject(finding))
            if remaining.get(key, 0) > 0 and suppressible(finding.rule, modules):
                remaining[key] -= 1
                matched[key] = matched.get(key, 0) + 1
            else:
                kept.append(finding)
        shown_names = {repo_path(path, self.root): path for path in linted}
        stale = 0
        for (file, rule, stale_subject), count in sorted(remaining.items()):
            if count <= 0 or (file not in shown_names and self._exists(file)):
                continue  # all matched, or a file not linted in this run: nothing is known of it
            if judged is not None and not judged(rule):
                continue  # a rule this run did not run: nothing is known of it either
            stale += 1
            shown = shown_names.get(file)
            entry = StaleEntry(
                file, rule, stale_subject, count, self.counts[file][rule][stale_subject], exists=shown is not None
            )
            where = shown if shown is not None else _display(self.path)
            kept.extend(file_findings(SUPPRESSIONS, Suppressions(stale=(entry,)), where, rules_for(shown)))
        kept.sort(key=Finding.sort_key)
        return Applied(kept, sum(matched.values()), matched, stale)

    def pruned(
        self,
        matched: Mapping[tuple[str, str, str], int],
        linted: Iterable[str],
        judged: Callable[[str], bool] | None = None,
    ) -> Baseline:
        """This baseline without its stale entries: never more than `apply` matched for linted
        files (and rules the run `judged`), nothing for files that no longer exist, and never
        anything new."""
        linted_files = {repo_path(path, self.root) for path in linted}
        counts: Counts = {}
        for file, rules in self.counts.items():
            if file not in linted_files and not self._exists(file):
                continue
            for rule, subjects in rules.items():
                for key, count in subjects.items():
                    if file in linted_files and (judged is None or judged(rule)):
                        kept = min(count, matched.get((file, rule, key), 0))
                    else:
                        kept = count
                    if kept:
                        counts.setdefault(file, {}).setdefault(rule, {})[key] = kept
        return Baseline(self.path, counts)

    def _exists(self, file: str) -> bool:
        return os.path.exists(os.path.join(self.root, file))


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
    if not isinstance(data, dict) or data.get("version") != VERSION or not isinstance(data.get("files"), dict):
        raise UsageError(f'{shown}: not a tflint baseline (expected {{"version": {VERSION}, "files": {{...}}}})')
    counts: Counts = {}
    for file, rules in data["files"].items():
        if not isinstance(rules, dict):
            raise UsageError(f"{shown}: files.{_key(file)}: expected a mapping of rule to subjects")
        for rule, subjects in rules.items():
            if not isinstance(subjects, dict) or not all(
                isinstance(count, int) and not isinstance(count, bool) and 0 < count <= MAX_COUNT
                for count in subjects.values()
            ):
                raise UsageError(
                    f"{shown}: files.{_key(file)}.{_key(rule)}: expected a mapping of subject to a positive count"
                    f" (at most {MAX_COUNT:,})"
                )
            counts.setdefault(file, {})[rule] = dict(subjects)
    return counts
