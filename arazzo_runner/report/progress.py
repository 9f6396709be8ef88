"""A progress line for long steps: `⠹ chat 3.4 s` on a terminal's stderr while a step runs > 1 s.

Shown only when stderr is a terminal, `TERM` is not `dumb` and `CI` is unset (CI logs are files, even
when a runner fakes a terminal), and not with `--no-progress`. The line is redrawn in place and erased
before any other output, so logs and copied text never contain it. Colour plays no part, so `NO_COLOR`
does not turn it off.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Iterator, Mapping
from typing import Any, TextIO

from ..executor.events import StepFinished, StepRetrying, StepStarted
from .terminal import escape, unescaped

DELAY = 1.0  # seconds a step runs before the line appears
INTERVAL = 0.1  # seconds between redraws
_FRAMES_UNICODE = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
_FRAMES_ASCII = "|/-\\"


def progress_wanted(stream: TextIO, environ: Mapping[str, str] | None = None) -> bool:
    environ = os.environ if environ is None else environ
    isatty = getattr(stream, "isatty", None)
    terminal = bool(isatty and isatty())
    return terminal and environ.get("TERM", "") != "dumb" and not environ.get("CI")


class Progress:
    """Draws the line from a background thread; `paused()` holds it while other output is written."""

    def __init__(self, stream: TextIO, *, delay: float | None = None, interval: float | None = None) -> None:
        self.stream = unescaped(stream)  # it draws with `\r` and `ESC [K`; its label is escaped
        self.delay = DELAY if delay is None else delay
        self.interval = INTERVAL if interval is None else interval
        encoding = (getattr(stream, "encoding", None) or "").lower()
        self.frames = _FRAMES_UNICODE if "utf" in encoding else _FRAMES_ASCII
        self._lock = threading.RLock()
        self._running: list[tuple[str, float]] = []  # (label, started) of the steps in flight, innermost last
        self._shown = False
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def on_event(self, event: Any) -> None:
        with self._lock:
            if isinstance(event, StepStarted):
                self._running.append((event.step_id, time.monotonic()))
                self._start()
            elif isinstance(event, StepRetrying) and self._running:
                position = self._position(event.step_id)
                _, started = self._running[position]
                self._running[position] = (f"{event.step_id} (retrying, attempt {event.attempt})", started)
            elif isinstance(event, StepFinished) and self._running:
                del self._running[self._position(event.result.step_id)]
                self._erase()

    def _position(self, step_id: str) -> int:
        """Where in the steps in flight the step is: the innermost of that id (steps side by side,
        `--parallel`, retry and finish in any order), else the innermost."""
        for position in range(len(self._running) - 1, -1, -1):
            label = self._running[position][0]
            if label == step_id or label.startswith(f"{step_id} (retrying"):
                return position
        return len(self._running) - 1

    @contextlib.contextmanager
    def paused(self) -> Iterator[None]:
        """Erase the line and keep it away while the caller writes."""
        with self._lock:
            self._erase()
            yield

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=1)
        with self._lock:
            self._erase()

    def _start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._loop, name="arazzo-progress", daemon=True)
            self._thread.start()

    def _loop(self) -> None:
        frame = 0
        while not self._stop.wait(self.interval):
            with self._lock:
                if not self._running:
                    continue
                label, started = self._running[-1]
                elapsed = time.monotonic() - started
                if elapsed >= self.delay:
                    self._draw(f"{self.frames[frame % len(self.frames)]} {label} {elapsed:.1f} s")
                    frame += 1

    def _draw(self, text: str) -> None:
        self.stream.write("\r" + escape(text) + "\033[K")
        self.stream.flush()
        self._shown = True

    def _erase(self) -> None:
        if self._shown:
            self.stream.write("\r\033[K")
            self.stream.flush()
            self._shown = False
