"""`arazzo` command line: parse flags, call the library, print, exit with 0 / 1 / 2.

Each sub-command lives in its own module with a `register(commands)` that adds its parser and sets
`handler`; this module only dispatches.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from .. import __version__
from ..errors import ArazzoError
from .common import EXIT_OK, EXIT_USAGE, print_error


def build_parser() -> argparse.ArgumentParser:
    from ..validate.cli import add_validate_parser
    from . import auth, demo, describe, graph, listing, run

    parser = argparse.ArgumentParser(prog="arazzo", description="Run and validate Arazzo workflows.")
    parser.add_argument("--version", action="version", version=f"arazzo {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    run.register(commands)
    add_validate_parser(commands)
    listing.register(commands)
    describe.register(commands)
    graph.register(commands)
    auth.register(commands)
    demo.register(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version, or a usage error argparse already reported
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    try:
        return handler(args)
    except ArazzoError as exc:
        print_error(exc)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # e.g. `arazzo run ... | head`: the reader left; not an error of ours
        sys.stderr.close()
        return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
