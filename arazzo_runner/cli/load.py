"""`arazzo load FILE`: the workflows as Locust users, headless, without a locustfile; exit 0 / 1 / 2.

Everything `arazzo run` would check is checked first, with its messages (the document, the inputs of
every row, the servers, credentials), and every threshold is parsed and named; only then is Locust
imported and started (`arazzo_runner.loadtest.locust.command`). Exit 1 when a threshold is broken or a request
failed (Locust's rule), 2 for a usage error, Locust's own code otherwise. Details: docs/load.md.
"""

from __future__ import annotations

import argparse
import re
import sys
from typing import Any

from ..errors import UsageError
from . import coverage
from .common import EXIT_USAGE, add_document, load_document, pairs, positive_float, positive_int
from .run_flags import add_input_values, add_step_flags, add_target_flags

DEFAULT_MASTER_PORT = 5557  # Locust's
_SPAN = re.compile(r"(?:(\d+)h)?\s*(?:(\d+)m(?!s))?\s*(?:(\d+(?:\.\d+)?)s)?")
_MASTER_ONLY = (("threshold", "--threshold"), ("csv", "--csv"), ("html", "--html"), ("junit", "--junit"))


def register(commands: Any) -> None:
    load = commands.add_parser(
        "load",
        help="load-test workflows: Locust users that run them (needs the [load] extra)",
    )
    add_document(load)
    load.add_argument(
        "--workflow",
        "-w",
        action="append",
        dest="workflows",
        metavar="ID[=WEIGHT]",
        help="workflow the users run, with its weight among several (repeatable; default: every one)",
    )
    _add_run_flags(load)
    coverage.add_flags(load)
    load.add_argument(
        "--inputs-file", metavar="PATH", help="JSON Lines: rows of inputs, cycled over the users"
    )
    load.add_argument(
        "--rows-per",
        choices=("user", "iteration"),
        default="user",
        help="each user keeps one row (default), or every run takes the next row",
    )
    load.add_argument("--users", "-u", type=positive_int, default=1, metavar="N", help="users (default 1)")
    load.add_argument(
        "--spawn-rate",
        "-r",
        type=positive_float,
        metavar="R",
        help="users started per second (default: all at once)",
    )
    load.add_argument(
        "--run-time",
        "-t",
        type=timespan,
        default=30.0,
        metavar="TIME",
        help="e.g. 30s, 5m, 1h30m (default 30s)",
    )
    load.add_argument(
        "--stop-timeout",
        type=timespan,
        default=10.0,
        metavar="TIME",
        help="at the end, time the workflows in flight get to finish (default 10s; 0: stop them at once)",
    )
    load.add_argument(
        "--wait-time",
        type=wait_span,
        default=(0.0, 0.0),
        metavar="SECONDS|MIN-MAX",
        help="each user's pause between two runs, fixed or random in a range (default 0)",
    )
    _add_distribution_flags(load)
    load.add_argument(
        "--csv", metavar="PREFIX", help="Locust's CSV statistics: PREFIX_stats.csv and the rest"
    )
    load.add_argument("--html", metavar="PATH", help="Locust's HTML report")
    load.add_argument(
        "--threshold",
        action="append",
        default=[],
        metavar="EXPR",
        help="e.g. p95(createOrder)<300ms, failures(checkout)<1%%, rps(checkout)>=50 (repeatable; a broken "
        "one: exit 1)",
    )
    load.add_argument(
        "--junit",
        metavar="PATH",
        help="a JUnit XML report: a test case per threshold (its folder made, like --csv's)",
    )
    load.add_argument("--only-summary", action="store_true", help="no statistics table every 2 seconds")
    load.add_argument(
        "--no-mask", action="store_true", help="secrets in clear in the statistics (local debugging only)"
    )
    load.add_argument(
        "--locust-args",
        default="",
        metavar="'ARGS'",
        help="more of Locust's own flags, as one string: --locust-args '--loglevel DEBUG --tags checkout'",
    )
    load.set_defaults(handler=load_command)


def _add_run_flags(load: argparse.ArgumentParser) -> None:
    """`arazzo run`'s flags of what a run is given: inputs, servers, credentials, limits, environment."""
    from . import limit_flags
    from .http_flags import add_run_flags
    from .input_flags import add_input_flags

    add_input_values(load)
    add_target_flags(load)
    add_step_flags(load)
    add_run_flags(load)
    limit_flags.add_flags(load)
    add_input_flags(load)


def _add_distribution_flags(load: argparse.ArgumentParser) -> None:
    load.add_argument(
        "--workers",
        type=int,
        default=0,
        metavar="K",
        help="K local worker processes and a master (default 0)",
    )
    load.add_argument(
        "--expect-workers",
        type=positive_int,
        metavar="N",
        help="be the master of N workers started elsewhere (`arazzo load ... --worker`), and start once all "
        "have joined",
    )
    load.add_argument(
        "--master-bind",
        default="127.0.0.1",
        metavar="HOST",
        help="interface the master listens on (default 127.0.0.1; 0.0.0.0 for workers on other machines)",
    )
    load.add_argument(
        "--master-port",
        type=positive_int,
        default=DEFAULT_MASTER_PORT,
        metavar="PORT",
        help=f"the master's port (default {DEFAULT_MASTER_PORT})",
    )
    load.add_argument("--worker", action="store_true", help="be a worker of the master at --master-host")
    load.add_argument(
        "--master-host", metavar="HOST", help="with --worker: the master's host (default 127.0.0.1)"
    )


def load_command(args: argparse.Namespace) -> int:
    from ..loadtest import locust_installed, missing_locust

    if not locust_installed():
        raise UsageError(missing_locust())
    check_roles(args)
    coverage.check_flags(args)
    from ..loadtest.locust import (
        command,  # imports Locust, which patches the process with gevent from here on
    )

    session = build_session(args)
    if session is None:
        return EXIT_USAGE
    return command.run(session, locust_argv(args))


def check_roles(args: argparse.Namespace) -> None:
    """The flags of a master, a worker and a lone process are not mixed."""
    if args.workers < 0:
        raise UsageError("--workers must be 0 or more")
    if args.worker:
        given = [flag for name, flag in _MASTER_ONLY if getattr(args, name)]
        if args.workers or args.expect_workers:
            given.append("--workers" if args.workers else "--expect-workers")
        if given:
            raise UsageError(f"{given[0]} is the master's: a --worker takes none (give it to the master)")
    elif args.master_host:
        raise UsageError("--master-host names the master a --worker joins; add --worker")
    if args.workers and args.expect_workers:
        raise UsageError(
            "--expect-workers counts workers started elsewhere; with --workers K the master waits for its K"
        )


def build_session(args: argparse.Namespace) -> Any:
    """The checked session, or None when the document was refused (its findings are on stderr)."""
    from ..executor.preflight import select_workflows
    from ..executor.rows import read_rows
    from ..loadtest.locust.command import LoadSession
    from ..loadtest.plan import LoadPlan
    from ..loadtest.thresholds import parse, resolve
    from ..workspace.inputs import check_input_names
    from .http_flags import file_inputs, warn_unread_variables
    from .input_flags import check_missing, environment_inputs, load_environment
    from .report_flags import NO_MASK_WARNING
    from .run import option_fields
    from .run_flags import check_source_names, gather_inputs, leave_out_others_inputs, refuse_invalid

    workspace = load_document(args)
    weights = workflow_weights(args.workflows, workspace)
    args.workflows = list(weights)  # as `arazzo run` has them: inputs are coerced by their schemas
    selected = select_workflows(workspace, list(weights))
    if refuse_invalid(workspace, selected):
        return None
    from ..validate.admission import admit

    not_run = list(admit(workspace, selected).refused)  # named on stderr; the others are the test
    if not_run:
        weights = {w: n for w, n in weights.items() if w not in not_run}
        args.workflows = list(weights)
        selected = [w for w in selected if w.workflow_id not in not_run]
    env = load_environment(args)  # precedence as in `arazzo run`: --input > --inputs > environment > .env
    warn_unread_variables([workspace], env.merged)
    inputs = {**environment_inputs(env, workspace, selected), **gather_inputs(args, workspace)}
    inputs.update(file_inputs(args))
    inputs = leave_out_others_inputs(args, workspace, selected, inputs)
    servers = check_source_names(pairs(args.server, "--server"), workspace)  # keyed by family name
    check_input_names(workspace, selected, inputs)
    rows = read_rows(args.inputs_file) if args.inputs_file else None
    labels = []
    for number, (line, values) in enumerate(rows or [], 1):
        where = f" (--inputs-file row {number}, line {line})"
        check_input_names(workspace, selected, values, where)
        check_missing(env, workspace, selected, {**inputs, **values}, where)
        labels.append(where)
    if rows is None:
        check_missing(env, workspace, selected, inputs)
    thresholds = [resolve(parse(text), workspace) for text in args.threshold]
    if args.no_mask:
        print(NO_MASK_WARNING, file=sys.stderr)
    fields = option_fields(args, workspace, servers, env)
    row_values = [v for _, v in rows] if rows is not None else None
    plan = LoadPlan(workspace, weights, inputs, row_values, args.rows_per, fields, mask=not args.no_mask)
    plan.check(labels or None)
    if args.coverage:  # each run's exchanges counted as it ends (`ArazzoUser.run_workflow`)
        from ..report.coverage import Tally

        plan.coverage = Tally()
    return LoadSession(
        plan,
        thresholds,
        not_run=not_run,
        junit=args.junit,
        run_time=args.run_time,
        stop_timeout=args.stop_timeout,
        wait_time=args.wait_time,
        forked_workers=args.workers > 0,
        coverage_minimum=args.coverage_minimum,
    )


def locust_argv(args: argparse.Namespace) -> list[str]:
    """Locust's command line for these flags (after `-f`)."""
    argv = ["--headless", "--stop-timeout", f"{args.stop_timeout:g}"]
    if args.only_summary:
        argv.append("--only-summary")
    port = str(args.master_port)
    if args.worker:
        argv += ["--worker", "--master-host", args.master_host or "127.0.0.1", "--master-port", port]
        return [*argv, *_locust_args(args)]
    rate = args.spawn_rate if args.spawn_rate is not None else float(args.users)
    argv += ["--users", str(args.users), "--spawn-rate", f"{rate:g}"]
    if args.csv:
        argv += ["--csv", args.csv]
    if args.html:
        argv += ["--html", args.html]
    bind = ["--master-bind-host", args.master_bind, "--master-bind-port", port]
    if args.workers:
        own = "127.0.0.1" if args.master_bind in ("0.0.0.0", "*", "::") else args.master_bind
        # the forked workers connect to the master they came from; it waits a minute at most for them
        argv += ["--processes", str(args.workers), *bind, "--master-host", own, "--master-port", port]
        argv += ["--expect-workers-max-wait", "60"]
    elif args.expect_workers:
        argv += ["--master", "--expect-workers", str(args.expect_workers), *bind]
    return [*argv, *_locust_args(args)]


def _locust_args(args: argparse.Namespace) -> list[str]:
    import shlex

    try:
        return shlex.split(args.locust_args)
    except ValueError as exc:
        raise UsageError(f"--locust-args {args.locust_args!r}: {exc}") from None


def workflow_weights(items: list[str] | None, workspace: Any) -> dict[str, int]:
    """`--workflow ID[=WEIGHT]` as {id: weight} (an id that names a workflow is taken whole)."""
    if not items:
        return {w.workflow_id: 1 for w in workspace.document.workflows}
    weights: dict[str, int] = {}
    for item in items:
        workflow_id, weight = item, 1
        if workspace.document.workflow(item) is None and "=" in item:
            workflow_id, _, text = item.rpartition("=")
            if not text.isdigit():
                raise UsageError(
                    f"--workflow {item}: the weight after '=' is a whole number, e.g. {workflow_id}=3"
                )
            weight = int(text)
        weights[workflow_id] = weight
    if not any(weights.values()):
        raise UsageError("--workflow: every weight is 0; at least one workflow must run")
    return {workflow_id: weight for workflow_id, weight in weights.items() if weight}


def timespan(text: str) -> float:
    """Seconds from `30`, `30s`, `5m`, `1h30m` (Locust's forms); 0 or more."""
    value = text.strip().lower()
    if re.fullmatch(r"\d+(?:\.\d+)?", value):
        return float(value)
    match = _SPAN.fullmatch(value)
    if match is None or not any(match.groups()):
        raise argparse.ArgumentTypeError(f"expected a time such as 30s, 5m or 1h30m, got {text!r}")
    hours, minutes, secs = (float(g) if g else 0.0 for g in match.groups())
    return hours * 3600 + minutes * 60 + secs


def wait_span(text: str) -> tuple[float, float]:
    low, sep, high = text.partition("-")
    try:
        pair = (float(low), float(high) if sep else float(low))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected SECONDS or MIN-MAX, got {text!r}") from None
    if pair[0] < 0 or pair[1] < pair[0]:
        raise argparse.ArgumentTypeError(f"expected 0 <= MIN <= MAX, got {text!r}")
    return pair
