"""The `serving` preset as `tflint.validate` applies it: which inputs are SavedModels, and layering
the preset under a config.

`extends: serving` in a config file turns on the serving-policy rules
(`lint/presets/serving.yaml`). `tflint.validate` applies the same preset to
SavedModels by itself, *underneath* whatever configuration is in force: a
rule the configuration sets (level, options or ignored nodes) keeps that
setting, every other rule takes the preset's.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from tflint.config.settings import Config, with_preset
from tflint.read.load import sniff_path
from tflint.read.sniff import classify
from tflint.read.walk import SAVED_MODEL_FILES

SERVING_PRESET = "serving"


def with_serving_preset(config: Config) -> Config:
    """`config`, with the serving preset's setting for every rule `config` leaves at its default."""
    return with_preset(config, SERVING_PRESET)


def looks_like_saved_model(graph_or_path: Any) -> bool:
    """Whether `validate` is looking at a SavedModel: a SavedModel directory, or a file, message or bytes holding one.

    Files and bytes are recognized from their content as the loader does (tflint.read.sniff).
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
        verdict = sniff_path(os.fspath(path))
        return verdict is not None and verdict.message == "SavedModel"  # None: validate reports the path itself
    if isinstance(graph_or_path, (bytes, bytearray, memoryview)):
        return classify(graph_or_path).message == "SavedModel"
    descriptor = getattr(graph_or_path, "DESCRIPTOR", None)
    return getattr(descriptor, "full_name", None) == "tensorflow.SavedModel"
