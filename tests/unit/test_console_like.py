"""A row's console reporter (`report_flags._console`, one a row of `--inputs-file`) is a copy of the first
one made for a stream of its kind (`ConsoleReporter.like`): the copy writes to its own stream, flushes
it when it is not a buffer (a pipe: each line read at the other end as it is written), and masks with
its own row's masker, sharing neither the first row's buffer nor its secrets (mutation round 53)."""

from __future__ import annotations

import io
import os

from arazzo_runner.cli.report_flags import _console
from arazzo_runner.executor.events import WorkflowStarted
from arazzo_runner.masking.secrets import Masker
from arazzo_runner.report.console import ConsoleReporter


class _Utf8(io.StringIO):
    encoding = "utf-8"


def test_a_copy_on_the_same_pipe_flushes_each_line():
    read_end, write_end = os.pipe()
    os.set_blocking(read_end, False)
    stream = open(write_end, "w", encoding="utf-8", buffering=1 << 16)  # noqa: SIM115 (closed below)
    try:
        reporters: dict = {}
        first = _console(ConsoleReporter, stream, Masker(), False, reporters)
        second = _console(ConsoleReporter, stream, Masker(), False, reporters)
        assert second is not first and second.stream is stream
        for number, reporter in enumerate((first, second)):
            reporter.listener()(WorkflowStarted(f"row{number}", 0))
            try:
                arrived = os.read(read_end, 1 << 16)
            except BlockingIOError:
                arrived = b""
            assert arrived == f"workflow row{number}\n".encode()
    finally:
        stream.close()
        os.close(read_end)


def test_a_copy_writes_to_its_own_buffer_with_its_own_rows_masker():
    first_buffer, second_buffer = _Utf8(), _Utf8()
    reporters: dict = {}
    first = _console(ConsoleReporter, first_buffer, Masker(["first-row-secret"]), False, reporters)
    first.listener()(WorkflowStarted("a-first-row-secret-b", 0))
    second = _console(ConsoleReporter, second_buffer, Masker(["second-row-secret"]), False, reporters)
    second.listener()(WorkflowStarted("x-first-row-secret-second-row-secret-y", 0))
    assert first_buffer.getvalue() == "workflow a-***-b\n"
    assert second_buffer.getvalue() == "workflow x-first-row-secret-***-y\n"
