"""What the console's plain shortcuts (colours off, no secret known: `ConsoleReporter._plain` and the
one-block summary) write, beside what test_console_plain.py holds: each line reaches the other end of
a pipe as it is written (flushed), a summary ends with its line end, a failed step's plain line has the
failed mark, and a summary with colours on keeps its colours (mutation round 52: each of these passed
every test when broken)."""

from __future__ import annotations

import io
import os

from arazzo_runner.executor.events import StepFinished, WorkflowStarted
from arazzo_runner.report.console import ConsoleReporter
from arazzo_runner.result import FAILED, RunResult, StepResult, WorkflowResult


class _Utf8(io.StringIO):
    encoding = "utf-8"


class _Ascii(io.StringIO):
    encoding = "ascii"


def _step(status: str = "passed", code: int = 200) -> StepResult:
    return StepResult(
        "get", status, attempts=1, status_code=code, duration_ms=5.0, method="GET", url="http://h/x"
    )


def _result() -> RunResult:
    passed = WorkflowResult("flow", steps=[_step()], outputs={"n": 1}, duration_ms=3.0)
    failed = WorkflowResult("other", FAILED, steps=[_step(FAILED, 500)], duration_ms=4.0)
    return RunResult([passed, failed])


def test_each_plain_line_reaches_a_pipe_as_it_is_written():
    """A plain line and a summary written in one block are flushed: read at the pipe's other end at
    once, not when the stream's buffer fills or the process ends (a user watching the steps go by)."""
    read_end, write_end = os.pipe()
    os.set_blocking(read_end, False)
    stream = open(write_end, "w", encoding="utf-8", buffering=1 << 16)  # noqa: SIM115 (closed below)
    try:
        reporter = ConsoleReporter(stream, color=False)
        on_event = reporter.listener()

        def arrived() -> bytes:
            try:
                return os.read(read_end, 1 << 16)
            except BlockingIOError:
                return b""

        on_event(WorkflowStarted("flow", 0))
        assert arrived() == b"workflow flow\n"
        on_event(StepFinished("flow", _step(), 0))
        assert arrived() == "  ✓  get  GET http://h/x  200  5 ms\n".encode()
        reporter.summary(_result())
        assert arrived().decode().splitlines() == [
            "✓ flow passed (1 step, 3 ms)",
            "  outputs:",
            "    n: 1",
            "✗ other failed (1 step, 4 ms)",
            "1 of 2 workflows passed",
        ]
    finally:
        stream.close()
        os.close(read_end)


def test_a_summary_ends_with_its_line_end():
    out = _Utf8()
    ConsoleReporter(out, color=False).summary(_result())
    assert out.getvalue().endswith("1 of 2 workflows passed\n")
    out = _Utf8()
    ConsoleReporter(out, color=False).summary(RunResult([]))
    assert out.getvalue() == "0 of 0 workflows passed\n"


def test_a_failed_steps_plain_line_has_the_failed_mark():
    for kind, marks in ((_Utf8, ("✓", "✗")), (_Ascii, ("ok", "FAIL"))):
        out = kind()
        on_event = ConsoleReporter(out, color=False).listener()
        on_event(StepFinished("flow", _step(), 0))
        on_event(StepFinished("flow", _step(FAILED, 500), 0))
        lines = out.getvalue().splitlines()
        assert lines == [
            f"  {marks[0]}  get  GET http://h/x  200  5 ms",
            f"  {marks[1]}  get  GET http://h/x  500  5 ms",
        ]


def test_a_summary_with_colours_on_keeps_them():
    out = _Utf8()
    ConsoleReporter(out, color=True).summary(_result())
    assert out.getvalue().splitlines() == [
        "\x1b[32m✓\x1b[0m flow passed (1 step, 3 ms)",
        "  outputs:",
        "    n: 1",
        "\x1b[31m✗\x1b[0m other failed (1 step, 4 ms)",
        "1 of 2 workflows passed",
    ]
