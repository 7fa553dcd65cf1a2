"""Plugins: rules and OpDef bundles from installed packages, loaded only when a config enables them.

A plugin is an installed distribution that declares entry points in one or
both groups, under the plugin's name:

    [project.entry-points."tflint.rules"]
    acme = "acme_tflint.rules"          # a rule module, or an object with RULES
    [project.entry-points."tflint.op_defs"]
    acme = "acme_tflint:op_list"        # an OpList, its bytes, a file path, or a callable

`plugins: [acme]` in `.tflint.yaml` enables both. Nothing is imported for a
plugin the config does not name, and entry points are never taken from the
current directory (yamllint's worry: a checked-out pull request must not be
able to run code by shipping a `*.dist-info` next to the graphs). Plugin rule
ids are namespaced by the plugin's name (`acme/no-foo`, as in ESLint), so
they can never shadow a built-in rule.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterable, Iterator, Mapping
from types import MappingProxyType
from typing import Any

from tflint.errors import ConfigError, did_you_mean
from tflint.escape import quote
from tflint.finding import Severity
from tflint.records import record

RULES_GROUP = "tflint.rules"
OP_DEFS_GROUP = "tflint.op_defs"
GROUPS = (RULES_GROUP, OP_DEFS_GROUP)
_RULE_NAME = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*")


@record(frozen=True)
class Plugins:
    """What the enabled plugins contribute: rule modules by id, and (label, OpList source) pairs."""

    rules: Mapping[str, Any]
    op_defs: tuple[tuple[str, Any], ...]

    def __init__(self, rules: Mapping[str, Any], op_defs: tuple[tuple[str, Any], ...]) -> None:
        vars(self).update(rules=rules, op_defs=op_defs)


def load_plugins(
    names: Iterable[str],
    where: str,
    reserved: Mapping[str, Any] = MappingProxyType({}),
    untrusted: Iterable[str] = (),
) -> Plugins:
    """Import the plugins `names` and validate their rules; ConfigError (exit 2) on any problem.

    `reserved` holds the ids already taken (the built-in rules); nothing is found or imported
    from the current directory or the directories `untrusted` (the repository of the config).
    """
    untrusted = tuple(untrusted)
    available = installed_plugins(untrusted)
    rules: dict[str, Any] = {}
    op_defs: list[tuple[str, Any]] = []
    for name in names:
        groups = available.get(name)
        if not groups:
            known = ", ".join(sorted(available)) or "none"
            hint = did_you_mean(name, available, list_choices=False)  # the installed ones are listed anyway
            raise ConfigError(f"{where}: plugin {quote(name)} is not installed{hint} (installed plugins: {known})")
        if RULES_GROUP in groups:
            loaded = _load(groups[RULES_GROUP], name, where, untrusted)
            for module in _rule_modules(loaded, name, where):
                rule_id = _check_rule(module, name, where)
                if rule_id in rules or rule_id in reserved:
                    raise ConfigError(f"{where}: plugin {quote(name)} defines rule {quote(rule_id)} twice")
                rules[rule_id] = module
        if OP_DEFS_GROUP in groups:
            op_defs.append((f"plugin {name}", _load(groups[OP_DEFS_GROUP], name, where, untrusted)))
    return Plugins(MappingProxyType(rules), tuple(op_defs))


def installed_plugins(untrusted: Iterable[str] = ()) -> dict[str, dict[str, Any]]:
    """Plugin name -> {group: entry point}, from installed distributions outside the current directory
    and the directories `untrusted` (the linted repository)."""
    from importlib import metadata

    found: dict[str, dict[str, Any]] = {}
    for distribution in metadata.distributions(path=_trusted_path(untrusted)):
        for entry_point in distribution.entry_points:
            if entry_point.group in GROUPS:
                found.setdefault(entry_point.name, {}).setdefault(entry_point.group, entry_point)
    return found


def _trusted_path(untrusted: Iterable[str] = ()) -> list[str]:
    """sys.path without the current directory, nor the linted repository (`untrusted`) or anything below it.

    `''`, `.` or the absolute current directory (as `python -m` adds), and a `PYTHONPATH=.`
    of a CI job, point into the checkout a pull request controls. The interpreter's own
    directories (under sys.prefix, and any `site-packages`) stay: a virtualenv created
    inside the checkout holds the installed plugins.
    """
    cwd = os.path.realpath(os.getcwd())
    roots = [os.path.realpath(root).rstrip(os.sep) + os.sep for root in untrusted]
    interpreter = {os.path.realpath(prefix).rstrip(os.sep) + os.sep for prefix in (sys.prefix, sys.base_prefix)}

    def trusted(entry: str) -> bool:
        if not entry:
            return False
        real = os.path.realpath(entry)
        if real == cwd:
            return False
        if os.path.basename(real) in ("site-packages", "dist-packages"):
            return True
        if any((real + os.sep).startswith(prefix) for prefix in interpreter):
            return True
        return not any((real + os.sep).startswith(root) for root in roots)

    return [entry for entry in sys.path if trusted(entry)]


def _load(entry_point: Any, name: str, where: str, untrusted: Iterable[str] = ()) -> Any:
    saved = list(sys.path)
    sys.path[:] = _trusted_path(untrusted)  # the plugin's modules too must not come from the checkout
    try:
        return entry_point.load()
    except Exception as error:
        detail = str(error).splitlines()[0] if str(error) else ""
        raise ConfigError(
            f"{where}: cannot load plugin {quote(name)} ({entry_point.group} = {entry_point.value}): "
            f"{type(error).__name__}: {detail}"
        ) from None
    finally:
        sys.path[:] = saved


def _rule_modules(loaded: Any, name: str, where: str) -> Iterator[Any]:
    """A rule module, an object with `RULES`, or an iterable/mapping of rule modules."""
    if callable(getattr(loaded, "check", None)):
        yield loaded
        return
    collection = getattr(loaded, "RULES", loaded)
    if isinstance(collection, Mapping):
        collection = collection.values()
    if isinstance(collection, (str, bytes)) or not isinstance(collection, Iterable):
        raise ConfigError(
            f"{where}: plugin {quote(name)}: its {RULES_GROUP} entry point is neither a rule module nor a collection "
            "of them (RULES)"
        )
    yield from collection


def _check_rule(module: Any, plugin: str, where: str) -> str:
    """The rule's id, after checking it follows the rule contract of built-in rules."""
    rule_id = getattr(module, "ID", None)
    shown = rule_id if isinstance(rule_id, str) else getattr(module, "__name__", repr(module))
    prefix = f"{where}: plugin {quote(plugin)}: rule {quote(shown)}"
    if not isinstance(rule_id, str):
        raise ConfigError(f"{prefix} has no ID")
    namespace, _, local = rule_id.partition("/")
    if namespace != plugin or not _RULE_NAME.fullmatch(local):
        raise ConfigError(f"{prefix}: plugin rule ids are '{plugin}/kebab-case-name'")
    if not isinstance(getattr(module, "DEFAULT_SEVERITY", None), Severity):
        raise ConfigError(f"{prefix}: DEFAULT_SEVERITY must be a tflint.Severity")
    if not isinstance(getattr(module, "CATEGORY", None), str) or not module.CATEGORY:
        raise ConfigError(f"{prefix}: CATEGORY must be a non-empty string")
    if not callable(getattr(module, "check", None)):
        raise ConfigError(f"{prefix}: check(graph, options) is missing")
    if not isinstance(getattr(module, "OPTIONS", {}), dict):
        raise ConfigError(f"{prefix}: OPTIONS must be a dict")
    return rule_id
