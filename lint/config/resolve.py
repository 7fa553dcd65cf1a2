"""Which configuration applies: to a run (an object, a mapping, a path, or discovery), and to each path
of a run (the nearest config file, loaded once, with the command line's overrides laid over it).

Also the op registry of each configuration of a run, built once per configuration, and the
configuration `validate` runs with.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import Any

from tflint.config.registry import registry_for
from tflint.config.settings import (
    Config,
    ConfigFinder,
    Overrides,
    config_from_mapping,
    default_config,
    find_config,
    load_config,
)
from tflint.errors import UsageError
from tflint.finding import Severity
from tflint.read.load import holds_saved_model
from tflint.read.walk import Excludes, WalkOptions, iter_graph_files
from tflint.records import replace
from tflint.tf.registry import OpRegistry

ConfigLike = Config | Mapping[str, Any] | str | os.PathLike[str] | None


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


class ConfigCache:
    """One Config per config file: the given one, or the nearest config of each path; overrides laid over each.

    `--stdin-filename` (`stdin_name`, when not the default) stands for `-` in
    config discovery, excludes and per-file ignores.
    """

    def __init__(self, config: ConfigLike, overrides: Overrides | None = None, stdin_name: str = "<stdin>") -> None:
        self._overrides = overrides
        self._fixed = None if config is None else self._overridden(resolve_config(config))
        self._finder = ConfigFinder()
        self._found: dict[str, Config] = {}
        # Keyed by the identity of a Config this cache holds (in the value too, so the key cannot be reused).
        self._for_run: dict[int, tuple[Config, Config, OpRegistry]] = {}
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

    def for_run(
        self, path: str, import_args: Any = None, op_defs: Sequence[Any] = (), target_tf: Any = None
    ) -> tuple[Config, OpRegistry]:
        """The configuration of file `path` as a run applies it (with the API's `import_args`, if any, and
        the file's per-file ignores), and its op registry: built once per configuration file."""
        base = self.for_path(path)
        entry = self._for_run.get(id(base))
        if entry is None or entry[0] is not base:
            applied = replace(base, import_args=import_args) if import_args is not None else base
            entry = self._for_run[id(base)] = (base, applied, registry_for(applied, op_defs, target_tf))
        return entry[1].for_file(self.named(path)), entry[2]

    def settings_of(self, path: str) -> tuple[Config, str | None]:
        """`--show-settings`: the configuration that applies to `path`, and the file it comes from."""
        base = self.for_path(path)
        return base.for_file(path), base.source

    def excludes(self) -> Excludes:
        """A walk's excludes: those of the configuration in force in each directory it meets."""
        return _RunExcludes(self)


class _RunExcludes(Excludes):
    def __init__(self, configs: ConfigCache) -> None:
        self._configs = configs

    def excluded(self, path: str, is_dir: bool) -> bool:
        return self._configs.for_directory(os.path.dirname(path)).excludes().excluded(path, is_dir)

    def excluded_path(self, path: str, is_dir: bool) -> bool:
        return self._configs.for_directory(os.path.dirname(path)).excludes().excluded_path(path, is_dir)


def discover_files(
    paths: Iterable[str], configs: ConfigCache, force_exclude: bool = False, respect_gitignore: bool = True
) -> list[str]:
    """The files and SavedModel directories a run reads for `paths`, in order (`-` for stdin), each directory
    searched without what its configuration excludes.

    Raises UsageError for a path that does not exist, or stdin named twice.
    """
    options = WalkOptions(
        excludes=configs.excludes(),
        respect_gitignore=respect_gitignore,
        force_exclude=force_exclude,
        holds_saved_model=holds_saved_model,
    )
    files = list(iter_graph_files(list(paths), options))
    if sum(1 for path in files if path == "-") > 1:
        raise UsageError("stdin (-) can be read only once")
    if "-" in files and force_exclude and configs.stdin_path is not None:
        real = os.path.realpath(configs.stdin_path)
        if configs.for_path("-").excludes().excluded_path(real, False):
            files.remove("-")  # --stdin-filename names an excluded file: nothing to lint, as for a real one
    return files


def rule_registry(configs: Iterable[Config]) -> Mapping[str, Any]:
    """Every rule any config of a run knows (built-in rules plus enabled plugins)."""
    from tflint.rules import all_rules

    merged = dict(all_rules())
    for resolved in configs:
        merged.update(resolved.modules)
    return merged


# The rules whose findings fail a validation whatever their default level: an empty graph
# (TensorFlow imports it), a file that is not a graph at all (a run skips it).
_EMPTY_GRAPH = "empty-graph"
_NOT_A_GRAPH = "not-a-graph"


def validation_config(config: Config, trust_model_config: bool) -> Config:
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


def validation_setup(config: ConfigLike, graph_or_path: Any, serving: bool | None, trust_model_config: bool) -> Config:
    """The configuration `validate` runs with: `config` (and, only when the model's configuration is trusted, the
    `.tflint.yaml` near a path) as `validation_config` applies it, under the serving preset when `serving` (None:
    when the graph looks like a SavedModel)."""
    from tflint.config.serving_preset import looks_like_saved_model, with_serving_preset

    path = os.fspath(graph_or_path) if isinstance(graph_or_path, (str, os.PathLike)) else None
    near = path if trust_model_config else None
    resolved = validation_config(resolve_config(config, near=near), trust_model_config)
    if serving is None:
        serving = looks_like_saved_model(graph_or_path)
    return with_serving_preset(resolved) if serving else resolved


def min_tf_setup(config: ConfigLike, shown: str, op_defs: Sequence[str]) -> dict[str, Any]:
    """What `--min-tf` replays `shown` with (tflint.engine.min_tf.oldest_release's arguments): the registry of every
    bundled release, the rule that knows the saver's format, and `missing-kernel`'s options unless it is off."""
    from tflint.tf.releases import known_releases

    resolved = resolve_config(config, near=shown)
    registry = registry_for(resolved, op_defs, list(known_releases()))
    kernels = resolved.rules.get("missing-kernel")
    kernel_options = kernels.options if kernels is not None and kernels.severity > Severity.OFF else None
    return {"registry": registry, "saver_rule": "target-saver", "kernel_options": kernel_options}


def survey_files(files: Iterable[str]) -> list[tuple[str, str | None]]:
    """`--show-files`: (path, None) for each discovered file or SavedModel a run lints, (path, what it holds) for
    each it skips as not a TensorFlow graph, told apart by its first bytes as a run does."""
    from tflint.read.load import not_a_graph

    return [(path, None if path == "-" or os.path.isdir(path) else not_a_graph(path)) for path in files]
