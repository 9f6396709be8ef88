"""`arazzo run FILE`: validate, gather inputs and options, run, print, exit 0 / 1 / 2."""

from __future__ import annotations

import argparse
import functools
import sys
from typing import Any

from ..errors import UsageError
from ..limits import DEFAULT_MAX_STEPS
from . import limit_flags
from .batch import add_batch_flags, run_rows
from .common import (
    EXIT_USAGE,
    add_document,
    dump_json,
    load_document,
    pairs,
    positive_float,
    positive_int,
    read_json_or_file,
)
from .http_flags import add_run_flags, file_inputs, run_options
from .input_flags import Environment, add_input_flags, check_missing, environment_inputs, load_environment
from .report_flags import (
    add_report_flags,
    attach_output,
    check_report_flags,
    finish_run,
    masked_errors,
    masker_for,
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
    add_engine_flags(run)
    run.add_argument(
        "--format", choices=("text", "json"), default="text", help="output format (default text)"
    )
    add_batch_flags(run)
    add_report_flags(run)
    run.set_defaults(handler=run_command)


def add_engine_flags(parser: argparse.ArgumentParser) -> None:
    """The flags of what a run is given (inputs, servers, credentials, limits): `arazzo run`'s, which
    `arazzo load` takes as they are."""
    parser.add_argument("--inputs", metavar="JSON|PATH", help="inputs as a JSON object or a JSON/YAML file")
    parser.add_argument(
        "--input",
        "-i",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="one input, coerced to the type its schema declares (repeatable)",
    )
    parser.add_argument(
        "--server",
        action="append",
        default=[],
        metavar="NAME=URL",
        help="base URL for the source description NAME (repeatable)",
    )
    parser.add_argument(
        "--server-var",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="value of an OpenAPI server variable, NAME or SOURCE.NAME (repeatable)",
    )
    parser.add_argument(
        "--max-steps",
        type=positive_int,
        default=DEFAULT_MAX_STEPS,
        metavar="N",
        help=f"stop after N step executions, a guard against goto loops (default {DEFAULT_MAX_STEPS})",
    )
    parser.add_argument(
        "--timeout",
        type=positive_float,
        default=30.0,
        metavar="SECONDS",
        help="timeout of each HTTP exchange (default 30)",
    )
    add_run_flags(parser)
    limit_flags.add_flags(parser)
    add_input_flags(parser)


def run_command(args: argparse.Namespace) -> int:
    from ..deadline import Deadline, arm

    check_report_flags(args)
    with arm(Deadline(args.deadline)):  # armed before the first fetch: loading the sources counts
        return _run_command(args)


def _run_command(args: argparse.Namespace) -> int:
    from ..api import run, select_workflows
    from ..executor.input_names import check_input_names

    workspace = load_document(args)
    selected = select_workflows(workspace, args.workflows)
    refused = refuse_invalid(workspace, selected)
    if refused:
        if args.format == "json":
            from ..report.error_json import error_document, finding_entry

            dump_json(error_document([finding_entry(f) for f in refused], EXIT_USAGE))
        return EXIT_USAGE
    env = load_environment(args)  # precedence: --input > --inputs > environment > .env > defaults
    inputs = {**environment_inputs(env, workspace, selected), **gather_inputs(args, workspace)}
    inputs.update(file_inputs(args))
    servers = pairs(args.server, "--server")
    check_source_names(servers, workspace)
    setup = functools.partial(run_setup, args, workspace, servers, env)
    check_input_names(workspace, selected, inputs)  # a typo is named before "missing input" is
    if args.inputs_file:
        return run_rows(args, workspace, selected, inputs, env, setup)
    check_missing(env, workspace, selected, inputs)
    reporter, options = setup(sys.stdout if args.format == "text" and not args.dry_run else None)
    if args.dry_run:
        from .dry_run import dry_run_command

        return dry_run_command(args, workspace, inputs, options)
    with masked_errors(masker_for(args, options, workspace)):
        result = run(workspace, args.workflows, inputs, options=options)
    return finish_run(args, workspace, options, reporter, result)


def run_setup(
    args: argparse.Namespace, workspace: Any, servers: dict[str, str], env: Environment, stream: Any
) -> tuple[Any, Any]:
    """The console reporter on `stream` (None: JSON output) and the options of one run; `--inputs-file`
    calls it once per row."""
    from ..executor.options import RunOptions

    options = RunOptions(**option_fields(args, workspace, servers, env))
    reporter = attach_output(args, workspace, options, stream)  # masked console, --verbose, progress
    return reporter, options


def option_fields(
    args: argparse.Namespace, workspace: Any, servers: dict[str, str], env: Environment
) -> dict[str, Any]:
    """The RunOptions fields the engine flags (`add_engine_flags`) give."""
    return {
        "servers": servers,
        "server_variables": pairs(args.server_var, "--server-var"),
        "timeout": args.timeout,
        "max_steps": args.max_steps,
        "environ": env.merged,  # ARAZZO_AUTH_* / ARAZZO_SERVER_VAR_* may come from .env too
        **run_options(args, workspace),
        **limit_flags.options(args),
    }


def refuse_invalid(workspace: Any, selected: list[Any]) -> list[Any]:
    """`arazzo run` validates first: a document with errors in a workflow the run can reach (`selected`,
    and what they call or depend on) is refused (its findings on stderr, and returned); errors in other
    workflows are one warning line each, and the run goes on. A document that validated clean before,
    unchanged with all it reads, is not validated again; only a document without any error is
    remembered so."""
    from ..validate.cache import ValidationCache

    cache = ValidationCache.default()
    if cache is not None and cache.is_clean(workspace):
        return []
    from ..validate import errors_for_run, validate_workspace
    from ..validate.format import format_findings
    from ..validate.reach import unreachable_errors

    errors = errors_for_run(workspace, selected)
    report = validate_workspace(workspace)  # memoised: the validation errors_for_run did
    if not report.errors:
        if cache is not None:
            cache.remember_clean(workspace)
        return []
    if errors:
        sys.stderr.write(format_findings(errors))
        print(f"error: {workspace.file} has {len(errors)} error(s); nothing was run", file=sys.stderr)
        return errors
    for workflow_id, group in unreachable_errors(report.findings, workspace, selected).items():
        print(
            f"warning: workflow '{workflow_id}' has {len(group)} error(s) and is not run by this run "
            f"(`arazzo validate {workspace.file}` lists them)",
            file=sys.stderr,
        )
    return []


def gather_inputs(args: argparse.Namespace, workspace: Any) -> dict[str, Any]:
    """`--inputs` then `--input KEY=VALUE` (coerced to the type the inputs schema declares)."""
    from ..executor.inputs import coerce_cli_value, input_schema_for

    inputs: dict[str, Any] = {}
    if args.inputs:
        inputs.update(read_json_or_file(args.inputs, "--inputs"))
    document = workspace.document
    workflows = [document.workflow(w) for w in (args.workflows or [])] or document.workflows
    for item in args.input:
        key, sep, text = item.partition("=")
        if not sep or not key:
            raise UsageError(f"--input expects KEY=VALUE, got {item!r}")
        schemas = (input_schema_for(w.inputs, key, document.raw) for w in workflows if w)
        inputs[key] = coerce_cli_value(text, next((s for s in schemas if s), {}))
    return inputs


def check_source_names(servers: dict[str, str], workspace: Any) -> None:
    """`--server NAME=URL` must name a source description (of this document or of an arazzo source)
    and give an absolute http(s) URL."""
    for name, url in servers.items():
        if not url.lower().startswith(("http://", "https://")):
            raise UsageError(f"--server {name}={url}: expected an absolute http:// or https:// URL")
    own = {entry.name for entry in workspace.document.sources}
    if servers.keys() <= own:
        return  # nothing fetched: the sources of arazzo sources are read only for a name not found here
    known = [entry.name for _, entry in workspace.family(skip_unloadable=True)]
    for name in servers:
        if name not in known:
            names = ", ".join(dict.fromkeys(known)) or "none"
            raise UsageError(f"--server {name}=...: no source description named '{name}' (sources: {names})")
