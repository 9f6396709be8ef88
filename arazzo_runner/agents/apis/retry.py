"""When the model client asks again, and how long it waits first (`client.ModelClient`, `docs/agents.md`).

Retried: an answer with status 408, 409, 429 or 5xx; the API not reached (connection refused or reset,
closed before answering, a connect or write timeout); no answer begun within the idle limit; a stream
that stalled or broke off, or an exchange past its limit - but only while nothing of the answer was
handed out (a text piece shown to a watcher): asking again then would show that text twice, and the
new answer need not start the same way. Not retried: any other status (400, 401, 404: asking again
gets the same answer), an answer that breaks its API's protocol (a data line that is not JSON, a
stream that ends before its API says the answer is complete, past its byte limit).

The wait before retry n (from 1): what the server asks in `Retry-After` (seconds, or an HTTP date;
`retry-after-ms` first, as OpenAI's clients read it), up to `MAX_RETRY_AFTER` seconds - a server that
asks more is not retried, its answer is the failure; else exponential backoff from 0.5 s doubling to
8 s at most, less a random jitter of up to a quarter (clients that failed together do not retry
together).
"""

from __future__ import annotations

import random
import time
from email.utils import parsedate_to_datetime
from typing import Any

RETRY_STATUSES = frozenset({408, 409, 429})  # and every 5xx
MAX_RETRY_AFTER = 60.0  # seconds: the longest a server's Retry-After is waited for
BACKOFF_FIRST, BACKOFF_MAX, JITTER = 0.5, 8.0, 0.25


def retryable_status(status: int) -> bool:
    return status in RETRY_STATUSES or 500 <= status <= 599


def retry_after(headers: Any, now: float | None = None) -> float | None:
    """The wait a response asks for, in seconds (`retry-after-ms`, else `Retry-After` as seconds or an
    HTTP date); None when it asks none or says it unreadably."""
    milliseconds = _number(headers.get("retry-after-ms"))
    if milliseconds is not None:
        return milliseconds / 1000
    value = headers.get("retry-after")
    if value is None:
        return None
    seconds = _number(value)
    if seconds is not None:
        return seconds
    try:
        when = parsedate_to_datetime(value.strip())
    except (TypeError, ValueError, IndexError):
        return None
    if when is None or when.tzinfo is None:
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


def backoff(retry: int, jitter: float | None = None) -> float:
    """The wait before retry `retry` (from 1) when the server asked none."""
    base = min(BACKOFF_MAX, BACKOFF_FIRST * 2 ** (retry - 1))
    return round(base * (1 - JITTER * (random.random() if jitter is None else jitter)), 3)


def _number(value: Any) -> float | None:
    if not isinstance(value, str):
        return None
    try:
        number = float(value.strip())
    except ValueError:
        return None
    return number if number >= 0 and number == number and number != float("inf") else None
