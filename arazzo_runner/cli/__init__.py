"""`arazzo` command line: parse flags, call the library, print, exit with 0 / 1 / 2 (130 on Ctrl-C).

Each sub-command lives in its own module with a `register(commands)` that adds its parser and sets
`handler`; this module only dispatches.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from .. import __version__
from ..errors import ArazzoError
from .common import EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE, dump_json, print_error
from .parsing import ArgumentsError, Parser, help_formatter, parse

__all__ = ["ArgumentsError", "build_parser", "entry", "main"]

COMMANDS = (
    "run",
    "validate",
    "upgrade",
    "list",
    "describe",
    "graph",
    "auth",
    "demo",
    "tools",
    "mcp",
    "lsp",
    "agent",
    "load",
    "report",
    "coverage",
    "generate",
    "worker",
)


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser; with `only`, just that sub-command's: each command's module imports what it needs,
    so `arazzo validate` or `arazzo --version` do not pay for the modules of `arazzo run`."""
    from .help_text import COMMANDS as HELP
    from .help_text import TOP_LEVEL

    parser = Parser(
        prog="arazzo",
        description=TOP_LEVEL.text(),
        epilog=TOP_LEVEL.epilog(),
        formatter_class=help_formatter,
    )
    parser.add_argument("--version", action="version", version=f"arazzo {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        if only is None or name == only:
            _register(name, commands)
            command = commands.choices[name]  # its description, examples and exit codes (help_text.py)
            command.description, command.epilog = HELP[name].text(), HELP[name].epilog()
            command.formatter_class = help_formatter
    return parser


def _register(name: str, commands: Any) -> None:
    register: Callable[[Any], object]
    if name == "run":
        from .run import register
    elif name == "validate":
        from .validate import add_validate_parser as register
    elif name == "list":
        from .listing import register
    elif name == "describe":
        from .describe import register
    elif name == "graph":
        from .graph import register
    elif name == "auth":
        from .auth import register
    elif name == "upgrade":
        from .upgrade import register
    elif name == "tools":
        from .tools import register
    elif name == "mcp":
        from .mcp import register
    elif name == "agent":
        from .agent import register
    elif name == "lsp":
        from .lsp import register
    elif name == "load":
        from .load import register
    elif name == "report":
        from .report import register
    elif name == "coverage":
        from .coverage import register
    elif name == "generate":
        from .generate import register
    elif name == "worker":
        from .temporal import register
    else:
        from .demo import register
    register(commands)


def _command(argv: Sequence[str]) -> str | None:
    """The sub-command named by the first argument, when it is one (else None: build them all)."""
    return argv[0] if argv and argv[0] in COMMANDS else None


def main(argv: Sequence[str] | None = None) -> int:
    """`arazzo ARGV...`; the exit code. Whatever it prints passes through `TerminalStream`: a server or
    a document cannot put a control character on the user's terminal."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv == ["--version"]:  # the cheapest answer: no sub-command is even imported
        print(f"arazzo {__version__}")
        return EXIT_OK
    with _collector_paused(_command(argv) == "run"):
        from ..report.terminal import escaped_stdio

        with escaped_stdio():
            return _main(argv)


def entry() -> int:
    """The `arazzo` console script and `python -m arazzo_runner.cli`: `main()` in a process of its own.

    `import httpx` also imports httpx's own command line when click, rich and pygments are installed
    (rich comes with many tools): ~30 ms and ~3 MiB in every process, for a command `arazzo` never runs.
    In a process that is only this command, that module is marked absent before httpx is first imported,
    and httpx defines its `httpx.main` as the stub it uses when those are missing. `main()` itself, as a
    library or a test calls it, changes nothing in its caller's process.

    Likewise trio: httpcore imports it when it is installed (selenium and others bring it), only to
    choose its locks when running under trio, ~150 ms of CPU (attrs, inspect, its own core) in a command
    that runs on threads or asyncio and never on trio."""
    if "httpx" not in sys.modules:
        sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]  # (None blocks an import)
    if "httpcore" not in sys.modules:
        sys.modules.setdefault("trio", None)  # type: ignore[arg-type]
    _escape_unencodable()
    try:
        code = main()
    finally:
        _no_teardown_collection()
    unwritten = _stdout_unwritten()
    if unwritten is not None and code != EXIT_USAGE:  # (EXIT_USAGE: `_main` has said why, or more)
        with contextlib.suppress(OSError, ValueError):
            print(f"error: stdout: cannot write: {unwritten.strerror or unwritten}", file=sys.stderr)
        code = EXIT_USAGE
    if "temporalio" in sys.modules:
        _exit_past_temporal(code)
    return code


def _stdout_unwritten() -> OSError | None:
    """The error of writing what stdout still holds (a buffered stdout fails only here, at its last
    flush: a full disk, a quota), None when written. Then stdout is pointed at the null device, so
    that the interpreter's own last flush does not print "Exception ignored" and a traceback."""
    try:
        sys.stdout.flush()
    except BrokenPipeError:  # the reader left (`| head`): not an error of ours, as in `_main`
        return None
    except OSError as exc:
        with contextlib.suppress(OSError, ValueError):
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, sys.stdout.fileno())
            os.close(null)
        return exc
    return None


def _exit_past_temporal(code: int) -> None:
    """End a process that used Temporal's client or worker without the interpreter's finalization.

    temporalio's core runs threads of its own (Rust) that may call into Python while the interpreter
    finalizes; seen here as `Fatal Python error: PyGILState_Release` and SIGABRT after a run had printed
    its whole result. Everything this process writes is written by now: flush it and leave."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(code)


def _escape_unencodable() -> None:
    """stdout and stderr write what their encoding cannot carry as backslash escapes (`\\xe9`).

    A server's text is printed (`-v`, `--format json`), and a terminal's encoding need not be UTF-8
    (PYTHONIOENCODING=ascii, a latin-1 locale, a legacy Windows console): `é` in a body became an
    internal error (UnicodeEncodeError) after the run had passed. Here, in a process of its own only:
    a caller's streams are its own."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)  # None, or not a TextIOWrapper: left as it is
        if reconfigure is not None:
            with contextlib.suppress(ValueError, OSError):  # closed
                reconfigure(errors="backslashreplace")


def _no_teardown_collection() -> None:
    """The command is over and the process is about to end: what exists now is left out of the garbage
    collector's passes (`gc.freeze`). At exit CPython clears every module and collects the cycles that
    leaves (each class, function and module is one), deallocating the engine's classes, functions and
    code one by one: ~20-45 ms of CPU for `arazzo run` (a sixth of a one-step run; the httpx script a
    user writes instead spends ~5-20 ms), memory the kernel takes back at once anyway. The exit itself
    is unchanged: `atexit` handlers run, threads are joined, the standard streams flushed, and every
    object that no cycle holds is still deallocated (the files the commands write are closed by then)."""
    import gc

    gc.freeze()


@contextlib.contextmanager
def _collector_paused(pause: bool) -> Iterator[None]:
    """`arazzo run` imports the engine and loads the document, its sources and the plan before the run:
    long-lived objects all, of which the cyclic garbage collector's passes find next to nothing to free
    (~500 objects of ~20,000 for a 200-step document; ~3 ms of passes). It waits until the run starts
    (`run._frozen_before_the_run`), and is back as it was when the command is over. Paused before the
    command's first import (the terminal escaping of `main`, the report package it is in: ~2 ms of
    passes, one of generation 1 among them); hence these few lines rather than
    `loader.load.gc_paused`, whose import would come first."""
    import gc

    enabled = gc.isenabled()
    if pause:
        gc.disable()
    try:
        yield
    finally:
        if pause and enabled:
            gc.enable()


def _main(argv: list[str]) -> int:
    from ..report.terminal import OutputError  # (not for `--version`, which imports no engine module)

    parser = build_parser(_command(argv))
    try:
        args = parse(parser, argv)  # an unknown flag: the sub-command's usage and the closest flags
    except SystemExit as exc:  # --help or --version
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    except ArgumentsError as exc:
        exc.parser.print_usage(sys.stderr)
        print(f"{exc.parser.prog}: error: {exc.message}", file=sys.stderr)
        return _json_error(wants_json(argv), ("usage", exc.message), EXIT_USAGE)
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help(sys.stderr)
        return _json_error(wants_json(argv), ("usage", "no command given"), EXIT_USAGE)
    as_json = getattr(args, "format", None) == "json"
    try:
        if not getattr(args, "no_cache", False):
            return handler(args)
        from .cache_flags import honoured

        with honoured(args):
            return handler(args)
    except ArazzoError as exc:
        print_error(exc)
        return _json_error(as_json, exc, EXIT_USAGE)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return _json_error(as_json, ("interrupted", "interrupted"), EXIT_INTERRUPTED)
    except BrokenPipeError:  # e.g. `arazzo run ... | head`: the reader left; not an error of ours
        sys.stderr.close()
        return EXIT_OK
    except OutputError as exc:  # stdout (or stderr) cannot be written: a full disk, a quota
        with contextlib.suppress(OSError, ValueError):
            print(f"error: stdout: cannot write: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_USAGE  # (no JSON error document: it could not be written either)
    except Exception as exc:  # a bug: the traceback still goes to stderr, but stdout has its document
        _json_error(as_json, exc, 1)
        raise


def wants_json(argv: Sequence[str]) -> bool:
    """Whether the command line asks for `--format json` (or an abbreviation argparse accepts), read
    from the words themselves: when argparse refused them there is no parsed value to ask."""
    words = list(argv)
    for index, word in enumerate(words):
        if word == "--":
            break
        flag, sep, value = word.partition("=")
        if len(flag) > 3 and "--format".startswith(flag):
            value = value if sep else (words[index + 1] if index + 1 < len(words) else "")
            if value == "json":
                return True
    return False


def _json_error(as_json: bool, error: BaseException | tuple[str, str], code: int) -> int:
    """The error document on stdout when JSON was asked for: of an exception, or of a (kind, message)
    pair; returns `code`. (The module that shapes it is imported only then.)"""
    if as_json:
        from ..report.error_json import entry, error_document, exception_entries

        found = exception_entries(error) if isinstance(error, BaseException) else [entry(*error)]
        dump_json(error_document(found, code))
    return code


if __name__ == "__main__":
    sys.exit(main())
