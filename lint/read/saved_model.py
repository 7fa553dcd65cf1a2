"""The files of a SavedModel directory that a loader reads besides the graph: `assets/` and `variables/`."""

from __future__ import annotations

import itertools
import os
from typing import Any

from tflint.records import record

# -- the SavedModel directory ---------------------------------------------------------------------


@record(frozen=True)
class DirListing:
    """The files of a SavedModel directory that loaders read besides the graph."""

    root: str
    assets: frozenset[str]  # paths relative to assets/, with '/' separators
    variables: frozenset[str]  # file names directly under variables/
    has_variables_dir: bool

    def __init__(self, root: str, assets: frozenset[str], variables: frozenset[str], has_variables_dir: bool) -> None:
        vars(self).update(root=root, assets=assets, variables=variables, has_variables_dir=has_variables_dir)

    @property
    def has_checkpoint(self) -> bool:
        """An index file and at least one data shard: what the restore op reads."""
        return "variables.index" in self.variables and any(
            name.startswith("variables.data-") for name in self.variables
        )


def saved_model_listing(artifact: Any) -> DirListing | None:
    """The `assets/` and `variables/` files of the SavedModel directory an Artifact came from (None for a lone
    file), listed once per artifact."""
    if not getattr(artifact, "saved_model_dir", None):
        return None
    cache = artifact.derived
    if "listing" in cache:
        listing: DirListing | None = cache["listing"]
        return listing
    root = artifact.saved_model_dir
    assets_dir = os.path.join(root, "assets")
    assets = _asset_files(assets_dir, os.path.realpath(root))
    variables_dir = os.path.join(root, "variables")
    try:
        variables = {entry.name for entry in os.scandir(variables_dir) if entry.is_file()}
        has_dir = True
    except OSError:
        variables, has_dir = set(), False
    listing = DirListing(root, frozenset(assets), frozenset(variables), has_dir)
    cache["listing"] = listing
    return listing


# The most entries read under assets/: a listing, not a crawl (a real model has a handful).
MAX_ASSET_ENTRIES = 100_000


def _asset_files(assets_dir: str, inside: str) -> set[str]:
    """The paths under `assets_dir` (relative, '/'-separated), never walking outside the directory `inside`.

    Each directory is read once (a symlink loop `assets/a -> .` ends), a directory symlink that
    leads outside the SavedModel is listed as a name but not entered (`assets/x -> /usr/share`
    reveals nothing of the machine), and at most MAX_ASSET_ENTRIES entries are read.
    """
    assets: set[str] = set()
    seen: set[tuple[int, int]] = set()
    stack = [assets_dir]
    budget = MAX_ASSET_ENTRIES
    while stack and budget > 0:
        directory = stack.pop()
        try:
            status = os.stat(directory)
            if (status.st_dev, status.st_ino) in seen:
                continue
            seen.add((status.st_dev, status.st_ino))
            real = os.path.realpath(directory)
            if real != inside and not real.startswith(inside.rstrip(os.sep) + os.sep):
                continue
            entries = list(itertools.islice(os.scandir(directory), budget))
        except OSError:
            continue
        budget -= len(entries)
        for entry in entries:
            try:
                is_dir = entry.is_dir()
            except OSError:
                is_dir = False
            if is_dir:
                stack.append(entry.path)
            else:
                assets.add(os.path.relpath(entry.path, assets_dir).replace(os.sep, "/"))
    return assets
