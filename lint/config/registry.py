"""The op registry a configuration lints with: extra OpLists, the config's op-defs, its plugins' OpDefs,
then the bundled snapshot, and the TensorFlow releases a run also judges graphs against."""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from typing import Any

from tflint.config.plugins import OP_DEFS_GROUP
from tflint.config.settings import Config
from tflint.errors import ConfigError, UsageError
from tflint.read.guarded import MAX_OP_DEFS_BYTES, read_bytes
from tflint.read.load import parse_op_list
from tflint.tf.registry import OpRegistry, user_registry


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
            lists.append((str(item), read_op_list(item)))
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


def read_op_list(path: str | os.PathLike[str]) -> Any:
    """The OpList in the file at `path` (text or binary), read through the guarded open."""
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
        return read_op_list(value)
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
