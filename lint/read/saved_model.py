"""The files of a SavedModel directory that a loader reads besides the graph: `assets/` and `variables/`."""

from __future__ import annotations

import os
from dataclasses import dataclass

from tflint.tf.index import GraphIndex

# -- the SavedModel directory ---------------------------------------------------------------------


@dataclass(frozen=True)
class DirListing:
    """The files of a SavedModel directory that loaders read besides the graph."""

    root: str
    assets: frozenset[str]  # paths relative to assets/, with '/' separators
    variables: frozenset[str]  # file names directly under variables/
    has_variables_dir: bool

    @property
    def has_checkpoint(self) -> bool:
        """An index file and at least one data shard: what the restore op reads."""
        return "variables.index" in self.variables and any(
            name.startswith("variables.data-") for name in self.variables
        )


def saved_model_listing(graph: GraphIndex) -> DirListing | None:
    """The `assets/` and `variables/` files of the SavedModel directory the graph came from (None for a lone file)."""
    artifact = graph.artifact
    if artifact is None or not getattr(artifact, "saved_model_dir", None):
        return None
    cache = artifact.derived
    if "listing" in cache:
        return cache["listing"]
    root = artifact.saved_model_dir
    assets: set[str] = set()
    assets_dir = os.path.join(root, "assets")
    stack = [assets_dir]
    while stack:
        directory = stack.pop()
        try:
            entries = list(os.scandir(directory))
        except OSError:
            continue
        for entry in entries:
            if entry.is_dir():
                stack.append(entry.path)
            else:
                assets.add(os.path.relpath(entry.path, assets_dir).replace(os.sep, "/"))
    variables_dir = os.path.join(root, "variables")
    try:
        variables = {entry.name for entry in os.scandir(variables_dir) if entry.is_file()}
        has_dir = True
    except OSError:
        variables, has_dir = set(), False
    listing = DirListing(root, frozenset(assets), frozenset(variables), has_dir)
    cache["listing"] = listing
    return listing
