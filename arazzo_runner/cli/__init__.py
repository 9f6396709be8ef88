"""`arazzo` command line: parse flags, call the library, print, exit with 0 / 1 / 2.

Each sub-command lives in its own module with a `register(commands)` that adds its parser and sets
`handler`; this module only dispatches.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

from .. import __version__
from ..errors import ArazzoError
from .common import EXIT_OK, EXIT_USAGE, print_error

COMMANDS = ("run", "validate", "list", "describe", "graph", "auth", "demo")


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser; with `only`, just that sub-command's: each command's module imports what it needs,
    so `arazzo validate` or `arazzo --version` do not pay for the modules of `arazzo run`."""
    parser = argparse.ArgumentParser(prog="arazzo", description="Run and validate Arazzo workflows.")
    parser.add_argument("--version", action="version", version=f"arazzo {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        if only is None or name == only:
            _register(name, commands)
    return parser


def _register(name: str, commands: Any) -> None:
    if name == "run":
        from .run import register
    elif name == "validate":
        from ..validate.cli import add_validate_parser as register
    elif name == "list":
        from .listing import register
    elif name == "describe":
        from .describe import register
    elif name == "graph":
        from .graph import register
    elif name == "auth":
        from .auth import register
    else:
        from .demo import register
    register(commands)


def _command(argv: Sequence[str]) -> str | None:
    """The sub-command named by the first argument, when it is one (else None: build them all)."""
    return argv[0] if argv and argv[0] in COMMANDS else None


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv == ["--version"]:  # the cheapest answer: no sub-command is even imported
        print(f"arazzo {__version__}")
        return EXIT_OK
    parser = build_parser(_command(argv))
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
