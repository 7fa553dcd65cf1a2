"""`--show-settings FILE`: the configuration in force for one file, as YAML a config could hold."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tflint.config.settings import Config
from tflint.finding import Severity
from tflint.read.walk import DEFAULT_EXCLUDES

if TYPE_CHECKING:
    from tflint.tf.imports import TensorSpec


def settings_text(path: str, config: Config, source: str | None) -> str:
    """The settings for `path`: where they come from, what is excluded, and every rule's level and options."""
    import yaml

    document: dict[str, Any] = {
        "file": path,
        "config": source or "(none: the defaults)",
        "fail-on": str(config.fail_on),
        "exclude": _globs(config.exclude) if config.exclude is not None else list(DEFAULT_EXCLUDES),
        "extend-exclude": [pattern for globs in config.extend_exclude for pattern in _globs(globs)],
        "per-file-ignores": {
            pattern: sorted(rules) for globs, rules in config.per_file_ignores for pattern in _globs(globs)
        },
        "interface": _interface(path, config),
        "uncalled-functions": str(config.uncalled_functions),
        "target-tf": list(config.target_tf),
        "op-defs": list(config.op_defs),
        "baseline": config.baseline,
        "plugins": list(config.plugins),
        "inline-suppressions": {
            "allowed": config.inline_suppressions.allowed,
            "require-reason": config.inline_suppressions.require_reason,
        },
        "rules": {rule_id: _rule(setting) for rule_id, setting in sorted(config.rules.items())},
    }
    return str(yaml.safe_dump(document, sort_keys=False, default_flow_style=False, allow_unicode=True))


def _globs(globs: Any) -> list[str]:
    """Patterns with the directory they are relative to."""
    return [f"{pattern}  (in {globs.base})" for pattern in globs.patterns]


def _interface(path: str, config: Config) -> dict[str, Any]:
    """The `interface:` entry that applies to `path` (the first glob matching it), as the config writes it."""
    from tflint.tf.registry import snapshot_info

    found = config.interface_entry(path)
    if found is None:
        return {}
    globs, interface = found
    data_types = snapshot_info().data_types
    entry: dict[str, Any] = {}
    for key, tensors in (("inputs", interface.inputs), ("outputs", interface.outputs)):
        if tensors:
            entry[key] = {name: _tensor(spec, data_types) for name, spec in tensors}
    return {_globs(globs)[0]: entry}


def _tensor(spec: TensorSpec, data_types: dict[int, str]) -> dict[str, Any]:
    shown: dict[str, Any] = {}
    if spec.dtype is not None:
        shown["dtype"] = data_types.get(spec.dtype, spec.dtype)
    if spec.shape is not None:
        shown["shape"] = [None if size == -1 else size for size in spec.shape]
    return shown


def _rule(setting: Any) -> Any:
    level = "off" if setting.severity == Severity.OFF else str(setting.severity)
    extra: dict[str, Any] = {}
    if setting.options:
        extra.update({key: _plain(value) for key, value in setting.options.items()})
    if setting.ignore_nodes:
        extra["ignore-nodes"] = [pattern.pattern for pattern in setting.ignore_nodes]
    return {"level": level, **extra} if extra else level


def _plain(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_plain(item) for item in value]
    if hasattr(value, "items"):
        return {key: _plain(item) for key, item in value.items()}
    return value
