"""`arazzo upgrade FILE... [--to 1.1.0] [--diff] [--format text|json] [--offline] [--sandbox DIR]`.

Rewrites 1.0.x documents as 1.1 in place (`arazzo_runner.validate.upgrade`: what changed between the
two versions, and what stops an upgrade). Exit status: 0 upgraded (or nothing to do), 1 a document was
not upgraded because a form would change meaning or become an error (each is listed; nothing written),
or with `--diff` a document would change, 2 a file could not be read or is not a 1.0.x document.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ..errors import DocumentError
from . import sandbox_flags

EXIT_OK, EXIT_BLOCKED, EXIT_USAGE = 0, 1, 2


def register(commands: Any) -> None:
    parser = commands.add_parser(
        "upgrade",
        help="rewrite Arazzo 1.0.x documents as 1.1, keeping comments and formatting",
    )
    parser.add_argument("files", nargs="+", metavar="FILE", help="Arazzo documents (YAML or JSON)")
    parser.add_argument("--to", default="1.1.0", metavar="VERSION", help="the target version (default 1.1.0)")
    parser.add_argument("--diff", action="store_true", help="print the changes; write nothing")
    parser.add_argument("--format", choices=("text", "json"), default="text", help="output format")
    parser.add_argument(
        "--offline", action="store_true", help="do not fetch http(s) source descriptions for the checks"
    )
    sandbox_flags.add_flags(parser)
    parser.set_defaults(handler=run_upgrade)


def run_upgrade(args: argparse.Namespace) -> int:
    from ..validate.fix import unified_diff
    from ..validate.upgrade import upgrade_path
    from ..validate.write import write_in_place

    sandbox = sandbox_flags.folders(args)
    results, unreadable = [], []
    for file in args.files:
        try:
            results.append(upgrade_path(file, to=args.to, remote=not args.offline, allow_paths=sandbox))
        except DocumentError as exc:
            unreadable.append(exc)
    if not args.diff:
        for result in list(results):
            if not result.changed:
                continue
            try:
                write_in_place(result.file, result.encoded())
            except OSError as exc:  # nothing was changed: `write_in_place` leaves the file as it was
                results.remove(result)
                unreadable.append(
                    DocumentError(f"cannot write the upgraded file: {exc.strerror or exc}", file=result.file)
                )
    if args.format == "json":
        _print_json(results, unreadable)
    else:
        _print_text(args, results, unreadable, unified_diff)
    if unreadable:
        return EXIT_USAGE
    if any(result.blockers for result in results):
        return EXIT_BLOCKED
    return EXIT_BLOCKED if args.diff and any(r.changed for r in results) else EXIT_OK


def _print_text(args: Any, results: list[Any], unreadable: list[Any], unified_diff: Any) -> None:
    for exc in unreadable:
        print(f"error: {exc}", file=sys.stderr)
    for result in results:
        if args.diff and result.changed:
            sys.stdout.write(unified_diff(result))
            continue
        for finding in result.blockers:
            print(finding)
        if result.blockers:
            count = len(result.blockers)
            reason = f"{count} form(s) listed above would change meaning or be errors in it"
            print(f"{result.file}: not upgraded to {result.target}: {reason}; nothing was written")
        elif result.changed:
            print(f"{result.file}: upgraded {result.source_version} -> {result.target}")
        else:
            print(f"{result.file}: already {result.source_version}: nothing to do")


def _print_json(results: list[Any], unreadable: list[Any]) -> None:
    from ..report.error_json import exception_entry

    data: dict[str, Any] = {
        "files": [
            {
                "file": r.file,
                "from": r.source_version,
                "to": r.target,
                "changed": r.changed,
                "changes": r.changes,
                "blockers": [f.to_dict() for f in r.blockers],
            }
            for r in results
        ]
    }
    if unreadable:
        data["errors"] = [exception_entry(exc) for exc in unreadable]
    print(json.dumps(data, indent=2, ensure_ascii=False))
