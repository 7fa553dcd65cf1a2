"""tflint.runtime.fork: a result computed in a forked child, or a clear failure; never a stray process."""

from __future__ import annotations

import marshal
import os
import pickle
import signal
import time

import pytest

from tflint.runtime import fork as forked


def test_the_child_sees_this_process_state_and_its_result_comes_back():
    built_here = {"nodes": list(range(1000))}  # inherited by the child, not sent to it
    child = forked.start(lambda: sum(built_here["nodes"]), marshal)
    assert child.result() == sum(range(1000))


def test_pickle_carries_objects_marshal_cannot():
    error = ValueError("a rule crashed")
    result = forked.start(lambda: [error], pickle).result()
    assert type(result[0]) is ValueError and str(result[0]) == "a rule crashed"


def test_work_that_raises_is_child_failed_with_its_exit_status():
    def work():
        raise KeyError("lost")

    with pytest.raises(forked.ChildFailed, match=r"wait status 256"):
        forked.start(work, marshal).result()


def test_a_child_that_dies_without_a_result_is_child_failed():
    with pytest.raises(forked.ChildFailed, match=r"wait status 9\b"):
        forked.start(lambda: os.kill(os.getpid(), 9), marshal).result()


def test_a_truncated_result_is_child_failed_not_a_crash():
    class HalfWritten:
        @staticmethod
        def dump(value, out):
            out.write(marshal.dumps(value)[:-3])

        loads = staticmethod(marshal.loads)

    with pytest.raises(forked.ChildFailed, match="unreadable result"):
        forked.start(lambda: list(range(100)), HalfWritten).result()


def test_stop_kills_and_reaps_a_child_still_working(monkeypatch):
    statuses = []
    real_waitpid = os.waitpid

    def waitpid(pid, options):
        reaped = real_waitpid(pid, options)
        statuses.append(reaped[1])
        return reaped

    child = forked.start(lambda: time.sleep(60), marshal)
    monkeypatch.setattr(forked.os, "waitpid", waitpid)
    child.stop()
    monkeypatch.setattr(forked.os, "waitpid", real_waitpid)
    # Killed, not waited for (a child that had finished its sleep would have exited with 0): no clock involved.
    assert [(os.WIFSIGNALED(status), os.WTERMSIG(status)) for status in statuses] == [(True, signal.SIGKILL)]
    with pytest.raises(ChildProcessError):  # reaped: no zombie left behind
        os.waitpid(child._pid, os.WNOHANG)


@pytest.mark.parametrize("stream", [False, True])
def test_a_failed_fork_raises_oserror_and_leaks_no_descriptor(monkeypatch, stream):
    def no_fork():
        raise BlockingIOError(11, "Resource temporarily unavailable")

    before = set(os.listdir("/proc/self/fd")) if os.path.isdir("/proc/self/fd") else None
    monkeypatch.setattr(os, "fork", no_fork)
    with pytest.raises(OSError):
        forked.start(lambda: iter([1]) if stream else 1, marshal, stream=stream)
    if before is not None:
        assert set(os.listdir("/proc/self/fd")) == before


def test_a_big_result_comes_back_whole():
    # From _MAPPED_MIN_BYTES on a result is received in its own mapping (see _read_sized).
    value = [bytes([number % 256]) * 1000 for number in range(3000)] + ["name%d" % number for number in range(50_000)]
    assert len(marshal.dumps(value)) >= forked._MAPPED_MIN_BYTES
    for mapped in (False, True):
        assert forked.start(lambda: value, marshal).result(mapped) == value
        assert forked.start(lambda: value, pickle).result(mapped) == value


def test_a_truncated_big_result_is_child_failed_not_a_crash():
    class HalfWritten:
        @staticmethod
        def dump(value, out):
            out.write(marshal.dumps(value)[:-3])

        loads = staticmethod(marshal.loads)

    value = [bytes([number % 256]) * 1000 for number in range(3000)]
    with pytest.raises(forked.ChildFailed, match="unreadable result"):
        forked.start(lambda: value, HalfWritten).result(mapped=True)


def test_a_result_cut_short_on_the_pipe_is_child_failed(monkeypatch):
    import io

    pipe = io.BytesIO((forked._MAPPED_MIN_BYTES * 2).to_bytes(forked._SIZE_BYTES, "little") + b"\0" * 100)
    assert forked._read_sized(pipe, mapped=True) == b""
    assert forked._read_sized(io.BytesIO(b"\1\0")) is None  # not even a whole size


def test_a_streaming_child_sends_each_result_as_it_is_made():
    import select

    def work():
        yield [1]
        time.sleep(60)  # the second is not made yet when the first is read
        yield [2]

    child = forked.start(work, marshal, stream=True)
    assert select.select([child._pipe], [], [], 30)[0]  # the first result arrives while the child still works
    assert child.next_result() == [1]
    child.stop()
    with pytest.raises(ChildProcessError):  # reaped: no zombie left behind
        os.waitpid(child._pid, os.WNOHANG)


def test_a_released_child_is_not_waited_for_and_is_reaped_by_the_next_start(monkeypatch):
    import signal

    real_exit = os._exit

    def slow_exit(status):  # what the child calls once its results are written
        time.sleep(60)
        real_exit(status)

    monkeypatch.setattr(os, "_exit", slow_exit)
    child = forked.start(lambda: iter([[1], [2, 3]]), marshal, stream=True)
    monkeypatch.setattr(os, "_exit", real_exit)  # this process: as before
    assert [child.next_result(), child.next_result()] == [[1], [2, 3]]
    child.release()
    assert os.waitpid(child._pid, os.WNOHANG) == (0, 0)  # still exiting: release() did not wait for it
    assert forked._exiting == [child._pid]
    os.kill(child._pid, signal.SIGKILL)  # end its exit now
    os.waitid(os.P_PID, child._pid, os.WEXITED | os.WNOWAIT)  # until it has exited, leaving it to reap
    assert forked.start(lambda: 1, marshal).result() == 1  # the next child's start reaps it
    assert forked._exiting == []
    with pytest.raises(ChildProcessError):  # reaped: its CPU time counts in this process's children's
        os.waitpid(child._pid, os.WNOHANG)


def test_a_streaming_child_that_fails_midway_is_child_failed_after_its_first_results():
    def work():
        yield "first"
        raise KeyError("lost")

    child = forked.start(work, marshal, stream=True)
    assert child.next_result() == "first"
    with pytest.raises(forked.ChildFailed, match="ended before sending all its results"):
        child.next_result()
    with pytest.raises(ChildProcessError):  # ended and reaped
        os.waitpid(child._pid, os.WNOHANG)


def test_a_truncated_streamed_result_is_child_failed():
    class HalfWritten:
        @staticmethod
        def dumps(value):
            return pickle.dumps(value)[:-3]

        loads = staticmethod(pickle.loads)

    child = forked.start(lambda: iter([list(range(100))]), HalfWritten, stream=True)
    with pytest.raises(forked.ChildFailed, match="unreadable result"):
        child.next_result()


def test_a_result_waits_for_the_childs_exit_by_default(monkeypatch):
    real_exit = os._exit
    monkeypatch.setattr(os, "_exit", lambda status: (time.sleep(0.5), real_exit(status)))
    child = forked.start(lambda: 7, marshal)
    monkeypatch.setattr(os, "_exit", real_exit)
    assert child.result() == 7
    assert forked._exiting == []
    with pytest.raises(ChildProcessError):  # reaped: its CPU time counts in this process's children's
        os.waitpid(child._pid, os.WNOHANG)


@pytest.mark.skipif(not hasattr(os, "memfd_create"), reason="results go through the pipe without memfd_create")
def test_a_streaming_child_makes_all_its_results_without_waiting_for_them_to_be_read():
    big = [bytes([number]) * 4096 for number in range(256)] * 3  # ~3 MB each: far beyond a pipe's capacity
    child = forked.start(lambda: iter([big, big[:5], big]), marshal, stream=True)
    for _ in range(600):  # until it has exited, nothing read yet (a pipe would hold it at its first result)
        if os.waitid(os.P_PID, child._pid, os.WEXITED | os.WNOWAIT | os.WNOHANG) is not None:
            break
        time.sleep(0.05)
    else:
        child.stop()
        pytest.fail("the child waited for its results to be read")
    assert [child.next_result(), child.next_result(), child.next_result()] == [big, big[:5], big]
    child.release()


def test_without_a_file_in_memory_results_stream_through_the_pipe(monkeypatch):
    monkeypatch.setattr(forked, "_spill_file", lambda: None)
    value = [bytes([number % 256]) * 1000 for number in range(3000)]  # received in a mapping of its own
    child = forked.start(lambda: iter([value, [1]]), marshal, stream=True)
    assert child._spill is None
    assert child.next_result(mapped=True) == value
    assert child.next_result() == [1]
    child.release()


def test_a_streaming_childs_descriptors_are_closed_once_released_or_stopped():
    before = set(os.listdir("/proc/self/fd")) if os.path.isdir("/proc/self/fd") else None
    done = forked.start(lambda: iter([[1]]), marshal, stream=True)
    assert done.next_result() == [1]
    done.release()
    stopped = forked.start(lambda: iter([[1], [2]]), marshal, stream=True)
    stopped.stop()
    if before is not None:
        assert set(os.listdir("/proc/self/fd")) == before
