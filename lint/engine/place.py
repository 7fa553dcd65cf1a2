"""Where a finding is written: the one place that turns what an issue is about into a line and column.

Rules say what an issue points at (`tflint.finding`: a node and maybe one of its attrs, a function,
or a Place: a signature entry, an asset, a SaverDef field, an OpDef, a GraphDef field, the file);
this module finds it in the source, whatever the format: text sources have positions (read once,
by `tflint.read.positions` and `tflint.read.meta_positions`), binary files and messages built in
memory have none, and their findings name the file, the graph and the node instead.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, cast

from tflint.finding import META_KINDS, Issue, Key
from tflint.read.meta_positions import Locator
from tflint.tf.index import GraphIndex
from tflint.tf.serving import meta_graph_ordinal

Position = tuple[int, int]
NOWHERE: tuple[None, None] = (None, None)


def issue_position(issue: Issue, index: GraphIndex) -> tuple[int | None, int | None]:
    """Where a graph rule's issue is written: what it names at, else its node (or attr), else its function."""
    if issue.position is not None:
        return issue.position
    if issue.at is not None:
        found = graph_key_position(index, issue.at)
        if found is not None:
            return found
    node: Any = issue.node
    if node is None:
        if issue.function is not None:
            for scope in index.function_scopes:
                if scope.name == issue.function:
                    where = index.function_position(cast(int, scope.function_ordinal))
                    if where:
                        return where
        return NOWHERE
    if issue.field is not None:
        attr_where: Position | None = node.attr_position(issue.field)
        if attr_where is not None:
            return attr_where
    return node.line, node.column


def graph_key_position(index: GraphIndex, keys: Iterable[Key]) -> Position | None:
    """The position of the first of `keys` written in the graph's source; for keys about its meta graph,
    else the meta graph itself."""
    about_meta = False
    for key in keys:
        kind = key[0]
        if kind in META_KINDS:
            about_meta = True
            found = _meta_key(index, key)
        elif kind == "function":
            found = index.function_position(key[1])
        elif kind == "field":
            found = index.field_position(key[1])
        elif kind == "op_def":
            found = index.op_def_position(key[1])
        elif kind == "file":
            found = (1, 1) if index.positions is not None else None
        else:
            raise ValueError(f"unknown kind of place {kind!r}")
        if found is not None:
            return found
    return _meta_key(index, ("meta",)) if about_meta else None


def file_position(artifact: Any, keys: Iterable[Key]) -> Position | None:
    """The position of a file-level issue's place (only `at_file`: a file that is not a graph has no
    elements): its start, unless the file is binary."""
    for key in keys:
        if key[0] != "file":
            raise ValueError(f"a file that is not linted has no {key[0]!r} to point at")
        if artifact.form != "binary":
            return (1, 1)
    return None


def meta_position(locator: Locator | None, ordinal: int, keys: Iterable[Key]) -> Position | None:
    """The position of the first of `keys` written in meta graph `ordinal` of a text source."""
    if locator is None:
        return None
    for key in keys:
        found = locator.get(ordinal, *key)
        if found is not None:
            return found
    return None


def locator_of(artifact: Any) -> Locator | None:
    """The Locator of a MetaGraphDef or SavedModel text source, built once per artifact (None for others)."""
    if artifact is None or artifact.text is None or artifact.message_type not in ("MetaGraphDef", "SavedModel"):
        return None
    cache = artifact.derived
    if "locator" not in cache:
        cache["locator"] = Locator(artifact.text, artifact.message_type)
    return cast("Locator | None", cache["locator"])


def _meta_key(index: GraphIndex, key: Key) -> Position | None:
    found = locator_of(index.artifact)
    ordinal = meta_graph_ordinal(index)
    if found is None or ordinal is None:
        return None
    return found.get(ordinal, *key)
