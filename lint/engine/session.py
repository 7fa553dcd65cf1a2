"""A run over many files: the pipelines behind tflint.api's `lint_paths` and `compat_pairs`.

`lint_files` gives each discovered file its configuration and op registry (tflint.config.resolve),
lints the files, in several processes when that pays (tflint.engine.parallel; one file:
tflint.engine.run), and gathers what a report is made of: the findings in order, every file read with
its configuration, the files skipped as not graphs, the rule registry and the failing levels.
`compare_files` does the same for `compat`'s (old, new) version pairs (tflint.engine.compat).
Baselines apply above this room (tflint.baseline.apply_to_run, to the `Run` this returns); whether
one is in force at all is decided here, so that a run without one never imports tflint.baseline.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from tflint.config.resolve import ConfigCache, rule_registry
from tflint.config.settings import Config
from tflint.engine import parallel
from tflint.engine.run import lint_path
from tflint.finding import Finding, Severity
from tflint.records import record

if TYPE_CHECKING:  # the review pipelines load when used
    from tflint.engine.model_diff import ModelDiff
    from tflint.engine.review import ModelView


@record(frozen=True)
class Run:
    """What a run found: `findings` in order; `files`, every file read as (shown path, its configuration);
    `shown`, the files linted (not skipped); `skipped`, (file, what it holds) for each file that is not a
    graph; `rules`, the rule registry of the run; `fail_on` and `file_fail_on`, the failing levels."""

    findings: list[Finding]
    files: list[tuple[str, Config]]
    shown: tuple[str, ...]
    skipped: tuple[tuple[str, str], ...]
    rules: Mapping[str, Any]
    fail_on: Severity
    file_fail_on: dict[str, Severity]

    def __init__(
        self,
        findings: list[Finding],
        files: list[tuple[str, Config]],
        shown: tuple[str, ...],
        skipped: tuple[tuple[str, str], ...],
        rules: Mapping[str, Any],
        fail_on: Severity,
        file_fail_on: dict[str, Severity],
    ) -> None:
        vars(self).update(
            findings=findings,
            files=files,
            shown=shown,
            skipped=skipped,
            rules=rules,
            fail_on=fail_on,
            file_fail_on=file_fail_on,
        )

    def baseline_in_force(self, baseline: Any, named: Any, write_baseline: Any, prune: bool) -> bool:
        """Whether a baseline applies to this run: one named (`named`, loaded) or in a configuration, and not
        turned off (`baseline` False), or one to write or prune."""
        if write_baseline is not None or prune:
            return True
        return baseline is not False and (named is not None or any(resolved.baseline for _, resolved in self.files))


def failing_level(fail_on: Severity | str | None) -> Severity | None:
    """The `fail_on` a caller gives, parsed (None: each file's configuration decides)."""
    return Severity.parse(fail_on) if isinstance(fail_on, str) else fail_on


def lint_files(
    files: list[str],
    configs: ConfigCache,
    contract: Any,
    *,
    op_defs: Sequence[str],
    input_type: str | None,
    stdin_name: str,
    target_tf: str | Sequence[str] | None,
    progress: Any,
    jobs: int | None,
    override: Severity | None,
) -> Run:
    """Lint `files` (discovered: tflint.config.resolve.discover_files), each with its own configuration.

    `jobs` processes at most (None: one per core), when there are several files and enough bytes to repay
    starting them; the run is the same whatever the number. Raises ConfigError for a configuration that
    does not resolve, before any file is read.
    """
    plan = [(path, *configs.for_run(path, contract, op_defs, target_tf)) for path in files]
    workers, cores = parallel.worker_count(files, jobs), parallel.core_count(jobs)
    linted = parallel.lint_planned(plan, lint_path, input_type, stdin_name, progress, workers, cores)
    return Run(
        sorted((f for _, _, file_findings, _ in linted for f in file_findings), key=Finding.sort_key),
        [(shown, resolved) for shown, resolved, _, _ in linted],
        tuple(shown for shown, _, _, what in linted if what is None),
        tuple((shown, what) for shown, _, _, what in linted if what is not None),
        rule_registry({shown: resolved for shown, resolved, _, _ in linted}.values()),
        override or (linted[0][1].fail_on if linted else Severity.ERROR),
        {shown: override or resolved.fail_on for shown, resolved, _, _ in linted},
    )


def version_pair(old: str, new: str | None) -> tuple[str, str]:
    """The versions `compat` compares: `old` and `new`, or with `new` None the two highest numeric versions in the
    model base directory `old` (TensorFlow Serving's layout). Raises UsageError when there are not two."""
    from tflint.read.interface import latest_versions

    return latest_versions(old) if new is None else (old, new)


def compare_files(
    pairs: Iterable[tuple[str, str]],
    configs: ConfigCache,
    *,
    op_defs: Sequence[str],
    input_type: str | None,
    override: Severity | None,
) -> Run:
    """Compare each (old, new) version pair with the `compat` rules (tflint.engine.compat.compare_paths),
    each with the configuration found next to its new version."""
    from tflint.engine.compat import compare_paths

    compared = compare_paths(pairs, configs, op_defs, input_type)
    return Run(
        sorted((f for _, _, found in compared for f in found), key=Finding.sort_key),
        [(shown, resolved) for shown, resolved, _ in compared],
        tuple(shown for shown, _, _ in compared),
        (),
        rule_registry({shown: resolved for shown, resolved, _ in compared}.values()),
        override or (compared[0][1].fail_on if compared else Severity.ERROR),
        {shown: override or resolved.fail_on for shown, resolved, _ in compared},
    )


def lint_message(
    graph: Any,
    resolved: Config,
    contract: Any,
    op_defs: Sequence[Any],
    target_tf: str | Sequence[str] | None,
    name: str,
) -> Run:
    """Lint an in-memory graph (a message or its bytes, tflint.read.load.artifact_of) under `resolved`, as `name`.

    `rules` is the configuration's own registry and `file_fail_on` is empty: the run has one graph.
    """
    from tflint.config.registry import registry_for
    from tflint.engine.run import lint_artifact
    from tflint.read.load import artifact_of
    from tflint.records import replace
    from tflint.runtime import process

    if contract is not None:
        resolved = replace(resolved, import_args=contract)
    registry = registry_for(resolved, op_defs, target_tf)
    with process.collector_paused():
        artifact = artifact_of(graph, name)
        findings = list(lint_artifact(artifact, resolved, registry))
    if artifact.skipped is not None:  # bytes of another message: a not-a-graph finding, as for a file
        return Run(findings, [], (), ((name, artifact.skipped),), resolved.modules, resolved.fail_on, {})
    return Run(findings, [(name, resolved)], (name,), (), resolved.modules, resolved.fail_on, {})


def view_model(path: str, op_defs: Sequence[str], input_type: str | None, batch: int) -> ModelView:
    """The review view of the graph file or SavedModel at `path` (tflint.engine.review), with the ops of its config."""
    from tflint.config.registry import registry_for
    from tflint.config.resolve import resolve_config
    from tflint.engine.review import load_view
    from tflint.runtime import process

    registry = registry_for(resolve_config(None, path), op_defs)
    with process.collector_paused():
        return load_view(path, registry, input_type=input_type, batch=batch)[0]


def diff_paths(
    old: str, new: str, config: Any, op_defs: Sequence[str], input_type: str | None, batch: int
) -> ModelDiff:
    """What changed from `old` to `new` (tflint.engine.model_diff), under the configuration found next to `new`."""
    from tflint.config.registry import registry_for
    from tflint.config.resolve import resolve_config
    from tflint.engine.model_diff import diff_models
    from tflint.runtime import process

    resolved = resolve_config(config, new)
    registry = registry_for(resolved, op_defs)
    with process.collector_paused():
        return diff_models(old, new, resolved, registry, input_type=input_type, batch=batch)
