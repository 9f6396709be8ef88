"""The progress line: drawn only for a step running past the delay, erased before other output, wanted
only on a real terminal (checked with a pseudo-terminal)."""

from __future__ import annotations

import io
import os
import pty
import time

from arazzo_runner.executor.events import StepFinished, StepStarted
from arazzo_runner.report.progress import Progress, progress_wanted
from arazzo_runner.result import StepResult


class _Terminal(io.StringIO):
    encoding = "utf-8"

    def isatty(self) -> bool:
        return True


def test_the_line_appears_after_the_delay_and_is_erased():
    stream = _Terminal()
    progress = Progress(stream, delay=0.05, interval=0.01)
    progress.on_event(StepStarted("flow", "slow", 0))
    time.sleep(0.2)
    with progress.paused():
        stream.write("a line of output\n")
        time.sleep(0.05)  # no redraw while paused
        assert stream.getvalue().endswith("\r\x1b[Ka line of output\n")  # erased before the output
    time.sleep(0.1)  # drawn again after the output
    progress.on_event(StepFinished("flow", StepResult("slow"), 0))
    progress.close()
    assert "\r⠋ slow 0." in stream.getvalue()
    assert stream.getvalue().endswith("\r\x1b[K")


def test_a_quick_step_draws_nothing():
    stream = _Terminal()
    progress = Progress(stream, delay=5, interval=0.01)
    progress.on_event(StepStarted("flow", "quick", 0))
    time.sleep(0.05)
    progress.on_event(StepFinished("flow", StepResult("quick"), 0))
    progress.close()
    assert stream.getvalue() == ""


def test_ascii_frames_when_the_terminal_is_not_utf8():
    stream = _Terminal()
    stream.encoding = "ascii"  # type: ignore[misc]
    assert Progress(stream).frames == "|/-\\"


def test_wanted_only_on_a_terminal_that_is_not_dumb_outside_ci():
    leader, follower = pty.openpty()
    try:
        with os.fdopen(follower, "w", closefd=False) as terminal:
            assert progress_wanted(terminal, {"TERM": "xterm"})
            assert not progress_wanted(terminal, {"TERM": "dumb"})
            assert not progress_wanted(terminal, {"TERM": "xterm", "CI": "true"})
        assert not progress_wanted(io.StringIO(), {"TERM": "xterm"})
    finally:
        os.close(leader)
        os.close(follower)


def test_steps_side_by_side_leave_the_line_by_their_own_ids():
    """With `--parallel` steps finish (and retry) in any order: each leaves, or is relabelled, by its id."""
    from arazzo_runner.executor.events import StepRetrying

    progress = Progress(_Terminal(), delay=60, interval=60)
    for step_id in ("a", "b", "c"):
        progress.on_event(StepStarted("flow", step_id, 0))
    progress.on_event(StepRetrying("flow", "a", 2, 0.0, "503", 0))
    progress.on_event(StepFinished("flow", StepResult("b"), 0))
    assert [label for label, _ in progress._running] == ["a (retrying, attempt 2)", "c"]
    progress.on_event(StepFinished("flow", StepResult("a"), 0))
    assert [label for label, _ in progress._running] == ["c"]
    progress.close()
