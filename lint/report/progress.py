"""Progress on a terminal: which file (and rule) a long run is at, on stderr.

Shown only when stderr is a terminal and the run has already taken DELAY
seconds, so quick runs, pipes, CI logs and machine-readable output never
see it. The line is redrawn in place and erased when the run ends.

The line is drawn by the calls that report progress (a file starts or is
done, a rule starts), at most every INTERVAL seconds: no thread of its own,
so a run with progress may still fork its `-j` workers (a process with a
second thread is never forked: a child could inherit a lock that thread
holds, and Python 3.12+ warns about it).
"""

from __future__ import annotations

import time
from typing import TextIO

from tflint.escape import escape

DELAY = 0.5  # seconds before the first draw: most runs finish sooner and show nothing
INTERVAL = 0.2
_ERASE = "\r\033[K"


class Progress:
    """A status line redrawn when `file` or `rule` is called; cheap enough to call per rule."""

    def __init__(self, stream: TextIO, delay: float | None = None, interval: float | None = None) -> None:
        self._stream = stream
        self._interval = INTERVAL if interval is None else interval
        self._next_draw = time.monotonic() + (DELAY if delay is None else delay)
        self._file = "tflint:"
        self._status = ""
        self._drawn = False

    @classmethod
    def for_terminal(cls, stream: TextIO) -> Progress | None:
        """A Progress on `stream` if it is a terminal, else None."""
        try:
            interactive = stream.isatty()
        except (AttributeError, ValueError):
            return None
        return cls(stream) if interactive else None

    def file(self, number: int, total: int, path: str) -> None:
        """Linting file `number` of `total` (or, with workers, file `number` is done)."""
        self._file = f"tflint: [{number}/{total}] {escape(path)}"
        self._status = self._file
        self._tick()

    def rule(self, rule_id: str) -> None:
        """Running `rule_id` on the current file."""
        self._status = f"{self._file} ({escape(rule_id)})"
        self._tick()

    def work(self, what: str, done: int, total: int) -> None:
        """A long read inside the current file: `done` of `total` bytes of `what`."""
        self._status = f"{self._file} ({escape(what)} {done >> 20:,}/{total >> 20:,} MB)"
        self._tick()

    def close(self) -> None:
        """Erase the line, if it was drawn."""
        if self._drawn:
            self._stream.write(_ERASE)
            self._stream.flush()
            self._drawn = False

    def _tick(self) -> None:
        now = time.monotonic()
        if now >= self._next_draw:
            self._next_draw = now + self._interval
            self._draw()

    def _draw(self) -> None:
        import shutil  # imported on a terminal only: a plain run never draws

        width = max(20, shutil.get_terminal_size(fallback=(80, 24)).columns - 1)
        status = self._status
        if len(status) > width:
            status = status[: width - 3] + "..."
        self._stream.write(_ERASE + status)
        self._stream.flush()
        self._drawn = True
