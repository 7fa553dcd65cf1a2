"""The files of a SavedModel directory that a loader reads besides the graph: `assets/`, `variables/`, warm-up requests.

Read once per artifact, when the directory is loaded (`read_saved_model_files`), and kept in
`Artifact.derived`: rules get the listing, the checkpoint's index (never its data shards, only
their sizes), the checkpoint's object graph and the warm-up requests as data, through the
accessors below. The one read a rule can trigger is `checkpoint_checksums`: every byte of the
data shards, only when `checkpoint-checksum` runs (`--verify-checksums`), cached like the rest.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable
from typing import Any

from tflint.read.tensor_bundle import BundleError, BundleIndex, ChecksumResult, read_bundle_index, read_entry_bytes
from tflint.read.tensor_bundle import verify_entries as _verify_entries
from tflint.read.warmup import WARMUP_FILE, WarmupFile, read_warmup_file
from tflint.records import record
from tflint.wire import WireError, read_varint

# -- the SavedModel directory ---------------------------------------------------------------------


@record(frozen=True)
class DirListing:
    """The files of a SavedModel directory that loaders read besides the graph."""

    root: str
    assets: frozenset[str]  # paths relative to assets/, with '/' separators (anything but a directory)
    variables: frozenset[str]  # file names directly under variables/
    has_variables_dir: bool
    variable_sizes: dict[str, int]  # the size of each regular file under variables/
    asset_sizes: dict[str, int]  # the size of each regular file under assets/
    asset_directories: frozenset[str]  # the directories under assets/ (a loader cannot read them as files)
    links: frozenset[str]  # the paths under assets/ that are symbolic links (a loader reads their targets)

    def __init__(
        self,
        root: str,
        assets: frozenset[str],
        variables: frozenset[str],
        has_variables_dir: bool,
        variable_sizes: dict[str, int] | None = None,
        asset_sizes: dict[str, int] | None = None,
        asset_directories: frozenset[str] = frozenset(),
        links: frozenset[str] = frozenset(),
    ) -> None:
        vars(self).update(
            root=root,
            assets=assets,
            variables=variables,
            has_variables_dir=has_variables_dir,
            variable_sizes=variable_sizes or {},
            asset_sizes=asset_sizes or {},
            asset_directories=asset_directories,
            links=links,
        )

    @property
    def has_checkpoint(self) -> bool:
        """An index file and at least one data shard: what the restore op reads."""
        return "variables.index" in self.variables and any(
            name.startswith("variables.data-") for name in self.variables
        )


def saved_model_listing(artifact: Any) -> DirListing | None:
    """The `assets/` and `variables/` files of the SavedModel directory an Artifact came from (None for a lone
    file), listed once per artifact."""
    files = saved_model_files(artifact)
    return files.listing if files is not None else None


@record(frozen=True, hidden=("object_graph",))
class SavedModelFiles:
    """What a SavedModel directory holds besides its graph, read once: listing, checkpoint index, warm-up requests.

    `checkpoint` is None when there is no `variables/variables.index`; `object_graph` is the
    checkpoint's TrackableObjectGraph (the `_CHECKPOINTABLE_OBJECT_GRAPH` entry of a TF2
    checkpoint), None when absent or unreadable (`object_graph_problem` says why);
    `warmup` is None when there is no warm-up file.
    """

    listing: DirListing
    checkpoint: BundleIndex | None
    object_graph: Any
    object_graph_problem: str | None
    warmup: WarmupFile | None

    def __init__(
        self,
        listing: DirListing,
        checkpoint: BundleIndex | None,
        object_graph: Any,
        object_graph_problem: str | None,
        warmup: WarmupFile | None,
    ) -> None:
        vars(self).update(
            listing=listing,
            checkpoint=checkpoint,
            object_graph=object_graph,
            object_graph_problem=object_graph_problem,
            warmup=warmup,
        )


# The checkpoint's object graph is a few kilobytes to a few megabytes (one entry per object).
MAX_OBJECT_GRAPH_BYTES = 64 << 20
OBJECT_GRAPH_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"
_FILES = "saved_model_files"


def saved_model_files(artifact: Any) -> SavedModelFiles | None:
    """The SavedModel directory's files for an Artifact (None for a lone file); read on load, else now."""
    if artifact is None or not getattr(artifact, "saved_model_dir", None):
        return None
    files: SavedModelFiles | None = artifact.derived.get(_FILES)
    if files is None:
        files = read_saved_model_files(artifact)
    return files


def read_saved_model_files(artifact: Any) -> SavedModelFiles:
    """Read what a SavedModel directory holds besides its graph into `artifact.derived` (once)."""
    cache = artifact.derived
    if _FILES in cache:
        found: SavedModelFiles = cache[_FILES]
        return found
    root = artifact.saved_model_dir
    listing = _listing(root)
    checkpoint = None
    object_graph, problem = None, None
    if "variables.index" in listing.variables:
        checkpoint = read_bundle_index(os.path.join(root, "variables", "variables.index"))
        object_graph, problem = _object_graph(checkpoint)
    warmup = None
    warmup_path = os.path.join(root, *WARMUP_FILE.split("/"))
    if os.path.lexists(warmup_path):
        warmup = read_warmup_file(warmup_path)
    files = SavedModelFiles(listing, checkpoint, object_graph, problem, warmup)
    cache[_FILES] = files
    return files


# Where long reads report how far they are: (what, bytes done, bytes in all); set by the run's progress display.
_READ_PROGRESS: list[Callable[[str, int, int], None]] = []


def report_reads_to(callback: Callable[[str, int, int], None] | None) -> None:
    """Have long reads (checkpoint checksums) call `callback(what, done, total)` as they go (None: stop)."""
    _READ_PROGRESS[:] = [callback] if callback is not None else []


def checkpoint_checksums(artifact: Any) -> list[ChecksumResult] | None:
    """Every checkpoint entry's CRC-32C computed from the data shards (reads every byte; once per artifact)."""
    files = saved_model_files(artifact)
    if files is None or files.checkpoint is None or files.checkpoint.problem is not None:
        return None
    cache = artifact.derived
    if "checkpoint_checksums" not in cache:
        progress = None
        if _READ_PROGRESS:
            report = _READ_PROGRESS[0]

            def progress(done: int, total: int) -> None:
                report("checksums of variables/", done, total)

        cache["checkpoint_checksums"] = list(_verify_entries(files.checkpoint, progress))
    results: list[ChecksumResult] = cache["checkpoint_checksums"]
    return results


def _object_graph(checkpoint: BundleIndex) -> tuple[Any, str | None]:
    if checkpoint.problem is not None or OBJECT_GRAPH_KEY not in checkpoint.entries:
        return None, None
    try:
        data = read_entry_bytes(checkpoint, OBJECT_GRAPH_KEY, MAX_OBJECT_GRAPH_BYTES)
    except (BundleError, OSError) as error:
        return None, str(error)
    # A string scalar: the varint length, its masked CRC (4 bytes), then the bytes.
    from tflint.protos import message_class
    from tflint.wire import read_varint

    try:
        length, start = read_varint(data, 0, len(data))
        payload = data[start + 4 : start + 4 + length]
        if len(payload) != length:
            return None, "the object graph entry is shorter than its length"
        return message_class("tensorflow.TrackableObjectGraph").FromString(payload), None
    except Exception as error:  # WireError, or protobuf's DecodeError whichever implementation raised it
        return None, f"the object graph entry is not a TrackableObjectGraph ({type(error).__name__})"


def _listing(root: str) -> DirListing:
    assets_dir = os.path.join(root, "assets")
    links: set[str] = set()
    assets, asset_sizes, asset_directories = _asset_files(assets_dir, os.path.realpath(root), links)
    variables_dir = os.path.join(root, "variables")
    sizes: dict[str, int] = {}
    variables: set[str] = set()
    try:
        for entry in itertools.islice(os.scandir(variables_dir), MAX_ASSET_ENTRIES):
            try:
                if entry.is_file():
                    variables.add(entry.name)
                    sizes[entry.name] = entry.stat().st_size
            except OSError:
                continue
        has_dir = True
    except OSError:
        has_dir = False
    return DirListing(
        root,
        frozenset(assets),
        frozenset(variables),
        has_dir,
        sizes,
        asset_sizes,
        frozenset(asset_directories),
        frozenset(links),
    )


# The most entries read under assets/: a listing, not a crawl (a real model has a handful).
MAX_ASSET_ENTRIES = 100_000


def _asset_files(assets_dir: str, inside: str, links: set[str]) -> tuple[set[str], dict[str, int], set[str]]:
    """The paths under `assets_dir` (relative, '/'-separated), never walking outside the directory `inside`.

    Returns the paths that are not directories, the sizes of those that are regular files,
    and the directories. The paths that are symbolic links (to a file or a directory) are also added to
    `links`. Each directory is read once (a symlink loop `assets/a -> .` ends), a
    directory symlink that leads outside the SavedModel is listed as a name but not entered
    (`assets/x -> /usr/share` reveals nothing of the machine), and at most MAX_ASSET_ENTRIES
    entries are read.
    """
    assets: set[str] = set()
    sizes: dict[str, int] = {}
    directories: set[str] = set()
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
            relative = os.path.relpath(entry.path, assets_dir).replace(os.sep, "/")
            try:
                is_dir = entry.is_dir()
                if entry.is_symlink():
                    links.add(relative)
            except OSError:
                is_dir = False
            if is_dir:
                directories.add(relative)
                stack.append(entry.path)
                continue
            assets.add(relative)
            try:
                if entry.is_file():
                    sizes[relative] = entry.stat().st_size
            except OSError:
                pass
    return assets, sizes, directories


# The most bytes of `keras_metadata.pb` read (a model's layer configs; large ones are a few MB).
MAX_KERAS_METADATA = 64 << 20


def keras_metadata(artifact: Any) -> bytes | None:
    """The bytes of the SavedModel directory's `keras_metadata.pb` (Keras 2), read once; None without one."""
    if artifact is None or not getattr(artifact, "saved_model_dir", None):
        return None
    cache = artifact.derived
    if "keras_metadata" not in cache:
        path = os.path.join(artifact.saved_model_dir, "keras_metadata.pb")
        data = None
        if os.path.lexists(path):
            from tflint.errors import UsageError
            from tflint.read.guarded import read_bytes

            try:
                data = read_bytes(path, limit=MAX_KERAS_METADATA)
            except UsageError:
                data = None  # unreadable or too big: nothing to judge (the graph is judged as usual)
        cache["keras_metadata"] = data
    found: bytes | None = cache["keras_metadata"]
    return found


def checkpoint_string(artifact: Any, key: str, limit: int) -> bytes | None:
    """The value of a scalar string entry of the SavedModel's checkpoint (at most `limit` bytes), else None.

    A string tensor is stored as each element's varint length, a 4-byte checksum of the lengths,
    then the bytes: a scalar is one length, the checksum and its bytes.
    """
    files = saved_model_files(artifact)
    if files is None or files.checkpoint is None:
        return None
    entry = files.checkpoint.entries.get(key)
    if entry is None or entry.dtype != 7 or entry.shape != () or entry.size > limit + 16:
        return None
    try:
        data = read_entry_bytes(files.checkpoint, key, limit + 16)
        length, position = read_varint(data, 0, len(data))
    except (BundleError, OSError, WireError):
        return None
    start = position + 4
    if length > limit or start + length > len(data):
        return None
    return data[start : start + length]
