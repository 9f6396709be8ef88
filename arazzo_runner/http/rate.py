"""Request rates per host (`--rate HOST=N/s`): a run, or all the rows of an `--inputs-file` run and the
users of one `arazzo load` process, starts at most N requests a second to HOST.

A token bucket of one token per host (virtual scheduling): each request reserves the next free start,
1/N s after the one before, and waits until then; a request finds the bucket full after an idle spell
and goes at once. Reservations are made in the order requests ask, in one thread (asyncio or a blocked
thread): no lock. A request answered from a journal is not sent, and does not wait. On Temporal each
worker keeps its own buckets (`arazzo worker --rate`): N workers may send N times the rate; a run's
`arazzo run --temporal --rate` is one rate over all the workers, the service's (`temporal/rated.py`).
"""

from __future__ import annotations

import time
from urllib.parse import urlsplit


class RateLimits:
    """The rates of a run (one object shared by every run that must share them)."""

    def __init__(self, rates: dict[str, float], clock: object = time.monotonic) -> None:
        self.rates = {host.lower(): rate for host, rate in rates.items()}
        self.clock = clock
        self._next: dict[str, float] = {}  # host -> the earliest start of its next request

    def delay(self, url: str) -> float:
        """Seconds the request to `url` waits before it is sent (0 when its host has no rate); the
        slot is reserved now."""
        host = rated_host(url, self.rates)
        if host is None:
            return 0.0
        now = self.clock()  # type: ignore[operator]
        start = max(now, self._next.get(host, now))
        self._next[host] = start + 1.0 / self.rates[host]
        return start - now


def rated_host(url: str, rates: dict[str, float]) -> str | None:
    """The key of `rates` the URL's host matches: `host:port` first, then the host alone."""
    try:
        parts = urlsplit(url)
        netloc, hostname = parts.netloc.rpartition("@")[2].lower(), (parts.hostname or "").lower()
    except ValueError:
        return None
    if netloc in rates:
        return netloc
    return hostname if hostname in rates else None


def parse_rate(text: str) -> tuple[str, float]:
    """`HOST=N/s` (or `N/min`, `N/h`) -> (host, requests per second); ValueError saying what is wrong."""
    host, sep, value = text.partition("=")
    number, slash, unit = value.strip().partition("/")
    per = {"s": 1.0, "sec": 1.0, "second": 1.0, "min": 60.0, "minute": 60.0, "h": 3600.0, "hour": 3600.0}
    if not sep or not host.strip() or not slash or unit.strip().lower() not in per:
        raise ValueError(f"expected HOST=N/s (or N/min, N/h), got {text!r}")
    try:
        count = float(number)
    except ValueError:
        raise ValueError(f"expected a number of requests in {text!r}") from None
    if not count > 0 or count == float("inf"):
        raise ValueError(f"the rate must be above 0, got {text!r}")
    return host.strip().lower(), count / per[unit.strip().lower()]
