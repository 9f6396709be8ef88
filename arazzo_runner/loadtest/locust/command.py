"""`arazzo load`'s driver: Locust's own command line, headless, with the locustfile `loadfile.py`, whose
user class comes from the flags `arazzo load` checked (`LoadSession`).

Locust does everything it does for a locustfile: statistics, `--csv`, `--html`, master and workers
(`--processes` for local workers: forked after the document is loaded and checked, so they share it),
signals. This module adds what Locust has no flag for:

- the end of the test: at `--run-time` the users are stopped first (each workflow in flight finishes,
  up to `--stop-timeout`), and only then does Locust quit, so the workers' last statistics reach the
  master (Locust's own `--run-time` quits at once, and a master waits only half a second for them);
- the thresholds, judged on the master's statistics as Locust quits: each broken one makes the exit
  code 1, and each is a test case of `--junit`;
- a last line that counts requests (steps) apart from workflow runs, which Locust's Aggregated row adds
  together;
- Ctrl-C (SIGINT) ends the test as its run time would (the workflows in flight finish, up to
  `--stop-timeout`; a second Ctrl-C stops them at once), then the statistics, the thresholds and the
  reports of what ran are printed and written as at any end, and the exit code is 130. Without this,
  the interrupt lands in whichever greenlet runs (often the engine's event loop), with a traceback, and
  the users blocked on that loop hold the end up for the whole stop timeout.
"""

from __future__ import annotations

import logging
import signal
import sys
import time
from pathlib import Path
from typing import Any

import gevent

from ...records import Record, field
from ..naming import WORKFLOW_PREFIX
from ..plan import LoadPlan
from ..thresholds import Threshold, Verdict, judge, rows_of
from .user import ArazzoUser

LOADFILE = Path(__file__).with_name("loadfile.py")
_COVERAGE = "arazzo_coverage"  # the member of a worker's statistics report that carries its coverage
_LAST_REPORTS = 10.0  # seconds past the stop timeout a master waits for its workers to quit
logger = logging.getLogger(__name__)


class LoadSession(Record):
    """What `arazzo load` hands to the locustfile and to the end of the test."""

    plan: LoadPlan
    thresholds: list[Threshold] = field(default_factory=list)
    junit: str | None = None
    run_time: float | None = None  # seconds; None: until interrupted
    stop_timeout: float = 0.0
    wait_time: tuple[float, float] = (0.0, 0.0)
    verdicts: list[Verdict] = field(default_factory=list)
    summary: list[str] = field(default_factory=list)
    report_error: str | None = None
    started: bool = False
    not_run: list[str] = field(default_factory=list)  # selected workflows that cannot run (named before)
    forked_workers: bool = False  # `--workers K`: the workers are this process's children
    interrupts: int = 0  # Ctrl-C received by this process
    coverage_minimum: dict[str, float] | None = None  # `--min-coverage`
    coverage_lines: list[str] = field(default_factory=list)  # the table, then each figure below it


class Current:
    """The session of this process (one `arazzo load` per process)."""

    session: LoadSession | None = None


def user_class() -> type[ArazzoUser]:
    """The user class of the session: the plan already loaded and checked, the flags' wait time."""
    from locust import between, constant

    session = Current.session
    if session is None:
        raise RuntimeError("the arazzo load locustfile is run by `arazzo load`, not by Locust alone")
    low, high = session.wait_time
    attributes = {
        "__module__": __name__,
        "__doc__": "The workflows `arazzo load` was given.",
        "_arazzo_plan": session.plan,
        "document": session.plan.workspace,
        "wait_time": constant(low) if low == high else between(low, high),
    }
    return type("ArazzoLoad", (ArazzoUser,), attributes)


def run(session: LoadSession, locust_args: list[str]) -> int:
    """Run Locust's command line with `locust_args` (after `-f loadfile.py`); the exit code. In a
    forked worker process it returns there too, with the worker's code."""
    import locust
    from locust.main import main

    Current.session = session
    events = locust.events
    events.init.add_listener(_on_init)
    events.test_start.add_listener(_on_test_start)
    events.quitting.add_listener(_on_quitting)
    events.quit.add_listener(_on_quit)
    events.report_to_master.add_listener(_on_report_to_master)
    events.worker_report.add_listener(_on_worker_report)
    quiet = _NoRunTimeNotice() if session.run_time else None
    if quiet is not None:
        logging.getLogger("locust.main").addFilter(quiet)
    saved, sys.argv = sys.argv, ["locust", "-f", str(LOADFILE), *locust_args]
    try:
        main()
        code = 0
    except SystemExit as exit:
        code = exit.code if isinstance(exit.code, int) else (0 if exit.code is None else 1)
    finally:
        sys.argv = saved
        if quiet is not None:
            logging.getLogger("locust.main").removeFilter(quiet)
    return code


def _on_init(environment: Any, **_: Any) -> None:
    """Ctrl-C, as this process's role calls for: a master or a lone process ends the test (`_interrupt`);
    a worker it forked leaves it to the master, whose quit message stops it with its last statistics
    (the terminal sends SIGINT to the whole process group); a worker started on its own keeps Locust's
    handling."""
    session = Current.session
    if session is None:
        return
    if not _is_worker(environment):
        gevent.signal_handler(signal.SIGINT, _interrupt, environment)
    elif session.forked_workers:
        gevent.signal_handler(signal.SIGINT, lambda: None)


def _interrupt(environment: Any) -> None:
    session = Current.session
    if session is None:
        return
    session.interrupts += 1
    if session.interrupts == 1:
        logger.warning(
            "interrupted (Ctrl-C): stopping the users; the workflows in flight finish (up to %g s; Ctrl-C "
            "again to stop them at once)",
            session.stop_timeout,
        )
        gevent.spawn(_end, environment, "")
    else:
        logger.warning("interrupted again: stopping the users at once")
        environment.stop_timeout = 0
        environment.runner.quit()


def _on_test_start(environment: Any, **_: Any) -> None:
    session = Current.session
    if session is None or _is_worker(environment) or session.started:
        return
    session.started = True
    if session.run_time:
        logger.info(
            "Run time limit set to %g seconds; then the workflows in flight get up to %g s to finish",
            session.run_time,
            session.stop_timeout,
        )
        gevent.spawn_later(session.run_time, _end, environment)


def _end(environment: Any, reason: str = "--run-time limit reached") -> None:
    """Stop the users, their workflows in flight finishing (up to --stop-timeout), then quit.

    A master does not `stop()` its workers (Locust forgets a worker that reports it stopped, and drops
    its later statistics): it sends them Locust's quit message itself, which a worker answers by
    stopping its users (gracefully), sending its last statistics and then saying it quit; when the last
    one has, Locust's master quits by itself. `MasterRunner.quit()` would wait half a second for those
    last statistics, whatever the stop timeout."""
    from locust.rpc import Message
    from locust.runners import MasterRunner

    if reason:
        logger.info("%s, stopping the users", reason)
    runner = environment.runner
    if not isinstance(runner, MasterRunner):
        runner.stop()
        runner.quit()
        return
    runner.stop(send_stop_to_client=False)  # no new spawn, no rebalancing as workers leave
    for client in list(runner.clients.all):
        runner.server.send_to_client(Message("quit", None, client.id))
    give_up = time.monotonic() + environment.stop_timeout + _LAST_REPORTS
    while runner.clients.all and time.monotonic() < give_up:
        gevent.sleep(0.05)
    if runner.clients.all:
        logger.warning("workers that did not quit in time: %s", ", ".join(c.id for c in runner.clients.all))
        runner.quit()


def _on_quitting(environment: Any, **_: Any) -> None:
    session = Current.session
    if session is None or _is_worker(environment):
        return
    stats = environment.runner.stats if environment.runner is not None else environment.stats
    session.verdicts = [judge(t, rows_of(t, stats.entries)) for t in session.thresholds]
    session.summary = _summary(stats)
    if session.junit:
        from ..junit import write_load_junit

        try:
            write_load_junit(session.junit, session.verdicts, stats)
        except OSError as exc:
            session.report_error = f"--junit {session.junit}: cannot write: {exc.strerror or exc}"
    below = _coverage(session)
    if session.report_error:
        environment.process_exit_code = 2
    elif session.interrupts:
        environment.process_exit_code = 130  # as `arazzo run`: what ran was reported, and it was cut short
    elif session.not_run or below or any(not v.passed for v in session.verdicts):
        environment.process_exit_code = 1


def _coverage(session: LoadSession) -> bool:
    """`--coverage`: the table of the runs of this process kept for the last lines; whether a figure is
    below `--min-coverage` (each said after the table, with what was missed)."""
    tally = session.plan.coverage
    if tally is None:
        return False
    from ...report.coverage_text import below, table

    section = tally.section(session.plan.workspace)
    short = below(section, session.coverage_minimum) if session.coverage_minimum else []
    session.coverage_lines = [*table(section), *short]
    return bool(short)


def _on_report_to_master(client_id: str, data: dict[str, Any], **_: Any) -> None:
    """A worker's statistics report (every few seconds, and a last one as it quits) carries what its
    runs called since the one before (`--coverage`)."""
    session = Current.session
    if session is not None and session.plan.coverage is not None:
        data[_COVERAGE] = session.plan.coverage.drain()


def _on_worker_report(client_id: str, data: dict[str, Any], **_: Any) -> None:
    """The master counts what each worker's report carries: its table is every worker's runs."""
    session = Current.session
    if session is not None and session.plan.coverage is not None:
        session.plan.coverage.absorb(data.get(_COVERAGE))


def _on_quit(exit_code: int = 0, **_: Any) -> None:
    session = Current.session
    if session is None or not (session.summary or session.verdicts or session.coverage_lines):
        return
    from ..junit import verdict_lines

    not_run = [
        f"workflow '{w}' was not run: it cannot run with one meaning (listed before the test)"
        for w in session.not_run
    ]
    lines = [*session.summary, *not_run, *verdict_lines(session.verdicts), *session.coverage_lines]
    if session.interrupts:
        lines.append("arazzo load: interrupted (Ctrl-C); the statistics are those of what ran until then")
    print("\n".join(lines), flush=True)
    if session.report_error:
        print(f"error: {session.report_error}", file=sys.stderr, flush=True)


def _summary(stats: Any) -> list[str]:
    steps = runs = failed_steps = failed_runs = 0
    for (name, _), entry in stats.entries.items():
        if name.startswith(WORKFLOW_PREFIX):
            runs, failed_runs = runs + entry.num_requests, failed_runs + entry.num_failures
        else:
            steps, failed_steps = steps + entry.num_requests, failed_steps + entry.num_failures
    return [
        f"arazzo load: {steps} steps run ({failed_steps} failed), {runs} workflow runs ({failed_runs} failed)"
    ]


def _is_worker(environment: Any) -> bool:
    from locust.runners import WorkerRunner

    return isinstance(environment.runner, WorkerRunner)


class _NoRunTimeNotice(logging.Filter):
    """Locust says "No run time limit set" when it is not given `--run-time`: `arazzo load` keeps the
    run time itself (see the module's docstring), so that line would be untrue."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith("No run time limit set")
