"""`python -m arazzo_runner.reference [--host H] [--port P] [--flavor seed|openai|responses|anthropic]
[--date D] [--verbose]`: serve in the foreground.

Requests are logged (to stderr) only with `--verbose`: the server is usually started with `&` in the
terminal a workflow then runs in, and its log lines would interleave with the run's output.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys

from .arguments import DEFAULT_DATE
from .flavors import FLAVORS
from .server import MAX_CONNECTIONS, ReferenceServer

DEFAULT_PORT = 8765


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m arazzo_runner.reference",
        description="Run the deterministic reference model server (chat completions, or another API).",
    )
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help="0 picks a free port")
    parser.add_argument(
        "--flavor",
        choices=FLAVORS,
        default="seed",
        help="the wire: seed (the OpenAPI description's contract, the default), openai (OpenAI chat "
        "completions, for the official clients), responses (OpenAI's Responses API, /v1/responses) or "
        "anthropic (Anthropic's Messages API, /v1/messages)",
    )
    parser.add_argument(
        "--api-key-env",
        metavar="NAME",
        help="accept only the bearer token held by this environment variable (default: any non-empty one)",
    )
    parser.add_argument(
        "--date",
        help=f"the date put in `date` arguments (default: env ARAZZO_REFERENCE_DATE, else {DEFAULT_DATE})",
    )
    logging = parser.add_mutually_exclusive_group()
    logging.add_argument("--verbose", "-v", action="store_true", help="log each request to stderr")
    logging.add_argument("--quiet", action="store_true", help="do not log requests (the default)")
    parser.add_argument(
        "--max-connections",
        type=int,
        default=MAX_CONNECTIONS,
        metavar="N",
        help=f"connections served at once, a thread each (default {MAX_CONNECTIONS}); one more is "
        "answered 503",
    )
    parser.add_argument(
        "--no-stream-default",
        action="store_true",
        help="answer requests without `stream` with JSON (the seed flavour streams by default)",
    )
    args = parser.parse_args(argv)
    api_key = None
    if args.api_key_env is not None:
        api_key = os.environ.get(args.api_key_env)
        if not api_key:
            print(f"--api-key-env: the environment variable {args.api_key_env} is not set", file=sys.stderr)
            return 2
    try:
        server = ReferenceServer(
            args.host,
            args.port,
            date=args.date,
            verbose=args.verbose,
            stream_default=False if args.no_stream_default else None,
            flavor=args.flavor,
            api_key=api_key,
            max_connections=max(1, args.max_connections),
        )
    except OSError as exc:
        print(f"cannot listen on {args.host}:{args.port}: {exc}", file=sys.stderr)
        return 2
    shown = f"Reference chat-completions server at {server.url} ({args.flavor} flavour; Ctrl-C to stop)"
    with contextlib.suppress(KeyboardInterrupt):  # Ctrl-C from the moment it says where it listens
        print(shown, flush=True)
        server.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
