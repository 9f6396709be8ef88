"""API coverage on the command line (`report/coverage.py` computes it):

- `--coverage` and `--min-coverage PCT` of `arazzo run` and `arazzo load` (`add_flags`, `finish`): the
  table after the run, the `coverage` section of the report files, exit 1 below the minimum;
- `arazzo report --coverage RUN.json...`: the sections of saved runs merged (a CI matrix);
- `arazzo coverage DOC...`: static, the operations of each document's sources no workflow references.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..errors import UsageError
from .common import EXIT_FAILED, EXIT_OK


def add_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--coverage",
        action="store_true",
        help="API coverage: per source description, the operations called, the documented status codes "
        "seen, the parameters and body properties sent (a table; `coverage` in --report-json)",
    )
    parser.add_argument(
        "--min-coverage",
        metavar="PCT",
        help="exit 1 when operation coverage is below PCT, or name kinds: ops:80,status:60 (also params, "
        "body); implies --coverage",
    )


def check_flags(args: argparse.Namespace) -> None:
    """Before anything runs: the minimum read (a usage error when malformed); `--min-coverage` implies
    `--coverage`."""
    args.coverage_minimum = None
    if getattr(args, "min_coverage", None) is not None:
        from ..report.coverage_text import parse_minimum

        args.coverage_minimum = parse_minimum(args.min_coverage)
        args.coverage = True
    if getattr(args, "coverage", False):
        from ..errors import UsageError

        if getattr(args, "dry_run", False):
            raise UsageError("--dry-run sends nothing, so it covers nothing (--coverage)")


def section(args: argparse.Namespace, workspace: Any, results: list[Any]) -> dict[str, Any] | None:
    """The coverage section of the runs, when asked for (None otherwise)."""
    if not getattr(args, "coverage", False):
        return None
    from ..report.coverage import coverage

    return coverage(workspace, results)


def finish(args: argparse.Namespace, found: dict[str, Any] | None, stream: Any) -> int:
    """The table on `stream` (None: not printed, the JSON document holds the section), then the
    minimum: each figure below it on stderr with what was missed, EXIT_FAILED; else EXIT_OK."""
    if found is None:
        return EXIT_OK
    from ..report.coverage_text import below, table

    if stream is not None:
        stream.write("\n".join(table(found)) + "\n")
        stream.flush()
    minimum = getattr(args, "coverage_minimum", None)
    lines = below(found, minimum) if minimum else []
    for line in lines:
        print(line, file=sys.stderr)
    return EXIT_FAILED if lines else EXIT_OK


# -- arazzo coverage DOC... ------------------------------------------------------------------------------


def register(commands: Any) -> None:
    parser = commands.add_parser(
        "coverage", help="list the operations of each document's source descriptions no workflow references"
    )
    parser.add_argument("files", nargs="+", metavar="DOC", help="Arazzo documents (read together)")
    parser.add_argument(
        "--format", choices=("text", "json"), default="text", help="output format (default text)"
    )
    parser.add_argument(
        "--min-coverage",
        metavar="PCT",
        help="exit 1 when fewer than PCT percent of the operations are referenced",
    )
    parser.set_defaults(handler=coverage_command)


def coverage_command(args: argparse.Namespace) -> int:
    from ..report.coverage_static import unreferenced

    minimum = None
    if args.min_coverage is not None:
        from ..report.coverage_text import parse_minimum

        wanted = parse_minimum(args.min_coverage)
        others = sorted(set(wanted) - {"operations"})
        if others:  # a gate that cannot be measured must not pass silently
            raise UsageError(
                f"--min-coverage {args.min_coverage}: `arazzo coverage` counts the operations workflows "
                f"reference; {', '.join(others)} are counted by a run (`arazzo run --coverage`)"
            )
        minimum = wanted.get("operations")
    workspaces = [_load(path) for path in args.files]
    found = unreferenced(workspaces)
    if args.format == "json":
        from .common import dump_json

        dump_json(found)
    else:
        from ..report.coverage_static import lines

        print("\n".join(lines(found)))
    figure = found["totals"]["percent"]
    unread = [source["name"] for source in found["sources"] if source.get("error")]
    if minimum is not None and unread:
        print(
            f"coverage: the minimum of {minimum:g}% cannot be checked: not read: {', '.join(unread)}",
            file=sys.stderr,
        )
        return EXIT_FAILED
    if minimum is not None and figure is not None and figure < minimum:
        print(
            f"coverage: {found['totals']['referenced']}/{found['totals']['total']} operations referenced "
            f"({figure:.1f}%) is below the minimum of {minimum:g}%",
            file=sys.stderr,
        )
        return EXIT_FAILED
    return EXIT_OK


def _load(path: str) -> Any:
    from ..api import load

    return load(path)
