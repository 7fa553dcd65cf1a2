"""A result computed in a forked child process and sent back through a pipe.

tflint forks to put a second core to work on one big graph: the child
inherits everything this process has built (the text, the nodes, the index),
so nothing is copied or serialized on the way in; only the child's result
crosses back. No child outlives this process: an interrupt kills the children
it registered (tflint.runtime.interrupts, the only module of the project it
imports), and on Linux the kernel kills them when it dies (end_with_parent).
Callers import it lazily (only big graphs fork).
"""

from __future__ import annotations

import io
import mmap
import os
import signal
import sys
from collections.abc import Callable
from types import ModuleType
from typing import Any

from tflint.runtime import interrupts


class ChildFailed(RuntimeError):
    """The child died, or exited without sending a result."""


class Child:
    """A forked child computing one result: collect it with result(), or stop() the child."""

    def __init__(self, pid: int, pipe: io.BufferedIOBase, codec: ModuleType, spill: int | None = None) -> None:
        self._pid = pid
        self._pipe = pipe
        self._codec = codec
        self._reaped = False
        self._spill = spill  # a streaming child's results file (see start), else None

    def result(self, mapped: bool = False) -> Any:
        """Wait for the child to finish and return what its work returned (ChildFailed if it did not).

        `mapped`: a big result is received in memory mapped for it alone (see _read_sized).
        Interrupted while waiting (Ctrl-C), it ends the child first: none outlives the parent.
        """
        _reap_exited()
        try:
            with self._pipe:
                data = _read_sized(self._pipe, mapped)
            _, status = os.waitpid(self._pid, 0)
            self._reaped = True
            interrupts.forget_child(self._pid)
        except BaseException:
            self.stop()
            raise
        try:
            if status != 0 or data is None:
                raise ChildFailed(f"a forked worker process failed (wait status {status})")
            try:
                return self._codec.loads(data)
            except Exception as error:  # cut short: not a whole result (EOFError, ValueError, pickle's UnpicklingError)
                raise ChildFailed(f"a forked worker process sent an unreadable result ({error})") from None
        finally:
            if isinstance(data, mmap.mmap):
                data.close()

    def next_result(self, mapped: bool = False) -> Any:
        """The next result of a child started with `stream=True`, as soon as it is sent (see result()).

        If the child sent no whole result (it failed, or died), it is ended and ChildFailed raised.
        """
        try:
            data = _read_sized(self._pipe, mapped) if self._spill is None else _read_spilled(self._pipe, self._spill)
        except BaseException:
            self.stop()
            raise
        try:
            if data is None:
                raise ChildFailed("a forked worker process ended before sending all its results")
            try:
                return self._codec.loads(data)
            except Exception as error:  # cut short: not a whole result
                raise ChildFailed(f"a forked worker process sent an unreadable result ({error})") from None
        except ChildFailed:
            self.stop()
            raise
        finally:
            if isinstance(data, mmap.mmap):
                data.close()

    def release(self) -> None:
        """Once a streaming child's last result came: it is exiting, which takes milliseconds (it unmaps
        all it inherited) not worth waiting for; the next start() or result() reaps it."""
        self._pipe.close()
        self._close_spill()
        if not self._reaped:
            self._reaped = True
            _exiting.append(self._pid)

    def stop(self) -> None:
        """End a child whose result is no longer wanted, and reap it (once: calling it again does nothing)."""
        self._pipe.close()
        self._close_spill()
        if self._reaped:
            return
        self._reaped = True
        try:
            os.kill(self._pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        try:
            os.waitpid(self._pid, 0)
        except ChildProcessError:
            pass
        interrupts.forget_child(self._pid)

    def _close_spill(self) -> None:
        if self._spill is not None:
            os.close(self._spill)
            self._spill = None


# Released children (Child.release), reaped once they have exited (_reap_exited), so that their CPU
# time counts in this process's children's, as benchmarks measure it.
_exiting: list[int] = []


def _reap_exited() -> None:
    """Reap the children in _exiting that have exited (never waits)."""
    for pid in list(_exiting):
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:  # reaped already (by a caller waiting for any child)
            done = pid
        if done:
            _exiting.remove(pid)
            interrupts.forget_child(pid)


# A result is sent as its size (this many bytes) and then its encoding.
_SIZE_BYTES = 8
# With `mapped`, results from this size on are received in memory mapped for them alone, not in a
# bytes object from the C allocator (glibc's): freed, such a block raises the size from which the
# allocator maps blocks, which changes how much memory what is built next holds, by a few MB either
# way (less for the binary reader's nodes with a mapping, more for the text reader's without).
_MAPPED_MIN_BYTES = 1 << 20


def _read_sized(pipe: io.BufferedIOBase, mapped: bool = False) -> bytes | mmap.mmap | None:
    """A result as start()'s child writes it: None when not even its size came; shorter when cut short."""
    header = pipe.read(_SIZE_BYTES)
    if len(header) < _SIZE_BYTES:
        return None
    size = int.from_bytes(header, "little")
    if not mapped or size < _MAPPED_MIN_BYTES:
        return pipe.read(size)
    # Private: a shared anonymous mapping (the default) costs twice as much per page faulted in.
    buffer = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    with memoryview(buffer) as view:
        filled = 0
        while filled < size:
            count = pipe.readinto(view[filled:])
            if not count:
                break
            filled += count
    if filled < size:
        buffer.close()
        return b""  # cut short: not a whole result
    return buffer


def _read_spilled(pipe: io.BufferedIOBase, spill: int) -> mmap.mmap | bytes | None:
    """A streamed result: its place in the results file, from the pipe, then the bytes there, mapped.

    None when not even its place came; b"" when the file does not hold it.
    """
    header = pipe.read(2 * _SIZE_BYTES)
    if len(header) < 2 * _SIZE_BYTES:
        return None
    offset = int.from_bytes(header[:_SIZE_BYTES], "little")
    size = int.from_bytes(header[_SIZE_BYTES:], "little")
    try:
        return mmap.mmap(spill, size, offset=offset, access=mmap.ACCESS_READ)
    except (ValueError, OSError):  # beyond the file's end, or empty
        return b""


def _spill_file() -> int | None:
    """A file in memory for a streaming child's results (Linux), or None."""
    try:
        return os.memfd_create("tflint-results", os.MFD_CLOEXEC)
    except (AttributeError, OSError):
        return None


def _write_all(fd: int, data: bytes | memoryview) -> None:
    with memoryview(data) as view:
        written = 0
        while written < len(view):
            written += os.write(fd, view[written:])


def start(work: Callable[[], Any], codec: ModuleType, stream: bool = False) -> Child:
    """Fork a child that runs `work()` and sends back its return value, serialized by `codec`.

    `codec` is `pickle` or `marshal` (anything with `dumps(value)` or
    `dump(value, file)`, and `loads(bytes)`); marshal is faster, for plain data. If `work` raises,
    the child exits with status 1 and result() raises ChildFailed: a caller
    that wants an exception to cross back returns it instead. OSError if the
    fork itself fails. With `stream`, `work()` returns an iterable: each item is sent as soon as it is
    made, and read with Child.next_result(). A streaming child writes its results to a file in memory
    (where one exists) and only their places to the pipe, so it never waits for this process to read
    one before making the next.
    """
    _reap_exited()
    read_fd, write_fd = os.pipe()
    spill = _spill_file() if stream else None
    parent = os.getpid()
    with interrupts.deferred():  # the child is tracked before an interrupt can end this process
        try:
            pid = os.fork()
        except BaseException:
            for fd in (read_fd, write_fd) if spill is None else (read_fd, write_fd, spill):
                os.close(fd)
            raise
        if pid == 0:
            # Ctrl-C reaches the whole process group: the parent alone handles it, and ends its children.
            signal.signal(signal.SIGINT, signal.SIG_IGN)
        else:
            interrupts.track_child(pid)
    if pid == 0:  # the child: never returns
        status = 0
        try:
            end_with_parent(parent)
            os.close(read_fd)
            results = work() if stream else (work(),)
            with os.fdopen(write_fd, "wb") as out:
                for result in results:
                    encoded = _encoded(result, codec)
                    if spill is None:
                        out.write(len(encoded).to_bytes(_SIZE_BYTES, "little"))
                        out.write(encoded)
                    else:
                        offset = os.lseek(spill, 0, os.SEEK_CUR)  # a multiple of the page size (below)
                        _write_all(spill, encoded)
                        os.lseek(spill, -len(encoded) % mmap.ALLOCATIONGRANULARITY, os.SEEK_CUR)  # a hole
                        out.write(offset.to_bytes(_SIZE_BYTES, "little") + len(encoded).to_bytes(_SIZE_BYTES, "little"))
                    out.flush()
        except BaseException:
            status = 1
        finally:
            os._exit(status)  # no atexit handlers, no second flush of the parent's buffers
    os.close(write_fd)
    return Child(pid, os.fdopen(read_fd, "rb"), codec, spill)


def _encoded(result: Any, codec: ModuleType) -> bytes | memoryview:
    if hasattr(codec, "dumps"):
        encoded: bytes | memoryview = codec.dumps(result)
        return encoded
    buffer = io.BytesIO()
    codec.dump(result, buffer)
    return buffer.getbuffer()


def end_with_parent(parent: int) -> None:
    """In a child process forked by `parent`: be killed when the parent ends, however it ends.

    A parent killed by SIGKILL runs no handler, so it cannot end its children (the `-j` pool's
    workers, forked rule and reader children): on Linux the kernel does, asked by
    PR_SET_PDEATHSIG (through ctypes, imported only by processes that fork). A parent that ended
    before the request was made is noticed by the child's new parent id. Elsewhere only the
    interrupt handler ends children (tflint.runtime.interrupts).
    """
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):  # no libc to ask: the interrupt handler still ends children
            pass
    if os.getppid() != parent:
        os._exit(1)


# prctl's option number (linux/prctl.h).
_PR_SET_PDEATHSIG = 1
