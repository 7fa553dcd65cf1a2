"""The one way tflint opens a file it was pointed at: graphs, configs, baselines, op-defs.

Every path can come from an untrusted repository (a symlink in a pull request, a
`baseline:` in its `.tflint.yaml`). `read_bytes` opens it without blocking, checks
what was opened (fstat, so the check and the read see the same file), and reads at
most its cap:

- only regular files: a FIFO (which would block until a writer comes), a device
  (`/dev/zero` never ends) or a socket is refused; stdin is read only when the user
  says `-`;
- symlinks are followed as the system follows them, and a loop (ELOOP) is a clear
  error, not a crash;
- a file larger than the cap for its kind is refused before it is read.

Errors are `UsageError` (exit 2) naming the path and what it was meant to be. Directory
searches (walk.iter_graph_files, saved_model's assets/) use the same rules: regular files
only, each directory once, never outside where they started.
"""

from __future__ import annotations

import errno
import os
import stat
from typing import BinaryIO

from tflint.errors import UsageError

# Caps per kind of file, in bytes (None: no cap, memory follows the input). Configs and
# baselines written by people or by tflint are small; op definitions are a few megabytes
# (TensorFlow's own are 1.5 MB).
MAX_CONFIG_BYTES = 1 << 20
MAX_BASELINE_BYTES = 64 << 20
MAX_OP_DEFS_BYTES = 64 << 20


class UnreadableFile(UsageError):
    """A path tflint was asked to read and could not; `errno` says why when the system did."""

    def __init__(self, message: str, errno: int | None = None) -> None:
        super().__init__(message)
        self.errno = errno


def open_regular(path: str | os.PathLike[str], what: str | None = None) -> BinaryIO:
    """The regular file at `path`, opened for reading in binary (for a reader that maps or streams it).

    The same checks as read_bytes, without a size cap. Raises UnreadableFile (a UsageError).
    """
    shown = os.fspath(path)
    prefix = f"{shown}: cannot read {what}: " if what else f"{shown}: "
    try:
        descriptor = os.open(shown, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except (OSError, ValueError) as error:  # ValueError: a NUL in the path
        raise UnreadableFile(prefix + os_error_text(error), getattr(error, "errno", None)) from None
    try:
        mode = os.fstat(descriptor).st_mode
    except OSError as error:
        os.close(descriptor)
        raise UnreadableFile(prefix + os_error_text(error), error.errno) from None
    if not stat.S_ISREG(mode):
        os.close(descriptor)
        raise UnreadableFile(prefix + f"not a regular file ({_kind(mode)})")
    return os.fdopen(descriptor, "rb")


def read_bytes(
    path: str | os.PathLike[str], what: str | None = None, limit: int | None = None, head: int | None = None
) -> bytes:
    """The content of the regular file at `path`: all of it, or its first `head` bytes.

    `what` names the file in errors ("config": `x: cannot read config: ...`; None: `x: ...`);
    `limit` is the largest size accepted. Raises UnreadableFile (a UsageError).
    """
    shown = os.fspath(path)
    prefix = f"{shown}: cannot read {what}: " if what else f"{shown}: "
    try:
        descriptor = os.open(shown, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except (OSError, ValueError) as error:  # ValueError: a NUL in the path
        raise UnreadableFile(prefix + os_error_text(error), getattr(error, "errno", None)) from None
    try:
        status = os.fstat(descriptor)
        if not stat.S_ISREG(status.st_mode):
            raise UnreadableFile(prefix + f"not a regular file ({_kind(status.st_mode)})")
        if head is None and limit is not None and status.st_size > limit:
            raise UnreadableFile(prefix + f"{status.st_size:,} bytes, more than the {limit:,} accepted")
        wanted = head if head is not None else (limit + 1 if limit is not None else None)
        chunks = []
        total = 0
        while wanted is None or total < wanted:
            size = max(1 << 20, status.st_size - total + 1)
            chunk = os.read(descriptor, size if wanted is None else min(size, wanted - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        if head is None and limit is not None and total > limit:  # a file that grew while being read
            raise UnreadableFile(prefix + f"more than the {limit:,} bytes accepted")
        return b"".join(chunks)
    except OSError as error:
        raise UnreadableFile(prefix + os_error_text(error), error.errno) from None
    finally:
        os.close(descriptor)


def read_unlinked(path: str | os.PathLike[str], what: str | None = None) -> tuple[bytes, os.stat_result]:
    """All of the regular file at `path` itself, never through a symbolic link, and its status (fstat).

    For a file tflint may rewrite (`--fix`): the bytes analysed and the identity (device, inode)
    they came from are those of one open. A symlink is refused (ELOOP from O_NOFOLLOW), as is
    anything but a regular file. Raises UnreadableFile (a UsageError).
    """
    shown = os.fspath(path)
    prefix = f"{shown}: cannot read {what}: " if what else f"{shown}: "
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0)
    try:
        descriptor = os.open(shown, flags)
    except (OSError, ValueError) as error:  # ValueError: a NUL in the path
        number = getattr(error, "errno", None)
        if number == errno.ELOOP and os.path.islink(shown):
            raise UnreadableFile(prefix + "a symbolic link, not followed", number) from None
        raise UnreadableFile(prefix + os_error_text(error), number) from None
    try:
        status = os.fstat(descriptor)
        if not stat.S_ISREG(status.st_mode):
            raise UnreadableFile(prefix + f"not a regular file ({_kind(status.st_mode)})")
        chunks = []
        while chunk := os.read(descriptor, max(1 << 20, status.st_size + 1)):
            chunks.append(chunk)
        return b"".join(chunks), status
    except OSError as error:
        raise UnreadableFile(prefix + os_error_text(error), error.errno) from None
    finally:
        os.close(descriptor)


def still_holds(path: str | os.PathLike[str], content: bytes, status: os.stat_result) -> bool:
    """Whether `path` is still the file `status` describes (the same device and inode, not a symlink) and
    holds exactly `content`: read in pieces, so a big file is compared without a second copy in memory."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0)
    try:
        descriptor = os.open(os.fspath(path), flags)
    except (OSError, ValueError):
        return False
    try:
        now = os.fstat(descriptor)
        if (now.st_dev, now.st_ino) != (status.st_dev, status.st_ino) or now.st_size != len(content):
            return False
        expected = memoryview(content)
        offset = 0
        while chunk := os.read(descriptor, 1 << 20):
            if expected[offset : offset + len(chunk)] != chunk:
                return False
            offset += len(chunk)
        return offset == len(content)
    except OSError:
        return False
    finally:
        os.close(descriptor)


def os_error_text(error: Exception) -> str:
    """Why the system refused a path, in words (a symlink loop, a path too long, its strerror)."""
    if not isinstance(error, OSError):
        return "not a valid path"
    if error.errno == errno.ELOOP:
        return "a loop of symbolic links"
    if error.errno == errno.ENAMETOOLONG:
        return "the path is too long"
    return error.strerror or str(error)


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a named pipe; pipe it to stdin with '-' instead"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a file"
