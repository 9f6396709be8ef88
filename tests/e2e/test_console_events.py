"""The console's events (issue 43): without --verbose the text output reads the lines of workflows and
steps only, so a run builds no other event for it (a step's start, its request and its response: half
a one-step row's events); with --verbose it is given every event, and prints the exchanges."""

from __future__ import annotations

import pytest

from arazzo_runner.executor.runner import Runner
from tests.e2e.conftest import arazzo_doc
from tests.e2e.helpers import cli, op_step, workflow


@pytest.fixture
def built(monkeypatch):
    """The names of the event types a run built, in order (`Runner.emit` builds an event when someone
    listens to its type)."""
    seen: list[str] = []
    real = Runner.emit

    def counted(self, event_type, *fields):
        listening = self.options.on_event is not None
        wanted = self._event_types is None or event_type in self._event_types
        if listening and wanted:
            seen.append(event_type.__name__)
        return real(self, event_type, *fields)

    monkeypatch.setattr(Runner, "emit", counted)
    return seen


def _run(capsys, write, server, tmp_path, *flags: str):
    server.reply("GET", "/pets/{petId}", (200, {"id": 1}))
    step = op_step("get", "getPet", parameters=[{"name": "petId", "in": "path", "value": "$inputs.id"}])
    doc = write(arazzo_doc(workflow("flow", step)))
    rows = tmp_path / "rows.jsonl"
    rows.write_text('{"id": 1}\n{"id": 2}\n')
    return cli(capsys, "run", doc, "--server", f"pets={server.url}", "--inputs-file", rows, *flags)


def test_text_output_without_verbose_builds_only_the_events_it_prints(capsys, write, server, tmp_path, built):
    result = _run(capsys, write, server, tmp_path, "--concurrency", "2")
    assert result.code == 0, result.err
    # a top-level workflow's end is the summary's: its event is not built (nested ones' are, for their line)
    assert sorted(set(built)) == ["StepFinished", "WorkflowStarted"]
    assert built.count("StepFinished") == 2
    assert result.out.count("workflow flow") == 2  # each row's trace, as before
    assert result.out.count("  get  GET ") == 2
    assert "2 of 2 rows passed" in result.out


def test_verbose_text_output_is_given_every_event(capsys, write, server, tmp_path, built):
    result = _run(capsys, write, server, tmp_path, "--concurrency", "2", "-v")
    assert result.code == 0, result.err
    for name in ("StepStarted", "RequestSent", "ResponseReceived"):
        assert built.count(name) == 2, name
    assert result.out.count("> GET ") == 2 and result.out.count("< 200 OK") == 2


@pytest.mark.parametrize("concurrency", ["1", "2"])
def test_each_rows_console_reporter_is_copied_from_the_first(
    capsys, write, server, tmp_path, monkeypatch, concurrency
):
    """A row's reporter is the first row's copied (`ConsoleReporter.like`: its stream's marks and colours
    are the same for every row), not worked out again; each row's trace is as before, its own."""
    from arazzo_runner.report.console import ConsoleReporter

    made: list[int] = []
    real = ConsoleReporter.__init__

    def counted(self, *args, **kwargs) -> None:
        made.append(1)
        real(self, *args, **kwargs)

    monkeypatch.setattr(ConsoleReporter, "__init__", counted)
    result = _run(capsys, write, server, tmp_path, "--concurrency", concurrency)
    assert result.code == 0, result.err
    assert len(made) == 1
    assert result.out.count("workflow flow") == 2 and result.out.count("  get  GET ") == 2
    assert "== row 1 (line 1): id=1" in result.out and "== row 2 (line 2): id=2" in result.out
    assert "2 of 2 rows passed" in result.out
