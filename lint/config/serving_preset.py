"""The `serving` preset as `tflint.validate` applies it: which inputs are SavedModels, and layering
the preset under a config.

`extends: serving` in a config file turns on the serving-policy rules
(`lint/presets/serving.yaml`). `tflint.validate` applies the same preset to
SavedModels by itself, *underneath* whatever configuration is in force: a
rule the configuration sets (level, options or ignored nodes) keeps that
setting, every other rule takes the preset's.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from types import MappingProxyType
from typing import Any

from tflint.config.settings import Config, config_from_mapping, default_config
from tflint.errors import UsageError
from tflint.read.guarded import read_bytes
from tflint.read.load import SAVED_MODEL_FILES, looks_like_text, sniff_text_message

SERVING_PRESET = "serving"
# Enough of a file to tell a text SavedModel's first field or a binary one's first byte.
_SNIFF_BYTES = 1 << 16


def with_serving_preset(config: Config) -> Config:
    """`config`, with the serving preset's setting for every rule `config` leaves at its default."""
    preset = config_from_mapping({"extends": SERVING_PRESET}, source=f"preset {SERVING_PRESET}")
    defaults = default_config().rules
    rules = dict(config.rules)
    for rule_id, setting in preset.rules.items():
        if rule_id in rules and rules[rule_id] == defaults.get(rule_id):
            rules[rule_id] = setting
    return dataclasses.replace(config, rules=MappingProxyType(rules))


def looks_like_saved_model(graph_or_path: Any) -> bool:
    """Whether `validate` is looking at a SavedModel: a SavedModel directory, or a file, message or bytes holding one.

    Files are recognized from their content as the loader does: the first
    field of a text file, or for a binary file its first byte (TensorFlow
    writes `saved_model_schema_version` first) or a `saved_model*` name.
    """
    if isinstance(graph_or_path, (str, os.PathLike)):
        path = Path(graph_or_path)
        if os.fspath(graph_or_path) == "-":
            return False
        try:
            if path.is_dir():
                return any((path / name).is_file() for name in SAVED_MODEL_FILES)
        except (OSError, ValueError):
            return False  # validate reports the unreadable path itself
        try:
            head = read_bytes(path, head=_SNIFF_BYTES)
        except UsageError:
            return False  # validate reports the unreadable path (a FIFO, a device) itself
        return _bytes_hold_saved_model(head, path.name)
    if isinstance(graph_or_path, (bytes, bytearray, memoryview)):
        return _bytes_hold_saved_model(bytes(graph_or_path[:_SNIFF_BYTES]), "")
    descriptor = getattr(graph_or_path, "DESCRIPTOR", None)
    return getattr(descriptor, "full_name", None) == "tensorflow.SavedModel"


def _bytes_hold_saved_model(head: bytes, name: str) -> bool:
    if looks_like_text(head):
        return sniff_text_message(head.decode("utf-8", "replace").lstrip("\ufeff")) == "SavedModel"
    return head[:1] == b"\x08" or name.startswith("saved_model")
