"""Reading a model version for `tflint compat`: only what its interface needs, not the whole graph.

A served model's interface lives in its meta graphs' `meta_info_def` (tags,
`stripped_op_list`, TensorFlow version), `signature_def`, `asset_file_def`
(or the `saved_model_assets` collection) and the GraphDef's `versions`; of
the graph itself only the nodes the signatures name are needed (is an input
a `PlaceholderWithDefault`?). In a big model the graph is nearly all of the
file, so a binary file is walked on the wire: every field of a meta graph is
kept except its `graph_def`, of which only `versions` and the named nodes
are kept, and just that is parsed. Comparing two versions then costs a
fraction of linting one. Text files are read as `tflint` reads them (their
positions are needed for findings), which is still less than linting.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import Any

from tflint.errors import UsageError
from tflint.read.load import Artifact, ParseFailure, load_path
from tflint.read.sniff import looks_like_text
from tflint.read.walk import SAVED_MODEL_FILES
from tflint.records import record
from tflint.wire import LENGTH_DELIMITED as _LENGTH_DELIMITED
from tflint.wire import fields, read_varint, varint

# Field numbers (tensorflow/core/protobuf/saved_model.proto, meta_graph.proto, framework/graph.proto).
_SAVED_MODEL_META_GRAPHS = 2
_META_GRAPH_DEF = 2
_GRAPH_NODE, _GRAPH_VERSIONS = 1, 4
_NAME_KEY = 1 << 3 | _LENGTH_DELIMITED  # NodeDef.name


@record()
class ModelVersion:
    """One version of a model, read for comparison.

    `artifact` is what `tflint.read.load` gives for the file (its graphs
    carry each meta graph and the nodes read; `text` and `failure` as for
    linting). `name` is how messages name the version: `version 3` for a
    numeric version directory, else the path given.
    """

    path: str
    name: str
    artifact: Artifact

    def __init__(self, path: str, name: str, artifact: Artifact) -> None:
        self.path = path
        self.name = name
        self.artifact = artifact


def is_version_number(name: str) -> bool:
    """Whether a directory name is a model version number as TensorFlow Serving reads one: ASCII digits only
    (`²` is a digit to str.isdigit() but not to int(), `٣` is one to int() but not to the server)."""
    return name.isascii() and name.isdigit()


def version_name(path: str) -> str:
    """`version 3` for `models/resnet/3` (or a file in it), else the path as given."""
    target = Path(path)
    if target.name in SAVED_MODEL_FILES:
        target = target.parent
    return f"version {target.name}" if is_version_number(target.name) else path


def saved_model_file(directory: str) -> str | None:
    """The saved_model.pb (or .pbtxt) of a SavedModel directory, or None."""
    for name in SAVED_MODEL_FILES:
        candidate = Path(directory) / name
        if candidate.is_file():
            return str(candidate)
    return None


def latest_versions(base: str) -> tuple[str, str]:
    """The two highest numeric version directories of a model base directory (TF Serving's layout), oldest first.

    Raises UsageError when there are fewer than two, or one of them holds no SavedModel.
    """
    try:
        entries = [entry for entry in os.scandir(base) if is_version_number(entry.name) and entry.is_dir()]
    except OSError as error:
        raise UsageError(f"{base}: {error.strerror or error}") from None
    if saved_model_file(base) is not None and not entries:
        raise UsageError(f"{base}: a SavedModel, not a model base directory: give the other version too (OLD NEW)")
    if len(entries) < 2:
        found = f"only {entries[0].name}/" if entries else "none"
        raise UsageError(f"{base}: a model base directory needs two numeric version directories to compare ({found})")
    entries.sort(key=lambda entry: int(entry.name))
    chosen = (entries[-2].path, entries[-1].path)
    for directory in chosen:
        if saved_model_file(directory) is None:
            raise UsageError(f"{directory}: a version directory without saved_model.pb or saved_model.pbtxt")
    return chosen


def previous_version(directory: str) -> str | None:
    """The highest numeric sibling version directory below `directory`'s number that holds a SavedModel, or None."""
    parent, number = os.path.split(os.path.normpath(directory))
    if not is_version_number(number):
        return None
    try:
        siblings = [
            entry
            for entry in os.scandir(parent or ".")
            if is_version_number(entry.name) and int(entry.name) < int(number) and entry.is_dir()
        ]
    except OSError:
        return None
    for entry in sorted(siblings, key=lambda entry: -int(entry.name)):
        if saved_model_file(entry.path) is not None:
            return entry.path
    return None


def changed_pairs(paths: list[str]) -> list[tuple[str, str]]:
    """(previous version, version) for each numeric version directory holding one of the changed files `paths`.

    What the pre-commit hook compares: a file below `models/resnet/3/` (its
    saved_model.pb, a variable shard, an asset) names version 3, compared
    with the highest version below 3 that holds a SavedModel. Files outside
    any version directory, and first versions, give nothing.
    """
    pairs: dict[str, str] = {}
    for path in paths:
        directory = Path(path).resolve().parent if not Path(path).is_dir() else Path(path).resolve()
        for candidate in (directory, *directory.parents):
            if is_version_number(candidate.name) and saved_model_file(str(candidate)) is not None:
                relative = os.path.relpath(candidate)
                shown = str(candidate) if relative.startswith(os.pardir) else relative
                if shown not in pairs:
                    previous = previous_version(shown)
                    if previous is not None:
                        pairs[shown] = previous
                break
    return [(old, new) for new, old in sorted(pairs.items())]


def read_version(path: str, input_type: str | None = None) -> ModelVersion:
    """Read one version: a SavedModel directory, a saved_model.pb(txt), or a MetaGraphDef file.

    Raises UsageError for a missing path, a directory without a SavedModel,
    and a plain GraphDef (it has no signatures to compare).
    """
    if not os.path.exists(path):
        raise UsageError(f"{path}: no such file or directory")
    if os.path.isdir(path) and saved_model_file(path) is None:
        raise UsageError(f"{path}: a version directory without saved_model.pb or saved_model.pbtxt")
    target = saved_model_file(path) if os.path.isdir(path) else path
    artifact = None
    if input_type is None or input_type.endswith("binary"):
        artifact = _read_binary_interface(str(target), path, input_type)
    if artifact is None:
        artifact = load_path(path, input_type)
    if artifact.failure is None and artifact.message_type == "GraphDef":
        raise UsageError(
            f"{path}: a GraphDef has no signatures to compare; give SavedModels or MetaGraphDefs (OLD NEW)"
        )
    return ModelVersion(path, version_name(path), artifact)


def _read_binary_interface(target: str, path: str, input_type: str | None) -> Artifact | None:
    """The artifact of a binary SavedModel or MetaGraphDef without the graph nodes no signature names.

    None when the file is text, or its bytes do not walk as the expected
    message (the full reader then says what is wrong with it).
    """
    from tflint import protos
    from tflint.read.guarded import open_regular
    from tflint.read.load import _plausible, artifact_from_message
    from tflint.read.mapped import walk_in_child

    try:
        with open_regular(target) as handle:
            if os.fstat(handle.fileno()).st_size == 0:
                return None  # the full reader says it is empty
            # Mapped, not read: the graph's bytes are skipped, never copied (500 MB stay in the page
            # cache). In a forked child: one truncated meanwhile kills the child (SIGBUS), not tflint.
            reduced = walk_in_child(handle, partial(_reduced_bytes, target=target, input_type=input_type))
    except OSError as error:
        raise UsageError(f"{path}: {error.strerror or error}") from None
    if reduced is None:  # text, not the expected message, or a child that failed: the full reader decides
        return None
    kind, data = reduced
    try:
        message = getattr(protos, kind).FromString(data)
    except Exception:  # not this message after all: the full reader reports it
        return None
    if not _plausible(message, kind):
        return None  # bytes of another message (a GraphDef parses as a MetaGraphDef too): the full reader decides
    artifact = artifact_from_message(message, kind, target if os.path.isdir(path) else path)
    artifact.saved_model_dir = path if os.path.isdir(path) else None
    return artifact


def _reduced_bytes(data: Any, target: str, input_type: str | None) -> tuple[str, bytes] | None:
    """The kind of message the mapped `data` holds and its bytes without the nodes no signature names; None for text."""
    from tflint import protos

    if looks_like_text(bytes(data[: 1 << 16])):
        return None
    kind = _binary_kind(data, target, input_type)
    if kind == "SavedModel":
        reduced = b"".join(
            _entry(number, _reduced_meta_graph(value, protos))
            if number == _SAVED_MODEL_META_GRAPHS and wire == _LENGTH_DELIMITED
            else raw
            for number, wire, value, raw in _fields(data)
        )
    else:
        reduced = _reduced_meta_graph(data, protos)
    return kind, reduced


def _binary_kind(data: bytes, target: str, input_type: str | None) -> str:
    if input_type and input_type.startswith("metagraphdef"):
        return "MetaGraphDef"
    if input_type and input_type.startswith("savedmodel"):
        return "SavedModel"
    base = os.path.basename(target)
    if base.startswith("saved_model") or bytes(data[:1]) == b"\x08":
        return "SavedModel"
    return "MetaGraphDef"


def _reduced_meta_graph(data: bytes | memoryview, protos: Any) -> bytes:
    """A serialized MetaGraphDef's bytes with its graph_def cut down to `versions` and the nodes signatures name."""
    from tflint.tf.compat import signature_input_nodes

    kept = []
    graph = None
    for number, wire, value, raw in _fields(data):
        if number == _META_GRAPH_DEF and wire == _LENGTH_DELIMITED:
            graph = value
        else:
            kept.append(raw)
    head = protos.MetaGraphDef.FromString(b"".join(kept))
    if graph is None:
        return b"".join(kept)
    wanted = {name.encode("utf-8") for name in signature_input_nodes(head)}
    parts = []
    for number, wire, value, raw in _fields(graph):
        if number == _GRAPH_VERSIONS:
            parts.append(raw)
        elif number == _GRAPH_NODE and wire == _LENGTH_DELIMITED and wanted and _node_name(value) in wanted:
            parts.append(raw)
    return b"".join(kept) + _entry(_META_GRAPH_DEF, b"".join(parts))


def _node_name(node: memoryview) -> bytes | None:
    """A serialized NodeDef's name, as bytes (TensorFlow writes it first), without reading the rest.

    A node whose first field is not its name is not found (its signature
    entry then resolves to nothing, as for a node that is absent).
    """
    if len(node) < 2 or node[0] != _NAME_KEY:
        return None
    length, start = read_varint(node, 1, len(node))
    return bytes(node[start : start + length])


def _fields(data: bytes | memoryview) -> Iterator[tuple[int, int, memoryview, memoryview]]:
    """(field number, wire type, value, the whole entry) for each top-level field of a serialized message.

    Raises WireError (a ValueError) on bytes that are not wire format.
    """
    view = memoryview(data)
    for number, wire, key_start, value_start, end in fields(view):
        yield number, wire, view[value_start:end], view[key_start:end]


def _entry(number: int, value: bytes | memoryview) -> bytes:
    """A length-delimited field: key, length, value."""
    return varint(number << 3 | _LENGTH_DELIMITED) + varint(len(value)) + bytes(value)


__all__ = ["ModelVersion", "ParseFailure", "latest_versions", "previous_version", "read_version", "version_name"]
