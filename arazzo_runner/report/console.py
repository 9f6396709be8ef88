"""Console output of a run: one line per step as it finishes, then a summary with failed criteria and
outputs. Every line goes through the run's Masker; with `verbose`, each request and response is printed
as it happens (`report/verbose.py`). Text from servers and documents never reaches the terminal raw:
each line is masked, then its control characters escaped (`report/terminal.py`); the colours are added
after, as `Painted` parts, the only escape sequences the console writes."""

from __future__ import annotations

import io
import json
import os
from typing import Any, TextIO

from ..errors import problem_text
from ..executor.events import (
    MessageReceived,
    MessageSent,
    RequestSent,
    ResponseReceived,
    StepFinished,
    StepRetrying,
    StepStarted,
    WorkflowFinished,
    WorkflowStarted,
)
from ..masking.secrets import Masker, clip
from ..result import NOT_RUN, PASSED, LeftOut, NullOutput, RunResult, StepResult, WorkflowResult
from .terminal import escape, unescaped


class Painted(str):
    """A part of a console line shown in a colour (an SGR code such as `31`), when colours are on. A
    str of the part's text: with colours off a line's parts join as they are (`"".join(parts)`), with no
    pass over them to take each one's text."""

    code: str

    def __new__(cls, text: str, code: str) -> Painted:
        painted = super().__new__(cls, text)
        painted.code = code
        return painted


Part = str | Painted
# a verdict's marks, (failed, passed): [0] on a stream whose encoding is not a UTF one, [1] on one
_VERDICTS = ((Painted("FAIL", "31"), Painted("ok", "32")), (Painted("✗", "31"), Painted("✓", "32")))


class ConsoleReporter:
    def __init__(
        self,
        stream: TextIO,
        *,
        color: bool | None = None,
        masker: Masker | None = None,
        verbose: bool = False,
        steps: bool = True,
    ) -> None:
        self.stream = unescaped(stream)  # the lines are escaped here, and coloured after
        # a row's buffer (`io.StringIO`) has nothing to flush; a stream's lines are flushed as written
        self._flush = None if isinstance(self.stream, io.StringIO) else self.stream.flush
        if color is None:
            color = stream.isatty() and "NO_COLOR" not in os.environ
        self.color = color
        self.masker = masker or Masker()
        self.verbose = verbose
        self.steps = steps  # False: only the verbose exchanges (`--format json --verbose` on stderr)
        self._depth = 0  # of the step in flight, for indenting its exchanges
        encoding = (getattr(stream, "encoding", None) or "").lower()
        unicode = "utf" in encoding
        self.ok_mark = "✓" if unicode else "ok"
        self.fail_mark = "✗" if unicode else "FAIL"
        self._verdicts = _VERDICTS[unicode]  # (failed, passed), made once: a Painted is never changed

    def like(self, stream: TextIO, masker: Masker) -> ConsoleReporter:
        """A new reporter as this one (unused) on `stream`, a stream like its own (the same kind, encoding
        and terminal: the same marks and colours), with `masker`: its fields copied, not worked out again
        (a row of `--inputs-file` makes one: ~6 k instructions less a row)."""
        made = object.__new__(type(self))
        made.__dict__.update(self.__dict__)
        made.stream = unescaped(stream)
        made._flush = None if isinstance(made.stream, io.StringIO) else made.stream.flush
        made.masker = masker
        return made

    def listener(self) -> Any:
        """What a run's `on_event` is given: `on_event`, which without --verbose reads the events of
        four types only, and says so (`event_types`): the run then builds no other (a step's start, its
        request, its response: half the events of a one-step run)."""
        return self.on_event if self.verbose or not self.steps else _StepLines(self)

    def _paint(self, text: str, code: str) -> Painted:
        return Painted(text, code)

    def write(self, *parts: Part) -> None:
        """One line made of `parts`, each masked then escaped (never a second line, never a control
        character), painted ones in their colour. Without colours and without a secret known, the
        line is masked and escaped at once: the same text (masking then changes only a URL's password,
        after an `@`, and escaping one character at a time), a few calls a line rather than a few a part."""
        if self._plain("".join(parts)):
            return
        out = []
        for part in parts:
            if isinstance(part, Painted):
                text = escape(self.masker.text(part))
                out.append(f"\033[{part.code}m{text}\033[0m" if self.color else text)
            else:
                out.append(escape(self.masker.text(part)))
        self.stream.write("".join(out) + "\n")
        self.stream.flush()

    def _plain(self, line: str) -> bool:
        """Writes `line`, a line's parts joined, when `write` would write it as it is: colours off, no
        secret known (masking then changes only a URL's password, after an `@`) and no `@` in it, each
        control character escaped (escaping goes one character at a time: the line's or its parts', the
        same text). False: nothing written, the parts are for `write`'s pass over each one."""
        if self.color or not self.masker.leaves(line):
            return False
        # (a printable line has no character `escape` changes: ~10x cheaper)
        self.stream.write((line if line.isprintable() else escape(line)) + "\n")
        if self._flush is not None:
            self._flush()
        return True

    def on_event(self, event: Any) -> None:
        if isinstance(event, StepStarted):
            self._depth = event.depth
        elif isinstance(event, (RequestSent, ResponseReceived)):
            self._exchange(event)
        elif isinstance(event, (MessageSent, MessageReceived)):
            if self.verbose:
                indent = "  " * (self._depth + 1) + "  "
                for line in message_lines(event.message, self.masker):
                    self.write(indent, self._paint(line, "2"))
        elif self.steps:
            self._progress(event)

    def _progress(self, event: Any) -> None:
        if type(event) is WorkflowFinished and not event.depth:  # a top-level workflow's: the summary's
            return
        indent = "  " * (event.depth + 1) if hasattr(event, "depth") else "  "
        if isinstance(event, WorkflowStarted):
            self.write(indent[:-2], self._paint("workflow", "1"), f" {event.workflow_id}")
        elif isinstance(event, StepFinished):
            self._step_finished(event)
        elif isinstance(event, StepRetrying):
            wait = f"in {event.delay:g} s (attempt {event.attempt})"
            self.write(f"{indent}  retrying {event.step_id} {wait}: {event.reason}")
        elif isinstance(event, WorkflowFinished) and event.depth > 0:
            verdict = self.verdict(event.result.passed)
            item = "" if event.result.item is None else f"[{event.result.item}]"  # an x-forEach item's
            self.write(indent, verdict, f" {event.result.workflow_id}{item} (nested)")

    def _step_finished(self, event: StepFinished) -> None:
        """A step's line, then the details of a step that failed or warned (`step_details`)."""
        result = event.result
        indent = "  " * (event.depth + 1)
        fields = self._step_fields(result)
        mark = self.ok_mark if result.status == PASSED else self.fail_mark
        if not self._plain(f"{indent}{mark}  {'  '.join(fields)}"):
            self.write(indent, self.verdict(result.passed), "  " + "  ".join(fields))
        if result.error or result.warnings or (result.response is not None and not result.passed):
            for line in self.step_details(result):
                self.write(indent + "    ", line)

    def _exchange(self, event: RequestSent | ResponseReceived) -> None:
        if not self.verbose:
            return
        from .verbose import request_lines, response_lines  # --verbose only

        indent = "  " * (self._depth + 1) + "  "
        if isinstance(event, RequestSent):
            lines = request_lines(event.exchange, self.masker)
        else:
            lines = response_lines(event.exchange, self.masker)
        for line in lines:
            self.write(indent, self._paint(line, "2"))

    def verdict(self, passed: bool) -> Painted:
        return self._verdicts[passed]

    def step_line(self, step: StepResult) -> list[Part]:
        """The verdict, then `step  METHOD URL  status  duration ...`."""
        return [self.verdict(step.passed), "  " + "  ".join(self._step_fields(step))]

    def _step_fields(self, step: StepResult) -> list[str]:
        """`step`, `METHOD URL`, `status`, `duration`...: the fields of a step's line after its verdict."""
        parts = [step.step_id]
        if step.method:
            parts.append(f"{step.method} {self.masker.url(step.url or '')}")
        if step.status_code is not None:
            parts.append(str(step.status_code))
        if step.kind:  # an AsyncAPI step: what it did, on which channel of which broker
            where = step.messages[-1] if step.messages else None
            parts.append(f"{step.kind} {where.server} {where.channel}" if where else step.kind)
        parts.append(f"{step.duration_ms:.0f} ms")
        if step.attempts > 1:
            parts.append(f"{step.attempts} attempts")
        if step.action:
            parts.append(f"-> {step.action}")
        return parts

    def step_details(self, step: StepResult) -> list[Part]:
        lines: list[Part] = []
        if step.error:
            lines.append(self._paint(step.error, "31"))
        if step.response is not None and not step.passed:
            from .bodies import answer_lines  # what a failed step's server answered

            lines.extend(answer_lines(step.response))
        lines.extend(self._paint(f"warning: {w}", "33") for w in self.warnings(step.warnings))
        return lines

    def warnings(self, warnings: list[str]) -> list[str]:
        """The warnings to act on; an output null because its branch was not taken, and optional
        parameters left out because the declared inputs they read were not given, only with --verbose."""
        return warnings if self.verbose else [w for w in warnings if not isinstance(w, (NullOutput, LeftOut))]

    def summary(self, result: RunResult) -> None:
        """Each workflow's verdict, error, failed criteria, warnings and outputs, then the count. Its
        lines are made first, then written at once when colours are off and no secret is known (as
        `_plain` writes one): a row's five lines are one write, not five."""
        lines = self._summary_lines(result)
        if not self.color:
            texts = ["".join(parts) for parts in lines]
            block = "\n".join(texts)
            if self.masker.leaves(block):
                if not all(map(str.isprintable, texts)):  # (`escape` leaves a printable line as it is)
                    block = "\n".join(map(escape, texts))
                self.stream.write(block + "\n")
                if self._flush is not None:
                    self._flush()
                return
        for parts in lines:
            self.write(*parts)

    def _summary_lines(self, result: RunResult) -> list[tuple[Part, ...]]:
        lines: list[tuple[Part, ...]] = []
        add = lines.append
        passed = not_run = 0
        for workflow in result.workflows:
            if workflow.status == NOT_RUN:
                not_run += 1
                add((self.verdict(False), f" {workflow.workflow_id} not run (nothing was sent)"))
                for problem in workflow.problems:
                    add(("  ", self._paint(problem_text(problem), "31")))
                continue
            ok = workflow.status == PASSED
            passed += ok
            add(
                (
                    self._verdicts[ok],
                    f" {workflow.workflow_id} {'passed' if ok else 'failed'} "
                    f"({_count(len(workflow.steps), 'step')}, {workflow.duration_ms:.0f} ms)",
                )
            )
            if workflow.error:
                where = f"step {workflow.error['stepId']}: " if workflow.error.get("stepId") else ""
                add(("  ", self._paint(where + workflow.error["message"], "31")))
            for step in workflow.steps:  # failed criteria are a failed step's, or a nested run's
                if step.status != PASSED or step.workflow is not None:
                    lines.extend(("  " + line,) for line in failed_criteria_lines(workflow))
                    break
            for warning in self.warnings(workflow.warnings) if workflow.warnings else ():
                add(("  ", self._paint(f"warning: {warning}", "33")))
            if workflow.outputs:
                add(("  outputs:",))
                data = self.masker.data
                for name, value in self.masker.outputs(workflow.outputs).items():
                    # (an int is as `data` gives it back: its text at once)
                    shown = clip(str(value), 200) if type(value) is int else _short(data(value))
                    add((f"    {name}: {shown}",))
        total = len(result.workflows)
        add((f"{passed} of {total} workflows passed" + (f", {not_run} not run" if not_run else ""),))
        return lines


class _StepLines:
    """A reporter's `on_event` (`ConsoleReporter.listener`) with the event types it reads without
    --verbose: the lines of workflows and steps (every other event it is given it ignores), written by
    the reporter's `_progress`, where `on_event` sends those types."""

    __slots__ = ("reporter",)
    event_types = frozenset({WorkflowStarted, StepFinished, StepRetrying, WorkflowFinished})
    quiet_at_top = frozenset({WorkflowFinished})  # a top-level workflow's end: the summary's (the runner's)
    close = None  # no progress line to close (`batch_text.shown_row` asks: found, not a failed lookup)

    def __init__(self, reporter: ConsoleReporter) -> None:
        self.reporter = reporter

    def __call__(self, event: Any) -> None:
        kind = type(event)  # the usual two first, with no pass through `_progress`'s tests
        if kind is StepFinished:
            self.reporter._step_finished(event)
        elif kind is WorkflowStarted:
            reporter = self.reporter
            if not reporter._plain(f"{'  ' * event.depth}workflow {event.workflow_id}"):
                reporter._progress(event)
        elif kind is not WorkflowFinished or event.depth:  # a top-level workflow's end: the summary's
            self.reporter._progress(event)


def message_lines(message: Any, masker: Masker) -> list[str]:
    """`--verbose` lines of an AsyncAPI message: direction, broker, channel, headers, payload (masked,
    then cut, so no secret shows half of itself)."""
    arrow = ">" if message.direction == "send" else "<"
    lines = [f"{arrow} {message.direction.upper()} {message.server} {message.channel}"]
    lines.extend(f"{arrow} {name}: {value}" for name, value in message.headers)
    if message.payload:
        lines.append(f"{arrow} {masker.clip(message.payload.decode('utf-8', 'replace'), 500)}")
    if message.error:
        lines.append(f"{arrow} not sent: {message.error}")
    return lines


def failed_criteria_lines(workflow: WorkflowResult) -> list[str]:
    """`failed criteria:` then, per failed step execution, each criterion with the value that failed it
    (`$statusCode == 200 -> got 503`); steps of nested workflows are named `parent/child`."""
    lines = _criteria_lines(workflow, "")
    return ["failed criteria:", *lines] if lines else []


def _criteria_lines(workflow: WorkflowResult, prefix: str) -> list[str]:
    lines = []
    for step in workflow.steps:
        name = prefix + step.step_id
        if not step.passed and step.failed_criteria:
            lines.append(f"  {name}:")
            lines.extend(f"    {_arrow(c)}" for c in step.failed_criteria)
        for child in step.workflow_runs:
            lines.extend(_criteria_lines(child, f"{name}/"))
    return lines


def _arrow(message: str) -> str:
    condition, sep, seen = message.partition(": got ")
    return f"{condition} -> got {seen}" if sep else message


def _short(value: Any, limit: int = 200) -> str:
    if type(value) is int:  # json.dumps's spelling of an int, without its encoder (~2 µs an output)
        return clip(str(value), limit)
    return clip(json.dumps(value, ensure_ascii=False, default=str), limit)


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"
