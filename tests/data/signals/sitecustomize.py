"""A test harness, loaded by Python at start-up when this folder is on PYTHONPATH: signals at named points.

It makes the suite's signal tests deterministic: the signal is sent by the process itself at the
moment a named thing happens, never after a sleep. Set by tests/test_signals.py, through the
environment:

- TFLINT_TEST_SIGNAL_AT_IMPORT=module: SIGINT to this process when `module` starts to be imported
  (once). `*` records every module imported, one name a line, in TFLINT_TEST_IMPORTS instead.
- TFLINT_TEST_SIGNAL_AT_CALL=module:function: when `module.function` is called (in whichever
  process calls it: the main one, a pool worker, a forked child), SIGINT to the whole process group,
  as a terminal's Ctrl-C does; `module:function:after`: once the call has returned.
- TFLINT_TEST_UNAVAILABLE=fork,semaphores: what a machine's limits can take away, taken away as the
  kernel does it: os.fork fails with EAGAIN (RLIMIT_NPROC, which root is exempt from), POSIX
  semaphores with EROFS (a read-only /dev/shm) or ENOENT (`semaphores-missing`: none at all).
- TFLINT_TEST_TRUNCATE_AT_CALL=module:function[:after], TFLINT_TEST_TRUNCATE=path:size: when it is
  called, truncate the file at `path` to `size` bytes in place (what an editor or a download
  rewriting a file does while it is read).
- TFLINT_TEST_NO_TMPFILE=1: the system has no O_TMPFILE (unnamed temporary files).
- TFLINT_TEST_BLOCK_AT_CALL=module:function: when it is called, write the process id to
  TFLINT_TEST_MARKER (a FIFO the test reads) and wait forever: the test then knows that the
  process exists and is busy.
"""

import functools
import os
import signal
import sys

_AT_IMPORT = os.environ.get("TFLINT_TEST_SIGNAL_AT_IMPORT")
_AT_CALL = os.environ.get("TFLINT_TEST_SIGNAL_AT_CALL")
_BLOCK_AT_CALL = os.environ.get("TFLINT_TEST_BLOCK_AT_CALL")


def _interrupt_group():
    os.killpg(os.getpgrp(), signal.SIGINT)


def _truncate():
    path, _, size = os.environ["TFLINT_TEST_TRUNCATE"].rpartition(":")
    os.truncate(path, int(size))


def _block():
    with open(os.environ["TFLINT_TEST_MARKER"], "w") as marker:
        marker.write(f"{os.getpid()}\n")
    while True:
        signal.pause()


def _wrapped(function, action, after):
    @functools.wraps(function)  # its name too: pickled by name (to a pool's workers), it is found as itself
    def wrapper(*args, **kwargs):
        if not after:
            action()
        result = function(*args, **kwargs)
        if after:
            action()
        return result

    return wrapper


class _Finder:
    """Acts when a module starts to be imported; finds nothing itself."""

    def __init__(self):
        self.patches = {}
        truncate_at = os.environ.get("TFLINT_TEST_TRUNCATE_AT_CALL")
        for setting, action in ((_AT_CALL, _interrupt_group), (_BLOCK_AT_CALL, _block), (truncate_at, _truncate)):
            if setting:
                module, function, *when = setting.split(":")
                self.patches[module] = (function, action, when == ["after"])
        self.fired = False

    def find_spec(self, name, path=None, target=None):
        if _AT_IMPORT == "*":
            with open(os.environ["TFLINT_TEST_IMPORTS"], "a") as record:
                record.write(name + "\n")
        elif name == _AT_IMPORT and not self.fired:
            self.fired = True
            os.kill(os.getpid(), signal.SIGINT)
        if name in self.patches:
            return self._patched_spec(name, path, target)
        return None

    def _patched_spec(self, name, path, target):
        """The module's spec as the other finders find it, its loader patching `function` once it has run."""
        index = sys.meta_path.index(self)
        for finder in sys.meta_path[index + 1 :]:
            spec = finder.find_spec(name, path, target) if hasattr(finder, "find_spec") else None
            if spec is not None:
                break
        else:
            return None
        function, action, after = self.patches.pop(name)
        execute = spec.loader.exec_module

        def exec_module(module):
            execute(module)
            setattr(module, function, _wrapped(getattr(module, function), action, after))

        spec.loader.exec_module = exec_module
        return spec


def _take_away(what):
    import errno

    def failing(code):
        def fail(*args, **kwargs):
            raise OSError(code, os.strerror(code))

        return fail

    if "fork" in what:
        os.fork = failing(errno.EAGAIN)
    if "semaphores" in what or "semaphores-missing" in what:
        import _multiprocessing

        fail = failing(errno.ENOENT if "semaphores-missing" in what else errno.EROFS)

        class SemLock(_multiprocessing.SemLock):
            def __new__(cls, *args, **kwargs):  # where sem_open would fail
                fail()

        _multiprocessing.SemLock = SemLock


_take_away(os.environ.get("TFLINT_TEST_UNAVAILABLE", "").split(","))
if os.environ.get("TFLINT_TEST_NO_TMPFILE") and hasattr(os, "O_TMPFILE"):
    del os.O_TMPFILE
sys.meta_path.insert(0, _Finder())
