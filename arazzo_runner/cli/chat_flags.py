"""The time limits and retries of the model API, shared by `arazzo agent` and `arazzo generate --chat`
(`docs/agents.md`, "Failures, retries and time limits"):

- `--chat-retries N`: retries of one exchange (429, 5xx, connection failures, stalls; `agents/apis/retry.py`);
- `--chat-idle-timeout SECONDS`: the longest the API may stay silent (connecting, before the answer
  begins, between two pieces of it); `--chat-timeout`, which always was this, is its deprecated alias;
- `--chat-exchange-timeout SECONDS`: the longest one request and its whole answer may take.

    add_flags(parser)
    Settings(..., **limits(args))
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..errors import UsageError
from .common import positive_float

CHAT_TIMEOUT_WARNING = (
    "warning: --chat-timeout is deprecated: it always was the idle limit (the longest the chat API may "
    "stay silent), now --chat-idle-timeout; --chat-exchange-timeout bounds a whole exchange"
)


def add_flags(parser: argparse.ArgumentParser) -> None:
    from ..agents.loop import DEFAULT_CHAT_RETRIES, DEFAULT_CHAT_TIMEOUT, DEFAULT_EXCHANGE_TIMEOUT

    parser.add_argument(
        "--chat-retries",
        type=_count,
        default=DEFAULT_CHAT_RETRIES,
        metavar="N",
        help="retries of a chat exchange that failed with 408, 409, 429 or 5xx, a connection failure or "
        "a stall, after a backoff or the Retry-After asked (up to 60 s); 0: none "
        f"(default {DEFAULT_CHAT_RETRIES})",
    )
    parser.add_argument(
        "--chat-idle-timeout",
        type=positive_float,
        default=None,
        metavar="SECONDS",
        help="the longest the chat API may stay silent: connecting, before its answer begins, between "
        f"two pieces of a stream (default {DEFAULT_CHAT_TIMEOUT:g})",
    )
    parser.add_argument(
        "--chat-timeout",
        type=positive_float,
        default=None,
        metavar="SECONDS",
        help="deprecated alias of --chat-idle-timeout",
    )
    parser.add_argument(
        "--chat-exchange-timeout",
        type=positive_float,
        default=DEFAULT_EXCHANGE_TIMEOUT,
        metavar="SECONDS",
        help="the longest one chat request and its whole answer may take (default "
        f"{DEFAULT_EXCHANGE_TIMEOUT:g})",
    )


def limits(args: argparse.Namespace) -> dict[str, Any]:
    """`Settings` fields from the flags (a warning on stderr for `--chat-timeout`)."""
    from ..agents.loop import DEFAULT_CHAT_TIMEOUT

    idle = args.chat_idle_timeout
    if args.chat_timeout is not None:
        if idle is not None:
            raise UsageError("--chat-timeout is the deprecated name of --chat-idle-timeout: give one of them")
        print(CHAT_TIMEOUT_WARNING, file=sys.stderr)
        idle = args.chat_timeout
    return {
        "chat_timeout": DEFAULT_CHAT_TIMEOUT if idle is None else idle,
        "chat_retries": args.chat_retries,
        "chat_exchange_timeout": args.chat_exchange_timeout,
    }


def _count(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError("must be 0 or more")
    return value
