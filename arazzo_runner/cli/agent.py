"""`arazzo agent FILE... --prompt TEXT`: the documents' workflows offered as tools to a chat-completions
endpoint, each tool call resolved by running its workflow, until the model answers (`docs/agents.md`).

Exit 0 on a final answer, 1 when the loop ended without one (the chat API failed, `--max-turns`), 2 for
usage and document errors (nothing sent). `--format json` prints one document (`AgentResult.to_dict`).
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from ..errors import UsageError
from .common import EXIT_FAILED, EXIT_OK, dump_json, positive_float, positive_int

API_KEY_ENV = "OPENAI_API_KEY"


def register(commands: Any) -> None:
    from ..agents.loop import DEFAULT_CHAT_TIMEOUT, DEFAULT_MAX_TURNS
    from .tool_flags import add_tool_call_flags, add_tool_flags

    parser = commands.add_parser(
        "agent", help="let a chat model use the workflows as tools, each call running its workflow"
    )
    add_tool_flags(parser, runs=True)
    add_tool_call_flags(parser, per_answer=True)
    parser.add_argument(
        "--prompt",
        metavar="TEXT",
        help="the user's message (required; with --replay, the recording's by default)",
    )
    parser.add_argument("--system", metavar="TEXT", help="a system message before it")
    parser.add_argument(
        "--chat",
        metavar="URL",
        help="the chat-completions base URL, e.g. https://api.openai.com/v1 (default: the bundled "
        "reference server, in-process)",
    )
    parser.add_argument(
        "--model", metavar="M", help="the model (default with the reference server: agentaus)"
    )
    add_api_key_env(parser)
    parser.add_argument(
        "--max-turns",
        type=positive_int,
        default=DEFAULT_MAX_TURNS,
        metavar="N",
        help=f"chat completions without a final answer before giving up (default {DEFAULT_MAX_TURNS})",
    )
    parser.add_argument(
        "--stream",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="ask for streamed answers (merged as they arrive; default) or not",
    )
    parser.add_argument(
        "--chat-timeout",
        type=positive_float,
        default=DEFAULT_CHAT_TIMEOUT,
        metavar="SECONDS",
        help=f"timeout of each chat exchange (default {DEFAULT_CHAT_TIMEOUT:g})",
    )
    parser.add_argument(
        "--format", choices=("text", "json"), default="text", help="output format (default text)"
    )
    parser.add_argument(
        "--report-json",
        metavar="PATH",
        help="write the result with each tool call's run in detail (every exchange), for `arazzo report`",
    )
    add_record_flags(parser)
    parser.set_defaults(handler=agent_command)


def add_record_flags(parser: argparse.ArgumentParser) -> None:
    """`--record FILE` and `--replay FILE` (`agents/apis/recording.py`)."""
    parser.add_argument(
        "--record",
        metavar="FILE",
        help="save the model exchanges of the run to FILE (masked), for --replay",
    )
    parser.add_argument(
        "--replay",
        metavar="FILE",
        help="answer from a recording instead of a model (no --chat, no key; the tools run for real); "
        "fails (exit 1) when the run asks what the recording does not hold",
    )


def add_api_key_env(parser: argparse.ArgumentParser) -> None:
    """`--api-key-env NAME`, read by `chat_api_key` (`arazzo agent` and `arazzo generate --chat`)."""
    parser.add_argument(
        "--api-key-env",
        default=API_KEY_ENV,
        metavar="NAME",
        help=f"the environment variable holding the API key for --chat (default {API_KEY_ENV})",
    )


def agent_command(args: argparse.Namespace) -> int:
    import asyncio

    from ..agents.loop import Settings, Watch, run_agent
    from ..agents.tools import build_catalog
    from .agent_watch import Watcher
    from .tool_flags import check_credentials, tool_sources

    for flag, path in (("--report-json", args.report_json), ("--record", args.record)):
        if path and not os.path.isdir(os.path.dirname(os.path.abspath(path))):
            raise UsageError(f"{flag} {path}: the folder does not exist")
    prompt = _prompt(args)
    settings = Settings(
        chat_url=args.chat,
        model=args.model,
        api_key=chat_api_key(args),
        system=args.system,
        stream=args.stream,
        max_turns=args.max_turns,
        chat_timeout=args.chat_timeout,
        max_body=args.max_response_bytes,
        max_tool_calls=args.max_tool_calls,
        max_in_flight=args.max_tool_calls_in_flight,
        record=args.record,
        replay=args.replay,
    )
    catalog = build_catalog(tool_sources(args, runs=True))
    check_credentials(catalog, args)
    text = args.format == "text"
    for note in catalog.notes:
        print(f"note: {note}", file=sys.stderr)
    if text:
        from ..masking.secrets import mask_userinfo

        where = mask_userinfo(args.chat) if args.chat else "the bundled reference server (in-process)"
        streamed = "streamed" if args.stream else "not streamed"
        if args.replay:
            where, streamed = f"the recording {args.replay}", "replayed"
        print(f"agent: {len(catalog.tools)} tool(s), chat at {where}, {streamed}", flush=True)
    watcher = Watcher() if text else None
    watch = Watch(watcher.on_text, watcher.on_tool_start, watcher.on_tool_end) if watcher else None
    result = asyncio.run(run_agent(catalog, prompt, settings, watch=watch))
    if watcher is not None:
        watcher.finish(result)
        _print_result(result)
    else:
        dump_json(result.to_dict())
    if args.report_json:
        _write_report(args.report_json, result)
    return EXIT_OK if result.ok else EXIT_FAILED


def _write_report(path: str, result: Any) -> None:
    """`--report-json`: the `--format json` document with each tool call's run (`arazzo report` shows the
    turns beside the HTTP calls they caused)."""
    from .. import __version__
    from ..report.json_report import report_document, write_report_json

    body = result.to_dict()
    for entry, call in zip(body["toolCalls"], result.tool_calls, strict=True):
        if call.outcome.run is not None:
            entry["run"] = call.outcome.run
    try:
        write_report_json(path, report_document(body, True, __version__))
    except OSError as exc:
        raise UsageError(f"--report-json {path}: cannot write: {exc.strerror or exc}") from None


def chat_api_key(args: argparse.Namespace) -> str | None:
    """The API key for `--chat`, from the environment; without `--chat` none is read: a real key is
    never sent to the bundled server. (`arazzo generate --chat` reads it the same way.)"""
    if args.chat is None:
        return None
    if not args.chat.lower().startswith(("http://", "https://")):
        raise UsageError(f"--chat {args.chat}: expected an absolute http:// or https:// URL")
    if args.model is None:
        raise UsageError(f"--chat {args.chat}: give the model with --model")
    key = os.environ.get(args.api_key_env)
    if not key:
        raise UsageError(
            f"--chat {args.chat}: no API key in the environment variable {args.api_key_env} "
            "(set it, or name another with --api-key-env NAME)"
        )
    return key


def _prompt(args: argparse.Namespace) -> str:
    """`--prompt`, or with `--replay` the recording's; `--replay` takes no `--chat`."""
    if args.replay is None:
        if args.prompt is None:
            raise UsageError("the following arguments are required: --prompt")
        return args.prompt
    for flag, value in (("--chat", args.chat), ("--model", args.model)):
        if value is not None:
            raise UsageError(f"--replay answers from the recording: it takes no {flag}")
    if args.prompt is not None:
        return args.prompt
    from ..agents.apis.recording import read_recording

    recorded = read_recording(args.replay).prompt
    if not isinstance(recorded, str):
        raise UsageError(f"--replay {args.replay}: the recording has no prompt; give --prompt")
    return recorded


def _print_result(result: Any) -> None:
    """The closing lines (the answer itself was printed as it arrived)."""
    if not result.ok:
        print(f"error: {result.error['message']}", file=sys.stderr)
    failed = sum(not call.outcome.ok for call in result.tool_calls)
    calls = f"{len(result.tool_calls)} tool call(s)" + (f" ({failed} not passed)" if failed else "")
    usage = result.usage
    tokens = (
        f"usage {usage.input_tokens} input + {usage.output_tokens} output = {usage.total_tokens} tokens"
        if usage is not None
        else "no usage reported"
    )
    print(f"{result.turns} turn(s), {calls}, {tokens}")
