"""Process-lifetime policies, in one place: how the garbage collector, memory and exit are handled.

tflint builds millions of small, acyclic, long-lived objects for a big graph. Three policies make
that cheap, each safe because a lint leaves no reference cycles (tests/test_api.py):

- `collector_paused`: the cyclic collector is off while one graph is linted (reference counting
  still frees everything);
- `retain_last_graph` / `keep_if_retaining`: in a process about to end, the last graph is kept
  and frozen out of the collector's reach instead of being freed object by object;
- `exit_now`: the command ends with `os._exit` once its output is flushed (like mypy), skipping
  the interpreter's teardown of everything it built.

Forking helpers live beside this module (`tflint.runtime.fork`).
"""

from __future__ import annotations

import contextlib
import gc
import os
import sys

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: `tflint --version` needs none
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any, NoReturn

# The last graph linted, kept alive, in a process that exits without freeing anything (see
# retain_last_graph); None: each graph is freed once linted.
_retained: list[Any] | None = None


def retain_last_graph() -> None:
    """Keep the last graph linted alive rather than free it, for a process about to end.

    Freeing a big graph takes a while (a million objects, one by one: 0.1-0.2 s
    for 100k nodes), which is wasted when the process exits right after
    without cleaning up (`tflint.cli.run`). Graphs before the last are still
    freed as the next one is read, so memory holds one graph at a time.
    """
    global _retained
    if _retained is None:
        _retained = []


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector while one graph is linted.

    Loading and indexing a big graph allocates millions of long-lived objects
    that hold no reference cycles; each full collection walks all of them
    again, a third of the run on a 100k-node graph. Reference counting still
    frees everything; what few cycles a lint leaves are collected when the
    collector resumes.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def keep_if_retaining(artifact: Any) -> None:
    """Keep `artifact` (freeing the one kept before) when `retain_last_graph` is in force."""
    if _retained is not None:
        _retained[:] = [artifact]  # frees the one before
        # Kept till exit, so out of the collector's reach: its first collection would
        # otherwise walk every object of the graph (80 ms at 100k nodes). A graph freed
        # later is still freed by reference counting.
        gc.freeze()


def exit_now(code: int) -> NoReturn:
    """Flush stdout and stderr, then end the process at once, without freeing what it built.

    An interpreter's normal exit frees every object, one by one; after a big
    graph that is 0.1-0.2 s the user waits for and gains nothing from.
    """
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # the reader went away, or the stream was closed
            pass
    os._exit(code)


def ignore_interrupts() -> None:
    """Let Ctrl-C (SIGINT, sent to the whole process group) be handled by the parent alone.

    For worker processes: the parent catches the interrupt, ends its workers and exits 130;
    a worker that raised KeyboardInterrupt itself would leave a pool half broken (and a
    traceback from its machinery) instead.
    """
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)


def start_worker(parent: int) -> None:
    """What a `-j` pool's worker does first: ignore Ctrl-C (see ignore_interrupts), end with its parent."""
    import signal

    from tflint.runtime.fork import end_with_parent

    ignore_interrupts()
    # Forked while the parent held signals back (tflint.runtime.interrupts.deferred): taken again, or
    # the pool could not terminate its workers with SIGTERM.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM})
    end_with_parent(parent)


@contextlib.contextmanager
def termination_deferred() -> Iterator[None]:
    """Hold back SIGTERM, SIGHUP and SIGQUIT while the block runs: blocked, not lost, delivered when it ends.

    For a short critical section that must not be cut in the middle, such as replacing a user's file
    through a temporary file (engine/fix): a `kill` or a closed terminal then ends the process just
    after the block, with the file replaced and no temporary file left, instead of in its middle.
    Ctrl-C (SIGINT) is not held: in the command it ends the process at once, which removes the
    temporary files registered with tflint.runtime.interrupts; in a library call it raises
    KeyboardInterrupt, which the block cleans up after. Only this thread's mask changes, and it is
    restored; where signals cannot be blocked, nothing is held.
    """
    import signal

    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    held = {signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT}
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)
