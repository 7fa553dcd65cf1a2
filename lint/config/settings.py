"""`.tflint.yaml`: discovery, presets, validation, and the frozen per-rule config rules receive.

Validated once, up front: an unknown rule, option or level is a ConfigError
(exit 2) naming the file, the key and the closest valid spelling.
"""

from __future__ import annotations

import errno
import os
import re
from collections.abc import Iterable, Mapping
from types import MappingProxyType, ModuleType
from typing import TYPE_CHECKING, Any, cast

from tflint.errors import LISTS_RULES, ConfigError, UsageError, did_you_mean
from tflint.escape import quote
from tflint.finding import Severity
from tflint.read.globs import GlobSet
from tflint.read.walk import DEFAULT_EXCLUDES, Excludes
from tflint.records import record, replace

if TYPE_CHECKING:
    from pathlib import Path

_PRESETS = os.path.join(os.path.dirname(os.path.realpath(__file__)), "presets")

CONFIG_NAMES = (".tflint.yaml", ".tflint.yml")
# Consulted in a directory without a .tflint.yaml: its [tool.tflint] table, when it has one.
PYPROJECT = "pyproject.toml"
TOP_LEVEL_KEYS = (
    "extends",
    "rules",
    "fail-on",
    "op-defs",
    "baseline",
    "inline-suppressions",
    "plugins",
    "uncalled-functions",
    "interface",
    "target-tf",
    "exclude",
    "extend-exclude",
    "per-file-ignores",
)
RULE_KEYS = ("level", "ignore-nodes")
INLINE_SUPPRESSION_KEYS = ("allowed", "require-reason")
# Seconds a user regex may run against one name before it is reported, not waited on (all searches of
# a run also share one budget: tflint.runtime.user_regex).
REGEX_TIMEOUT = 0.5


@record(frozen=True)
class RuleConfig:
    """What one rule runs with: its level, its options, node-name patterns it skips."""

    severity: Severity
    options: Mapping[str, Any]
    ignore_nodes: tuple[Any, ...]
    level_set: bool  # the user chose the level: it overrides a rule's per-issue severity

    def __init__(
        self,
        severity: Severity,
        options: Mapping[str, Any] | None = None,
        ignore_nodes: tuple[Any, ...] = (),
        level_set: bool = False,
    ) -> None:
        vars(self).update(
            severity=severity,
            options=MappingProxyType({}) if options is None else options,
            ignore_nodes=ignore_nodes,
            level_set=level_set,
        )

    def ignores(self, node_name: str | None) -> bool:
        """Whether findings on `node_name` are switched off for this rule."""
        if not node_name or not self.ignore_nodes:
            return False
        from tflint.runtime import user_regex

        for pattern in self.ignore_nodes:
            try:
                if user_regex.search(pattern, node_name, REGEX_TIMEOUT):
                    return True
            except user_regex.BudgetSpent:
                raise ConfigError(
                    f"ignore-nodes pattern {quote(pattern.pattern)} ran out of the time for user patterns on this file"
                    f" on node {quote(node_name)} (catastrophic backtracking?)"
                ) from None
            except TimeoutError:
                raise ConfigError(
                    f"ignore-nodes pattern {quote(pattern.pattern)} took too long on node {quote(node_name)}"
                    " (catastrophic backtracking?)"
                ) from None
        return False


@record(frozen=True)
class InlineSuppressions:
    """Governance of `# tflint: ignore[...]` comments (`inline-suppressions:` in the config)."""

    allowed: bool
    require_reason: bool

    def __init__(self, allowed: bool = True, require_reason: bool = False) -> None:
        vars(self).update(allowed=allowed, require_reason=require_reason)


def _builtin_rules() -> Mapping[str, ModuleType]:
    from tflint.rules import all_rules

    return all_rules()


@record(frozen=True)
class Config:
    """A resolved configuration: every known rule's RuleConfig, fail-on, op-def files.

    `modules` is the rule registry this configuration runs: the built-in
    rules plus those of the plugins it enables; `plugin_op_defs` holds the
    (label, OpList source) pairs those plugins contribute.
    """

    rules: Mapping[str, RuleConfig]
    fail_on: Severity
    op_defs: tuple[str, ...]
    source: str | None
    baseline: str | None
    inline_suppressions: InlineSuppressions
    plugins: tuple[str, ...]
    modules: Mapping[str, ModuleType]
    plugin_op_defs: tuple[tuple[str, Any], ...]
    # The highest level of a finding inside a library function nothing calls (TensorFlow imports it).
    uncalled_functions: Severity
    # `interface:`: (file glob, tflint.tf.imports.Interface) in order; the first match applies.
    interfaces: tuple[tuple[GlobSet, Any], ...]
    # How the caller imports every graph it lints (tflint.tf.imports.ImportArgs; the Python API's import_args).
    import_args: Any
    # Globs (gitignore syntax, as every path pattern of the config) relative to the config file's directory:
    # `exclude` (None: the defaults), `extend-exclude`, and `per-file-ignores` (glob -> rule ids switched off there).
    exclude: GlobSet | None
    extend_exclude: tuple[GlobSet, ...]
    per_file_ignores: tuple[tuple[GlobSet, frozenset[str]], ...]

    def interface_for(self, path: str) -> Any:
        """The Interface the first `interface:` glob matching `path` gives, or None."""
        entry = self.interface_entry(path)
        return entry[1] if entry is not None else None

    def interface_entry(self, path: str) -> tuple[GlobSet, Any] | None:
        """The first `interface:` entry (glob, Interface) whose glob matches `path`, or None.

        The globs match as `per-file-ignores` do: gitignore syntax, relative to the config
        file's directory, a directory's pattern covering what is inside it.
        """
        real = os.path.realpath(path)
        is_dir = os.path.isdir(real)
        for globs, interface in self.interfaces:
            if globs.covers(real, is_dir):
                return globs, interface
        return None

    # The older TensorFlow releases graphs are also judged against ("1.15", "2.4"), resolved, oldest first.
    target_tf: tuple[str, ...]

    def __init__(
        self,
        rules: Mapping[str, RuleConfig],
        fail_on: Severity = Severity.ERROR,
        op_defs: tuple[str, ...] = (),
        source: str | None = None,
        baseline: str | None = None,
        inline_suppressions: InlineSuppressions = InlineSuppressions(),
        plugins: tuple[str, ...] = (),
        modules: Mapping[str, ModuleType] | None = None,
        plugin_op_defs: tuple[tuple[str, Any], ...] = (),
        uncalled_functions: Severity = Severity.WARNING,
        interfaces: tuple[tuple[GlobSet, Any], ...] = (),
        import_args: Any = None,
        exclude: GlobSet | None = None,
        extend_exclude: tuple[GlobSet, ...] = (),
        per_file_ignores: tuple[tuple[GlobSet, frozenset[str]], ...] = (),
        target_tf: tuple[str, ...] = (),
    ) -> None:
        vars(self).update(
            rules=rules,
            fail_on=fail_on,
            op_defs=op_defs,
            source=source,
            baseline=baseline,
            inline_suppressions=inline_suppressions,
            plugins=plugins,
            modules=_builtin_rules() if modules is None else modules,
            plugin_op_defs=plugin_op_defs,
            uncalled_functions=uncalled_functions,
            interfaces=interfaces,
            import_args=import_args,
            exclude=exclude,
            extend_exclude=extend_exclude,
            per_file_ignores=per_file_ignores,
            target_tf=target_tf,
        )

    def enabled(self) -> list[tuple[str, RuleConfig]]:
        """(rule id, config) for every rule that is not off."""
        return [(rule_id, conf) for rule_id, conf in self.rules.items() if conf.severity > Severity.OFF]

    def excludes(self) -> Excludes:
        """What a walk under this configuration skips (exclude, or the defaults, plus extend-exclude)."""
        cached = self.__dict__.get("_excludes")
        if cached is None:
            base = self.exclude if self.exclude is not None else GlobSet(DEFAULT_EXCLUDES, self.root())
            cached = Excludes((base, *self.extend_exclude))
            object.__setattr__(self, "_excludes", cached)
        return cached

    def root(self) -> str:
        """The directory the config's globs are relative to: its file's, or the working directory."""
        if self.source and os.path.isfile(self.source):
            return str(_path(self.source).parent.resolve())
        return os.getcwd()

    def for_file(self, path: str) -> Config:
        """This configuration as it applies to `path`: the rules `per-file-ignores` names there are off."""
        if not self.per_file_ignores or path == "-":
            return self
        real = os.path.realpath(path)
        is_dir = os.path.isdir(real)
        ignored: set[str] = set()
        for globs, rule_ids in self.per_file_ignores:
            if globs.covers(real, is_dir):
                ignored |= rule_ids
        if not ignored:
            return self
        variants = self.__dict__.setdefault("_variants", {})
        key = frozenset(ignored)
        if key not in variants:
            rules = dict(self.rules)
            for rule_id in key:
                rules[rule_id] = replace(rules[rule_id], severity=Severity.OFF, level_set=True)
            variants[key] = replace(self, rules=MappingProxyType(rules))
        return cast("Config", variants[key])


def default_config() -> Config:
    """Every rule at its default level and default options."""
    from tflint.rules import all_rules

    return _build({}, all_rules(), source=None)


def load_config(path: str | os.PathLike[str]) -> Config:
    """Read, merge (`extends:`) and validate the config file at `path`."""
    from tflint.rules import all_rules

    raw = _read_with_extends(_path(path), seen=())
    return _build(raw, all_rules(), source=str(path))


def config_from_mapping(raw: Mapping[str, Any], source: str = "<config>") -> Config:
    """Validate a config given as a mapping (the Python API's `config=` dict)."""
    from tflint.rules import all_rules

    if not isinstance(raw, Mapping):
        raise ConfigError(f"{source}: the configuration must be a mapping, not {type(raw).__name__}")
    merged = dict(raw)
    if "extends" in merged:
        base = _read_extends(merged.pop("extends"), _path(os.getcwd()), source, seen=())
        merged = _merge(base, merged)
    return _build(merged, all_rules(), source=source)


def find_config(start: str | os.PathLike[str]) -> Path | None:
    """The nearest config from `start` upwards, stopping at the repository root.

    In each directory, `.tflint.yaml` (or `.yml`) first, then a `pyproject.toml`
    that has a `[tool.tflint]` table.
    """
    try:
        directory = os.path.realpath(start)
        try:
            os.stat(directory)
        except OSError as error:
            if error.errno == errno.ELOOP:  # what Path.resolve() raises, and realpath does not
                raise
        if not os.path.isdir(directory):
            directory = os.path.dirname(directory)
        return ConfigFinder().nearest(directory)
    except OSError as error:  # a directory without permission, a symlink loop
        raise ConfigError(f"{start}: cannot search for a config: {error.strerror or error}") from None


def _path(*parts: str | os.PathLike[str]) -> Path:
    """A pathlib.Path, imported on first use: only a run with a config file needs one (5 ms of start-up)."""
    from pathlib import Path

    return Path(*parts)


def config_in(directory: str | os.PathLike[str]) -> Path | None:
    """The config file of `directory` itself, if it has one."""
    base = os.fspath(directory)
    for name in (*CONFIG_NAMES, PYPROJECT):
        candidate = os.path.join(base, name)
        if os.path.isfile(candidate) and (name != PYPROJECT or _has_tflint_table(candidate)):
            return _path(candidate)
    return None


class ConfigFinder:
    """`find_config` for many directories of one walk, each directory looked at once."""

    def __init__(self) -> None:
        self._nearest: dict[str, Path | None] = {}

    def nearest(self, directory: str) -> Path | None:
        """The config in force in the (absolute, real) `directory`."""
        pending = []
        current = directory
        while current not in self._nearest:
            found = config_in(current)
            if found is not None or os.path.exists(os.path.join(current, ".git")):
                self._nearest[current] = found
                break
            pending.append(current)
            parent = os.path.dirname(current)
            if parent == current:
                self._nearest[current] = None
                break
            current = parent
        result = self._nearest[current]
        for below in pending:
            self._nearest[below] = result
        return result


# A [tool.tflint] table header (or one of its subtables), the only part of pyproject.toml tflint reads.
_TFLINT_TABLE = re.compile(r"^[ \t]*\[[ \t]*tool[ \t]*\.[ \t]*tflint[ \t]*[.\]]", re.MULTILINE)


def _has_tflint_table(path: str) -> bool:
    from tflint.read.guarded import MAX_CONFIG_BYTES, read_bytes

    try:
        text = read_bytes(path, head=MAX_CONFIG_BYTES).decode("utf-8", "replace")  # never a FIFO or a device
    except UsageError:
        return False
    return _TFLINT_TABLE.search(text) is not None


def _read_pyproject(path: Path, shown: str) -> dict[str, Any]:
    """The [tool.tflint] table of a pyproject.toml, keys as in .tflint.yaml."""
    try:
        import tomllib
    except ImportError:  # Python 3.10
        raise ConfigError(
            f"{shown}: reading [tool.tflint] needs Python 3.11 or later (tomllib); use a .tflint.yaml"
        ) from None
    from tflint.read.guarded import MAX_CONFIG_BYTES, UnreadableFile, read_bytes

    try:
        data = tomllib.loads(read_bytes(path, "config", MAX_CONFIG_BYTES).decode("utf-8"))
    except UnreadableFile as error:
        raise ConfigError(str(error)) from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise ConfigError(f"{shown}: invalid TOML: {error}") from None
    table = data.get("tool", {}).get("tflint", {})
    if not isinstance(table, dict):
        raise ConfigError(f"{shown}: [tool.tflint] must be a table")
    return table


def _read_yaml(path: Path, shown: str) -> dict[str, Any]:
    import yaml

    if path.name == PYPROJECT:
        return _read_pyproject(path, shown)

    from tflint.read.guarded import MAX_CONFIG_BYTES, UnreadableFile, read_bytes

    try:
        text = read_bytes(path, "config", MAX_CONFIG_BYTES).decode("utf-8")
    except UnreadableFile as error:
        raise ConfigError(str(error)) from None
    except UnicodeDecodeError:
        raise ConfigError(f"{shown}: config is not UTF-8 text") from None
    if path.suffix in (".hcl", ".json") or text.lstrip().startswith(("config {", 'rule "', 'plugin "')):
        raise ConfigError(f"{shown}: this looks like a Terraform tflint config (HCL), not a tflint YAML config")
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        data = yaml.load(text, Loader=loader)  # noqa: S506 - a safe loader: no object construction
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f":{mark.line + 1}:{mark.column + 1}" if mark is not None else ""
        problem = getattr(error, "problem", None) or str(error).splitlines()[0]
        raise ConfigError(f"{shown}{where}: invalid YAML: {problem}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"{shown}: the configuration must be a mapping, not {type(data).__name__}")
    return data


def _read_with_extends(path: Path, seen: tuple[str, ...]) -> dict[str, Any]:
    shown = str(path)
    key = str(path.resolve())
    if key in seen:
        raise ConfigError(f"{shown}: extends itself (cycle: {' -> '.join(seen + (key,))})")
    data = _read_yaml(path, shown)
    if "extends" in data:
        base = _read_extends(data.pop("extends"), path.parent, shown, seen + (key,))
        data = _merge(base, data)
    return data


def _read_extends(target: Any, base_dir: Path, shown: str, seen: tuple[str, ...]) -> dict[str, Any]:
    if not isinstance(target, str) or not target:
        raise ConfigError(f"{shown}: extends: expected a preset name or a path, got {quote(target)}")
    presets = preset_names()
    if target in presets:
        if target == "default":
            return {}
        return _read_with_extends(_path(_PRESETS, f"{target}.yaml"), seen)
    path = (base_dir / target) if not os.path.isabs(target) else _path(target)
    if not _is_file(path):
        hint = did_you_mean(target, presets)
        raise ConfigError(
            f"{shown}: extends: {quote(target)} is neither a preset ({', '.join(presets)}) nor a file{hint}"
        )
    return _read_with_extends(path, seen)


def _is_file(path: Path) -> bool:
    """Path.is_file, with a path the system refuses (too long, a NUL) being no file rather than an OSError."""
    try:
        return path.is_file()
    except (OSError, ValueError):
        return False


def preset_names() -> list[str]:
    """Presets shipped with tflint, usable as `extends: NAME`."""
    names = ["default"]
    names.extend(sorted(name[: -len(".yaml")] for name in os.listdir(_PRESETS) if name.endswith(".yaml")))
    return names


def _merge(base: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    """Override `base` with `override`; rules merge per rule (a level keeps the base's options)."""
    merged = dict(base)
    for key, value in override.items():
        if key == "rules" and isinstance(value, dict) and isinstance(base.get("rules"), dict):
            rules = dict(base["rules"])
            for rule_id, setting in value.items():
                previous = _as_mapping(rules.get(rule_id))
                if previous is not None and isinstance(setting, dict):
                    rules[rule_id] = {**previous, **setting}
                elif previous is not None and isinstance(setting, (str, bool)):
                    rules[rule_id] = {**previous, "level": setting}
                else:
                    rules[rule_id] = setting
            merged["rules"] = rules
        else:
            merged[key] = value
    return merged


def _as_mapping(setting: Any) -> dict[str, Any] | None:
    """A rule setting as a mapping: a bare level becomes {level: ...}; None stays None."""
    if isinstance(setting, dict):
        return setting
    if isinstance(setting, (str, bool)):
        return {"level": setting}
    return None


def _build(raw: Mapping[str, Any], rules: Mapping[str, Any], source: str | None) -> Config:
    shown = source or "<defaults>"
    for key in raw:
        if key not in TOP_LEVEL_KEYS:
            raise ConfigError(f"{shown}: unknown key {quote(key)}{did_you_mean(str(key), TOP_LEVEL_KEYS)}")
    fail_on = Severity.ERROR
    if "fail-on" in raw:
        fail_on = _parse_level(raw["fail-on"], f"{shown}: fail-on", allow_off=False)
    op_defs = raw.get("op-defs", [])
    if isinstance(op_defs, str):
        op_defs = [op_defs]
    if not isinstance(op_defs, list) or not all(isinstance(item, str) for item in op_defs):
        raise ConfigError(f"{shown}: op-defs: expected a list of file paths")
    baseline = raw.get("baseline")
    if baseline is not None and (not isinstance(baseline, str) or not baseline):
        raise ConfigError(f"{shown}: baseline: expected the path of a baseline file")
    if source:
        base_dir = _path(source).parent
        op_defs = [str(base_dir / item) if not os.path.isabs(item) else item for item in op_defs]
        if baseline and not os.path.isabs(baseline):
            baseline = str(base_dir / baseline)
    inline = _inline_suppressions(raw.get("inline-suppressions"), f"{shown}: inline-suppressions")
    uncalled = Severity.WARNING
    if "uncalled-functions" in raw:
        uncalled = _parse_level(raw["uncalled-functions"], f"{shown}: uncalled-functions")
    target_tf = target_tf_setting(raw.get("target-tf"), f"{shown}: target-tf")
    root = str(_path(source).parent.resolve()) if source and os.path.isfile(source) else os.getcwd()
    interfaces = _interfaces(raw.get("interface"), root, f"{shown}: interface")
    exclude = None
    if raw.get("exclude") is not None:
        exclude = GlobSet(_globs(raw["exclude"], f"{shown}: exclude"), root)
    extend_exclude: tuple[GlobSet, ...] = ()
    if raw.get("extend-exclude") is not None:
        extend_exclude = (GlobSet(_globs(raw["extend-exclude"], f"{shown}: extend-exclude"), root),)

    plugin_names = _plugin_names(raw.get("plugins"), f"{shown}: plugins")
    plugin_op_defs: tuple[tuple[str, Any], ...] = ()
    if plugin_names:
        from tflint.config.plugins import load_plugins

        loaded = load_plugins(plugin_names, f"{shown}: plugins", reserved=rules, untrusted=_repository_of(source))
        rules = {**rules, **loaded.rules}
        plugin_op_defs = loaded.op_defs

    settings = raw.get("rules", {}) or {}
    if not isinstance(settings, dict):
        raise ConfigError(f"{shown}: rules: expected a mapping of rule id to level or options")
    for rule_id in settings:
        if rule_id not in rules:
            plugin = _plugin_hint(rule_id, plugin_names)
            hint = did_you_mean(str(rule_id), rules, more="" if plugin else LISTS_RULES)
            raise ConfigError(f"{shown}: rules: unknown rule {quote(rule_id)}{hint}{plugin}")
    resolved = {}
    for rule_id, module in rules.items():
        resolved[rule_id] = _rule_config(module, settings.get(rule_id), f"{shown}: rules.{rule_id}")
    per_file_ignores = _per_file_ignores(raw.get("per-file-ignores"), rules, root, f"{shown}: per-file-ignores")
    return Config(
        rules=MappingProxyType(resolved),
        fail_on=fail_on,
        op_defs=tuple(op_defs),
        source=source,
        baseline=baseline,
        inline_suppressions=inline,
        plugins=plugin_names,
        modules=MappingProxyType(dict(rules)),
        plugin_op_defs=plugin_op_defs,
        uncalled_functions=uncalled,
        interfaces=interfaces,
        target_tf=target_tf,
        exclude=exclude,
        extend_exclude=extend_exclude,
        per_file_ignores=per_file_ignores,
    )


def _repository_of(source: str | None) -> tuple[str, ...]:
    """The directory of a config file and the repository holding it: never a source of plugin code."""
    if not source:
        return ()
    directory = _path(source).resolve().parent
    for candidate in (directory, *directory.parents):
        if (candidate / ".git").exists():
            return (str(directory), str(candidate))
    return (str(directory),)


def target_tf_setting(value: Any, where: str) -> tuple[str, ...]:
    """`target-tf: 2.4`, `target-tf: [1.15, "2.11"]` or `"2.4,2.11"`: the bundled releases meant, oldest first."""
    if value is None or value == []:
        return ()
    items = value if isinstance(value, list) else value.split(",") if isinstance(value, str) else [value]
    if not all(isinstance(item, (str, int, float)) and not isinstance(item, bool) for item in items):
        raise ConfigError(f"{where}: expected a TensorFlow version or a list of them")
    from tflint.errors import UsageError
    from tflint.tf.releases import release_key, resolve

    names = set()
    for item in items:
        if not str(item).strip():
            continue
        try:
            names.add(resolve(str(item)))
        except UsageError as error:
            raise ConfigError(f"{where}: {error}") from None
        if isinstance(item, float) and _known(repr(item) + "0"):
            # YAML reads `2.10` as the number 2.1: only quotes say which one was meant.
            raise ConfigError(f"{where}: {item!r} is ambiguous in YAML (2.1 or 2.10?); quote the version: '{item!r}'")
    return tuple(sorted(names, key=release_key))


def _known(version: str) -> bool:
    from tflint.tf.releases import known_releases

    return version in known_releases()


def _globs(value: Any, where: str) -> list[str]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ConfigError(f"{where}: expected a list of globs (gitignore syntax)")
    return value


def _per_file_ignores(
    value: Any, rules: Mapping[str, Any], root: str, where: str
) -> tuple[tuple[GlobSet, frozenset[str]], ...]:
    """`per-file-ignores: {GLOB: [rule, ...]}`: the rules switched off for the files a glob matches."""
    if value is None:
        return ()
    if not isinstance(value, dict):
        raise ConfigError(f"{where}: expected a mapping of glob to a list of rule ids")
    entries = []
    for glob, rule_ids in value.items():
        globs = _file_glob(glob, root, where)
        if isinstance(rule_ids, str):
            rule_ids = [rule_ids]
        if not isinstance(rule_ids, list) or not all(isinstance(item, str) for item in rule_ids):
            raise ConfigError(f"{where}.{glob}: expected a list of rule ids")
        for rule_id in rule_ids:
            if rule_id not in rules:
                raise ConfigError(f"{where}.{glob}: unknown rule {rule_id!r}{did_you_mean(rule_id, rules)}")
            if not getattr(rules[rule_id], "SUPPRESSIBLE", True):
                raise ConfigError(f"{where}.{glob}: {rule_id} cannot be switched off")
        entries.append((globs, frozenset(rule_ids)))
    return tuple(entries)


def _file_glob(pattern: Any, root: str, where: str) -> GlobSet:
    """A key of `per-file-ignores` or `interface`: one glob (gitignore syntax) naming the files an entry is for."""
    if not isinstance(pattern, str) or not pattern.strip():
        raise ConfigError(f"{where}: expected globs as keys, got {quote(pattern)}")
    globs = GlobSet([pattern], root)
    if not globs:
        raise ConfigError(
            f"{where}: {quote(pattern)} is a comment in gitignore syntax (write '\\#' for a name starting with '#')"
        )
    if globs.globs[0].negated:
        raise ConfigError(f"{where}: {quote(pattern)} matches no file on its own: '!' only re-includes in a list")
    return globs


def _inline_suppressions(value: Any, where: str) -> InlineSuppressions:
    """`inline-suppressions: false`, or a mapping of `allowed` and `require-reason`."""
    if value is None:
        return InlineSuppressions()
    if isinstance(value, bool):
        return InlineSuppressions(allowed=value)
    if not isinstance(value, dict):
        raise ConfigError(f"{where}: expected true, false or a mapping with allowed / require-reason")
    settings = {}
    for key, setting in value.items():
        if key not in INLINE_SUPPRESSION_KEYS:
            raise ConfigError(f"{where}: unknown key {quote(key)}{did_you_mean(str(key), INLINE_SUPPRESSION_KEYS)}")
        if not isinstance(setting, bool):
            raise ConfigError(f"{where}.{key}: expected true or false, got {quote(setting)}")
        settings[key.replace("-", "_")] = setting
    return InlineSuppressions(**settings)


def _interfaces(value: Any, root: str, where: str) -> tuple[tuple[GlobSet, Any], ...]:
    """`interface:` -- file glob -> {inputs, outputs}, each a list of names or a mapping of name to {dtype, shape}."""
    if value is None:
        return ()
    if not isinstance(value, dict):
        raise ConfigError(f"{where}: expected a mapping of file glob to its inputs and outputs")
    from tflint.tf.imports import Interface

    found = []
    for pattern, entry in value.items():
        here = f"{where}.{pattern}"
        globs = _file_glob(pattern, root, where)
        if not isinstance(entry, dict):
            raise ConfigError(f"{here}: expected a mapping with inputs and/or outputs")
        for key in entry:
            if key not in ("inputs", "outputs"):
                raise ConfigError(f"{here}: unknown key {key!r}{did_you_mean(str(key), ('inputs', 'outputs'))}")
        found.append(
            (
                globs,
                Interface(
                    inputs=_interface_tensors(entry.get("inputs"), f"{here}.inputs"),
                    outputs=_interface_tensors(entry.get("outputs"), f"{here}.outputs"),
                ),
            )
        )
    return tuple(found)


def _interface_tensors(value: Any, where: str) -> tuple[tuple[str, Any], ...]:
    from tflint.tf.imports import TensorSpec, tensor_spec

    if value is None:
        return ()
    if isinstance(value, list):
        value = {name: None for name in value}
    if not isinstance(value, dict):
        raise ConfigError(f"{where}: expected a list of tensor names, or a mapping of name to {{dtype, shape}}")
    tensors = []
    for name, spec in value.items():
        if not isinstance(name, str) or not name:
            raise ConfigError(f"{where}: expected tensor names such as 'input:0', got {name!r}")
        if spec is not None and not isinstance(spec, (dict, str)):
            raise ConfigError(f"{where}.{name}: expected a dtype name or a mapping with dtype and/or shape")
        try:
            tensors.append((name, tensor_spec(spec, f"{where}.{name}") if spec is not None else TensorSpec()))
        except ValueError as error:
            raise ConfigError(str(error)) from None
    return tuple(tensors)


def _plugin_names(value: Any, where: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(item, str) and item for item in value):
        raise ConfigError(f"{where}: expected a list of plugin names")
    return tuple(dict.fromkeys(value))


def _plugin_hint(rule_id: Any, plugin_names: tuple[str, ...]) -> str:
    """Point at `plugins:` when a namespaced rule's plugin is not enabled."""
    if isinstance(rule_id, str) and "/" in rule_id and rule_id.split("/", 1)[0] not in plugin_names:
        return f"; enable its plugin with 'plugins: [{rule_id.split('/', 1)[0]}]'"
    return ""


def _parse_level(value: Any, where: str, allow_off: bool = True) -> Severity:
    expected = "off, info, warning or error" if allow_off else "info, warning or error"
    if value is False:  # YAML 1.1 reads a bare `off` as false
        if allow_off:
            return Severity.OFF
        raise ConfigError(f"{where}: expected {expected}")
    if not isinstance(value, str):
        raise ConfigError(f"{where}: expected a level ({expected}), got {quote(value)}")
    try:
        level = Severity.parse(value)
    except ValueError:
        choices = [str(s) for s in Severity if allow_off or s != Severity.OFF]
        raise ConfigError(f"{where}: unknown level {quote(value)}{did_you_mean(value.lower(), choices)}") from None
    if level == Severity.OFF and not allow_off:
        raise ConfigError(f"{where}: expected {expected}")
    return level


def _rule_config(module: Any, setting: Any, where: str) -> RuleConfig:
    defaults: Mapping[str, Any] = getattr(module, "OPTIONS", {})
    severity = module.DEFAULT_SEVERITY
    options = dict(defaults)
    ignore_nodes: tuple[Any, ...] = ()
    level_set = False
    if setting is None:
        pass
    elif isinstance(setting, (str, bool)):
        severity = _parse_level(setting, where)
        level_set = True
    elif isinstance(setting, dict):
        for key, value in setting.items():
            if key == "level":
                severity = _parse_level(value, f"{where}.level")
                level_set = True
            elif key == "ignore-nodes":
                ignore_nodes = _compile_patterns(value, f"{where}.ignore-nodes")
            elif key in defaults:
                options[key] = _check_option(value, defaults[key], f"{where}.{key}")
            else:
                known = list(RULE_KEYS) + list(defaults)
                raise ConfigError(f"{where}: unknown option {quote(key)}{did_you_mean(str(key), known)}")
    else:
        raise ConfigError(f"{where}: expected a level or a mapping, got {quote(setting)}")
    validate = getattr(module, "validate_options", None)
    # A rule's own defaults are valid (tests/config/test_settings.py checks every rule's), and validating
    # them would compile node-name-pattern's regexes (the `regex` import) on every start-up.
    if validate is not None and options != defaults:
        problem = validate(options)
        if problem:
            raise ConfigError(f"{where}: {problem}")
    return RuleConfig(
        severity=severity, options=MappingProxyType(options), ignore_nodes=ignore_nodes, level_set=level_set
    )


def _check_option(value: Any, default: Any, where: str) -> Any:
    """Type-check an option against its default's type (None defaults accept a string)."""
    if default is None:
        if value is not None and not isinstance(value, str):
            raise ConfigError(f"{where}: expected a string, got {quote(value)}")
        return value
    expected = type(default)
    if expected is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if expected is int and isinstance(value, bool) or not isinstance(value, expected):
        raise ConfigError(f"{where}: expected {expected.__name__}, got {quote(value)}")
    if isinstance(value, list):
        element_types = {type(item) for item in default} or {str}
        for item in value:
            if type(item) not in element_types:
                raise ConfigError(
                    f"{where}: expected a list of {', '.join(sorted(t.__name__ for t in element_types))}, got "
                    f"{quote(item)}"
                )
        return tuple(value)
    if isinstance(value, dict):
        return MappingProxyType(dict(value))
    return value


def _compile_patterns(value: Any, where: str) -> tuple[Any, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ConfigError(f"{where}: expected a list of regular expressions")
    return tuple(compile_user_regex(item, where) for item in value)


@record(frozen=True)
class Overrides:
    """Command-line settings laid over every configuration of a run.

    `preset` goes under the configuration (as `validate(serving=True)` does);
    then `select` keeps only the rules it names (plus those that cannot be
    switched off), `extend_select` turns rules on, and `ignore` turns them
    off, in that order. `exclude` replaces each configuration's `exclude`,
    `extend_exclude` adds to it; both are relative to the working directory.
    `rule_options` are (rule, option, value) set last (`--devices`, `--soft-placement`).
    """

    preset: str | None
    select: tuple[str, ...] | None
    extend_select: tuple[str, ...]
    ignore: tuple[str, ...]
    exclude: tuple[str, ...] | None
    extend_exclude: tuple[str, ...]
    rule_options: tuple[tuple[str, str, Any], ...]

    def __init__(
        self,
        preset: str | None = None,
        select: tuple[str, ...] | None = None,
        extend_select: tuple[str, ...] = (),
        ignore: tuple[str, ...] = (),
        exclude: tuple[str, ...] | None = None,
        extend_exclude: tuple[str, ...] = (),
        rule_options: tuple[tuple[str, str, Any], ...] = (),
    ) -> None:
        vars(self).update(
            preset=preset,
            select=select,
            extend_select=extend_select,
            ignore=ignore,
            exclude=exclude,
            extend_exclude=extend_exclude,
            rule_options=rule_options,
        )

    def apply(self, config: Config) -> Config:
        """`config` with these settings laid over it; UsageError names an unknown rule or preset."""
        if self.preset is not None:
            config = with_preset(config, self.preset)
        rules = dict(config.rules)
        if self.select is not None and not self.select:  # as `--select ""`: never a silent pass with no rule run
            raise UsageError("--select: no rule named; every rule would be off (leave it out for the configured rules)")
        for option, names in (("--select", self.select or ()), ("--extend-select", self.extend_select)):
            _check_rule_names(option, names, config.modules)
        _check_rule_names("--ignore", self.ignore, config.modules)
        if self.select is not None:
            chosen = set(self.select)
            for rule_id, module in config.modules.items():
                if rule_id not in chosen and getattr(module, "SUPPRESSIBLE", True):
                    rules[rule_id] = replace(rules[rule_id], severity=Severity.OFF, level_set=True)
        for rule_id in (*(self.select or ()), *self.extend_select):
            rules[rule_id] = _switched_on(rules[rule_id], config.modules[rule_id])
        for rule_id in self.ignore:
            if not getattr(config.modules[rule_id], "SUPPRESSIBLE", True):
                raise UsageError(f"--ignore: {rule_id} cannot be switched off")
            rules[rule_id] = replace(rules[rule_id], severity=Severity.OFF, level_set=True)
        for rule_id, key, value in self.rule_options:
            options = {**rules[rule_id].options, key: value}
            validate = getattr(config.modules[rule_id], "validate_options", None)
            problem = validate(options) if validate is not None else None
            if problem:
                raise UsageError(f"{problem}")
            rules[rule_id] = replace(rules[rule_id], options=MappingProxyType(options))
        changes: dict[str, Any] = {"rules": MappingProxyType(rules)}
        cwd = os.getcwd()
        if self.exclude is not None:
            changes["exclude"] = GlobSet(self.exclude, cwd)
        if self.extend_exclude:
            changes["extend_exclude"] = (*config.extend_exclude, GlobSet(self.extend_exclude, cwd))
        return replace(config, **changes)


def _check_rule_names(option: str, names: Iterable[str], rules: Mapping[str, Any]) -> None:
    for name in names:
        if name not in rules:
            raise UsageError(f"{option}: unknown rule {name!r}{did_you_mean(name, rules)}; 'tflint rules' lists them")


def _switched_on(setting: RuleConfig, module: Any) -> RuleConfig:
    """A selected rule keeps its configured level; one that is off runs at its default level (warning if none).

    A rule off by default for its cost, not its gravity, names the level it runs at: `SELECTED_SEVERITY`.
    """
    if setting.severity > Severity.OFF:
        return setting
    level = module.DEFAULT_SEVERITY if module.DEFAULT_SEVERITY > Severity.OFF else Severity.WARNING
    level = getattr(module, "SELECTED_SEVERITY", level)
    return replace(setting, severity=level)


def with_preset(config: Config, name: str) -> Config:
    """`config` over the preset `name`: every rule `config` leaves at its default takes the preset's setting."""
    presets = preset_names()
    if name not in presets:
        raise UsageError(
            f"--preset: unknown preset {name!r}{did_you_mean(name, presets)} (presets: {', '.join(presets)})"
        )
    preset = config_from_mapping({"extends": name}, source=f"preset {name}")
    defaults = default_config().rules
    rules = dict(config.rules)
    for rule_id, setting in preset.rules.items():
        if rule_id in rules and rules[rule_id] == defaults.get(rule_id):
            rules[rule_id] = setting
    return replace(config, rules=MappingProxyType(rules))


def compile_user_regex(pattern: str, where: str) -> Any:
    """Compile a user-supplied regex with the `regex` package, within a size bound (tflint.runtime.user_regex)."""
    from tflint.runtime import user_regex

    try:
        return user_regex.compile(pattern)
    except ValueError as error:
        raise ConfigError(f"{where}: invalid regular expression {quote(pattern)}: {error}") from None
