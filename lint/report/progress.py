"""Progress on a terminal: which file (and rule) a long run is at, on stderr.

Shown only when stderr is a terminal and the run has already taken DELAY
seconds, so quick runs, pipes, CI logs and machine-readable output never
see it. The line is redrawn in place and erased when the run ends.
"""

from __future__ import annotations

import shutil
import threading
from typing import TextIO

from tflint.escape import escape

DELAY = 0.5  # seconds before the first draw: most runs finish sooner and show nothing
INTERVAL = 0.2
_ERASE = "\r\033[K"


class Progress:
    """A status line redrawn by a background thread; `update` is cheap enough to call per rule."""

    def __init__(self, stream: TextIO, delay: float | None = None, interval: float = INTERVAL) -> None:
        self._stream = stream
        self._delay = DELAY if delay is None else delay
        self._interval = interval
        self._file = "tflint:"
        self._status = ""
        self._drawn = False
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._run, name="tflint-progress", daemon=True)
        self._thread.start()

    @classmethod
    def for_terminal(cls, stream: TextIO) -> Progress | None:
        """A Progress on `stream` if it is a terminal, else None."""
        try:
            interactive = stream.isatty()
        except (AttributeError, ValueError):
            return None
        return cls(stream) if interactive else None

    def file(self, number: int, total: int, path: str) -> None:
        """Linting file `number` of `total`."""
        self._file = f"tflint: [{number}/{total}] {escape(path)}"
        self._status = self._file

    def rule(self, rule_id: str) -> None:
        """Running `rule_id` on the current file."""
        self._status = f"{self._file} ({escape(rule_id)})"

    def close(self) -> None:
        """Stop drawing and erase the line."""
        self._stop.set()
        self._thread.join()
        with self._lock:
            if self._drawn:
                self._stream.write(_ERASE)
                self._stream.flush()

    def _run(self) -> None:
        if self._stop.wait(self._delay):
            return
        while not self._stop.is_set():
            self._draw()
            self._stop.wait(self._interval)

    def _draw(self) -> None:
        width = max(20, shutil.get_terminal_size(fallback=(80, 24)).columns - 1)
        status = self._status
        if len(status) > width:
            status = status[: width - 3] + "..."
        with self._lock:
            if self._stop.is_set():
                return
            self._stream.write(_ERASE + status)
            self._stream.flush()
            self._drawn = True
