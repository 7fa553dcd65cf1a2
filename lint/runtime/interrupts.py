"""Ctrl-C and SIGTERM in the `tflint` command: the process ends at once, its children and temporary files first.

Python turns SIGINT into a KeyboardInterrupt raised in whatever Python frame runs next, and that
frame need not be one that can take it:

- code a C extension calls back. protobuf's upb builds the first message class in C and, while
  doing so, imports `google.protobuf.internal.well_known_types` (and with it calendar, datetime,
  locale): an interrupt raised inside that import is not handled by upb, which then dereferences
  what the import did not return and dies with SIGSEGV (1 run in 30 interrupted 0.12-0.22 s
  after start, exactly where `tflint.protos` first calls `MessageMeta`);
- any import in progress, anywhere, which ends as a KeyboardInterrupt traceback from the
  entry point itself;
- code that catches BaseException to clean up and carries on, which loses the interrupt.

So in the command (never in a library call: `install` is called by the entry points only) an
interrupt is not an exception. The handler installed here kills the child processes registered
with `track_child`, removes the temporary files registered with `track_temporary`, and ends the
process with `os._exit(128 + signal)`: 130 for Ctrl-C, 143 for SIGTERM, wherever the main thread
was, C callback or not. Nothing is flushed: a report cut short is not worth printing. A child
process that inherited the handler (the `-j` pool's workers, forked rule and reader children)
only exits: the cleaning is its parent's. Children are also killed by the kernel when the parent
dies without running any handler (SIGKILL): see `tflint.runtime.process.end_with_parent`.

Before this module can even be imported, `tflint/__init__.py` installs a handler that only exits
130 (there is nothing to clean yet), from the first line of the package on.
"""

from __future__ import annotations

import contextlib
import os
import signal

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (this module is imported at start-up)
if TYPE_CHECKING:
    from collections.abc import Iterator

# The process whose handler cleans up (a forked child inherits the handler, not the duty).
_owner: list[int] = []
_children: set[int] = set()
_temporaries: set[str] = set()


def install() -> None:
    """End this process at once on SIGINT (exit 130) and SIGTERM (exit 143), cleaning up first."""
    _owner[:] = [os.getpid()]
    signal.signal(signal.SIGINT, _end)
    signal.signal(signal.SIGTERM, _end)


def installed() -> bool:
    """Whether this process ends at once on an interrupt (the command), rather than raising KeyboardInterrupt."""
    return _owner == [os.getpid()]


def track_child(pid: int) -> None:
    """Kill child process `pid` if this process is interrupted (until forget_child)."""
    _children.add(pid)


def forget_child(pid: int) -> None:
    """`pid` was reaped (or is ended otherwise): an interrupt no longer kills it."""
    _children.discard(pid)


def track_temporary(path: str) -> None:
    """Remove the file at `path` if this process is interrupted (until forget_temporary)."""
    _temporaries.add(path)


def forget_temporary(path: str) -> None:
    """`path` was renamed into place or removed: an interrupt no longer removes it."""
    _temporaries.discard(path)


@contextlib.contextmanager
def deferred() -> Iterator[None]:
    """Hold SIGINT and SIGTERM back while the block runs (they are acted on when it ends).

    For what must be registered as soon as it exists: between creating a temporary file (forking a
    child) and tracking it, an interrupt would leave it behind.
    """
    held = {signal.SIGINT, signal.SIGTERM}
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def _end(signum: int, frame: object) -> None:
    if _owner == [os.getpid()]:
        # A second signal while cleaning would run this again from the start: nothing to gain.
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        for pid in list(_children):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:  # exited already
                pass
        for path in list(_temporaries):
            try:
                os.unlink(path)
            except OSError:
                pass
    os._exit(128 + signum)
