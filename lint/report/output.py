"""Writing reports and baselines: whole or not at all."""

from __future__ import annotations

import contextlib
import os

from tflint.runtime import interrupts


def write_atomically(path: str | os.PathLike[str], text: str) -> None:
    """Write `text` to `path` through a temporary file in the same directory and os.replace.

    A reader (a CI upload step, an editor) never sees a half-written file,
    and an interrupted run leaves the previous file intact. A target that is
    not a regular file (a symlink such as /dev/stdout, a FIFO, a device) is
    written in place: replacing it would turn it into a regular file.
    """
    import stat
    import tempfile  # only when writing --output: a plain lint never needs it

    target = os.fspath(path)
    try:
        status = os.lstat(target)
    except FileNotFoundError:
        status = None
    if status is not None and not stat.S_ISREG(status.st_mode):
        # A symlink (`-o /dev/stdout`), a FIFO or a device: written through, never replaced by a file.
        with open(target, "w", encoding="utf-8", newline="\n") as stream:
            stream.write(text)
        return
    directory = os.path.dirname(os.path.abspath(target))
    with interrupts.deferred():  # Ctrl-C ends the command at once: it removes the file, once tracked
        handle, temporary = tempfile.mkstemp(prefix=f".{os.path.basename(target)}.", suffix=".tmp", dir=directory)
        interrupts.track_temporary(temporary)
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as stream:
            stream.write(text)
        if os.path.exists(target):
            os.chmod(temporary, os.stat(target).st_mode & 0o7777)
        else:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(temporary, 0o666 & ~umask)
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    finally:
        interrupts.forget_temporary(temporary)
