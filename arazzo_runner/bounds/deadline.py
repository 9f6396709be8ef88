"""The run deadline (`RunOptions.deadline`, `--deadline`), and the deadline armed for the work in progress.

A deadline bounds the whole run, not only its steps: sources are loaded on first use (by the validation,
the preflight, or a step), so a source fetched before the first step counts too. Whoever starts a run
arms its deadline (`arm`) before anything is fetched: `arazzo run` when the command starts, `arun` when
it is called (unless the caller armed a tighter one). The armed deadline is a context variable, so two
runs in one process (threads, or tasks of one event loop) each see their own, and the source fetcher
(`sources/fetch.py`) reads it without the deadline being threaded through every loader.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar


class Deadline:
    """An optional deadline (`seconds` from its creation, on the monotonic clock; None: no deadline)."""

    def __init__(self, seconds: float | None) -> None:
        self.seconds = seconds
        self._at = None if seconds is None else time.monotonic() + seconds

    def bound(self) -> tuple[float, str] | None:
        """(when it passes, on time.monotonic(); its message), or None without a deadline."""
        return None if self._at is None else (self._at, self.message)

    def remaining(self) -> float | None:
        """Seconds left (at least 0), or None without a deadline."""
        return None if self._at is None else max(0.0, self._at - time.monotonic())

    def expired(self) -> bool:
        return self._at is not None and time.monotonic() >= self._at

    def tighter(self, other: Deadline | None) -> Deadline:
        """Whichever of this deadline and `other` ends first (a deadline without an end never does)."""
        if other is None or other._at is None:
            return self
        if self._at is None or other._at < self._at:
            return other
        return self

    @property
    def message(self) -> str:
        return f"run deadline of {self.seconds:g} s exceeded"


_ARMED: ContextVar[Deadline | None] = ContextVar("arazzo_runner_deadline", default=None)


def armed() -> Deadline | None:
    """The deadline of the run in progress in this context, if one was armed."""
    return _ARMED.get()


class arm:
    """Arm `deadline` for the work done inside the block (None: no deadline; an outer one still holds,
    whichever of the two ends first); `as` gives the deadline in effect. A class, not a generator:
    `arazzo load` arms one for every run."""

    __slots__ = ("effective", "token")

    def __init__(self, deadline: Deadline | None) -> None:
        outer = _ARMED.get()
        self.effective = outer if deadline is None else deadline.tighter(outer)

    def __enter__(self) -> Deadline | None:
        self.token = _ARMED.set(self.effective)
        return self.effective

    def __exit__(self, *exc_info: object) -> None:
        _ARMED.reset(self.token)


@contextmanager
def disarmed() -> Iterator[None]:
    """No deadline inside the block, whatever was armed outside: for work that arms its own (each row of
    `arazzo run --inputs-file` is a run with its own deadline)."""
    token = _ARMED.set(None)
    try:
        yield
    finally:
        _ARMED.reset(token)
