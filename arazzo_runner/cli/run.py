"""`arazzo run FILE`: validate, gather inputs and options, run, print, exit 0 / 1 / 2."""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Iterator
from typing import Any

from . import coverage, journal_flags, limit_flags, replay_flags, temporal
from .common import EXIT_USAGE, add_document, dump_json, load_document, pairs
from .http_flags import add_run_flags, file_inputs, run_options, warn_unread_variables
from .input_flags import Environment, add_input_flags, check_missing, environment_inputs, load_environment
from .report_flags import (
    add_report_flags,
    attach_output,
    check_report_flags,
    finish_run,
    masked_errors,
    masker_for,
    traced,
)
from .run_flags import (
    add_batch_flags,
    add_input_values,
    add_step_flags,
    add_target_flags,
    check_source_names,
    gather_inputs,
    leave_out_others_inputs,
    refuse_invalid,
)


def register(commands: Any) -> None:
    run = commands.add_parser("run", help="run workflows of an Arazzo document")
    add_document(run)
    run.add_argument(
        "--workflow",
        "-w",
        action="append",
        dest="workflows",
        metavar="ID",
        help="workflow to run (repeatable; default: every workflow in document order)",
    )
    add_input_values(run)
    add_target_flags(run)
    run.add_argument(
        "--format", choices=("text", "json"), default="text", help="output format (default text)"
    )
    add_step_flags(run)
    add_run_flags(run)
    limit_flags.add_flags(run)
    add_input_flags(run)
    add_batch_flags(run)
    journal_flags.add_flags(run)
    temporal.add_flags(run)
    add_report_flags(run)
    coverage.add_flags(run)
    run.set_defaults(handler=run_command)


def run_command(args: argparse.Namespace) -> int:
    from ..bounds.deadline import Deadline, arm

    check_report_flags(args)
    coverage.check_flags(args)
    journal_flags.check_flags(args)
    temporal.check_flags(args)
    with arm(Deadline(args.deadline)):  # armed before the first fetch: loading the sources counts
        return _run_command(args)


def _run_command(args: argparse.Namespace) -> int:
    from ..api import run
    from ..executor.preflight import select_workflows
    from ..workspace.inputs import check_input_names

    workspace = load_document(args)
    selected = select_workflows(workspace, args.workflows)
    refused = refuse_invalid(workspace, selected)
    if refused:
        if args.format == "json":
            from ..report.error_json import error_document, finding_entry

            dump_json(error_document([finding_entry(f) for f in refused], EXIT_USAGE))
        return EXIT_USAGE
    env = load_environment(args)  # precedence: --input > --inputs > environment > .env > defaults
    warn_unread_variables([workspace], env.merged)  # a near miss (`ARAZZO_AUTH_API_KEY`), said first
    inputs = {**environment_inputs(env, workspace, selected), **gather_inputs(args, workspace)}
    inputs.update(file_inputs(args))
    inputs = leave_out_others_inputs(args, workspace, selected, inputs)
    servers = check_source_names(pairs(args.server, "--server"), workspace)  # keyed by family name
    setup = RunSetup(args, workspace, servers, env)
    check_input_names(workspace, selected, inputs)  # a typo is named before "missing input" is
    if args.inputs_file:
        from .batch import run_rows  # rows only: their reader, buffers and report files

        args.secret_inputs = secret_row_inputs(workspace, selected)  # for each row's masker (`masker_for`)
        with _frozen_before_the_run(ROWS_COLLECTION_THRESHOLD):  # the rows' runs, as one run's
            return run_rows(args, workspace, selected, inputs, env, setup)
    check_missing(env, workspace, selected, inputs)
    reporter, options = setup(sys.stdout if args.format == "text" and not args.dry_run else None)
    if args.dry_run:
        from .dry_run import dry_run_command

        return dry_run_command(args, workspace, inputs, options)
    from ..errors import RunInterrupted

    _import_the_http_stack(selected)
    options.journal = journal = journal_flags.open_journal(args, workspace, selected, inputs)
    try:
        with masked_errors(masker_for(args, options, workspace)), _frozen_before_the_run():
            if args.temporal:  # run by a worker; written here as a local run's
                result = temporal.run_one(args, workspace, inputs, options)
            else:
                result = run(workspace, args.workflows, inputs, options=options)
    except RunInterrupted as interrupt:  # Ctrl-C: what ran is printed and written, marked so; exit 130
        result = interrupt.result
    finally:
        if journal is not None:
            journal.close()
    journal_flags.resumed_line(journal)
    replay_flags.replayed_line(args)
    return finish_run(args, workspace, options, reporter, result, journal_flags.broken(journal))


def _import_the_http_stack(selected: list[Any]) -> None:
    """The HTTP client's modules, imported while the collector is still paused (`cli.main`) when a
    selected workflow calls an operation: httpx, and httpcore (with h11), which httpx imports only when
    its first client is made, inside the run. Imported there, their ~15,000 new objects would be the
    young generation of the collector just brought back (`_frozen_before_the_run`), walked by its first
    passes (~2-8 ms); imported here, they are frozen with the rest. A run of event-driven steps only
    (or of nested workflows only) imports them when it first needs them, as before."""
    if any(step.target_kind == "operation" for workflow in selected for step in workflow.steps):
        import httpcore  # noqa: F401
        import httpx  # noqa: F401


@contextlib.contextmanager
def _frozen_before_the_run(threshold: int | None = None) -> Iterator[None]:
    """The garbage collector leaves what exists before the run (modules, the loaded documents) out of the
    collections during it (`gc.freeze`), and takes it back after (`gc.unfreeze`). A run allocates a few
    hundred objects per step; after ~70,000 allocations CPython makes its first full collection, which
    walks every object of the process (~15 ms here: a 200-step `arazzo run` reaches it, a one-step
    one does not). What the run leaves unreachable is collected as ever, in passes every
    RUN_COLLECTION_THRESHOLD allocations rather than 700: each pass also walks the objects of the step in
    flight (a response, its parser's events), which are gone a moment later; the garbage a pass can find
    waits for at most that many allocations. Before it, `arazzo run` keeps the collector paused
    (`cli.main`); it collects again from here on. `threshold`: another than RUN_COLLECTION_THRESHOLD
    (`--inputs-file`: ROWS_COLLECTION_THRESHOLD)."""
    import gc

    gc.freeze()
    paused = not gc.isenabled()
    thresholds = gc.get_threshold()
    gc.set_threshold(max(thresholds[0], threshold or RUN_COLLECTION_THRESHOLD), *thresholds[1:])
    gc.enable()
    try:
        yield
    finally:
        gc.unfreeze()
        gc.set_threshold(*thresholds)
        if paused:
            gc.disable()  # as it was: `cli.main` enables it again when the command is over


RUN_COLLECTION_THRESHOLD = 10_000  # allocations between two passes of the youngest generation
# The same for the rows of `--inputs-file`: with 200 rows in flight, each pass walks the objects of every
# row in flight, and at 10,000 the passes cost ~110 µs of CPU a row (3,000 one-step rows: 0.36-0.44 s in
# ~65 passes); at 50,000, ~15 µs (2 passes), the peak RSS the same (57 MiB)
ROWS_COLLECTION_THRESHOLD = 50_000


class RunSetup:
    """`setup(stream)`: the console reporter on `stream` (None: JSON output) and the options of one run,
    for a single run and for each row of `--inputs-file`. The flags are read into option fields once
    (~30 µs a call), and each run's options get their own copy of what a run adds to (its secrets) or
    could (its credentials, its server variables)."""

    def __init__(self, args: argparse.Namespace, workspace: Any, servers: dict[str, str], env: Environment):
        self.args, self.workspace, self.servers, self.env = args, workspace, servers, env
        self._fields: dict[str, Any] | None = None
        self._options: Any = None  # the RunOptions of the flags, made by the first call
        self._checking: Any = None  # the options of the rows' check pass (`for_check`)
        self._reporters: dict[Any, Any] = {}  # by kind of stream (`report_flags._console`)

    def __call__(self, stream: Any) -> tuple[Any, Any]:
        args = self.args
        fields = self._fields
        if fields is None:
            from ..executor.options import RunOptions

            fields = option_fields(args, self.workspace, self.servers, self.env)
            fields["trace"] = traced(args)  # the reports that show each step in detail
            fields["idempotency_header"] = args.idempotency_header
            self._fields = fields
            self._options = RunOptions(**fields)  # the template each run's options are copied from
        # a copy of the template (its fields' values shared, as `RunOptions(**fields)` shares them: what
        # a run keeps as given), with its own of what a run adds to or could change; ~4x cheaper than
        # building it again from the fields (a row of `--inputs-file` makes one)
        template = self._options
        options = object.__new__(type(template))
        values = options.__dict__
        values.update(template.__dict__)
        values["secrets"] = set(fields["secrets"])
        values["auth"] = dict(fields["auth"])
        values["server_variables"] = dict(fields["server_variables"])
        # masked console, --verbose, progress; a row's reporter copied from the first of its stream's kind
        reporter = attach_output(args, self.workspace, options, stream, self._reporters)
        return reporter, options

    def for_check(self) -> Any:
        """The options of a row in the rows' check pass (`batch._check_all`, a row at a time, which
        uses them for that row's check alone): one RunOptions, set up as a run's by the first call, each
        call's with the secrets of the flags alone, to which the row's check adds the row's."""
        if self._checking is None:
            self._checking = self(None)[1]
        self._checking.secrets = set(self._fields["secrets"] if self._fields else ())
        return self._checking


def secret_row_inputs(workspace: Any, workflows: list[Any]) -> tuple[tuple[Any, ...], ...]:
    """The paths of the inputs (and members of inputs) that the schemas of the workflows a row runs, and
    of the workflows they depend on, mark secret: a row's header and entry show them as `***` whatever
    their type (`Masker.inputs`: a number is never masked by value)."""
    from ..executor.inputs import secret_input_paths

    found: dict[tuple[Any, ...], None] = {}
    pending, seen = [(workspace, w) for w in workflows], set()
    while pending:
        space, workflow = pending.pop()
        if (id(space), workflow.workflow_id) in seen:
            continue
        seen.add((id(space), workflow.workflow_id))
        found.update(dict.fromkeys(secret_input_paths(workflow.inputs, space.document.raw)))
        for ref in workflow.depends_on:
            target = space.resolve_workflow(ref, (*workflow.at, "dependsOn"))
            pending.append((target.workspace, target.workflow))
    return tuple(found)


def option_fields(
    args: argparse.Namespace, workspace: Any, servers: dict[str, str], env: Environment
) -> dict[str, Any]:
    """The RunOptions fields of `arazzo run`'s flags (`arazzo load` gives each of its users these)."""
    return {
        "servers": servers,
        "server_variables": pairs(args.server_var, "--server-var"),
        "timeout": args.timeout,
        "max_steps": args.max_steps,
        "parallel": args.parallel,
        "environ": env.merged,  # ARAZZO_AUTH_* / ARAZZO_SERVER_VAR_* may come from .env too
        **run_options(args, workspace),
        **limit_flags.options(args),
        "http_replay": replay_flags.opened(args),
    }
