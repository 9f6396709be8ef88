"""`arazzo` command line: parse flags, call the library, print, exit with 0 / 1 / 2."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from . import __version__
from .errors import ArazzoError, DocumentError, UsageError

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="arazzo", description="Run and validate Arazzo workflows.")
    parser.add_argument("--version", action="version", version=f"arazzo {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    run = commands.add_parser("run", help="run workflows of an Arazzo document")
    run.add_argument("file", help="the Arazzo document (YAML or JSON)")
    run.add_argument(
        "--workflow",
        "-w",
        action="append",
        dest="workflows",
        metavar="ID",
        help="workflow to run (repeatable; default: every workflow in document order)",
    )
    run.add_argument("--inputs", metavar="JSON|PATH", help="inputs as a JSON object or a JSON/YAML file")
    run.add_argument(
        "--input",
        "-i",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="one input, coerced to the type its schema declares (repeatable)",
    )
    run.add_argument(
        "--server",
        action="append",
        default=[],
        metavar="NAME=URL",
        help="base URL for the source description NAME (repeatable)",
    )
    run.add_argument(
        "--server-var",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="value of an OpenAPI server variable, NAME or SOURCE.NAME (repeatable)",
    )
    run.add_argument(
        "--format", choices=("text", "json"), default="text", help="output format (default text)"
    )
    run.add_argument(
        "--max-steps",
        type=_positive_int,
        default=1000,
        metavar="N",
        help="stop after N step executions, a guard against goto loops (default 1000)",
    )
    run.add_argument(
        "--timeout",
        type=_positive_float,
        default=30.0,
        metavar="SECONDS",
        help="timeout of each HTTP exchange (default 30)",
    )

    listing = commands.add_parser(
        "list", help="list the workflows of a document with their inputs and outputs"
    )
    listing.add_argument("file")
    listing.add_argument("--format", choices=("text", "json"), default="text")

    from .validate.cli import add_validate_parser

    add_validate_parser(commands)

    commands.add_parser(
        "demo",
        help="run the tool-call workflow against the bundled reference server, down both branches (offline)",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version, or a usage error argparse already reported
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    if args.command is None:
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    try:
        if args.command == "run":
            return _run(args)
        if args.command == "list":
            return _list(args)
        if args.command == "validate":
            from .validate.cli import run_validate

            return run_validate(args)
        if args.command == "demo":
            from .demo import run_demo

            return run_demo(sys.stdout)
    except ArazzoError as exc:
        _error(exc)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # e.g. `arazzo run ... | head`: the reader left; not an error of ours
        sys.stderr.close()
        return EXIT_OK
    return EXIT_USAGE


def _run(args: argparse.Namespace) -> int:
    from .api import load, run
    from .executor.options import RunOptions
    from .report.console import ConsoleReporter

    workspace = load(args.file)
    if _refuse_invalid(workspace):
        return EXIT_USAGE
    inputs = _inputs(args, workspace)
    servers = _pairs(args.server, "--server")
    _check_source_names(servers, workspace)
    reporter = ConsoleReporter(sys.stdout) if args.format == "text" else None
    options = RunOptions(
        servers=servers,
        server_variables=_pairs(args.server_var, "--server-var"),
        timeout=args.timeout,
        max_steps=args.max_steps,
        on_event=reporter.on_event if reporter else None,
    )
    result = run(workspace, args.workflows, inputs, options=options)
    if reporter:
        reporter.summary(result)
    else:
        json.dump(result.to_dict(), sys.stdout, indent=2, ensure_ascii=False, default=_json_default)
        sys.stdout.write("\n")
    return EXIT_OK if result.ok else EXIT_FAILED


def _refuse_invalid(workspace: Any) -> bool:
    """`arazzo run` validates first: a document with errors is refused (its findings on stderr)."""
    from .validate import errors_for_run
    from .validate.format import format_findings

    errors = errors_for_run(workspace)
    if errors:
        sys.stderr.write(format_findings(errors))
        print(f"error: {workspace.file} has {len(errors)} error(s); nothing was run", file=sys.stderr)
    return bool(errors)


def _inputs(args: argparse.Namespace, workspace: Any) -> dict[str, Any]:
    from .executor.inputs import coerce_cli_value, input_schema_for

    inputs: dict[str, Any] = {}
    if args.inputs:
        inputs.update(_read_inputs(args.inputs))
    workflows = [
        workspace.document.workflow(w) for w in (args.workflows or [])
    ] or workspace.document.workflows
    for item in args.input:
        key, sep, text = item.partition("=")
        if not sep or not key:
            raise UsageError(f"--input expects KEY=VALUE, got {item!r}")
        schema = next(
            (s for w in workflows if w and (s := input_schema_for(w.inputs, key, workspace.document.raw))), {}
        )
        inputs[key] = coerce_cli_value(text, schema)
    return inputs


def _read_inputs(value: str) -> dict[str, Any]:
    text = value.strip()
    if text.startswith(("{", "[")):
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise UsageError(f"--inputs is not valid JSON: {exc}") from None
    else:
        from .loader import load_path

        if not Path(value).exists():
            raise UsageError(f"--inputs: no such file {value!r} (give a JSON object or a JSON/YAML file)")
        data = load_path(value).data
    if not isinstance(data, dict):
        raise UsageError("--inputs must be a JSON object (or a file containing one)")
    return data


def _pairs(items: list[str], flag: str) -> dict[str, str]:
    pairs = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name or not value:
            raise UsageError(f"{flag} expects NAME=VALUE, got {item!r}")
        pairs[name] = value
    return pairs


def _check_source_names(servers: dict[str, str], workspace: Any) -> None:
    """`--server NAME=URL` must name a source description (of this document or of an arazzo source)
    and give an absolute http(s) URL."""
    for name, url in servers.items():
        if not url.lower().startswith(("http://", "https://")):
            raise UsageError(f"--server {name}={url}: expected an absolute http:// or https:// URL")
    if not servers:
        return
    known: list[str] = []
    pending, seen = [workspace], set()
    while pending:
        current = pending.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        for entry in current.document.sources:
            known.append(entry.name)
            if entry.type == "arazzo":
                pending.append(current.source(entry.name))
    for name in servers:
        if name not in known:
            names = ", ".join(dict.fromkeys(known)) or "none"
            raise UsageError(f"--server {name}=...: no source description named '{name}' (sources: {names})")


def _list(args: argparse.Namespace) -> int:
    from .api import load
    from .report.listing import describe_workflows, render_workflows

    workspace = load(args.file)
    data = describe_workflows(workspace)
    if args.format == "json":
        json.dump(data, sys.stdout, indent=2, ensure_ascii=False)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(render_workflows(data))
    return EXIT_OK


def _error(exc: ArazzoError) -> None:
    prefix = "" if isinstance(exc, DocumentError) else "error: "
    print(f"{prefix}{exc}", file=sys.stderr)


def _json_default(value: Any) -> Any:
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return str(value)


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def _positive_float(text: str) -> float:
    value = float(text)
    if value <= 0:
        raise argparse.ArgumentTypeError("must be greater than 0")
    return value


if __name__ == "__main__":
    sys.exit(main())
