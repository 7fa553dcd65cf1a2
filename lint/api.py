"""The Python API: lint a file or an in-memory graph, or validate before serving."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from types import MappingProxyType
from typing import Any, cast

from tflint.config.plugins import OP_DEFS_GROUP
from tflint.config.settings import (
    Config,
    ConfigFinder,
    Overrides,
    config_from_mapping,
    default_config,
    find_config,
    load_config,
)
from tflint.engine import parallel
from tflint.engine.findings import RuleLevel, configured
from tflint.engine.run import lint_artifact, lint_path
from tflint.errors import ConfigError, UsageError
from tflint.finding import Finding, Severity
from tflint.read.load import (
    artifact_from_message,
    coerce_message,
    holds_saved_model,
    load_bytes,
    load_path,
    parse_op_list,
)
from tflint.read.walk import Excludes, WalkOptions, iter_graph_files
from tflint.records import record, replace
from tflint.runtime import process
from tflint.tf.registry import OpRegistry, user_registry

ConfigLike = Config | Mapping[str, Any] | str | os.PathLike[str] | None


@record(frozen=True)
class Report:
    """The findings of one lint run, and whether they pass the failing level.

    `fail_on` is the failing level; `file_fail_on` overrides it per file
    (each file fails by its own config's `fail-on`). `files` names the files
    linted, as findings do; `baselined` counts findings a baseline hid;
    `rules` is the rule registry of the run (built-in plus plugin rules);
    `pruned` counts the stale baseline entries `prune_baseline` removed;
    `skipped` holds (file, what it holds) for each file that is not a
    TensorFlow graph and so was not linted (not in `files`).
    """

    findings: tuple[Finding, ...]
    fail_on: Severity
    files: tuple[str, ...]
    file_fail_on: Mapping[str, Severity]
    baselined: int
    rules: Mapping[str, Any] | None
    pruned: int
    skipped: tuple[tuple[str, str], ...]

    def __init__(
        self,
        findings: tuple[Finding, ...],
        fail_on: Severity = Severity.ERROR,
        files: tuple[str, ...] = (),
        file_fail_on: Mapping[str, Severity] | None = None,
        baselined: int = 0,
        rules: Mapping[str, Any] | None = None,
        pruned: int = 0,
        skipped: tuple[tuple[str, str], ...] = (),
    ) -> None:
        vars(self).update(
            findings=findings,
            fail_on=fail_on,
            files=files,
            file_fail_on={} if file_fail_on is None else file_fail_on,
            baselined=baselined,
            rules=rules,
            pruned=pruned,
            skipped=skipped,
        )

    def failing(self) -> tuple[Finding, ...]:
        """The findings at or above their file's failing level."""
        return tuple(f for f in self.findings if f.severity >= self.file_fail_on.get(f.file, self.fail_on))

    @property
    def ok(self) -> bool:
        """True when no finding is at or above the failing level."""
        return not self.failing()

    def render(
        self, format: str = "text", *, color: bool = False, root: str | None = None, statistics: bool = False
    ) -> str:  # noqa: A002 - the CLI's name
        """The report in an output format: text, json, sarif, github or junit.

        Paths in SARIF, GitHub annotations and fingerprints are made relative
        to `root` (default: the repository holding the current directory).
        """
        from tflint.report import renderer
        from tflint.report.summary import Summary

        summary = Summary(
            files=len(self.files),
            color=color,
            paths=self.files,
            root=root if root is not None else project_root(),
            baselined=self.baselined,
            rules=self.rules,
            statistics=statistics,
            skipped=tuple(path for path, _ in self.skipped),
        )
        rendered: str = renderer(format)(self.findings, summary)
        return rendered

    def to_json(self, indent: int | None = 2) -> str:
        """The findings as a JSON array (same keys as `--format json`)."""
        from tflint.report import escaped
        from tflint.report.json import records
        from tflint.report.summary import Summary

        summary = Summary(files=len(self.files), paths=self.files, root=project_root(), rules=self.rules)
        return json.dumps(records(escaped(self.findings), summary.escaped()), indent=indent)

    def to_sarif(self) -> str:
        """The report as a SARIF 2.1.0 log (same as `--format sarif`)."""
        return self.render("sarif")

    def __iter__(self) -> Iterator[Finding]:
        return iter(self.findings)

    def __len__(self) -> int:
        return len(self.findings)


class GraphValidationError(Exception):
    """Raised by `validate` when a graph has findings at or above `fail_on`."""

    def __init__(self, report: Report) -> None:
        failing = [finding for finding in report.findings if finding.severity >= report.fail_on]
        shown = [finding.escaped() for finding in failing[:20]]
        lines = [f"{f.location()}: {f.severity}: {f.message} [{f.rule}]" for f in shown]
        more = f"\n... and {len(failing) - 20} more" if len(failing) > 20 else ""
        super().__init__(f"{len(failing)} finding(s) at or above {report.fail_on}:\n" + "\n".join(lines) + more)
        self.report = report
        self.findings = tuple(failing)


def resolve_config(config: ConfigLike, near: str | None = None) -> Config:
    """A Config from an object, a mapping, a path, or discovery next to `near`."""
    if isinstance(config, Config):
        return config
    if isinstance(config, Mapping):
        return config_from_mapping(config)
    if config is not None:
        return load_config(config)
    found = find_config(near) if near and near != "-" else None
    return load_config(found) if found else default_config()


def registry_for(
    config: Config, extra_op_defs: Iterable[str | Any] = (), target_tf: str | Sequence[str] | None = None
) -> OpRegistry:
    """The op registry for a run: extra OpLists, the config's op-defs, its plugins' OpDefs, then the
    bundled snapshot.

    Its targets are the releases `target_tf` names (overriding the config's `target-tf:`), if any.
    """
    lists = []
    for item in list(extra_op_defs) + list(config.op_defs):
        if isinstance(item, (str, os.PathLike)):
            lists.append((str(item), _read_op_list(item)))
        else:
            lists.append(("op_defs", item))
    for label, value in config.plugin_op_defs:
        lists.append((label, _plugin_op_list(label, value)))
    names = config.target_tf if target_tf is None else target_names(target_tf)
    if not names:
        return user_registry(lists)
    from tflint.tf.releases import releases

    return user_registry(lists, targets=releases(list(names)))


def target_names(target_tf: str | Sequence[str]) -> tuple[str, ...]:
    """`"2.4,2.11"`, `"2.11.1"` or `["1.15", "2.4"]`: the bundled releases meant (UsageError for unknown ones)."""
    items = target_tf.split(",") if isinstance(target_tf, str) else [str(item) for item in target_tf]
    items = [item.strip() for item in items if item.strip()]
    if not items:
        return ()
    from tflint.tf.releases import release_key, resolve

    return tuple(sorted({resolve(item) for item in items}, key=release_key))


def _read_op_list(path: str | os.PathLike[str]) -> Any:
    from tflint.read.guarded import MAX_OP_DEFS_BYTES, read_bytes

    return parse_op_list(read_bytes(path, "op definitions", MAX_OP_DEFS_BYTES), str(path))


def _plugin_op_list(label: str, value: Any) -> Any:
    """A plugin's OpDefs: an OpList message (ours or TensorFlow's), its bytes, a file path, or a callable."""
    if callable(value) and not hasattr(value, "SerializeToString"):
        try:
            value = value()
        except Exception as error:
            raise ConfigError(
                f"{label}: its {OP_DEFS_GROUP} entry point raised {type(error).__name__}: {error}"
            ) from None
    if isinstance(value, (str, os.PathLike)):
        return _read_op_list(value)
    if hasattr(value, "SerializeToString"):
        value = value.SerializeToString()
    if isinstance(value, (bytes, bytearray)):
        try:
            return parse_op_list(bytes(value), label)
        except UsageError as error:
            raise ConfigError(str(error)) from None
    raise ConfigError(
        f"{label}: its {OP_DEFS_GROUP} entry point gave {type(value).__name__}, not an OpList, its bytes or a path"
    )


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
    contract = _import_args(import_args)

    configs = _ConfigCache(config, overrides, stdin_name)
    files = discover(paths, configs, force_exclude=force_exclude, respect_gitignore=respect_gitignore)
    override = Severity.parse(fail_on) if isinstance(fail_on, str) else fail_on
    explicit = (
        _load_baseline(baseline) if isinstance(baseline, (str, os.PathLike)) and write_baseline is None else None
    )  # fail before the work
    registries: dict[int, OpRegistry] = {}
    plan: list[tuple[str, Config, OpRegistry]] = []
    with_contract: dict[int, Config] = {}
    for path in files:
        base = configs.for_path(path)
        if contract is not None:
            if id(base) not in with_contract:
                with_contract[id(base)] = replace(base, import_args=contract)
            base = with_contract[id(base)]
        registry = registries.get(id(base))
        if registry is None:
            registry = registries[id(base)] = registry_for(base, op_defs, target_tf)
        plan.append((path, base.for_file(configs.named(path)), registry))
    workers, cores = parallel.worker_count(files, jobs), parallel.core_count(jobs)
    linted = parallel.lint_planned(plan, lint_path, input_type, stdin_name, progress, workers, cores)

    skipped = tuple((shown, what) for shown, _, _, what in linted if what is not None)
    config_of = {shown: resolved for shown, resolved, _, _ in linted}
    shown_files = [shown for shown, _, _, what in linted if what is None]
    findings = sorted((f for _, _, file_findings, _ in linted for f in file_findings), key=Finding.sort_key)
    modules = _rule_registry(config_of.values())
    if write_baseline is not None:
        from tflint.baseline import Baseline

        written = Baseline.from_findings(write_baseline, findings, modules)
        written.write()
        baselines = {os.fspath(write_baseline): (written, shown_files)}
    else:
        groups = _baseline_groups(linted, baseline)
        baselines = {path: (explicit or _load_baseline(path), members) for path, members in groups.items()}
        if prune_baseline and not baselines and linted:
            raise UsageError(
                "--prune-baseline: no baseline in force (give --baseline FILE, or baseline: in .tflint.yaml)"
            )
    hidden = stale = 0
    linting = _not_compat(modules)
    for loaded, members in baselines.values():
        if not members:
            continue  # nothing was linted (an empty directory): nothing to hide, nothing known to be stale
        findings, applied = _apply_baseline(loaded, members, findings, config_of, modules, prune_baseline, linting)
        hidden += applied.hidden
        if prune_baseline:
            loaded.pruned(applied.matched, members, linting).write()
            stale += applied.stale

    file_fail_on = {shown: override or resolved.fail_on for shown, resolved, _, _ in linted}
    default_fail_on = override or (linted[0][1].fail_on if linted else Severity.ERROR)
    return Report(
        tuple(findings),
        default_fail_on,
        tuple(shown_files),
        file_fail_on,
        hidden,
        modules,
        pruned=stale,
        skipped=skipped,
    )


def discover(
    paths: Iterable[str | os.PathLike[str]],
    config: ConfigLike | _ConfigCache = None,
    *,
    overrides: Overrides | None = None,
    stdin_name: str = "<stdin>",
    force_exclude: bool = False,
    respect_gitignore: bool = True,
) -> list[str]:
    """The files and SavedModel directories `lint_paths` would read for `paths`, in order (`-` for stdin).

    Raises UsageError for a path that does not exist, or stdin named twice.
    """
    configs = config if isinstance(config, _ConfigCache) else _ConfigCache(config, overrides, stdin_name)
    options = WalkOptions(
        excludes=_RunExcludes(configs),
        respect_gitignore=respect_gitignore,
        force_exclude=force_exclude,
        holds_saved_model=holds_saved_model,
    )
    files = list(iter_graph_files([os.fspath(path) for path in paths], options))
    if sum(1 for path in files if path == "-") > 1:
        raise UsageError("stdin (-) can be read only once")
    if "-" in files and force_exclude and configs.stdin_path is not None:
        real = os.path.realpath(configs.stdin_path)
        if configs.for_path("-").excludes().excluded_path(real, False):
            files.remove("-")  # --stdin-filename names an excluded file: nothing to lint, as for a real one
    return files


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
    from tflint.read.load import not_a_graph

    files = discover(
        paths,
        config,
        overrides=overrides,
        stdin_name=stdin_name,
        force_exclude=force_exclude,
        respect_gitignore=respect_gitignore,
    )
    return [(path, None if path == "-" or os.path.isdir(path) else not_a_graph(path)) for path in files]


def settings_for(
    path: str | os.PathLike[str], config: ConfigLike = None, overrides: Overrides | None = None
) -> tuple[Config, str | None]:
    """`--show-settings`: the configuration that applies to `path` (and the file it comes from)."""
    configs = _ConfigCache(config, overrides)
    named = os.fspath(path)
    base = configs.for_path(named)
    return base.for_file(named), base.source


def _apply_baseline(
    baseline: Any,
    members: list[str],
    findings: list[Finding],
    config_of: Mapping[str, Config],
    modules: Mapping[str, Any],
    pruning: bool,
    judged: Any = None,
) -> tuple[list[Finding], Any]:
    """`findings` with `baseline` applied to those of the files in `members` (`judged`: see Baseline.apply)."""
    member_set = set(members)
    fallback = config_of[members[0]]

    def rules_for(shown: str | None) -> list[RuleLevel]:
        if pruning:
            return []  # the entries are being removed: nothing to report
        return configured(config_of.get(cast(str, shown), fallback))  # None (a file that is gone): the fallback

    applied = baseline.apply([f for f in findings if f.file in member_set], members, modules, rules_for, judged)
    outside = [f for f in findings if f.file not in member_set]
    return sorted(outside + applied.findings, key=Finding.sort_key), applied


def _load_baseline(path: str | os.PathLike[str]) -> Any:
    """The baseline file at `path` (tflint.baseline is imported only by a run that has one)."""
    from tflint.baseline import Baseline

    return Baseline.load(path)


def _not_compat(modules: Mapping[str, Any]) -> Any:
    """The rules a lint runs: all but the compat rules (those compare two versions: `compat`)."""
    from tflint.engine.findings import is_compat_rule

    return lambda rule_id: not is_compat_rule(rule_id, modules)


class _ConfigCache:
    """One Config per config file: the given one, or the nearest config of each path; overrides laid over each.

    `--stdin-filename` (`stdin_name`, when not the default) stands for `-` in
    config discovery, excludes and per-file ignores.
    """

    def __init__(self, config: ConfigLike, overrides: Overrides | None = None, stdin_name: str = "<stdin>") -> None:
        self._overrides = overrides
        self._fixed = None if config is None else self._overridden(resolve_config(config))
        self._finder = ConfigFinder()
        self._found: dict[str, Config] = {}
        self.stdin_path = stdin_name if stdin_name != "<stdin>" else None

    def _overridden(self, config: Config) -> Config:
        return self._overrides.apply(config) if self._overrides is not None else config

    def named(self, path: str) -> str:
        """The path `path` stands for: the --stdin-filename for `-`."""
        return (self.stdin_path or "-") if path == "-" else path

    def for_path(self, path: str) -> Config:
        """The configuration of the file or directory `path`."""
        if self._fixed is not None:
            return self._fixed
        named = self.named(path)
        start = os.getcwd() if named == "-" else os.path.realpath(named)
        return self.for_directory(start if os.path.isdir(start) else os.path.dirname(start))

    def for_directory(self, directory: str) -> Config:
        """The configuration in force in the absolute, real `directory`."""
        if self._fixed is not None:
            return self._fixed
        found = self._finder.nearest(directory)
        key = str(found) if found else ""
        if key not in self._found:
            self._found[key] = self._overridden(load_config(found) if found else default_config())
        return self._found[key]


class _RunExcludes(Excludes):
    """A walk's excludes: those of the configuration in force in each directory it meets."""

    def __init__(self, configs: _ConfigCache) -> None:
        self._configs = configs

    def excluded(self, path: str, is_dir: bool) -> bool:
        return self._configs.for_directory(os.path.dirname(path)).excludes().excluded(path, is_dir)

    def excluded_path(self, path: str, is_dir: bool) -> bool:
        return self._configs.for_directory(os.path.dirname(path)).excludes().excluded_path(path, is_dir)


def _baseline_groups(linted: Sequence[tuple[Any, ...]], baseline: Any) -> dict[str, list[str]]:
    """Baseline path -> the files it applies to (an explicit one applies to all).

    `linted` holds (shown path, config, ...) per file, from a lint or a compat run.
    """
    groups: dict[str, list[str]] = {}
    if baseline is False:
        return groups
    for shown, resolved, *_ in linted:
        path = resolved.baseline if baseline is None or baseline is True else os.fspath(baseline)
        if path:
            groups.setdefault(path, []).append(shown)
    return groups


def _rule_registry(configs: Iterable[Config]) -> Mapping[str, Any]:
    """Every rule any config of the run knows (built-in rules plus enabled plugins)."""
    from tflint.rules import all_rules

    merged = dict(all_rules())
    for resolved in configs:
        merged.update(resolved.modules)
    return merged


def project_root(start: str | None = None) -> str:
    """The repository root above `start` (default: the current directory), or `start` itself."""
    from tflint.report.identity import find_root

    return find_root(start)


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


def _import_args(value: Any) -> Any:
    """An ImportArgs from the API's `import_args` (a mapping like import_graph_def's keywords), or None."""
    from tflint.tf.imports import ImportArgs, import_args

    if value is None or isinstance(value, ImportArgs):
        return value
    if not isinstance(value, Mapping):
        raise TypeError(f"import_args must be a mapping (input_map, return_elements, name), not {type(value).__name__}")
    unknown = set(value) - {"input_map", "return_elements", "name"}
    if unknown:
        raise UsageError(
            f"import_args: unknown key {sorted(map(str, unknown))[0]!r} (expected input_map, return_elements, name)"
        )
    try:
        return import_args(**value)
    except ValueError as error:
        raise UsageError(f"import_args: {error}") from None


def lint_graph(
    graph: Any,
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
    contract = _import_args(import_args)
    if contract is not None:
        resolved = replace(resolved, import_args=contract)
    registry = registry_for(resolved, op_defs, target_tf)
    with process.collector_paused():
        if isinstance(graph, (bytes, bytearray, memoryview)):
            artifact = load_bytes(bytes(graph), name)
        else:
            message, kind = coerce_message(graph)
            artifact = artifact_from_message(message, kind, name)
        findings = tuple(lint_artifact(artifact, resolved, registry))
    if artifact.skipped is not None:  # bytes of another message: a not-a-graph finding, as for a file
        return Report(findings, resolved.fail_on, (), rules=resolved.modules, skipped=((name, artifact.skipped),))
    return Report(findings, resolved.fail_on, (name,), rules=resolved.modules)


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
    from tflint.read.interface import latest_versions

    if new is None:
        pair = latest_versions(os.fspath(old))
    else:
        pair = (os.fspath(old), os.fspath(new))
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
    from tflint.baseline import Baseline
    from tflint.engine.compat import compare_versions, is_compat_rule
    from tflint.read.interface import read_version

    override = Severity.parse(fail_on) if isinstance(fail_on, str) else fail_on
    explicit = (
        Baseline.load(baseline) if isinstance(baseline, (str, os.PathLike)) and write_baseline is None else None
    )  # fail before the work
    configs = _ConfigCache(config)
    compared: list[tuple[str, Config, list[Finding]]] = []
    for old_path, new_path in pairs:
        resolved = configs.for_path(new_path)
        registry = registry_for(resolved, op_defs)
        with process.collector_paused():
            old_version = read_version(old_path, input_type)
            new_version = read_version(new_path, input_type)
            kinds = (old_version.artifact.message_type, new_version.artifact.message_type)
            if None not in kinds and kinds[0] != kinds[1]:
                raise UsageError(
                    f"{old_path} is a {kinds[0]} and {new_path} a {kinds[1]}: compare two versions of the same kind"
                )
            if old_version.name == new_version.name:  # models/a/1 against models/b/1: the paths tell them apart
                old_version.name, new_version.name = old_path, new_path
            findings = compare_versions(old_version, new_version, resolved, registry)
        compared.append((new_version.artifact.path, resolved, findings))

    config_of = {shown: resolved for shown, resolved, _ in compared}
    shown_files = [shown for shown, _, _ in compared]
    findings = sorted((f for _, _, found in compared for f in found), key=Finding.sort_key)
    modules = _rule_registry(config_of.values())
    if write_baseline is not None:
        from tflint.baseline import Baseline

        written = Baseline.from_findings(write_baseline, findings, modules)
        written.write()
        baselines = {os.fspath(write_baseline): (written, shown_files)}
    else:
        groups = _baseline_groups(compared, baseline)
        baselines = {path: (explicit or Baseline.load(path), members) for path, members in groups.items()}
    hidden = 0
    for loaded, members in baselines.values():
        findings, applied = _apply_baseline(
            loaded, members, findings, config_of, modules, False, lambda rule_id: is_compat_rule(rule_id, modules)
        )
        hidden += applied.hidden
    file_fail_on = {shown: override or resolved.fail_on for shown, resolved, _ in compared}
    default_fail_on = override or (compared[0][1].fail_on if compared else Severity.ERROR)
    return Report(tuple(findings), default_fail_on, tuple(shown_files), file_fail_on, hidden, modules)


def validate(
    graph_or_path: Any,
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
    from tflint.config.serving_preset import looks_like_saved_model, with_serving_preset

    given = {"input_map": input_map, "return_elements": return_elements, "name": name}
    import_args = {key: value for key, value in given.items() if value is not None} or None
    is_path = isinstance(graph_or_path, (str, os.PathLike))
    near = os.fspath(graph_or_path) if is_path and trust_model_config else None
    resolved = _validation_config(resolve_config(config, near=near), trust_model_config)
    if serving is None:
        serving = looks_like_saved_model(graph_or_path)
    if serving:
        resolved = with_serving_preset(resolved)
    if is_path:
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


# The rules whose findings fail a validation whatever their default level: an empty graph
# (TensorFlow imports it), a file that is not a graph at all (a run skips it).
_EMPTY_GRAPH = "empty-graph"
_NOT_A_GRAPH = "not-a-graph"


def _validation_config(config: Config, trust_model_config: bool) -> Config:
    """`config` as validate applies it: an empty graph fails; the model's inline suppressions are off unless trusted."""
    from tflint.config.settings import InlineSuppressions

    changes: dict[str, Any] = {}
    if not trust_model_config:
        changes["inline_suppressions"] = InlineSuppressions(allowed=False)
    rules = dict(config.rules)
    for rule_id in (_EMPTY_GRAPH, _NOT_A_GRAPH):
        setting = rules.get(rule_id)
        if setting is not None and not setting.level_set:
            rules[rule_id] = replace(setting, severity=Severity.ERROR, level_set=True)
    if rules != dict(config.rules):
        changes["rules"] = MappingProxyType(rules)
    return replace(config, **changes) if changes else config


@record(frozen=True)
class MinTf:
    """The oldest bundled TensorFlow release that imports a graph file, and why no older one does.

    `release` is None when not even the newest bundled release imports it
    (`blockers` then lists the rules that failed). `needs` holds, newest
    first, (release, reasons): the reasons that need at least that release
    ("op XlaCallModule", "GatherV2.batch_dims = 1 (not the default)").
    """

    path: str
    release: str | None
    needs: tuple[tuple[str, tuple[str, ...]], ...]
    blockers: tuple[str, ...]

    def __init__(
        self,
        path: str,
        release: str | None,
        needs: tuple[tuple[str, tuple[str, ...]], ...] = (),
        blockers: tuple[str, ...] = (),
    ) -> None:
        vars(self).update(path=path, release=release, needs=needs, blockers=blockers)

    def as_dict(self) -> dict[str, Any]:
        return {
            "file": self.path,
            "min_tf": self.release,
            "needs": [{"release": release, "reasons": list(reasons)} for release, reasons in self.needs],
            "blockers": list(self.blockers),
        }

    def text(self) -> str:
        if self.release is None:
            return f"{self.path}: no bundled TensorFlow imports it ({', '.join(self.blockers)})"
        if not self.needs:
            return f"{self.path}: TF {self.release} (the oldest bundled release) imports it"
        reasons = "; ".join(f"\u2265 {release}: {', '.join(items)}" for release, items in self.needs)
        return f"{self.path}: TF {self.release} (needs TF {reasons})"


def min_tf(
    path: str | os.PathLike[str],
    config: ConfigLike = None,
    *,
    op_defs: Sequence[str] = (),
    input_type: str | None = None,
) -> MinTf:
    """The oldest bundled TensorFlow release whose importer accepts the graph file (or SavedModel) at `path`."""
    from tflint import protos
    from tflint.engine.run import build_index
    from tflint.read.text_schema import schema_uses
    from tflint.tf.functions import called_functions
    from tflint.tf.releases import known_releases, schema_gaps
    from tflint.tf.target import ATTR_IGNORED, SAVER, problems

    shown = os.fspath(path)
    report = lint_paths([shown], config, op_defs=op_defs, input_type=input_type, baseline=False)
    errors = sorted({f.rule for f in report.findings if f.severity >= Severity.ERROR})
    if errors:
        return MinTf(shown, None, blockers=tuple(errors))
    names = known_releases()
    registry = registry_for(resolve_config(config, near=shown), op_defs, list(names))
    failing: dict[str, set[int]] = {}  # requirement -> indices (into names) of the releases it fails on
    artifact = load_path(shown, input_type)
    index_of = {release.name: names.index(release.name) for release in registry.targets}
    for source in artifact.graphs:
        graph = build_index(source, registry, artifact)
        try:
            for release in registry.targets:
                for problem in problems(graph, release):
                    if problem.kind == SAVER:  # every release's loader fails on it
                        return MinTf(shown, None, blockers=("target-saver",))
                    function = problem.node.function if problem.node is not None else None
                    if function is not None and not problem.built and function not in called_functions(graph):
                        continue  # a body only instantiation checks, and nothing calls it: the import succeeds
                    if problem.kind != ATTR_IGNORED and not problem.deferred:
                        failing.setdefault(problem.requirement, set()).add(index_of[release.name])
        finally:
            graph.release()
    root = getattr(protos, artifact.message_type or "", None)
    if artifact.form == "text" and artifact.text and root is not None:
        everyone = sum(1 << release.bit for release in registry.targets)
        gaps = schema_gaps(registry.targets)
        for use in schema_uses(artifact.text, root.DESCRIPTOR, gaps, everyone):
            owner = use.owner.removeprefix("tensorflow.")
            what = f"text field {owner}.{use.name}" if use.kind == "messages" else f"text enum value {use.name}"
            bits = {bit for bit in range(len(names)) if use.lacking & (1 << bit)}
            failing.setdefault(what, set()).update(bits)
    by_release: dict[int, list[str]] = {}
    for requirement, indices in failing.items():
        by_release.setdefault(max(indices) + 1, []).append(requirement)
    oldest = max(by_release, default=0)
    needs = tuple((names[i], tuple(sorted(by_release[i]))) for i in sorted(by_release, reverse=True))
    return MinTf(shown, names[oldest], needs)


@record(frozen=True)
class FixResult:
    """What `--fix` did (or, with `--diff`, would do) to one file: the attrs removed, as `op.attr` labels."""

    path: str
    removed: tuple[str, ...]
    diff: str
    written: bool

    def __init__(self, path: str, removed: tuple[str, ...], diff: str = "", written: bool = False) -> None:
        vars(self).update(path=path, removed=removed, diff=diff, written=written)


def fix_paths(
    paths: Iterable[str | os.PathLike[str]], *, write: bool = True, input_type: str | None = None
) -> list[FixResult]:
    """Remove every attr whose value is its default on every bundled TensorFlow (tflint.tf.strip).

    A text file is edited in place, every other byte unchanged; a binary one is rewritten
    atomically. `write=False` changes nothing and fills `diff` (a unified diff for text, a
    summary for binary). Files that do not parse are left alone.
    """
    import difflib

    from tflint import protos
    from tflint.engine.run import build_index
    from tflint.read.edit import remove_attr_entries
    from tflint.report.output import write_atomically
    from tflint.tf.strip import strippable

    results = []
    registry = user_registry()
    for path in iter_graph_files([os.fspath(path) for path in paths]):
        if path == "-":
            raise UsageError("--fix cannot edit stdin (-)")
        target = _saved_model_file(path) if os.path.isdir(path) else path
        artifact = load_path(target, input_type)
        if artifact.failure is not None or artifact.message_type is None:
            continue
        found: list[tuple[int, Any, str]] = []
        for source in artifact.graphs:
            graph = build_index(source, registry, artifact)
            try:
                found.extend((source.graph_id, node, key) for node, key in strippable(graph))
            finally:
                graph.release()
        removed = tuple(f"{node.op}.{key}" for _, node, key in found)
        if not found:
            results.append(FixResult(target, ()))
            continue
        if artifact.form == "text":
            original = artifact.text or ""
            positions = [node.attr_position(key) for _, node, key in found]
            fixed = remove_attr_entries(original, [where for where in positions if where is not None])
            diff = "".join(
                difflib.unified_diff(
                    original.splitlines(keepends=True), fixed.splitlines(keepends=True), target, target
                )
            )
            if write:
                write_atomically(target, fixed)
            results.append(FixResult(target, removed, diff, write))
            continue
        with open(target, "rb") as file:
            message = getattr(protos, artifact.message_type).FromString(file.read())
        for graph_id, node, key in found:
            graph_def = _graph_of(message, artifact.message_type, graph_id)
            if node.function is None:
                del graph_def.node[node.ordinal].attr[key]
            else:
                function = next(f for f in graph_def.library.function if f.signature.name == node.function)
                del function.node_def[node.ordinal].attr[key]
        summary = f"{target}: {len(found)} default-valued attrs to remove ({_counted(removed)})\n"
        if write:
            _write_bytes_atomically(target, message.SerializeToString())
        results.append(FixResult(target, removed, summary, write))
    return results


def _saved_model_file(directory: str) -> str:
    for name in ("saved_model.pb", "saved_model.pbtxt"):
        candidate = os.path.join(directory, name)
        if os.path.isfile(candidate):
            return candidate
    raise UsageError(f"{directory}: no saved_model.pb or saved_model.pbtxt")


def _graph_of(message: Any, kind: str, graph_id: int) -> Any:
    if kind == "GraphDef":
        return message
    if kind == "MetaGraphDef":
        return message.graph_def
    return message.meta_graphs[graph_id].graph_def


def _counted(labels: tuple[str, ...]) -> str:
    counts: dict[str, int] = {}
    for label in labels:
        counts[label] = counts.get(label, 0) + 1
    return ", ".join(f"{label} \u00d7{count}" if count > 1 else label for label, count in sorted(counts.items()))


def _write_bytes_atomically(path: str, data: bytes) -> None:
    import tempfile

    from tflint.runtime import interrupts

    directory = os.path.dirname(os.path.abspath(path))
    with interrupts.deferred():  # Ctrl-C ends the command at once: it removes the file, once tracked
        handle, temporary = tempfile.mkstemp(dir=directory, prefix=".tflint-fix-")
        interrupts.track_temporary(temporary)
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(data)
        os.chmod(temporary, os.stat(path).st_mode & 0o7777)
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise
    finally:
        interrupts.forget_temporary(temporary)


__all__ = [
    "ConfigError",
    "FixResult",
    "GraphValidationError",
    "MinTf",
    "Report",
    "UsageError",
    "compat",
    "lint_file",
    "lint_graph",
    "fix_paths",
    "lint_paths",
    "min_tf",
    "validate",
]
