"""The Python API: lint files, a model's versions or an in-memory graph, validate before serving, review.

A table of contents: each function says what it gives and delegates, once, to the room that does it:
files and their configurations to tflint.config.resolve, a run over many files to tflint.engine.session,
baselines to tflint.baseline, the `Report` it returns to tflint.report.outcome (ARCHITECTURE.md walks it).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from tflint.config.registry import registry_for as registry_for  # part of the API (tests and tools build indexes)
from tflint.config.registry import target_names as target_names
from tflint.config.resolve import ConfigCache, ConfigLike, discover_files, min_tf_setup, survey_files, validation_setup
from tflint.config.resolve import resolve_config as resolve_config
from tflint.config.settings import Config, Overrides
from tflint.engine import session
from tflint.engine.fix import FixResult
from tflint.engine.min_tf import MinTf, blocking_rules, oldest_release
from tflint.errors import ConfigError, UsageError
from tflint.finding import Severity
from tflint.report.identity import find_root as project_root  # noqa: F401 (callers of tflint.api.project_root)
from tflint.report.outcome import GraphValidationError, Report
from tflint.tf.imports import api_import_args

if TYPE_CHECKING:  # the review pipelines load when used
    from tflint.engine.model_diff import ModelDiff
    from tflint.engine.review import ModelView


class GraphMessage(Protocol):
    """A GraphDef, MetaGraphDef or SavedModel message: tflint's own (`tflint.protos`) or TensorFlow's."""

    @property
    def DESCRIPTOR(self) -> Any: ...  # noqa: N802 (protobuf's name): its full_name says which message

    def SerializeToString(self) -> bytes: ...  # noqa: N802 (protobuf's name)


# What lint_graph and validate read from memory: a graph message, or its bytes (text or binary).
GraphLike = GraphMessage | bytes | bytearray | memoryview


def lint_paths(
    paths: Iterable[str | os.PathLike[str]],
    config: ConfigLike = None,
    *,
    op_defs: Sequence[str] = (),
    input_type: str | None = None,
    stdin_name: str = "<stdin>",
    fail_on: Severity | str | None = None,
    baseline: str | os.PathLike[str] | bool | None = None,
    write_baseline: str | os.PathLike[str] | None = None,
    prune_baseline: bool = False,
    progress: Any = None,
    jobs: int | None = None,
    import_args: Any = None,
    target_tf: str | Sequence[str] | None = None,
    overrides: Overrides | None = None,
    force_exclude: bool = False,
    respect_gitignore: bool = True,
) -> Report:
    """Lint files, SavedModel directories and directories (searched), as the `tflint` command does.

    `config`: None discovers the nearest `.tflint.yaml` for each file;
    anything else applies to every file. `fail_on` overrides each config's
    `fail-on`. `baseline`: None uses each config's `baseline:`; a path uses
    that file for every file; False uses none. `write_baseline` records
    every current finding in that file first, and then applies it;
    `prune_baseline` rewrites each baseline in force without its stale
    entries (never adding new ones) and reports none of them.
    `progress` receives `file(number, total, path)` and `rule(id)` calls.
    `jobs` lints files in that many processes (None: one per core), when
    there are several files and enough bytes to repay starting them; the
    report is the same whatever the number. `import_args` says how serving
    code imports every graph (see `lint_file`). `target_tf` ("2.4",
    "1.15,2.11" or a list) also judges each graph against those TensorFlow
    releases, overriding each config's `target-tf:`.
    `stdin_name` is the path `-` stands for: its name in the report and,
    unless it is the default `<stdin>`, its config, excludes and per-file ignores.
    `overrides` are command-line settings laid over every configuration
    (`--select`, `--preset`, `--exclude`, ...). Directories are walked
    without what the configurations exclude and, when `respect_gitignore`,
    what `.gitignore` / `.ignore` hide; explicit paths are linted even when
    excluded, unless `force_exclude`. A file that is not a TensorFlow graph
    is not linted: it is listed in `Report.skipped` (and is a `not-a-graph`
    finding at that rule's level).
    Raises ConfigError and UsageError (exit 2 in the CLI).
    """
    contract = api_import_args(import_args)
    configs = ConfigCache(config, overrides, stdin_name)
    files = discover(paths, configs, force_exclude=force_exclude, respect_gitignore=respect_gitignore)
    override = session.failing_level(fail_on)
    named = _named_baseline(baseline, write_baseline)  # fail before the work
    run = session.lint_files(
        files,
        configs,
        contract,
        op_defs=op_defs,
        input_type=input_type,
        stdin_name=stdin_name,
        target_tf=target_tf,
        progress=progress,
        jobs=jobs,
        override=override,
    )
    return _report(
        run, compat=False, baseline=baseline, named=named, write_baseline=write_baseline, prune=prune_baseline
    )


def discover(
    paths: Iterable[str | os.PathLike[str]],
    config: ConfigLike | ConfigCache = None,
    *,
    overrides: Overrides | None = None,
    stdin_name: str = "<stdin>",
    force_exclude: bool = False,
    respect_gitignore: bool = True,
) -> list[str]:
    """The files and SavedModel directories `lint_paths` would read for `paths`, in order (`-` for stdin).

    Raises UsageError for a path that does not exist, or stdin named twice.
    """
    configs = config if isinstance(config, ConfigCache) else ConfigCache(config, overrides, stdin_name)
    return discover_files((os.fspath(path) for path in paths), configs, force_exclude, respect_gitignore)


def survey(
    paths: Iterable[str | os.PathLike[str]],
    config: ConfigLike = None,
    *,
    overrides: Overrides | None = None,
    stdin_name: str = "<stdin>",
    force_exclude: bool = False,
    respect_gitignore: bool = True,
) -> list[tuple[str, str | None]]:
    """`--show-files`: (path, None) for each file or SavedModel a run would lint, (path, what it holds) for
    each it would skip as not a TensorFlow graph. Files are told apart by their first bytes, as a run does."""
    files = discover(
        paths,
        config,
        overrides=overrides,
        stdin_name=stdin_name,
        force_exclude=force_exclude,
        respect_gitignore=respect_gitignore,
    )
    return survey_files(files)


def settings_for(
    path: str | os.PathLike[str], config: ConfigLike = None, overrides: Overrides | None = None
) -> tuple[Config, str | None]:
    """`--show-settings`: the configuration that applies to `path` (and the file it comes from)."""
    return ConfigCache(config, overrides).settings_of(os.fspath(path))


def _named_baseline(baseline: Any, write_baseline: Any) -> Any:
    """The baseline file a run names, loaded before the work (tflint.baseline is imported only when one is)."""
    if not isinstance(baseline, (str, os.PathLike)) or write_baseline is not None:
        return None
    from tflint.baseline import named_baseline

    return named_baseline(baseline, write_baseline)


def _report(run: session.Run, **how: Any) -> Report:
    """The report of `run` after its baselines (tflint.baseline.apply_to_run, imported only when one is in force)."""
    hidden = pruned = 0
    findings = run.findings
    if run.baseline_in_force(how["baseline"], how["named"], how["write_baseline"], how["prune"]):
        from tflint.baseline import apply_to_run

        result = apply_to_run(findings, run.files, run.rules, **how)
        findings, hidden, pruned = result.findings, result.hidden, result.pruned
    return Report(tuple(findings), run.fail_on, run.shown, run.file_fail_on, hidden, run.rules, pruned, run.skipped)


def lint_file(
    path: str | os.PathLike[str],
    config: ConfigLike = None,
    *,
    op_defs: Sequence[str] = (),
    input_type: str | None = None,
    import_args: Any = None,
    target_tf: str | Sequence[str] | None = None,
) -> Report:
    """Lint one graph file or SavedModel directory, with its config's baseline if it has one.

    `import_args` are the arguments serving code passes to
    `tf.graph_util.import_graph_def` for this graph, as a mapping with
    `input_map` (keys are tensor names; values are None, a dtype name, a
    mapping with `dtype` and/or `shape`, or a `tf.Tensor` / `tf.TensorSpec`),
    `return_elements` and `name`: what TensorFlow would refuse of them is an
    `import-contract` finding. Raises `tflint.ConfigError` for invalid
    configuration and `tflint.UsageError` for an unreadable path or unusable
    import arguments; a file that does not parse is an `invalid-graph`
    finding in the report. `target_tf` also judges the graph against those
    TensorFlow releases (see lint_paths).
    """
    return lint_paths(
        [path], config, op_defs=op_defs, input_type=input_type, import_args=import_args, target_tf=target_tf
    )


def lint_graph(
    graph: GraphLike,
    *,
    op_defs: Sequence[Any] = (),
    config: ConfigLike = None,
    name: str = "<graph>",
    import_args: Any = None,
    target_tf: str | Sequence[str] | None = None,
) -> Report:
    """Lint an in-memory graph.

    `graph` is a GraphDef, MetaGraphDef or SavedModel message (tflint's own
    or TensorFlow's), or serialized bytes: text or binary, told apart as for
    a file. Bytes that do not parse are an `invalid-graph` finding; b"" is
    an empty GraphDef (what one serializes to). `op_defs` are extra OpList
    messages or OpList file paths (custom ops). `name` is the name findings
    show; `import_args` as for `lint_file`. `target_tf` also judges it
    against those TensorFlow releases (see lint_paths).
    """
    resolved = resolve_config(config)
    run = session.lint_message(graph, resolved, api_import_args(import_args), op_defs, target_tf, name)
    return Report(tuple(run.findings), run.fail_on, run.shown, rules=run.rules, skipped=run.skipped)


def compat(
    old: str | os.PathLike[str],
    new: str | os.PathLike[str] | None = None,
    config: ConfigLike = None,
    *,
    op_defs: Sequence[str] = (),
    input_type: str | None = None,
    fail_on: Severity | str | None = None,
    baseline: str | os.PathLike[str] | bool | None = None,
    write_baseline: str | os.PathLike[str] | None = None,
) -> Report:
    """Compare a new version of a model with the old one its clients were written against, as `tflint compat` does.

    `old` and `new` are SavedModel directories, saved_model.pb(txt) files or
    MetaGraphDef files (text or binary), of the same kind. With `new`
    None, `old` is a model base directory (TensorFlow Serving's layout,
    `models/resnet/{1,2,...}`) and its two highest numeric versions are
    compared. Findings are those of the `compat` rules, located in the new
    version's file; `config`, `fail_on`, `baseline` and `write_baseline`
    work as in `lint_paths` (the config is discovered next to the new
    version). Raises UsageError for a missing version, a directory without
    a SavedModel, a plain GraphDef, or versions of different kinds.
    """
    pair = session.version_pair(os.fspath(old), None if new is None else os.fspath(new))
    return compat_pairs(
        [pair],
        config,
        op_defs=op_defs,
        input_type=input_type,
        fail_on=fail_on,
        baseline=baseline,
        write_baseline=write_baseline,
    )


def compat_pairs(
    pairs: Iterable[tuple[str, str]],
    config: ConfigLike = None,
    *,
    op_defs: Sequence[str] = (),
    input_type: str | None = None,
    fail_on: Severity | str | None = None,
    baseline: str | os.PathLike[str] | bool | None = None,
    write_baseline: str | os.PathLike[str] | None = None,
) -> Report:
    """`compat` for several (old, new) pairs, in one report (the pre-commit hook's changed versions)."""
    override = session.failing_level(fail_on)
    named = _named_baseline(baseline, write_baseline)  # fail before the work
    run = session.compare_files(pairs, ConfigCache(config), op_defs=op_defs, input_type=input_type, override=override)
    return _report(run, compat=True, baseline=baseline, named=named, write_baseline=write_baseline, prune=False)


def validate(
    graph_or_path: GraphLike | str | os.PathLike[str],
    *,
    op_defs: Sequence[Any] = (),
    config: ConfigLike = None,
    serving: bool | None = None,
    input_map: Mapping[str, Any] | None = None,
    return_elements: Sequence[str] | None = None,
    name: str | None = None,
    trust_model_config: bool = False,
    target_tf: str | Sequence[str] | None = None,
) -> Report:
    """Lint a path or an in-memory graph; raise GraphValidationError if it fails.

    Returns the report (warnings included) when nothing is at or above the
    configured `fail-on` level. `serving` applies the `serving` preset under
    the configuration (rules the configuration sets keep their settings);
    the default, None, applies it to SavedModels (directories, files,
    messages or bytes) and not to other graphs. `input_map`,
    `return_elements` and `name` are the arguments serving code passes to
    `tf.graph_util.import_graph_def` (see `lint_file`'s `import_args`); when
    any is given, what TensorFlow would refuse of them fails the validation.

    validate is a security boundary: the model cannot switch off its own
    checks. It runs with `config` (or the built-in defaults) only: never a
    `.tflint.yaml` found in or above the model, never the model's inline
    suppressions (each is reported as disabled), unless `trust_model_config`
    is True (then both apply, as for `lint_file`). Input that holds no graph
    fails: junk is `invalid-graph`, and an empty graph (an empty file, b"")
    is an `empty-graph` error here, unless `config` sets that rule's level; so
    is a file that is not a TensorFlow graph at all (`not-a-graph`).
    """
    given = {"input_map": input_map, "return_elements": return_elements, "name": name}
    import_args = {key: value for key, value in given.items() if value is not None} or None
    resolved = validation_setup(config, graph_or_path, serving, trust_model_config)
    if isinstance(graph_or_path, (str, os.PathLike)):
        report = lint_paths(
            [graph_or_path], resolved, op_defs=op_defs, jobs=1, import_args=import_args, target_tf=target_tf
        )
    else:
        report = lint_graph(
            graph_or_path, op_defs=op_defs, config=resolved, import_args=import_args, target_tf=target_tf
        )
    if not report.ok:
        raise GraphValidationError(report)
    return report


def min_tf(
    path: str | os.PathLike[str],
    config: ConfigLike = None,
    *,
    op_defs: Sequence[str] = (),
    input_type: str | None = None,
) -> MinTf:
    """The oldest bundled TensorFlow release whose importer accepts the graph file (or SavedModel) at `path`."""
    shown = os.fspath(path)
    report = lint_paths([shown], config, op_defs=op_defs, input_type=input_type, baseline=False)
    blockers = blocking_rules(report.findings)
    if blockers:
        return MinTf(shown, None, blockers=blockers)
    return oldest_release(shown, input_type=input_type, **min_tf_setup(config, shown, op_defs))


def fix_paths(
    paths: Iterable[str | os.PathLike[str]],
    *,
    write: bool = True,
    input_type: str | None = None,
    config: ConfigLike = None,
    overrides: Overrides | None = None,
    force_exclude: bool = False,
    respect_gitignore: bool = True,
) -> list[FixResult]:
    """Remove every attr whose value is its default on every bundled TensorFlow (tflint.tf.strip).

    The files are those `lint_paths` would read (the same excludes, `force_exclude` and ignore
    files). A text file keeps every byte not removed; every file is replaced atomically, only if
    it still holds what was analysed; symbolic links, files reached through a symlinked directory
    (even one of `paths`), read-only files and files reached from outside `paths` are left alone
    (`FixResult.problem`). `write=False` changes nothing and fills
    `diff` (a unified diff for text, a summary for binary). Files that do not parse are left alone
    (`FixResult.unread`).
    How: tflint.engine.fix.
    """
    from tflint.engine.fix import fix_files

    given = [os.fspath(path) for path in paths]
    configs = ConfigCache(config, overrides)
    files = discover(given, configs, force_exclude=force_exclude, respect_gitignore=respect_gitignore)
    return fix_files(files, given, write=write, input_type=input_type)


def show_model(
    path: str | os.PathLike[str], *, op_defs: Sequence[str] = (), input_type: str | None = None, batch: int = 1
) -> ModelView:
    """The review view of a graph file or SavedModel (`tflint show`, `tflint stats`)."""
    return session.view_model(os.fspath(path), op_defs, input_type, batch)


def diff_models(
    old: str | os.PathLike[str],
    new: str | os.PathLike[str],
    config: ConfigLike = None,
    *,
    op_defs: Sequence[str] = (),
    input_type: str | None = None,
    batch: int = 1,
) -> ModelDiff:
    """What changed between two versions of a model (`tflint diff`): a `ModelDiff` (`.changed` says whether)."""
    return session.diff_paths(os.fspath(old), os.fspath(new), config, op_defs, input_type, batch)


__all__ = [
    "ConfigError",
    "FixResult",
    "GraphValidationError",
    "MinTf",
    "Report",
    "UsageError",
    "compat",
    "diff_models",
    "lint_file",
    "lint_graph",
    "fix_paths",
    "lint_paths",
    "min_tf",
    "show_model",
    "validate",
]
