"""`arazzo generate OPENAPI... [-o FILE]`: an Arazzo document whose workflows run, from OpenAPI
descriptions (`docs/generate.md`): a workflow per operation, chained workflows, example inputs
(`--inputs-out`), and with `--chat URL --model M` the model's proposals, repaired or dropped.

The document goes to FILE (or stdout); what was generated, noticed and dropped goes to stderr. A local
description's source URL is written relative to the document's folder: FILE's, or the file stdout is
redirected to (`> out.yaml`: found by its descriptor); to a pipe or a terminal, the absolute `file:` URI,
with a note. Exit 0
when every operation's workflow and chain was written, 1 when one had to be dropped (the document is
still written, without it), 2 for usage errors and descriptions that cannot be read (nothing written).
A model's proposal that stays invalid is dropped with its reason and does not change the exit code: the
model is not the tool.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import stat
import sys
from pathlib import Path
from typing import Any

from ..errors import UsageError
from . import chat_flags
from .common import EXIT_FAILED, EXIT_OK
from .limit_flags import seconds


def register(commands: Any) -> None:
    from .agent import add_api_key_env

    parser = commands.add_parser(
        "generate", help="generate runnable Arazzo workflows from OpenAPI descriptions"
    )
    parser.add_argument(
        "descriptions", nargs="+", metavar="OPENAPI", help="OpenAPI 3.x descriptions (paths or URLs)"
    )
    parser.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help="write the document here, its source URLs relative to it (default: stdout: relative to the "
        "file it is redirected to, else absolute)",
    )
    parser.add_argument(
        "--arazzo",
        choices=("1.0.1", "1.1.0"),
        default="1.0.1",
        help="the Arazzo version to write (default 1.0.1)",
    )
    parser.add_argument(
        "--inputs-out",
        metavar="FILE",
        help="write example inputs: one JSON object on one line (arazzo run --inputs FILE, or --inputs-file)",
    )
    parser.add_argument(
        "--operation",
        action="append",
        dest="operations",
        default=[],
        metavar="ID",
        help="only this operation (operationId, or 'METHOD /path'; repeatable)",
    )
    parser.add_argument("--no-chains", action="store_true", help="a workflow per operation only, no chains")
    parser.add_argument(
        "--deadline",
        type=seconds,
        default=None,
        metavar="SECONDS",
        help="stop after SECONDS: reading the descriptions and the chat fail, example searches stop "
        "(each input still unchecked says so)",
    )
    parser.add_argument(
        "--chat", metavar="URL", help="a chat-completions base URL: its model proposes workflows"
    )
    parser.add_argument("--model", metavar="M", help="the model, with --chat")
    add_api_key_env(parser)
    chat_flags.add_flags(parser)
    parser.set_defaults(handler=generate_command)


def generate_command(args: argparse.Namespace) -> int:
    from ..bounds.deadline import Deadline, arm
    from ..generate import generate

    chat = _chat(args)
    for flag, target in (("-o", args.output), ("--inputs-out", args.inputs_out)):
        if target and Path(target).is_dir():
            raise UsageError(f"{flag} {target}: cannot be written (a folder)")
        if target and not Path(target).resolve().parent.is_dir():
            raise UsageError(f"{flag} {target}: the folder {Path(target).resolve().parent} does not exist")
    redirected = None if args.output else _stdout_file()
    with arm(Deadline(args.deadline)):  # armed before the first fetch, as `arazzo run` arms its own
        result = generate(
            args.descriptions,
            output=args.output or redirected,
            arazzo=args.arazzo,
            operations=args.operations,
            chains=not args.no_chains,
            chat=chat,
        )
    if args.output:
        _write(args.output, result.text, "-o")
    else:
        sys.stdout.write(result.text)
        sys.stdout.flush()
    if args.inputs_out:
        _write(args.inputs_out, json.dumps(result.inputs, ensure_ascii=False) + "\n", "--inputs-out")
    _summary(args, result, redirected)
    ours = [d for d in result.dropped if d.origin != "model"]
    return EXIT_FAILED if ours else EXIT_OK


def _write(path: str, text: str, flag: str) -> None:
    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"{flag} {path}: cannot be written ({exc.strerror or exc})") from None


def _chat(args: argparse.Namespace) -> Any:
    if args.chat is None:
        if args.model is not None:
            raise UsageError("--model is for --chat: give the chat endpoint with --chat URL")
        return None
    from ..generate import ChatSettings
    from .agent import chat_api_key

    key = chat_api_key(args)  # checks the URL and the model too
    limits = chat_flags.limits(args)
    return ChatSettings(
        args.chat, args.model, key, timeout=limits["chat_timeout"], retries=limits["chat_retries"],
        exchange_timeout=limits["chat_exchange_timeout"],
    )  # fmt: skip


def _stdout_file() -> str | None:
    """The regular file stdout writes to (`arazzo generate spec.yaml > out.yaml`), or None (a pipe, a
    terminal, a platform that cannot name it). Named by the descriptor (`/proc/self/fd/N` on Linux,
    `F_GETPATH` on macOS) and kept only when that path is the very file open (not one deleted or
    replaced since)."""
    try:
        descriptor = sys.stdout.fileno()
        opened = os.fstat(descriptor)
    except (AttributeError, OSError, ValueError):  # captured, closed, no descriptor (UnsupportedOperation)
        return None
    if not stat.S_ISREG(opened.st_mode):
        return None
    path = None
    try:
        import fcntl

        if hasattr(fcntl, "F_GETPATH"):
            path = os.fsdecode(fcntl.fcntl(descriptor, fcntl.F_GETPATH, bytes(1024))).rstrip("\0")
    except (ImportError, OSError):
        path = None
    if path is None:
        try:
            path = os.readlink(f"/proc/self/fd/{descriptor}")
        except OSError:
            return None
    try:
        return path if os.path.samestat(os.stat(path), opened) else None
    except OSError:
        return None


def _summary(args: argparse.Namespace, result: Any, redirected: str | None) -> None:
    err = sys.stderr
    written = [result.origin[w["workflowId"]] for w in result.workflows]
    counts = {kind: written.count(kind) for kind in ("operation", "chain", "model")}
    where = args.output or "stdout"
    parts = [f"{counts['operation']} per operation", f"{counts['chain']} chained"]
    if args.chat:
        parts.append(f"{counts['model']} proposed by the model")
    report = result.report
    checked = f"{_count(len(report.errors), 'error')}, {_count(len(report.warnings), 'warning')}"
    made = _count(len(result.workflows), "workflow")
    print(f"generated {made} ({', '.join(parts)}) -> {where} ({checked})", file=err)
    # a description given by its http(s) URL is written as given: no note for it
    local = [s["url"] for s in result.sources if not s["url"].lower().startswith(("http://", "https://"))]
    if not args.output and redirected and local:
        print(f"note: stdout is the file {_shown(redirected)}: source URLs are relative to it", file=err)
    elif not args.output and local:
        print(
            f"note: the document went to stdout: source URLs are absolute ({local[0]}), right wherever "
            "it is saved on this machine; -o FILE writes them relative to FILE",
            file=err,
        )
    for finding in report.warnings:
        print(f"  {finding}", file=err)
    for note in result.notes:
        print(f"note: {note}", file=err)
    for dropped in result.dropped:
        what = "proposal" if dropped.origin == "model" else f"{dropped.origin} workflow"
        print(f"dropped {what} '{dropped.workflow_id}': {dropped.reason}", file=err)
    for name, why in result.missing_examples.items():
        print(f"note: input '{name}': {why}; give it with --input {name}=...", file=err)
    if args.inputs_out:
        target = args.output or (_shown(redirected) if redirected else "FILE")
        command = ["arazzo", "run", target, "--inputs", args.inputs_out]
        flags = [word for credential in result.credentials for word in credential.flag.split(" ", 1)]
        line = " ".join(shlex.quote(word) for word in command + flags)
        print(f"example inputs -> {args.inputs_out}; run them: {line}", file=err)
        for credential in result.credentials:
            variables = " + ".join(credential.environment)
            instead = f"; or set {variables} instead" if variables else ""
            print(f"  --auth {credential.key}: {credential.sends}{instead}", file=err)


def _shown(path: str) -> str:
    """`path` as the user would type it: relative to the working folder when inside it."""
    try:
        relative = os.path.relpath(path)
    except ValueError:  # another drive (Windows)
        return path
    return path if relative.startswith("..") else relative


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"
