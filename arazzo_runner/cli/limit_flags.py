"""The resource-bound flags of `arazzo run`: --deadline, --max-response-bytes, --max-attempts,
--max-retry-total, --max-retry-delay, --max-loop-items (`--max-steps` and `--timeout` live with the
run command).

    add_flags(run_parser)
    RunOptions(..., **options(args))
"""

from __future__ import annotations

import argparse
import math
import re
from typing import Any

from ..bounds.limits import (
    DEFAULT_MAX_ATTEMPTS,
    DEFAULT_MAX_BODY,
    DEFAULT_MAX_LOOP_ITEMS,
    DEFAULT_MAX_RETRY_TOTAL,
)

_SIZE = r"(\d+)\s*([kmg]i?b?|b)?"  # compiled on first use (`re`'s cache): not at every start
_UNITS = "bkmg"  # bytes, then powers of 1024


def add_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--deadline",
        type=seconds,
        default=None,
        metavar="SECONDS",
        help="stop the whole run after SECONDS: the request in flight is cancelled, the run fails",
    )
    parser.add_argument(
        "--max-response-bytes",
        type=size,
        default=DEFAULT_MAX_BODY,
        metavar="SIZE",
        help="response bytes read per request, counted decoded, e.g. 16M (default); a larger body is not "
        "kept, and a step reading $response.body then fails (a compressed one fails its step always)",
    )
    parser.add_argument(
        "--max-attempts",
        type=_count,
        default=DEFAULT_MAX_ATTEMPTS,
        metavar="N",
        help=f"attempts per step, whatever retryLimit says (default {DEFAULT_MAX_ATTEMPTS})",
    )
    parser.add_argument(
        "--max-retry-total",
        type=seconds,
        default=DEFAULT_MAX_RETRY_TOTAL,
        metavar="SECONDS",
        help=f"time a step may spend retrying, waits included (default {DEFAULT_MAX_RETRY_TOTAL:g})",
    )
    parser.add_argument(
        "--max-retry-delay",
        type=seconds,
        default=300.0,
        metavar="SECONDS",
        help="cap on any single retry wait, Retry-After included (default 300)",
    )
    parser.add_argument(
        "--max-loop-items",
        type=_count,
        default=DEFAULT_MAX_LOOP_ITEMS,
        metavar="N",
        help="items an x-forEach step runs its workflow for; more fail the step unsent "
        f"(default {DEFAULT_MAX_LOOP_ITEMS})",
    )

    parser.add_argument(
        "--rate",
        action="append",
        type=_rate,
        default=[],
        metavar="HOST=N/s",
        help="start at most N requests a second to HOST (or HOST:PORT; N/min, N/h too), over all the "
        "rows or users of this process, or with --temporal over all the workers (repeatable)",
    )


def _rate(text: str) -> tuple[str, float]:
    from ..http.rate import parse_rate

    try:
        return parse_rate(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def rate_limits(args: argparse.Namespace) -> Any:
    """The one `RateLimits` of this command (every row's and user's run shares it), None without --rate."""
    rates = getattr(args, "rate", None)
    if not rates:
        return None
    shared = getattr(args, "rate_limits", None)
    if shared is None:
        from ..http.rate import RateLimits

        shared = args.rate_limits = RateLimits(dict(rates))
    return shared


def options(args: argparse.Namespace) -> dict[str, Any]:
    """RunOptions fields from the flags."""
    return {
        "rate": rate_limits(args),
        "deadline": args.deadline,
        "max_body": args.max_response_bytes,
        "max_attempts": args.max_attempts,
        "max_retry_total": args.max_retry_total,
        "max_retry_delay": args.max_retry_delay,
        "max_loop_items": args.max_loop_items,
    }


def seconds(text: str) -> float:
    """A finite number of seconds above 0 (`nan` and `inf` are refused, unlike float())."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"must be a finite number of seconds above 0, got {text!r}")
    return value


def size(text: str) -> int:
    """Bytes: `1048576`, `512K`, `16M`, `1G` (binary units; `KiB`, `MB` and the like also accepted)."""
    match = re.fullmatch(_SIZE, text.strip(), re.IGNORECASE)
    if match is None:
        raise argparse.ArgumentTypeError(f"expected a size such as 16M or 1048576, got {text!r}")
    unit = (match.group(2) or "b")[:1].lower()
    value = int(match.group(1)) * 2 ** (10 * _UNITS.index(unit))
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1 byte")
    return value


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value
