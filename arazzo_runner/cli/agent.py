"""`arazzo agent FILE... --prompt TEXT`: the documents' workflows offered as tools to a chat-completions
endpoint, each tool call resolved by running its workflow, until the model answers (`docs/agents.md`).

Exit 0 on a final answer, 1 when the loop ended without one (the chat API failed, `--max-turns`), 2 for
usage and document errors (nothing sent). `--format json` prints one document (`AgentResult.to_dict`).
"""

from __future__ import annotations

import argparse
import os
import sys
from types import MappingProxyType
from typing import Any

from ..errors import UsageError
from .common import EXIT_FAILED, EXIT_OK, dump_json, positive_float, positive_int

API_KEY_ENV = "OPENAI_API_KEY"
API_KEY_ENVS = MappingProxyType(
    {"anthropic": "ANTHROPIC_API_KEY"}
)  # `--api-key-env`'s default per `--api`, else API_KEY_ENV


def register(commands: Any) -> None:
    from ..agents.loop import DEFAULT_MAX_TURNS
    from . import chat_flags
    from .tool_flags import add_tool_call_flags, add_tool_flags

    parser = commands.add_parser(
        "agent", help="let a chat model use the workflows as tools, each call running its workflow"
    )
    add_tool_flags(parser, runs=True)
    add_tool_call_flags(parser, per_answer=True)
    add_api_flags(parser)
    parser.add_argument(
        "--prompt",
        metavar="TEXT",
        help="the user's message (required; with --replay, the recording's by default)",
    )
    parser.add_argument("--system", metavar="TEXT", help="a system message before it")
    parser.add_argument(
        "--chat",
        metavar="URL",
        help="the model API's base URL, e.g. https://api.openai.com/v1, or https://api.anthropic.com with "
        "or without /v1 (default: the bundled reference server, in-process, in --api's flavour)",
    )
    parser.add_argument(
        "--model", metavar="M", help="the model (default with the reference server: agentaus)"
    )
    add_api_key_env(parser, per_api=True)
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
    chat_flags.add_flags(parser)
    parser.add_argument(
        "--agent-timeout",
        type=positive_float,
        default=None,
        metavar="SECONDS",
        help="the longest the whole run may take: past it the tool calls in flight are cancelled and the "
        "run fails (kind timeout; default: no limit beyond --max-turns and the chat limits)",
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


def add_api_flags(parser: argparse.ArgumentParser) -> None:
    """`--api` (which model API `--chat` speaks) and `--max-tokens`."""
    from ..agents.apis import API_NAMES, DEFAULT_API
    from ..agents.apis.anthropic import DEFAULT_MAX_TOKENS

    parser.add_argument(
        "--api",
        choices=API_NAMES,
        default=None,
        help=f"the model API: {DEFAULT_API} (OpenAI chat completions, the default), responses (OpenAI's "
        "Responses API) or anthropic (Anthropic's Messages API); without --chat, the bundled reference "
        "server speaks it; with --replay, the recording's",
    )
    parser.add_argument(
        "--max-tokens",
        type=positive_int,
        metavar="N",
        help="the most tokens of each answer: the Responses API's max_output_tokens, the Messages API's "
        f"max_tokens (default {DEFAULT_MAX_TOKENS} there, which requires it; elsewhere the API's default)",
    )


def add_api_key_env(parser: argparse.ArgumentParser, per_api: bool = False) -> None:
    """`--api-key-env NAME`, read by `chat_api_key` (`arazzo agent` and `arazzo generate --chat`);
    `per_api`: the command has `--api`, whose API names the default."""
    also = f"; with --api anthropic {API_KEY_ENVS['anthropic']}" if per_api else ""
    parser.add_argument(
        "--api-key-env",
        metavar="NAME",
        help=f"the environment variable holding the API key for --chat (default {API_KEY_ENV}{also})",
    )


def agent_command(args: argparse.Namespace) -> int:
    import asyncio

    from ..agents.loop import Settings, Watch, run_agent
    from ..agents.tools import build_catalog
    from .agent_watch import Watcher
    from .chat_flags import limits
    from .tool_flags import check_credentials, tool_sources, warn_credentials

    for flag, path in (("--report-json", args.report_json), ("--record", args.record)):
        if path and not os.path.isdir(os.path.dirname(os.path.abspath(path))):
            raise UsageError(f"{flag} {path}: the folder does not exist")
    recording = _recording(args)
    prompt = _prompt(args, recording)
    settings = Settings(
        chat_url=args.chat,
        model=args.model,
        api_key=chat_api_key(args),
        system=args.system,
        stream=args.stream,
        api=args.api,  # None: chat, or the recording's
        max_tokens=args.max_tokens,
        max_turns=args.max_turns,
        **limits(args),
        agent_timeout=args.agent_timeout,
        max_body=args.max_response_bytes,
        max_tool_calls=args.max_tool_calls,
        max_in_flight=args.max_tool_calls_in_flight,
        record=args.record,
        replay=args.replay,
    )
    catalog = build_catalog(tool_sources(args, runs=True))
    check_credentials(catalog, args)
    warn_credentials(catalog)
    text = args.format == "text"
    for note in catalog.notes:
        print(f"note: {note}", file=sys.stderr)
    if text:
        from ..masking.secrets import mask_userinfo

        where = mask_userinfo(args.chat) if args.chat else "the bundled reference server (in-process)"
        streamed = "streamed" if args.stream else "not streamed"
        if args.replay:
            where, streamed = f"the recording {args.replay}", "replayed"
        shown = _API_SHOWN[recording.api if recording else args.api or "chat"]
        print(f"agent: {len(catalog.tools)} tool(s), {shown} at {where}, {streamed}", flush=True)
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
    name = args.api_key_env or API_KEY_ENVS.get(getattr(args, "api", ""), API_KEY_ENV)
    key = os.environ.get(name)
    if not key:
        raise UsageError(
            f"--chat {args.chat}: no API key in the environment variable {name} "
            "(set it, or name another with --api-key-env NAME)"
        )
    return key


_API_SHOWN = MappingProxyType({"chat": "chat", "responses": "Responses API", "anthropic": "Messages API"})


def _recording(args: argparse.Namespace) -> Any:
    """`--replay`'s recording (None without it), read once here for what the command line leaves to it
    (the API, the prompt); `--replay` takes no `--chat` or `--model`, and an `--api` only its own."""
    if args.replay is None:
        return None
    for flag, value in (("--chat", args.chat), ("--model", args.model)):
        if value is not None:
            raise UsageError(f"--replay answers from the recording: it takes no {flag}")
    from ..agents.apis.recording import read_recording

    return read_recording(args.replay, args.api)


def _prompt(args: argparse.Namespace, recording: Any) -> str:
    """`--prompt`, or with `--replay` the recording's."""
    if args.prompt is not None:
        return args.prompt
    if recording is None:
        raise UsageError("the following arguments are required: --prompt")
    recorded = recording.prompt
    if not isinstance(recorded, str):
        raise UsageError(f"--replay {args.replay}: the recording has no prompt; give --prompt")
    return recorded


def _print_result(result: Any) -> None:
    """The closing lines (the answer itself was printed as it arrived)."""
    from ..agents.apis import wire

    label = wire(result.api).label  # the API spoken: the chat API, the Responses API, the Messages API
    for retry in result.retries:  # what was asked again, and why (`docs/agents.md`, retries)
        print(
            f"note: turn {retry['turn']}: {label} was asked again after attempt {retry['attempt']} "
            f"failed ({retry['cause']}; waited {retry['waitedSeconds']:g} s)",
            file=sys.stderr,
        )
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
