"""Reading graph artifacts: bytes or text in, messages and a source map out.

Sniffs text vs binary and GraphDef / MetaGraphDef / SavedModel from the
content (the file name is only a hint), parses, and splits the result into
one `GraphSource` per graph: a GraphDef alone, the graph of a MetaGraphDef,
or every meta graph of a SavedModel. A file that does not parse is not an
exception here: the `Artifact` carries a `ParseFailure` with its position.
"""

from __future__ import annotations

import bisect
import errno
import os
import re
import stat
import sys
import weakref
from collections.abc import Iterator, Mapping, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any, cast

from tflint.errors import UsageError
from tflint.escape import quote
from tflint.read.guarded import read_bytes
from tflint.read.saved_model import read_saved_model_files
from tflint.read.sniff import EMPTY, classify, looks_like_text, text_message
from tflint.read.walk import CHUNKED_SAVED_MODEL, os_errors_as_usage, saved_model_file
from tflint.records import record
from tflint.runtime.patterns import lazy

if TYPE_CHECKING:
    from tflint.read.positions import (
        SourceMap,  # the text readers are imported when a text is read
    )
    from tflint.read.sniff import Verdict

MESSAGE_TYPES = ("GraphDef", "MetaGraphDef", "SavedModel")
INPUT_TYPES = tuple(
    f"{kind}-{form}" for kind in ("graphdef", "metagraphdef", "savedmodel") for form in ("text", "binary")
) + (
    "graphdef",
    "metagraphdef",
    "savedmodel",
    "text",
    "binary",
)


@record(frozen=True)
class ParseFailure:
    """Why a file could not be read as a graph, and where (text only)."""

    message: str
    line: int | None
    column: int | None

    def __init__(self, message: str, line: int | None = None, column: int | None = None) -> None:
        vars(self).update(message=message, line=line, column=column)


@record()
class GraphSource:
    """One GraphDef to lint, with what surrounds it in its file.

    `nodes` holds the graph's nodes when they were read apart from `graph`
    (the fast text reader); otherwise `graph.node` is used. `positions` maps
    back into text sources.
    `graph_id` is the graph's index in its file (keys into `positions`),
    `label` names it for humans (e.g. a meta graph's tags), `op_list` is a
    MetaGraphDef's `stripped_op_list`, `meta_graph` the MetaGraphDef itself.
    `inputs_by_raw` holds the nodes' distinct input strings parsed when the
    reader set every node's inputs (the binary reader), for GraphIndex.
    """

    graph: Any
    nodes: list[Any] | None
    graph_id: int
    label: str | None
    op_list: Any
    meta_graph: Any
    positions: SourceMap | None
    inputs_by_raw: dict[str, Any] | None

    def __init__(
        self,
        graph: Any,
        nodes: list[Any] | None = None,
        graph_id: int = 0,
        label: str | None = None,
        op_list: Any = None,
        meta_graph: Any = None,
        positions: SourceMap | None = None,
        inputs_by_raw: dict[str, Any] | None = None,
    ) -> None:
        self.graph = graph
        self.nodes = nodes
        self.graph_id = graph_id
        self.label = label
        self.op_list = op_list
        self.meta_graph = meta_graph
        self.positions = positions
        self.inputs_by_raw = inputs_by_raw

    def node_list(self) -> Any:
        """The graph's nodes, however they were read (NodeDefs or fast-reader nodes)."""
        return self.nodes if self.nodes is not None else self.graph.node


@record(hidden=("derived",))
class Artifact:
    """A loaded file: its kind, its graphs, or why it could not be read."""

    path: str
    message_type: str | None
    form: str | None  # "text" or "binary"
    graphs: list[GraphSource]
    message: Any
    text: str | None
    failure: ParseFailure | None
    saved_model_dir: str | None
    # What the file holds instead when it is not a TensorFlow graph (a label map, fingerprint.pb, ...): not linted.
    skipped: str | None
    skipped_because: str | None  # what in the content says so
    # Why a file that holds a graph cannot be read yet (a chunked SavedModel): not linted.
    unsupported: str | None
    # Analyses of the whole file computed on first use (a SavedModel's directory listing, text positions).
    # A big binary file's large tensor contents stay in the file while the artifact lives (tflint.read.mapped).
    derived: dict[str, Any]

    def __init__(
        self,
        path: str,
        message_type: str | None = None,
        form: str | None = None,
        graphs: list[GraphSource] | None = None,
        message: Any = None,
        text: str | None = None,
        failure: ParseFailure | None = None,
        saved_model_dir: str | None = None,
        skipped: str | None = None,
        skipped_because: str | None = None,
        unsupported: str | None = None,
        derived: dict[str, Any] | None = None,
    ) -> None:
        self.path = path
        self.message_type = message_type
        self.form = form
        self.graphs = [] if graphs is None else graphs
        self.message = message
        self.text = text
        self.failure = failure
        self.saved_model_dir = saved_model_dir
        self.skipped = skipped
        self.skipped_because = skipped_because
        self.unsupported = unsupported
        self.derived = {} if derived is None else derived

    # What rules need from the disk or the text comes through the artifact they are handed, from read/
    # (a rule imports nothing of read/): computed on first use and kept in `derived`.

    def directory_listing(self) -> Any:
        """The `assets/` and `variables/` files of the SavedModel directory this file is the graph of
        (a `tflint.read.saved_model.DirListing`), or None for a lone file."""
        from tflint.read.saved_model import saved_model_listing

        return saved_model_listing(self)

    def saved_model_files(self) -> Any:
        """What the SavedModel directory holds besides this graph: listing, checkpoint index and object graph,
        warm-up requests (a `tflint.read.saved_model.SavedModelFiles`), or None for a lone file."""
        from tflint.read.saved_model import saved_model_files

        return saved_model_files(self)

    def checkpoint_string(self, key: str, limit: int) -> bytes | None:
        """A scalar string of the SavedModel's checkpoint (`tflint.read.saved_model.checkpoint_string`), or None."""
        from tflint.read.saved_model import checkpoint_string

        return checkpoint_string(self, key, limit)

    def keras_metadata(self) -> bytes | None:
        """The bytes of the SavedModel directory's `keras_metadata.pb` (Keras 2), or None."""
        from tflint.read.saved_model import keras_metadata

        return keras_metadata(self)

    def checkpoint_checksums(self) -> Any:
        """Each checkpoint entry's CRC-32C computed from the data shards (reads every byte, once), or None
        (`tflint.read.tensor_bundle.ChecksumResult`s)."""
        from tflint.read.saved_model import checkpoint_checksums

        return checkpoint_checksums(self)

    def schema_uses(self, root: Any, watched: Mapping[tuple[str, str, str], int], releases: int) -> list[Any]:
        """The uses in this file's text of the schema names of `watched` (`tflint.read.text_schema.schema_uses`)."""
        from tflint.read.text_schema import schema_uses

        return schema_uses(self.text or "", root, watched, releases)


def load_path(path: str, input_type: str | None = None, *, stdin_name: str = "<stdin>", workers: int = 1) -> Artifact:
    """Read and parse the file, SavedModel directory or stdin (`-`) at `path`.

    `workers` > 1 lets a GraphDef text of SPLIT_MIN_CHARS or more be read by two processes
    (tflint.read.text.read_nodes_split); the result is the same as one reader's.
    """
    saved_model_dir = None
    if path == "-":
        data = sys.stdin.buffer.read()
        shown = stdin_name
    else:
        target = path
        with os_errors_as_usage(path):
            if _is_dir(path):
                found = saved_model_file(path)
                if found is None:
                    raise UsageError(
                        f"{path}: a directory that is not a SavedModel (no saved_model.pb or saved_model.pbtxt)"
                    )
                saved_model_dir = path
                target = found
                if os.path.basename(found) == CHUNKED_SAVED_MODEL:
                    return Artifact(path=found, message_type="SavedModel", form="binary", unsupported=CHUNKED_MESSAGE)
                if input_type is None:
                    input_type = "savedmodel"
        mapped = _load_mapped(target, target, input_type, workers=workers)
        if mapped is not None:
            mapped.saved_model_dir = saved_model_dir
            return _with_directory_files(mapped)
        data = read_bytes(target)
        # Findings name the file actually read (dir/saved_model.pbtxt has lines).
        shown = target
    _split_input_type(input_type)  # a bad --input-type is a usage error whatever the file holds
    unread = _unreadable_reason(data, saved_model_dir is not None or _split_input_type(input_type)[0] == "SavedModel")
    if unread is not None:
        artifact = Artifact(path=shown, failure=ParseFailure(unread, 1 if data else None, 1 if data else None))
    else:
        handed = [data]
        del data  # a text file's bytes are freed once decoded (_load_text), not kept while it is read
        artifact = _load_handed(handed, shown, input_type, workers)
    artifact.saved_model_dir = saved_model_dir
    return _with_directory_files(artifact)


def _with_directory_files(artifact: Artifact) -> Artifact:
    """A SavedModel directory's checkpoint index, listing and warm-up requests, read with its graph (once)."""
    if artifact.saved_model_dir is not None and artifact.failure is None:
        read_saved_model_files(artifact)
    return artifact


def _is_dir(path: str) -> bool:
    """Path.is_dir without pathlib (5 ms of start-up): a missing path is not a directory, a refused one raises."""
    try:
        return stat.S_ISDIR(os.stat(path).st_mode)
    except OSError as error:
        if error.errno in (errno.ENOENT, errno.ENOTDIR, errno.EBADF, errno.ELOOP):
            return False
        raise
    except ValueError:  # a NUL in the path
        return False


CHUNKED_SUFFIX = ".cpb"
CHUNKED_MESSAGE = (
    "a chunked SavedModel (saved_model.cpb, TensorFlow 2.13+'s format for models over 2 GB) is not supported yet"
)


LFS_POINTER = "Git LFS pointer"  # the sniffer's name for one
# The first line of a Git LFS pointer: the graph itself was never fetched.
_LFS_POINTER = re.compile(rb"version https://git-lfs\.github\.com/spec/v\d+\r?\n")


def load_bytes(data: bytes, name: str = "<bytes>", input_type: str | None = None, *, workers: int = 1) -> Artifact:
    """Parse `data` (the content of file `name`) into an Artifact (`workers`: see load_path)."""
    return _load_handed([data], name, input_type, workers)


def _load_handed(handed: list[bytes], name: str, input_type: str | None, workers: int) -> Artifact:
    """load_bytes of `handed[0]`, which a text reader takes out of the list once it has decoded it."""
    data = handed[0]
    kind, form = _split_input_type(input_type)
    if form is not None:
        if form == "text":
            del data
            return _load_text(handed, name, kind, workers)
        return _load_binary(data, name, kind, workers=workers)
    hint = kind
    if kind is None:
        # What the file is, from a bounded look at its content (sniff): a graph is parsed, anything else skipped.
        verdict = classify(data, name)
        if _skips(verdict):
            form = verdict.form or ("text" if looks_like_text(data) else "binary")  # magic numbers: binary
            return Artifact(path=name, form=form, skipped=verdict.message, skipped_because=verdict.reason)
        if verdict.kind == "chunked-saved-model" or name.endswith(CHUNKED_SUFFIX):
            # TensorFlow's loaders decide by the name too: saved_model.cpb is read as chunks.
            form = "binary" if verdict.kind == "chunked-saved-model" else None
            return Artifact(path=name, message_type="SavedModel", form=form, unsupported=CHUNKED_MESSAGE)
        hint = verdict.message if verdict.message in MESSAGE_TYPES else None
        sure = verdict.kind == "graph" and verdict.form == "binary"
        if verdict.form == "binary":
            # (no control byte in its first KiB, maybe, but binary all the same)
            return _load_binary(data, name, kind, hint, workers, sure=sure)
    if looks_like_text(data):
        del data
        artifact = _load_text(handed, name, kind or hint, workers)
        if artifact.failure is not None and artifact.text is None:
            # Not UTF-8: binary whose first KiB had no control byte (a long name or constant).
            binary = _load_binary(handed[0], name, kind, hint, workers)
            if binary.failure is None:
                return binary
        return artifact
    return _load_binary(data, name, kind, hint, workers)


def sniff_path(path: str) -> Verdict | None:
    """What the regular file at `path` holds, from a bounded look at its content (None: unreadable, or not a file).

    The file is read by position: the sniffer looks at a few KiB of it, whatever its size. It is
    opened as tflint opens every graph (tflint.read.guarded): a pipe or device is never read.
    """
    from tflint.read.guarded import open_regular
    from tflint.read.mapped import FileSource

    try:
        with open_regular(path) as handle:
            # Read by position, not mapped: a file truncated meanwhile is a short read (FileChanged,
            # a UsageError), where a map would kill the process with SIGBUS.
            return classify(FileSource(handle, path, os.fstat(handle.fileno()).st_size), path)
    except (UsageError, OSError, ValueError):
        return None


def not_a_graph(path: str) -> str | None:
    """What the file at `path` holds when it is not a TensorFlow graph (as a run decides), else None."""
    verdict = sniff_path(path)
    if verdict is None or not _skips(verdict):
        return None
    return f"{verdict.message}; {verdict.reason}"


def _skips(verdict: Verdict) -> bool:
    """Whether a file of this verdict is skipped rather than linted.

    A Git LFS pointer is not: whatever the real file is, it was never fetched, and a run says so.
    """
    return verdict.kind in ("other-protobuf", "not-protobuf") and verdict.message != LFS_POINTER


def holds_saved_model(path: str) -> bool:
    """Whether the file at `path` (a saved_model.pb or .pbtxt) holds a SavedModel (broken or not), from its content."""
    if not os.path.isfile(path):
        return False
    verdict = sniff_path(path)
    if verdict is None or verdict.reason == EMPTY:
        return True  # unreadable or empty: the directory is linted, and says what is wrong with it
    return (
        verdict.kind == "chunked-saved-model" or verdict.kind in ("graph", "unsure") and verdict.message == "SavedModel"
    )


def _unreadable_reason(data: bytes, saved_model: bool = False) -> str | None:
    """Why the file content `data` holds no graph at all (a Git LFS pointer, an empty SavedModel), or None.

    An empty GraphDef or MetaGraphDef file is read: TensorFlow imports it as a graph with no
    nodes (`empty-graph` warns). An empty SavedModel has no meta graph for a loader to find.
    """
    if saved_model and (not data or data.isspace()):
        return "the file is empty: a SavedModel without meta graphs"
    if _LFS_POINTER.match(data):
        return "a Git LFS pointer, not the graph itself (run 'git lfs pull')"
    return None


def _split_input_type(input_type: str | None) -> tuple[str | None, str | None]:
    if not input_type:
        return None, None
    normalized = input_type.lower()
    if normalized not in INPUT_TYPES:
        from tflint.errors import did_you_mean

        hint = did_you_mean(normalized[:200], INPUT_TYPES, more=f"expected one of: {', '.join(INPUT_TYPES)}")
        raise UsageError(f"unknown input type {quote(input_type)}{hint}")
    kinds = {"graphdef": "GraphDef", "metagraphdef": "MetaGraphDef", "savedmodel": "SavedModel"}
    if normalized in ("text", "binary"):
        return None, normalized
    kind, _, form = normalized.partition("-")
    return kinds[kind], form or None


def _load_mapped(
    target: str,
    name: str,
    input_type: str | None,
    map_min: int | None = None,
    strip_min: int | None = None,
    workers: int = 1,
) -> Artifact | None:
    """A big binary file read in place, its large tensor contents left in the file (tflint.read.mapped).

    None when the file is small, text, not a graph, or anything that the
    ordinary reading (of the whole file) could tell otherwise: load_path then
    reads it whole. `map_min` and `strip_min` override mapped.MAP_MIN_BYTES and
    STRIP_MIN_BYTES. The map is touched only in a forked child (mapped.walk_in_child): a file
    truncated meanwhile is read whole, never a death by SIGBUS.
    """
    from tflint.read import mapped
    from tflint.read.guarded import open_regular

    try:
        handle = open_regular(target)
    except (UsageError, OSError, ValueError):  # unreadable: read_bytes says why
        return None
    try:
        size = os.fstat(handle.fileno()).st_size
        if not (map_min if map_min is not None else mapped.MAP_MIN_BYTES) <= size <= mapped.MAP_MAX_BYTES:
            handle.close()
            return None
        walked = mapped.walk_in_child(
            handle, partial(_walk_mapped, name=name, input_type=input_type, strip_min=strip_min)
        )
    except BaseException:
        handle.close()
        raise
    if walked is None:
        handle.close()
        return None
    kind, hint, expected, data, spans = walked
    stripped = mapped.Stripped(data, [tuple(span) for span in spans])
    del walked, data
    artifact = _load_binary(stripped.data, name, kind, hint, workers)
    if artifact.failure is not None or artifact.message_type != expected:
        handle.close()
        return None  # the whole file says why, or what else it is
    keys = mapped.register(artifact.graphs, stripped, mapped.FileSource(handle, name, size))
    if keys is None:
        handle.close()
        return None
    from tflint.tf.tensors import unmap_contents

    weakref.finalize(artifact, unmap_contents, keys)
    return artifact


def _walk_mapped(
    buffer: Any, name: str, input_type: str | None, strip_min: int | None
) -> tuple[str | None, str | None, str, bytes, list[tuple[int, int, int, int, int]]] | None:
    """What _load_mapped learns from the mapped file (in a child): what it is and its stripped bytes, or None.

    None when the file is text, not a graph, or has nothing to strip: it is read whole.
    """
    from tflint.read import mapped
    from tflint.read.sniff import SNIFF_BYTES

    kind, form = _split_input_type(input_type)
    hint = kind
    if form == "text" or _unreadable_reason(buffer[:SNIFF_BYTES]) is not None:
        return None
    if form is None:
        if kind is None:
            verdict = classify(buffer, name)
            mapped.release_pages(buffer)  # what the sniffer read (see mapped._Walk.release)
            if _skips(verdict) or verdict.kind == "chunked-saved-model" or name.endswith(CHUNKED_SUFFIX):
                return None
            hint = verdict.message if verdict.message in MESSAGE_TYPES else None
            binary = verdict.form == "binary"
        else:
            binary = False
        if not binary and looks_like_text(buffer[:SNIFF_BYTES]):
            return None
    else:
        hint = None  # a form given: load_bytes parses as `kind` alone, or tries every kind from GraphDef
    expected = kind or hint or "GraphDef"
    stripped = mapped.strip(buffer, expected, strip_min if strip_min is not None else mapped.STRIP_MIN_BYTES)
    if stripped is None:
        return None
    return kind, hint, expected, stripped.data, stripped.spans


def _load_text(handed: list[bytes], name: str, kind: str | None, workers: int = 1) -> Artifact:
    """The Artifact of the text in `handed[0]`, which is taken out of the list (and freed) once decoded."""
    from tflint import protos
    from tflint.read.positions import excess_nesting, scan_positions
    from tflint.read.text import NotCanonical

    artifact = Artifact(path=name, form="text")
    try:
        text = handed[0].decode("utf-8")
    except UnicodeDecodeError as error:
        data = handed[0]
        line = data.count(b"\n", 0, error.start) + 1
        column = error.start - (data.rfind(b"\n", 0, error.start) + 1) + 1
        artifact.failure = ParseFailure(f"invalid UTF-8 at byte {error.start}", line, column)
        return artifact
    handed.clear()
    if text.startswith("\ufeff"):
        text = text[1:]
    artifact.text = text
    kind = kind or text_message(text)
    artifact.message_type = kind
    try:
        _read_canonical_text(artifact, text, kind, workers)
        return artifact
    except NotCanonical:
        pass  # not TensorFlow's own layout: the general reader handles everything
    nesting = excess_nesting(text)
    if nesting is not None:
        artifact.failure = ParseFailure(*nesting)
        return artifact
    from google.protobuf import text_format  # the general reader: most files never need it

    message = getattr(protos, kind)()
    try:
        text_format.Parse(text, message, descriptor_pool=protos.POOL)
    except text_format.ParseError as error:
        artifact.failure = ParseFailure(_parse_error_text(error, text), error.GetLine(), error.GetColumn())
        return artifact
    except (ValueError, UnicodeError, RecursionError) as error:
        # text_format lets a few conversion errors through without a position.
        artifact.failure = ParseFailure(f"{type(error).__name__}: {error}")
        return artifact
    artifact.message = message
    positions = scan_positions(text, kind)
    artifact.graphs = list(_graph_sources(message, kind, positions))
    return artifact


# Where node blocks sit in each message's canonical text, and the block that holds them.
_NODE_DEPTH = {"GraphDef": 0, "MetaGraphDef": 2, "SavedModel": 4}
# A graph block is its opening line and the lines up to the first closing line: (opening, closing).
_GRAPH_BLOCK = {"MetaGraphDef": ("graph_def {\n", "}\n"), "SavedModel": ("  graph_def {\n", "  }\n")}
_META_GRAPH = "meta_graphs {\n"


def _line_at(text: str, line: str, start: int) -> int:
    """The offset of the first line equal to `line` (with its newline) at or after line start `start`, or -1.

    A search for the text itself, which is much faster in a big file than a MULTILINE regex's `^`.
    """
    if text.startswith(line, start):
        return start
    found = text.find("\n" + line, start)
    return found + 1 if found >= 0 else -1


def _lines_at(text: str, line: str) -> list[int]:
    """The offset of every line equal to `line` (with its newline)."""
    starts = []
    position = 0
    while (start := _line_at(text, line, position)) >= 0:
        starts.append(start)
        position = start + len(line)
    return starts


def _line_blocks(text: str, opening: str, closing: str) -> list[tuple[int, int]]:
    """The (start, end) of each block from a line `opening` to the first line `closing` after it."""
    spans = []
    position = 0
    while (start := _line_at(text, opening, position)) >= 0:
        close = _line_at(text, closing, start + len(opening))
        if close < 0:
            break
        position = close + len(closing)
        spans.append((start, position))
    return spans


def _read_canonical_text(artifact: Artifact, text: str, kind: str, workers: int = 1) -> None:
    """Read `text` with the fast reader, or raise NotCanonical (nothing is half-done)."""
    from tflint import protos
    from tflint.read.positions import excess_nesting, scan_positions
    from tflint.read.text import (
        SPLIT_MIN_CHARS,
        FastReader,
        NotCanonical,
        read_nodes_split,
    )
    from tflint.read.textvalues import read_message

    if "\r" in text:
        # Windows line ends. A CR just before a LF is never inside a string (strings end on their
        # line), so without it the tokens are the same, and so are lines and columns.
        text = text.replace("\r\n", "\n")
    if not text.endswith("\n"):
        text += "\n"
    if kind == "GraphDef" and workers > 1 and len(text) >= SPLIT_MIN_CHARS:
        nodes, offsets, residual, line_map = read_nodes_split(text)
    else:
        nodes, offsets, residual, line_map = FastReader().read_nodes(text, _NODE_DEPTH[kind])
    if not nodes:
        raise NotCanonical("no canonical node blocks")
    message = read_message(residual, getattr(protos, kind))
    if message is None:
        if excess_nesting(residual) is not None:
            raise NotCanonical("deep nesting")  # the general reader reports where
        from google.protobuf import text_format

        message = getattr(protos, kind)()
        try:
            text_format.Parse(residual, message, descriptor_pool=protos.POOL)
        except (text_format.ParseError, ValueError, UnicodeError) as error:
            raise NotCanonical(f"residual does not parse: {error}") from None
    positions = scan_positions(residual, kind).remapped(line_map.original)
    sources = list(_graph_sources(message, kind, positions))
    if any(len(source.graph.node) for source in sources):
        raise NotCanonical("node blocks outside the canonical layout")
    if kind == "GraphDef":
        sources[0].nodes = nodes  # one graph, whose nodes the reader numbered in order
    else:
        for source in sources:
            source.nodes = []
        for node, graph_index in zip(nodes, _graph_assignment(text, kind, offsets)):
            if graph_index >= len(sources):
                raise NotCanonical("node block outside any graph")
            graph_nodes = cast("list[Any]", sources[graph_index].nodes)  # set to [] above
            node.ordinal = len(graph_nodes)
            graph_nodes.append(node)
    artifact.message = message
    artifact.graphs = sources


def _graph_assignment(text: str, kind: str, offsets: Sequence[int]) -> list[int]:
    """The index of the graph each node block (by offset) of a MetaGraphDef or SavedModel belongs to.

    Node blocks found by indentation alone must really sit inside a
    `graph_def { }` block (of the right meta graph, for a SavedModel).
    """
    from tflint.read.text import NotCanonical

    spans = _line_blocks(text, *_GRAPH_BLOCK[kind])
    metas = _lines_at(text, _META_GRAPH) if kind == "SavedModel" else [0]
    owners = []
    span_index = 0
    for offset in offsets:
        while span_index < len(spans) and spans[span_index][1] <= offset:
            span_index += 1
        if span_index == len(spans) or not spans[span_index][0] < offset:
            raise NotCanonical("node block outside graph_def")
        owners.append(bisect.bisect_right(metas, spans[span_index][0]) - 1)
    return owners


# A piece of the file in a parser's message: the echoed line or a token in quotes, what it "got".
_ECHOED = lazy(r"""(?P<schema>"tensorflow\.[\w.]+")|'[^']*'|"[^"]*"|\bgot\b.*|\bnamed\b.*""")


def _without_content(error: Exception) -> str:
    """The parser's message about a file given as `--op-defs` with no piece of the file in it.

    Such a path may name a file that is no OpList at all (`~/.npmrc`, a token in it), and the
    message ends up in CI logs: the position says where to look, the message only what went wrong.
    """
    message = re.sub(r"^\d+:\d+ : ", "", str(error))
    return _ECHOED.sub(lambda match: match.group("schema") or "(...)", message).strip()


def _parse_error_text(error: Exception, text: str | None = None) -> str:
    """The parser's message without what the finding already shows.

    ParseError's text starts with "line:col : " and sometimes echoes the whole
    source line in quotes, which for a one-line file is the whole file.
    """
    message = re.sub(r"^\d+:\d+ : ", "", str(error))
    line = getattr(error, "GetLine", lambda: None)()
    if text is not None and line:
        lines = text.split("\n", line)
        if len(lines) >= line:
            echoed = f"'{lines[line - 1]}': "
            if message.startswith(echoed):
                message = message[len(echoed) :]
    return message


def _load_binary(
    data: bytes, name: str, kind: str | None, hint: str | None = None, workers: int = 1, *, sure: bool = False
) -> Artifact:
    """Parse binary `data` as `kind` (forced), or as the message the sniffer named (`hint`) first, then the others.

    `sure`: the sniffer found the hint's own content (a node with a name and an op), so a parse as
    the hint is its reading, whatever unknown fields protobuf kept beside it (a known field number
    with another wire type among them: protobuf, and TensorFlow, read the graph around it).
    `workers` > 1 lets a big graph's nodes be read by two processes (binary.nodes_of_split).
    """
    from tflint import protos
    from tflint.read import binary

    artifact = Artifact(path=name, form="binary")
    first = hint or "GraphDef"
    candidates = (
        [kind] if kind else [first] + [other for other in ("SavedModel", "MetaGraphDef", "GraphDef") if other != first]
    )
    errors = []
    fallback = None
    for candidate in candidates:
        # A GraphDef is read as tflint.lite.GraphDef: the same checks, attrs decoded once per distinct entry.
        message = binary.LiteGraphDef() if candidate == "GraphDef" else getattr(protos, candidate)()
        try:
            message.ParseFromString(data)
        except Exception as error:  # DecodeError, or RecursionError-like limits inside upb
            errors.append((candidate, error))
            continue
        if (
            _plausible(message, candidate)
            or (kind and _readable_as(message, candidate))
            or (sure and candidate == hint and not kind)
        ):
            return _binary_artifact(artifact, message, candidate, data, workers)
        if fallback is None and _readable_as(message, candidate):
            fallback = (candidate, message)
    if fallback is not None:
        candidate, message = fallback
        return _binary_artifact(artifact, message, candidate, data, workers)
    detail = _decode_error_text(errors[0][1]) if errors else "the bytes hold some other message"
    shown_kind = kind or "GraphDef, MetaGraphDef or SavedModel"
    artifact.failure = ParseFailure(f"not a valid binary {shown_kind}: {detail}")
    return artifact


def _binary_artifact(artifact: Artifact, message: Any, kind: str, data: bytes, workers: int = 1) -> Artifact:
    """Fill `artifact` with a parsed binary message and its graphs (or the failure of an attr value)."""
    from google.protobuf.message import DecodeError

    try:
        graphs = _binary_sources(message, kind, workers)
    except DecodeError:
        # An attr value the lite reading left undecoded is malformed: protobuf's own parse says how.
        from tflint import protos

        try:
            getattr(protos, kind)().ParseFromString(data)
        except Exception as error:
            artifact.failure = ParseFailure(f"not a valid binary {kind}: {_decode_error_text(error)}")
            return artifact
        raise  # cannot happen: the full parse rejects whatever an attr entry's parse rejects
    artifact.message_type = kind
    artifact.message = message
    artifact.graphs = graphs
    return artifact


def _binary_sources(message: Any, kind: str, workers: int = 1) -> list[GraphSource]:
    """The graphs of a parsed binary message, their nodes read by the fast binary reader.

    A GraphDef `message` is already a `tflint.lite.GraphDef`; the graph_def of a
    MetaGraphDef is re-read as one.
    """
    from tflint.read import binary

    sources = list(_graph_sources(message, kind, None))
    for source in sources:
        graph = source.graph
        if not isinstance(graph, binary.LiteGraphDef):
            graph = binary.LiteGraphDef.FromString(graph.SerializeToString())
        source.nodes, source.inputs_by_raw = binary.nodes_and_inputs(graph, workers)
    return sources


def _decode_error_text(error: Exception) -> str:
    """upb's decode error, with its depth limit said in words and without protobuf's type name.

    The type name would be tflint's own (`tflint.lite.GraphDef`): the message says which kinds were tried.
    """
    text = str(error)
    if "MaxDepth" in text:
        return "messages nested deeper than protobuf's limit of 100 levels"
    return re.sub(r"^Error parsing message( with type '[^']*')?: ?", "", text) or "the bytes are not a protobuf message"


def _plausible(message: Any, kind: str) -> bool:
    """Whether a successful parse as `kind` is the right reading of the bytes.

    Wire format is permissive: a GraphDef often parses as a MetaGraphDef too.
    The right reading has no unknown fields near the top and looks populated.
    """
    if _unknown_field_count(message):
        return False
    if kind == "SavedModel":
        return bool(message.meta_graphs) and all(_plausible(meta, "MetaGraphDef") for meta in message.meta_graphs)
    if kind == "MetaGraphDef":
        info = message.meta_info_def
        if not (
            message.HasField("graph_def") or message.signature_def or info.tags or info.HasField("stripped_op_list")
        ):
            return False
        return _unknown_field_count(message.meta_info_def) == 0 and _plausible_graph(message.graph_def)
    return _plausible_graph(message)


def _readable_as(message: Any, kind: str) -> bool:
    """Whether an implausible parse is still worth linting as `kind` (the last resort).

    A graph with unusual content (nodes without ops, fields from a newer
    TensorFlow) is linted, not refused. Bytes of another message are not:
    they give unknown fields whose numbers are known fields of `kind` sent
    with another wire type, or unknown fields beside no graph at all.
    """
    if _wire_type_clash(message):
        return False
    if kind == "GraphDef" and any(_wire_type_clash(node) for node in message.node[:8]):
        return False
    if not _unknown_field_count(message):
        return True
    return bool(
        message.node
        if kind == "GraphDef"
        else message.HasField("graph_def")
        if kind == "MetaGraphDef"
        else message.meta_graphs
    )


def _wire_type_clash(message: Any) -> bool:
    try:
        from google.protobuf import unknown_fields

        numbers = [item.field_number for item in unknown_fields.UnknownFieldSet(message)]
    except ImportError:  # pragma: no cover - very old runtimes
        numbers = [number for number, _ in message.UnknownFields()]
    known = message.DESCRIPTOR.fields_by_number
    return any(number in known for number in numbers)


def _plausible_graph(graph: Any) -> bool:
    if _unknown_field_count(graph):
        return False
    for node in graph.node[:8]:
        if _unknown_field_count(node) or not node.op:
            return False
    return True


def _unknown_field_count(message: Any) -> int:
    try:
        from google.protobuf import unknown_fields

        return len(unknown_fields.UnknownFieldSet(message))
    except ImportError:  # pragma: no cover - very old runtimes
        return len(message.UnknownFields())


def _graph_sources(message: Any, kind: str, positions: SourceMap | None) -> Iterator[GraphSource]:
    if kind == "GraphDef":
        yield GraphSource(graph=message, graph_id=0, positions=positions)
    elif kind == "MetaGraphDef":
        yield _meta_graph_source(message, 0, None, positions)
    else:
        metas = message.meta_graphs
        for index, meta in enumerate(metas):
            yield _meta_graph_source(meta, index, len(metas), positions)


def _meta_graph_source(meta: Any, index: int, count: int | None, positions: SourceMap | None) -> GraphSource:
    tags = list(meta.meta_info_def.tags)
    if tags:
        label = "meta graph [" + ", ".join(tags) + "]"
    elif count is not None:
        label = f"meta graph #{index}"
    else:
        label = None
    op_list = meta.meta_info_def.stripped_op_list if meta.meta_info_def.HasField("stripped_op_list") else None
    return GraphSource(
        graph=meta.graph_def,
        graph_id=index,
        label=label if count is None or count > 1 or tags else None,
        op_list=op_list,
        meta_graph=meta,
        positions=positions,
    )


def parse_op_list(data: bytes, name: str) -> Any:
    """Parse an OpList (text or binary), for `--op-defs` files and plugins.

    Raises UsageError with the position when the file does not parse.
    """
    from google.protobuf import text_format

    from tflint import protos

    op_list = protos.OpList()
    if looks_like_text(data):
        try:
            text_format.Parse(data.decode("utf-8"), op_list, descriptor_pool=protos.POOL)
        except text_format.ParseError as error:
            raise UsageError(
                f"{name}:{error.GetLine()}:{error.GetColumn()}: not an OpList: {_without_content(error)}"
            ) from None
        except UnicodeError as error:
            raise UsageError(f"{name}: not an OpList: not UTF-8 text ({type(error).__name__})") from None
        except ValueError as error:
            raise UsageError(f"{name}: not an OpList: {_without_content(error)}") from None
    else:
        try:
            op_list.ParseFromString(data)
        except Exception as error:
            raise UsageError(f"{name}: not a binary OpList: {error}") from None
    return op_list


def artifact_of(graph: Any, name: str) -> Artifact:
    """The Artifact of an in-memory graph: a GraphDef, MetaGraphDef or SavedModel message (tflint's or
    TensorFlow's), or its serialized bytes (text or binary, told apart as for a file)."""
    if isinstance(graph, (bytes, bytearray, memoryview)):
        return load_bytes(bytes(graph), name)
    message, kind = coerce_message(graph)
    return artifact_from_message(message, kind, name)


def coerce_message(obj: Any) -> tuple[Any, str]:
    """Turn a tflint message, TensorFlow's own message, or bytes into ours.

    Returns (message, message type). TensorFlow's GraphDef objects live in
    another descriptor pool, so they cross over as serialized bytes.
    """
    from tflint import protos

    if isinstance(obj, (bytes, bytearray, memoryview)):
        artifact = load_bytes(bytes(obj), "<bytes>")
        if artifact.failure:
            raise ValueError(f"not a graph: {artifact.failure.message}")
        if artifact.skipped or artifact.unsupported:
            raise ValueError(f"not a graph: {artifact.skipped or artifact.unsupported}")
        return artifact.message, cast(str, artifact.message_type)  # parsed: its type is known
    descriptor = getattr(obj, "DESCRIPTOR", None)
    full_name = getattr(descriptor, "full_name", None)
    kinds = {
        "tensorflow.GraphDef": "GraphDef",
        "tensorflow.MetaGraphDef": "MetaGraphDef",
        "tensorflow.SavedModel": "SavedModel",
    }
    if full_name not in kinds or not hasattr(obj, "SerializeToString"):
        raise TypeError(f"expected a GraphDef, MetaGraphDef or SavedModel message or bytes, got {type(obj).__name__}")
    kind = kinds[full_name]
    ours = getattr(protos, kind)
    if isinstance(obj, ours):
        return obj, kind
    message = ours()
    message.ParseFromString(obj.SerializeToString())
    return message, kind


def artifact_from_message(message: Any, kind: str, name: str) -> Artifact:
    """Wrap an in-memory message as an Artifact (no positions)."""
    artifact = Artifact(path=name, message_type=kind, form="binary", message=message)
    artifact.graphs = _binary_sources(message, kind)
    return artifact
