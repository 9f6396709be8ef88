"""Data-driven runs: `--inputs-file rows.jsonl` runs the workflows once per row, `--concurrency N` rows at
a time (asyncio over `arun`, one loaded document shared; each row has its own options and its own
cookie jar over one connection pool of the whole run (`PooledRuntime`), so cookies and fetched tokens
never leak between rows while keep-alive connections serve row after row).

Every row is checked before anything is sent (JSON, missing and invalid inputs): a bad row is a usage
error naming its line. A row's object is merged over the other inputs (`--input`, `--inputs`,
environment, `.env`). Text output: each row's trace under a header (live with `--concurrency 1`,
otherwise whole as each row finishes); JSON: `{"status", "rows": [{"row", "line", "inputs",
"result"}]}` with the row's own inputs masked. Report files hold every row: `--report-json` that JSON
document with the exchanges, `--junit` a testsuite per row and workflow (`row 2 / flow`), `--har` the
rows' exchanges in one log; each row masked with its own secrets. Exit 1 when any row failed.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator
from typing import Any, Protocol, TextIO

from ..api import admitted  # (an --inputs-file run imports it anyway: `_run_all` runs each row by it)
from ..bounds.deadline import disarmed
from ..errors import NotRunnable, UsageError
from ..executor.preflight import BatchChecks, inputs_for, preflight  # the library's own rules
from ..executor.rows import RowFile
from ..model import Workflow
from ..records import Record
from ..workspace.inputs import check_input_names
from .batch_text import HeldText, RowBuffer, row_masker, shown_row, terminal_facts
from .batch_text import header as _header
from .common import EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE
from .input_flags import Environment, check_missing
from .report_flags import masker_for


class Setup(Protocol):
    """`arazzo run`'s (`run.RunSetup`), so a row runs with exactly the options a single run would have."""

    def __call__(self, stream: TextIO | None) -> tuple[Any, Any]:
        """(stream for the console trace, or None for JSON) -> (reporter or None, RunOptions)."""

    def for_check(self) -> Any:
        """The RunOptions of a row's check (the check pass holds one row at a time)."""


class Row(Record):
    number: int  # 1-based among the rows
    line: int  # 1-based line of the file
    values: dict[str, Any]  # the row's own object
    inputs: dict[str, Any]  # merged over the other inputs
    options: Any = None
    reporter: Any = None
    buffer: RowBuffer | None = None
    result: Any = None  # filled by the row's run, as far as it goes
    masker: Any = None  # the row's, once its run is over (`batch_text.row_masker`)

    def __init__(  # written out: two a row (its check, its run)
        self,
        number: int,
        line: int,
        values: dict[str, Any],
        inputs: dict[str, Any],
        options: Any = None,
        reporter: Any = None,
        buffer: RowBuffer | None = None,
        result: Any = None,
        masker: Any = None,
    ) -> None:
        self.__dict__.update(number=number, line=line, values=values, inputs=inputs, options=options,
                             reporter=reporter, buffer=buffer, result=result, masker=masker)  # fmt: skip


def run_rows(
    args: argparse.Namespace,
    workspace: Any,
    workflows: list[Workflow],
    inputs: dict[str, Any],
    env: Environment,
    setup: Setup,
) -> int:
    """Every row is checked first (a pass over the file that keeps no row), then the rows are read again
    and run, `--concurrency` at a time: memory holds the rows in flight, not the file (unless a report
    of every row at once is asked for: `batch_out.held`)."""
    from . import journal_flags, replay_flags

    text = args.format == "text"
    live = text and args.concurrency == 1
    keep = journal_flags.failed_lines(args.rerun_failed) if args.rerun_failed else None
    checks = BatchChecks()  # what is the same for every row, checked once; each row's inputs once
    with RowFile(args.inputs_file) as source:
        digest = _check_all(source, workspace, workflows, inputs, env, setup, args, keep, checks)
        checked = source.opened  # the rows every one of which passed
        journal = journal_flags.open_journal(args, workspace, workflows, inputs, digest)
        finished = journal.finished_rows() if journal is not None else 0  # by an earlier run

        facts = terminal_facts(sys.stdout) if text and not live else None  # for every row's buffer

        def rows() -> Iterator[Row]:  # the second pass: each row set up as it starts
            for number, (line, values) in enumerate(source, 1):
                if number == 1:  # the same rows as checked: their inputs are not validated again
                    checks.trusted = checked is not None and source.opened == checked
                if checks.trusted and not source.unchanged():  # written to since: rows not checked
                    checks.trusted = False  # (for good: each row's run validates its inputs)
                if keep is not None and line not in keep:  # --rerun-failed: a row that passed
                    continue
                row = Row(number, line, values, {**inputs, **values})
                row.buffer = RowBuffer(sys.stdout, facts) if facts is not None else None
                row.reporter, row.options = setup((sys.stdout if live else row.buffer) if text else None)
                if journal is not None:  # the row's exchanges, under its line
                    row.options.journal = journal.for_run(args.idempotency_header, row=line)
                if live:  # its header is printed before its run: its secrets known to the masker now
                    _check(row, workspace, workflows, env, args, checks)
                yield row

        try:
            return _run_and_report(rows(), workspace, args, live, text, journal, checks)
        finally:
            if journal is not None:
                journal.close()
            journal_flags.resumed_line(journal, finished)
            replay_flags.replayed_line(args)


def _check_all(
    source: RowFile,
    workspace: Any,
    workflows: list[Workflow],
    inputs: dict[str, Any],
    env: Environment,
    setup: Setup,
    args: argparse.Namespace,
    keep: set[int] | None = None,
    checks: BatchChecks | None = None,
) -> str:
    """Every row checked before the first request of any: the first bad row's error, after the whole
    file was read (a line that is not JSON is named first, wherever it is). `keep`: the lines to run
    (`--rerun-failed`), None: all. Returns the rows' digest with `--journal` (what it belongs to).
    `checks`: the batch's, which learns which inputs every row passed (`preflight.BatchChecks`)."""
    problem: UsageError | None = None
    digest = None
    if args.journal:
        from ..executor.journal import rows_digest

        digest = rows_digest()
    for number, (line, values) in enumerate(source, 1):
        if keep is not None and line not in keep:
            continue
        if digest is not None:
            digest.update(line, values)
        if problem is None:
            row = Row(number, line, values, {**inputs, **values})
            row.options = setup.for_check()
            try:
                _check(row, workspace, workflows, env, args, checks)
            except UsageError as exc:
                problem = exc
    if problem is not None:
        raise problem
    return "" if digest is None else digest.hexdigest()


def _run_and_report(
    rows: Iterator[Row],
    workspace: Any,
    args: argparse.Namespace,
    live: bool,
    text: bool,
    journal: Any = None,
    checks: BatchChecks | None = None,
) -> int:
    from .batch_out import RowsOut, held, write_held

    kept: list[Row] | None = [] if held(args) else None  # for the reports of every row at once
    out = RowsOut(args, workspace, spooled=kept is None)
    printed: list[int] = []  # row numbers whose header is out, for a blank line between rows
    pending = HeldText()  # the texts of the rows that ended in the loop's pass in progress
    flight: dict[int, Row] = {}  # the rows started and not yet ended

    def ended(row: Row) -> None:
        if journal is not None and not row.result.interrupted and journal.file.broken is None:
            journal.row_finished(row.line, row.result.ok)
        out.add(row, row.result, row_masker(row, workspace, args))  # after the run: its secrets are known
        if kept is not None:
            kept.append(row)

    interrupted = False
    with disarmed():  # each row is a run with its own deadline (the sources are loaded by now)
        import asyncio  # only batches run on it: a single `arazzo run` need not import it

        try:
            asyncio.run(_run_all(rows, flight, ended, printed, workspace, args, live, checks, pending))
        except KeyboardInterrupt:  # Ctrl-C: the rows that ran, those in flight as far as they went
            interrupted = True
        finally:  # the rows shown out before anything else is printed
            pending.write()
    if interrupted:
        for number in sorted(flight):
            row = flight.pop(number)
            if row.result.interrupted:
                shown_row(row, row.result, workspace, args, printed)
            ended(row)
    if text:
        print(f"{out.passed} of {out.rows} rows passed", flush=True)
    covered = out.coverage()  # None without --coverage
    if kept is None:
        failures = out.finish()
    else:
        kept.sort(key=lambda row: row.number)
        failures = write_held(kept, workspace, args, text, covered)
    from .coverage import finish

    short = finish(args, covered, sys.stdout if text else None)  # the table of every row; the minimum
    stopped = None if journal is None else journal.file.broken
    if stopped is not None:  # the journal could not be written: the rows stopped as at Ctrl-C
        print(stopped, file=sys.stderr, flush=True)
        return EXIT_USAGE
    if interrupted:
        from .report_flags import interrupted_line

        print(interrupted_line(args, out.workflows, failures), file=sys.stderr, flush=True)
        return EXIT_INTERRUPTED
    if failures:
        return EXIT_USAGE
    return EXIT_FAILED if out.failed or short else EXIT_OK


def _check(
    row: Row,
    workspace: Any,
    workflows: list[Workflow],
    env: Environment,
    args: argparse.Namespace,
    checks: BatchChecks | None = None,
) -> None:
    """The row's inputs as its run will check them (`preflight`, which fills the row's secrets): a
    usage error naming the row, masked with its secrets."""
    if checks is None or not checks.trusted:  # (a trusted batch's rows all passed these)
        where = f" (--inputs-file row {row.number}, line {row.line})"
        check_input_names(workspace, workflows, row.values, where)
        if checks is None or not _given_required(checks, workspace, workflows, row.inputs):
            check_missing(env, workspace, workflows, row.inputs, where)
    several = len(workflows) > 1
    per_workflow = {w.workflow_id: inputs_for(w, row.inputs, several) for w in workflows}
    # a workflow that cannot run with one meaning (the validator's findings, or what it reaches) is
    # refused and the others are checked on: each row's run reports it not run, as a single run does
    refused = admitted(workspace, workflows, checks)
    stopped: dict[str, Any] = dict.fromkeys(refused)
    try:
        preflight(workspace, workflows, per_workflow, row.inputs, row.options, refused=stopped, checks=checks)
    except UsageError as exc:  # invalid inputs quote the values: masked like a single run's
        where = f" (--inputs-file row {row.number}, line {row.line})"
        raise UsageError(masker_for(args, row.options, workspace).text(f"{exc}{where}")) from None
    if len(stopped) == len(workflows):  # none can run: the first one's own problem, as before
        first = next((error for error in stopped.values() if error is not None), None)
        if first is not None:
            raise first
        raise NotRunnable(workspace.file, [(w.workflow_id, refused[w.workflow_id]) for w in workflows])


def _given_required(checks: BatchChecks, workspace: Any, workflows: list[Workflow], inputs: dict) -> bool:
    """Whether `inputs` hold every input the workflows require and give no default for (the rule of
    `check_missing`, which words what is missing), the names found once for the batch."""
    for workflow in workflows:
        key = ("required inputs", id(workspace), workflow.workflow_id)
        names: frozenset[str] | None = checks.found.get(key)
        if names is None:
            names = checks.found[key] = _required(workspace, workflow)
        if not names.issubset(inputs):  # (a row of the check pass: no loop in Python)
            return False
    return True


def _required(workspace: Any, workflow: Workflow) -> frozenset[str]:
    from ..report.listing import input_entries

    entries = input_entries(workflow, workspace.document.raw)
    return frozenset(e["name"] for e in entries if e["required"] and "default" not in e)


def _named(exc: UsageError, row: Row, workspace: Any, args: argparse.Namespace) -> UsageError:
    """A row's usage error as the check pass gives it (`_check`): naming the row, masked with the row's
    secrets (its invalid inputs are quoted, a secret one too)."""
    where = f" (--inputs-file row {row.number}, line {row.line})"
    return UsageError(masker_for(args, row.options, workspace).text(f"{exc}{where}"))


async def _run_all(
    rows: Iterator[Row],
    flight: dict[int, Row],
    ended: Callable[[Row], None],
    printed: list[int],
    workspace: Any,
    args: argparse.Namespace,
    live: bool,
    checks: BatchChecks | None = None,
    held: HeldText | None = None,
) -> None:
    """Run the rows, `args.concurrency` at a time: a row is read when a place is free, is in `flight`
    while it runs, and goes to `ended` when its run is over."""
    import asyncio

    from ..api import arun_into
    from ..executor.runtime import PooledRuntime
    from ..result import RunResult

    gate = asyncio.Semaphore(args.concurrency)
    running: set[asyncio.Task[None]] = set()
    raised: list[asyncio.Task[None]] = []  # the rows whose run raised
    runtime = PooledRuntime()  # the rows' clients share its keep-alive connections; each its own cookies
    submit = None
    if getattr(
        args, "temporal", None
    ):  # each row a workflow execution on the workers, `--concurrency` at once
        from .temporal import replay_events, submitter

        submit = await submitter(args)

    async def one(row: Row) -> None:
        try:
            if live:  # before its run: its reporter's masker, over the secrets its check found (and the
                print(_header(row, row_masker(row, workspace, args), printed), flush=True)  # run will)
            flight[row.number] = row  # its run begins (a task cancelled before it began is no row run)
            if submit is None:
                try:
                    result = await arun_into(
                        row.result,
                        workspace,
                        args.workflows,
                        row.inputs,
                        options=row.options,
                        runtime=runtime,
                        checks=checks,
                    )
                except UsageError as exc:  # a row read after its file changed, checked in its run (its
                    raise _named(exc, row, workspace, args) from None  # inputs, their names): named
            else:
                result = row.result = await submit(workspace, row.inputs, row.options, row.line)
                replay_events(result, row.options.on_event)
            shown_row(row, result, workspace, args, printed, held)
            del flight[row.number]
            ended(row)
        finally:
            gate.release()

    def forget(task: asyncio.Task[None]) -> None:  # one that raised stays, for the gather to raise it
        if task.cancelled() or task.exception() is None:
            running.discard(task)
        else:
            raised.append(task)

    try:
        while True:  # a place first, then the row: read (and, live, checked) when it can start, so
            await gate.acquire()  # a row that fails its check never stops the row before it unstarted
            if raised:
                break  # a row's run raised: no more rows start, the gather below raises it
            row = next(rows, None)
            if row is None:
                break
            row.result = RunResult()
            task = asyncio.create_task(one(row))
            running.add(task)
            task.add_done_callback(forget)
        await asyncio.gather(*running)
    finally:  # Ctrl-C (or a row that raised): the rows in flight end as interrupted before their pool
        pending = [task for task in running if not task.done()]  # closes (which fails their requests)
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)
        await runtime.aclose()
