"""`--fix` and `--diff`: remove the attrs whose value is their default on every bundled TensorFlow.

What is removed is decided by tflint.tf.strip; this module makes the edit safe for the user's files
(the `tflint-fix` pre-commit hook rewrites them):

- each file is read once (read/guarded.read_unlinked: the file itself, never through a symbolic
  link), and what is analysed, what is edited and what the diff shows are those same bytes;
- only regular files inside the paths given are edited: a symbolic link, a file reached through
  one (a symlinked directory, even one named on the command line, or a link from outside those
  paths), or a read-only file is reported and left alone;
- a text file keeps every byte not removed (a byte-order mark, CRLF line ends, comments, layout);
  a binary one is re-serialized;
- the new content is written next to the file and renamed over it: an unnamed temporary file
  (O_TMPFILE) given a name only just before the rename, else a named one; it is flushed to disk
  (fsync), gets the file's mode, and the rename happens only if the file still holds the bytes
  that were analysed (same inode, same content): a file changed meanwhile is reported, not
  overwritten. Whatever interrupts the write (an error; Ctrl-C, whose handler removes the named
  temporary files registered with runtime.interrupts), the temporary file is removed;
  SIGTERM, SIGHUP and SIGQUIT are held back until the file is replaced (runtime.process.
  termination_deferred); a SIGKILL can leave only a named one (the fallback, or the instant between
  naming and renaming), `.NAME.tflint-fix-PID-XXXXXXXX.tmp`, which the next `--fix` writing into
  that directory removes once process PID is gone;
- a failure to write (a read-only directory, a full disk, a file-size limit) is reported for that
  file (`FixResult.error`), never raised as an internal error.

The diff is built from the removed spans (tflint.read.edit.unified_diff), in time linear in the
file's size, like everything else here.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Sequence
from typing import Any

from tflint.errors import UsageError
from tflint.read.guarded import UnreadableFile, os_error_text, read_unlinked, still_holds
from tflint.read.walk import saved_model_file
from tflint.records import record
from tflint.runtime import interrupts
from tflint.runtime.patterns import lazy
from tflint.runtime.process import termination_deferred

_BOM = b"\xef\xbb\xbf"
_EUID = os.geteuid() if hasattr(os, "geteuid") else -1  # -1 where there are no user ids (Windows)
_TEMPORARY = lazy(r"\..+\.tflint-fix-(?P<pid>[0-9]+)-[0-9a-f]{8}\.tmp\Z")


@record(frozen=True)
class FixResult:
    """What `--fix` did (or, with `--diff`, would do) to one file.

    `removed`: the attrs removed (or, with `--diff`, to remove), as `op.attr` labels; `diff`: a
    unified diff for text, a summary for binary; `written`: whether the file was replaced;
    `problem`: why the file was left alone or only partly fixed (a symbolic link, a read-only file,
    a file changed during the run, attrs the text edit could not locate), else None; `error`: the
    problem is a failure (unreadable file, a write refused by the system), not a choice; `unread`:
    the file does not parse as a graph, so nothing could be judged (the lint reports why).
    """

    path: str
    removed: tuple[str, ...]
    diff: str
    written: bool
    problem: str | None
    error: bool
    unread: bool

    def __init__(
        self,
        path: str,
        removed: tuple[str, ...],
        diff: str = "",
        written: bool = False,
        problem: str | None = None,
        error: bool = False,
        unread: bool = False,
    ) -> None:
        vars(self).update(
            path=path, removed=removed, diff=diff, written=written, problem=problem, error=error, unread=unread
        )


def fix_files(
    files: Sequence[str], roots: Sequence[str], *, write: bool, input_type: str | None = None
) -> list[FixResult]:
    """Fix (or, `write=False`, show the fix of) each of `files`, found under the paths `roots`.

    `files` are what a lint run would read (api.discover): files and SavedModel directories.
    Raises UsageError for stdin (`-`): there is no file to write, nor to diff against.
    """
    if "-" in files:
        raise UsageError(
            "--fix cannot edit stdin (-): name the file"
            if write
            else "--diff cannot show a change to stdin (-): it diffs files; name the file"
        )
    inside = _Roots(roots)
    swept: set[str] = set()  # directories already cleared of killed runs' temporary files
    return [_fix_one(path, inside, write, input_type, swept) for path in files]


def _fix_one(path: str, inside: _Roots, write: bool, input_type: str | None, swept: set[str]) -> FixResult:
    target = path
    if os.path.isdir(path):
        found = saved_model_file(path)
        if found is None or found.endswith(".cpb"):
            return FixResult(path, ())  # nothing tflint can edit (the lint says why)
        target, input_type = found, input_type or "savedmodel"
    if os.path.islink(target):
        return FixResult(target, (), problem="a symbolic link, not followed: fix the file it points to")
    outside = inside.problem(target)
    if outside is not None:
        return FixResult(target, (), problem=outside)
    try:
        data, status = read_unlinked(target)
    except UnreadableFile as error:
        return FixResult(target, (), problem=_without_path(str(error), target), error=True)
    edit = _edit(target, data, input_type)
    if isinstance(edit, _Unread):
        return FixResult(target, (), unread=True)
    if edit is None:
        return FixResult(target, ())
    new, removed, diff, missed = edit
    problem = None
    if missed:
        problem = (
            f"{missed} default-valued attr{'s' * (missed != 1)} not removed: the text edit could not place "
            f"{'them' if missed != 1 else 'it'} (written in a layout tflint does not edit)"
        )
    if new == data:
        return FixResult(target, (), problem=problem)
    if not write:
        return FixResult(target, removed, diff, problem=problem)
    if not status.st_mode & 0o222 or not os.access(target, os.W_OK):
        return FixResult(target, (), problem="a read-only file: not replaced")
    try:
        with termination_deferred():
            _replace(target, new, data, status, swept)
    except _Changed:
        return FixResult(target, (), problem="changed while tflint read it: not written; run --fix again")
    except OSError as error:
        return FixResult(target, (), problem=f"cannot write it: {os_error_text(error)}", error=True)
    return FixResult(target, removed, diff, True, problem)


class _Unread:
    """What _edit returns for a file that does not parse as a graph (None: it parses, nothing to remove)."""


_UNREAD = _Unread()


def _edit(target: str, data: bytes, input_type: str | None) -> tuple[bytes, tuple[str, ...], str, int] | _Unread | None:
    """(new bytes, labels of the attrs removed, diff, how many strippable attrs stay), None: nothing to
    do, or _UNREAD: not read as a graph."""
    from tflint import protos
    from tflint.engine.parallel import core_count
    from tflint.engine.run import build_index
    from tflint.read.load import load_bytes
    from tflint.tf.registry import user_registry
    from tflint.tf.strip import strippable

    # A big text is read by two processes where a lint would read it so (the result is the same).
    artifact = load_bytes(data, target, input_type, workers=core_count(None))
    if artifact.failure is not None:
        return _UNREAD  # not read, so not edited: the lint reports it as invalid-graph (--diff says so)
    if artifact.message_type is None or artifact.unsupported:
        return None  # not a graph, or one tflint cannot read yet: the lint says so, there is nothing to edit
    registry = user_registry()
    # (graph id, function ordinal or None, node, attr key) of each attr that can go.
    found: list[tuple[int, int | None, Any, str]] = []
    for source in artifact.graphs:
        graph = build_index(source, registry, artifact)
        try:
            strip = {(id(node), key) for node, key in strippable(graph)}
            for scope in graph.scopes():
                for node in scope.nodes:
                    found.extend(
                        (source.graph_id, scope.function_ordinal, node, key)
                        for key in node.attr
                        if (id(node), key) in strip
                    )
        finally:
            graph.release()
    if not found:
        return None
    if artifact.form == "text":
        from tflint.read.edit import remove_attr_entries, unified_diff

        text = artifact.text or ""
        positions = [node.attr_position(key) for _, _, node, key in found]
        removal = remove_attr_entries(text, [where or (0, 0) for where in positions])
        removed = tuple(f"{node.op}.{key}" for (_, _, node, key), gone in zip(found, removal.removed) if gone)
        bom = _BOM if data.startswith(_BOM) else b""
        new = bom + removal.text.encode("utf-8")
        return new, removed, unified_diff(text, removal.spans, target), len(found) - len(removed)
    message = getattr(protos, artifact.message_type).FromString(data)
    for graph_id, function_ordinal, node, key in found:
        graph_def = _graph_of(message, artifact.message_type, graph_id)
        if function_ordinal is None:
            del graph_def.node[node.ordinal].attr[key]
        else:  # by its place in the library: two functions may share a name
            del graph_def.library.function[function_ordinal].node_def[node.ordinal].attr[key]
    removed = tuple(f"{node.op}.{key}" for _, _, node, key in found)
    summary = f"{target}: {len(found)} default-valued attrs to remove ({_counted(removed)})\n"
    return message.SerializeToString(), removed, summary, 0


def _graph_of(message: Any, kind: str, graph_id: int) -> Any:
    if kind == "GraphDef":
        return message
    if kind == "MetaGraphDef":
        return message.graph_def
    return message.meta_graphs[graph_id].graph_def


def _counted(labels: tuple[str, ...]) -> str:
    counts: dict[str, int] = {}
    for label in labels:
        counts[label] = counts.get(label, 0) + 1
    return ", ".join(f"{label} \u00d7{count}" if count > 1 else label for label, count in sorted(counts.items()))


def _without_path(message: str, path: str) -> str:
    return message[len(path) + 2 :] if message.startswith(f"{path}: ") else message


class _Roots:
    """The paths asked to be fixed: a file is edited only if it is one of them or under one, reached
    without a symbolic link on the way.

    The components checked are the ones the user named (those below the working directory, or else
    the path's last one: `../models`, `/abs/models`), never the directories above them: a home
    directory or a /tmp that is a symbolic link is not the user's choice, a symlinked `models/`
    named on the command line is.
    """

    def __init__(self, roots: Sequence[str]) -> None:
        here = os.path.abspath(os.curdir)
        self._named: list[tuple[str, str]] = []  # (the root, absolute and normalized; where checking starts)
        for root in roots:
            named = os.path.abspath(root)
            self._named.append((named, here if _under(named, here) else os.path.dirname(named)))
        self._real = [os.path.realpath(root) for root in roots]

    def problem(self, path: str) -> str | None:
        """Why the file at `path` must not be edited (outside the roots, through a symlink), or None."""
        real = os.path.realpath(path)
        if not any(_under(real, root) for root in self._real):
            return "reached through a symbolic link from outside the paths given: not edited"
        named = os.path.abspath(path)
        for root, anchor in self._named:
            # Resolving the anchor, then the components below it as written, gives the file's real
            # path only if none of those components is a symbolic link (nor a `..` after one).
            if _under(named, root) and real == os.path.join(os.path.realpath(anchor), os.path.relpath(named, anchor)):
                return None
        return "reached through a symbolic link to a directory, not followed: fix the files it points to"


def _under(path: str, directory: str) -> bool:
    """Whether the normalized absolute `path` is `directory` or inside it."""
    return path == directory or path.startswith(directory.rstrip(os.sep) + os.sep)


class _Changed(Exception):
    """The file on disk is no longer the one analysed."""


def _replace(path: str, new: bytes, old: bytes, status: os.stat_result, swept: set[str]) -> None:
    """Replace the file at `path`, which held `old` when `status` was taken, by `new`, atomically.

    Raises _Changed (nothing written) if the file no longer holds `old`, OSError if the system
    refuses; the temporary file never outlives the call, unless the process is killed.
    """
    directory = os.path.dirname(os.path.abspath(path))
    if directory not in swept:  # once per directory and run: a folder of many graphs is listed once
        swept.add(directory)
        _sweep(directory)
    descriptor, temporary = _written(directory, path, new, status, unnamed=True)
    try:
        if not still_holds(path, old, status):
            raise _Changed()
        if temporary is None:
            try:
                temporary = _named(descriptor, directory, path)
            except OSError:  # this system cannot name an unnamed file (no /proc, a sandbox): write a named one
                os.close(descriptor)
                descriptor = -1
                descriptor, temporary = _written(directory, path, new, status, unnamed=False)
        named: str = temporary  # type: ignore[assignment]  # _written(unnamed=False) always names it
        os.replace(named, path)
        interrupts.forget_temporary(named)
        temporary = None
        _sync_directory(directory)
    finally:
        if descriptor >= 0:
            os.close(descriptor)
        if temporary is not None:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            interrupts.forget_temporary(temporary)


def _written(directory: str, path: str, new: bytes, status: os.stat_result, *, unnamed: bool) -> tuple[int, str | None]:
    """A temporary file in `directory` holding `new` on disk, with the mode (and owner) of `status`:
    its descriptor, and its name (None: unnamed, O_TMPFILE, when `unnamed` and the system allows)."""
    mode = status.st_mode & 0o7777
    descriptor, name = _temporary(directory, os.path.basename(path), mode, unnamed)
    try:
        if hasattr(os, "fchmod"):  # the umask applied at creation: the file keeps the original's mode
            os.fchmod(descriptor, mode)
        elif name is not None:
            os.chmod(name, mode)
        with os.fdopen(descriptor, "wb", closefd=False) as stream:
            stream.write(new)
        if _EUID == 0 and (status.st_uid, status.st_gid) != (0, os.getegid()):
            with contextlib.suppress(OSError):  # keep the owner when root fixes someone's file
                os.fchown(descriptor, status.st_uid, status.st_gid)
        os.fsync(descriptor)
    except BaseException:
        os.close(descriptor)
        if name is not None:
            with contextlib.suppress(OSError):
                os.unlink(name)
            interrupts.forget_temporary(name)
        raise
    return descriptor, name


def _temporary(directory: str, base: str, mode: int, unnamed: bool) -> tuple[int, str | None]:
    """An open temporary file in `directory`: unnamed (O_TMPFILE) when asked and the system allows, else named."""
    flags: int = os.O_WRONLY | getattr(os, "O_CLOEXEC", 0)
    if unnamed and hasattr(os, "O_TMPFILE") and os.path.isdir("/proc/self/fd"):
        try:
            return os.open(directory, flags | os.O_TMPFILE, mode), None
        except OSError as error:
            if error.errno not in (errno.EOPNOTSUPP, errno.EISDIR, errno.EINVAL, errno.ENOENT):
                raise
    for _ in range(100):
        name = _temporary_name(directory, base)
        try:
            with interrupts.deferred():  # Ctrl-C ends the command at once (tflint.runtime.interrupts): it removes it
                created = os.open(name, flags | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
                interrupts.track_temporary(name)
            return created, name
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no free temporary file name", directory)


def _named(descriptor: int, directory: str, path: str) -> str:
    """Give the unnamed temporary file open as `descriptor` a name in `directory`, just before the rename."""
    for _ in range(100):
        name = _temporary_name(directory, os.path.basename(path))
        try:
            with interrupts.deferred():  # Ctrl-C ends the command at once (tflint.runtime.interrupts): it removes it
                os.link(f"/proc/self/fd/{descriptor}", name, follow_symlinks=True)
                interrupts.track_temporary(name)
        except FileExistsError:
            continue
        return name
    raise FileExistsError(errno.EEXIST, "no free temporary file name", directory)


def _temporary_name(directory: str, base: str) -> str:
    return os.path.join(directory, f".{base}.tflint-fix-{os.getpid()}-{os.urandom(4).hex()}.tmp")


def _sweep(directory: str) -> None:
    """Remove the temporary files a killed `--fix` left in `directory`: ours by name and owner, their process gone."""
    try:
        names = os.listdir(directory)
    except OSError:
        return
    for name in names:
        match = _TEMPORARY.match(name)
        if match is None or _alive(int(match["pid"])):
            continue
        where = os.path.join(directory, name)
        with contextlib.suppress(OSError):
            status = os.lstat(where)
            if stat.S_ISREG(status.st_mode) and status.st_uid == _EUID:
                os.unlink(where)


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (OSError, OverflowError):
        return True  # someone else's process (EPERM), or a number no process has: leave the file
    return True


def _sync_directory(directory: str) -> None:
    """Flush the rename to disk (best effort: some systems cannot open a directory)."""
    with contextlib.suppress(OSError):
        handle = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        try:
            os.fsync(handle)
        finally:
            os.close(handle)
