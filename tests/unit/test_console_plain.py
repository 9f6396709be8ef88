"""The console's plain lines (colours off, no secret known) are written as their parts joined, in one
write for a summary, without the per-part masking and escaping of `write`; a row's header shows the
row's values as they are when masking could change none of them. Each shortcut must write exactly what
the long way writes: a URL's password masked, a secret known masked, control characters escaped, the
failed criteria of a nested run listed under a step that passed."""

from __future__ import annotations

import io
import re
from types import SimpleNamespace

from arazzo_runner.cli.batch_text import header
from arazzo_runner.executor.events import StepFinished, WorkflowStarted
from arazzo_runner.masking.secrets import Masker
from arazzo_runner.report.console import ConsoleReporter
from arazzo_runner.result import FAILED, RunResult, StepResult, WorkflowResult


class _Utf8(io.StringIO):
    encoding = "utf-8"


def _reporter(color: bool = False, secrets: set[str] | None = None) -> tuple[ConsoleReporter, io.StringIO]:
    stream = _Utf8()
    return ConsoleReporter(stream, color=color, masker=Masker(secrets or set())), stream


def _result() -> RunResult:
    inner = StepResult("inner", FAILED, failed_criteria=["$x == 1: got 2"])
    child = WorkflowResult("child", FAILED, steps=[inner])
    outer = StepResult("call", attempts=1, duration_ms=3.0)
    outer.add_workflow(child)
    step = StepResult("get", attempts=1, status_code=200, duration_ms=2.0, method="GET", url="http://h/a")
    outputs = {"n": 7, "url": "https://user:pw@host/x", "ctl": "a\x1bb", "flag": True, "list": [1, "z"]}
    flow = WorkflowResult("flow", steps=[step, outer], outputs=outputs, duration_ms=12.0)
    return RunResult([flow])


def _uncoloured(text: str) -> str:
    return re.sub(r"\x1b\[[0-9;]*m", "", text)


def test_a_plain_summary_is_the_coloured_one_without_its_colours():
    plain, out = _reporter()
    plain.summary(_result())
    coloured, colour_out = _reporter(color=True)
    coloured.summary(_result())
    assert out.getvalue() == _uncoloured(colour_out.getvalue())
    assert out.getvalue().splitlines() == [
        "✓ flow passed (2 steps, 12 ms)",
        "  failed criteria:",
        "    call/inner:",
        "      $x == 1 -> got 2",
        "  outputs:",
        "    n: 7",
        '    url: "https://user:***@host/x"',
        '    ctl: "a\\u001bb"',
        "    flag: true",
        '    list: [1, "z"]',
        "1 of 1 workflows passed",
    ]


def test_a_known_secret_and_a_urls_password_are_masked_in_the_summarys_messages():
    reporter, out = _reporter(secrets={"hunter2-secret"})
    flow = WorkflowResult("flow", outputs={"echo": "got hunter2-secret"}, duration_ms=1.0)
    flow.fail("s", "refused hunter2-secret")
    reporter.summary(RunResult([flow]))
    assert "hunter2" not in out.getvalue()
    lines = out.getvalue().splitlines()
    assert '    echo: "got ***"' in lines and "  step s: refused ***" in lines
    step = StepResult("s", FAILED, failed_criteria=["$url == 1: got https://u:pw@h"])
    plain, out = _reporter()
    plain.summary(RunResult([WorkflowResult("other", FAILED, steps=[step])]))
    assert "      $url == 1 -> got https://u:***@h" in out.getvalue().splitlines()


def test_a_step_line_masks_a_urls_password_and_a_known_secret():
    reporter, out = _reporter()
    on_event = reporter.listener()
    step = StepResult("s", attempts=1, status_code=200, duration_ms=5.0, method="GET", url="http://u:pw@h/x")
    on_event(WorkflowStarted("flow", 0))
    on_event(StepFinished("flow", step, 0))
    assert out.getvalue().splitlines() == ["workflow flow", "  ✓  s  GET http://u:***@h/x  200  5 ms"]
    reporter.masker.add("tok-secret-value")
    on_event(StepFinished("flow", StepResult("t", url="http://h/tok-secret-value", method="GET"), 1))
    assert out.getvalue().splitlines()[-1] == "    ✓  t  GET http://h/***  0 ms"


def test_a_written_line_masks_a_urls_password_and_a_known_secret():
    reporter, out = _reporter()
    reporter.write("  ", "see https://u:pw@h", " now")
    reporter.masker.add("tok-secret-value")
    reporter.write("  ", "a tok-secret-value b\x1b")
    assert out.getvalue().splitlines() == ["  see https://u:***@h now", "  a *** b\\x1b"]


def test_a_row_header_masks_what_masking_would_change():
    masker = Masker()
    row = SimpleNamespace(number=2, line=3, values={"a": 1, "b": "x", "c": None, "d": 1.5, "e": False})
    assert header(row, masker, []) == "== row 2 (line 3): a=1, b=x, c=null, d=1.5, e=false"
    row.values = {"u": "https://user:pw@h"}
    assert header(row, masker, [1]) == "\n== row 2 (line 3): u=https://user:***@h"
    row.values = {"n": {"u": "https://user:pw@h"}}
    assert "pw" not in header(row, masker, [1])
    row.values = {"k": "s3cr3t-value"}
    assert header(row, Masker({"s3cr3t-value"}), [1]).endswith("k=***")


def test_a_control_character_in_a_summary_line_is_escaped():
    reporter, out = _reporter()
    flow = WorkflowResult("fl\x1bow", outputs={"n": 1}, duration_ms=1.0)
    flow.fail(None, "cut\rhere")
    reporter.summary(RunResult([flow]))
    assert out.getvalue().splitlines() == [
        "✗ fl\\x1bow failed (0 steps, 1 ms)",
        "  cut\\rhere",
        "  outputs:",
        "    n: 1",
        "0 of 1 workflows passed",
    ]


def test_the_marks_follow_the_streams_encoding():
    class Ascii(io.StringIO):
        encoding = "ascii"

    result = RunResult([WorkflowResult("a", duration_ms=1.0), WorkflowResult("b", FAILED, duration_ms=1.0)])
    for stream_class, marks in ((Ascii, ("ok", "FAIL")), (_Utf8, ("✓", "✗"))):
        stream = stream_class()
        ConsoleReporter(stream, color=False).summary(result)
        lines = stream.getvalue().splitlines()
        assert lines[0] == f"{marks[0]} a passed (0 steps, 1 ms)"
        assert lines[1] == f"{marks[1]} b failed (0 steps, 1 ms)"
