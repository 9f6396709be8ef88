"""Console output of a run: one line per step as it finishes, then a summary with outputs."""

from __future__ import annotations

import json
import os
from typing import Any, TextIO

from ..executor.events import StepFinished, StepRetrying, WorkflowFinished, WorkflowStarted
from ..result import RunResult, StepResult


class ConsoleReporter:
    def __init__(self, stream: TextIO, *, color: bool | None = None) -> None:
        self.stream = stream
        if color is None:
            color = stream.isatty() and "NO_COLOR" not in os.environ
        self.color = color
        encoding = (getattr(stream, "encoding", None) or "").lower()
        unicode = "utf" in encoding
        self.ok_mark = "✓" if unicode else "ok"
        self.fail_mark = "✗" if unicode else "FAIL"

    def _paint(self, text: str, code: str) -> str:
        return f"\033[{code}m{text}\033[0m" if self.color else text

    def write(self, line: str) -> None:
        self.stream.write(line + "\n")
        self.stream.flush()

    def on_event(self, event: Any) -> None:
        indent = "  " * (event.depth + 1) if hasattr(event, "depth") else "  "
        if isinstance(event, WorkflowStarted):
            self.write(f"{indent[:-2]}{self._paint('workflow', '1')} {event.workflow_id}")
        elif isinstance(event, StepFinished):
            self.write(indent + self.step_line(event.result))
            for line in self.step_details(event.result):
                self.write(indent + "    " + line)
        elif isinstance(event, StepRetrying):
            wait = f"in {event.delay:g} s (attempt {event.attempt})"
            self.write(f"{indent}  retrying {event.step_id} {wait}: {event.reason}")
        elif isinstance(event, WorkflowFinished) and event.depth > 0:
            self.write(f"{indent}{self.verdict(event.result.passed)} {event.result.workflow_id} (nested)")

    def verdict(self, passed: bool) -> str:
        return self._paint(self.ok_mark, "32") if passed else self._paint(self.fail_mark, "31")

    def step_line(self, step: StepResult) -> str:
        parts = [self.verdict(step.passed), step.step_id]
        if step.method:
            parts.append(f"{step.method} {step.url}")
        if step.status_code is not None:
            parts.append(str(step.status_code))
        parts.append(f"{step.duration_ms:.0f} ms")
        if step.attempts > 1:
            parts.append(f"{step.attempts} attempts")
        if step.action:
            parts.append(f"-> {step.action}")
        return "  ".join(parts)

    def step_details(self, step: StepResult) -> list[str]:
        lines = []
        if step.error:
            lines.append(self._paint(step.error, "31"))
        lines.extend(self._paint(f"warning: {w}", "33") for w in step.warnings)
        return lines

    def summary(self, result: RunResult) -> None:
        for workflow in result.workflows:
            status = "passed" if workflow.passed else "failed"
            self.write(
                f"{self.verdict(workflow.passed)} {workflow.workflow_id} {status} "
                f"({len(workflow.steps)} steps, {workflow.duration_ms:.0f} ms)"
            )
            if workflow.error:
                where = f"step {workflow.error['stepId']}: " if workflow.error.get("stepId") else ""
                self.write("  " + self._paint(where + workflow.error["message"], "31"))
            for warning in workflow.warnings:
                self.write("  " + self._paint(f"warning: {warning}", "33"))
            if workflow.outputs:
                self.write("  outputs:")
                for name, value in workflow.outputs.items():
                    self.write(f"    {name}: {_short(value)}")
        total = len(result.workflows)
        failed = sum(not w.passed for w in result.workflows)
        self.write(f"{total - failed} of {total} workflows passed")


def _short(value: Any, limit: int = 200) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[: limit - 3] + "..."
