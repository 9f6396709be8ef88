"""Fetching the bytes of a source description from disk or over http(s), with limits."""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Callable
from typing import TYPE_CHECKING
from urllib.parse import urljoin, urlsplit

from ..bounds.deadline import armed
from ..errors import SourceError
from ..loader.text import read_bounded
from ..records import Record
from .locations import check_allowed, is_http, resolve_location

if TYPE_CHECKING:  # httpx is imported lazily: local-only runs never pay for it
    import httpx

DEFAULT_TIMEOUT = 10.0  # connect, and each read: the longest silence accepted
DEFAULT_TOTAL_TIMEOUT = 60.0  # a whole fetch, redirects included: a server trickling bytes is cut off
DEFAULT_MAX_BYTES = 64 * 2**20
MAX_REDIRECTS = 5


class FetchedText(Record, frozen=True):
    """The raw content of a source and where it was finally read from (after redirects)."""

    content: bytes
    location: str
    media_type: str | None = None

    @property
    def text(self) -> str:
        """The content as UTF-8 text (a BOM dropped). The loader also takes `content` itself, and then
        detects UTF-16/32 and locates a bad byte."""
        try:
            return self.content.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            byte = self.content[exc.start]
            message = f"not UTF-8 text: byte 0x{byte:02x} at offset {exc.start}"
            raise SourceError(message, file=self.location) from None


class _Problem(Exception):
    """Internal: why one request failed, with the URL it was for (may differ after redirects)."""

    def __init__(self, url: str, cause: str, *, late: bool = False) -> None:
        super().__init__(cause)
        self.url = url
        self.cause = cause
        self.late = late  # a time limit ended it (a timeout, or the total time)


def fetch_source(
    url: str,
    base: str | None,
    *,
    timeout: float = DEFAULT_TIMEOUT,
    max_bytes: int = DEFAULT_MAX_BYTES,
    client: httpx.Client | None = None,
    roots: tuple[str, ...] | None = None,
    total_timeout: float = DEFAULT_TOTAL_TIMEOUT,
) -> FetchedText:
    """Read `url` (resolved against `base`, see `resolve_location`); any failure is a `SourceError`.

    A local path outside `roots` is refused (see `locations.check_allowed`; None: no restriction).
    Over http(s) no credentials or cookies are sent (a fresh client unless `client` is given), and
    redirects are followed by hand to http(s) only. The run's armed deadline (`deadline.arm`) bounds the
    fetch too: past it nothing is read, and a fetch it cuts short says so.
    """
    location = resolve_location(url, base)
    check_allowed(location, roots, url, base)
    run = armed()
    left = None if run is None else run.remaining()
    if left is not None and left <= 0:
        raise SourceError(f"{run.message} before {url} was read", file=base)  # type: ignore[union-attr]
    if is_http(location):
        cut = left is not None and left < max(timeout, total_timeout)
        if left is not None:  # the run's deadline may end this fetch before its own limits do
            timeout, total_timeout = min(timeout, left), min(total_timeout, left)
        try:
            deadline = time.monotonic() + total_timeout
            return _fetch_http(location, timeout, max_bytes, client, deadline)
        except _Problem as problem:
            if run is not None and (run.expired() or (cut and problem.late)):
                raise SourceError(f"{run.message} while reading {url}", file=base) from None
            prefix = "" if url == problem.url else f"cannot read {url}: "
            raise SourceError(f"{prefix}GET {problem.url}: {problem.cause}", file=base) from None
    try:
        return FetchedText(_read_file(location, max_bytes), location)
    except _Problem as problem:
        where = "" if url == location else f" (resolved to {location})"
        raise SourceError(f"cannot read {url}: {problem.cause}{where}", file=base) from None


def _read_file(path: str, max_bytes: int) -> bytes:
    try:
        # Checked before opening: opening a FIFO waits for a writer, and a device may never end.
        if not stat.S_ISREG(os.stat(path).st_mode) and not os.path.isdir(path):
            raise _Problem(path, "not a regular file")
        with open(path, "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            if size > max_bytes:
                raise _Problem(path, _too_large(max_bytes))
            content = read_bounded(handle, size, max_bytes)  # a /proc file reports no size
    except FileNotFoundError:
        raise _Problem(path, "file not found") from None
    except IsADirectoryError:
        raise _Problem(path, "it is a directory") from None
    except PermissionError:
        raise _Problem(path, "permission denied") from None
    except OSError as exc:
        raise _Problem(path, exc.strerror or str(exc)) from None
    if len(content) > max_bytes:
        raise _Problem(path, _too_large(max_bytes))
    return content


def _fetch_http(
    url: str, timeout: float, max_bytes: int, client: httpx.Client | None, deadline: float
) -> FetchedText:
    owned: list[httpx.Client] = []

    def anonymous() -> httpx.Client:
        fresh = _anonymous_client(timeout)
        owned.append(fresh)
        return fresh

    try:
        if client is None:
            return _follow(anonymous(), None, url, timeout, max_bytes, deadline)
        return _follow(client, anonymous, url, timeout, max_bytes, deadline)
    finally:
        for opened in owned:
            opened.close()


def _anonymous_client(timeout: float) -> httpx.Client:
    """No auth, no default headers, and a cookie jar that stores nothing: a description is read
    anonymously (httpx >= 0.24 never reads ~/.netrc by itself; proxy settings from the environment
    still apply). TLS uses the process's verifying context (tls.py: CAs read once, at first use)."""
    import http.cookiejar

    import httpx

    from ..bounds.decoding import accept_encoding
    from .tls import default_tls_context

    fresh = httpx.Client(timeout=timeout, verify=default_tls_context())
    fresh.headers["Accept-Encoding"] = accept_encoding()  # only the codings undone within a bound
    fresh.cookies.jar.set_policy(http.cookiejar.DefaultCookiePolicy(allowed_domains=[]))
    return fresh


def _follow(
    client: httpx.Client,
    anonymous: Callable[[], httpx.Client] | None,
    url: str,
    timeout: float,
    max_bytes: int,
    deadline: float,
) -> FetchedText:
    """GET `url`, following at most MAX_REDIRECTS redirects by hand so loops get a clear message.

    A caller's `client` (with its headers and cookies) is used for its first origin only: after a
    redirect to another origin the rest is fetched with a client from `anonymous`."""
    import httpx

    seen = {url}
    origin = _origin(url)
    for _ in range(MAX_REDIRECTS + 1):
        try:
            with client.stream("GET", url, timeout=timeout, follow_redirects=False) as response:
                if not response.is_redirect:
                    return _accept(response, url, max_bytes, deadline)
                target = urljoin(url, response.headers["location"])
        except httpx.TimeoutException:
            raise _Problem(url, f"timed out after {timeout:g} s", late=True) from None
        except (httpx.HTTPError, httpx.InvalidURL) as exc:
            raise _Problem(url, f"{type(exc).__name__}: {exc}") from None
        if target in seen:
            raise _Problem(url, f"redirect loop (redirected back to {target})")
        if not is_http(target):
            raise _Problem(url, f"redirected to unsupported location {target}")
        if time.monotonic() > deadline:
            raise _Problem(url, "took too long (redirects included)", late=True)
        if anonymous is not None and _origin(target) != origin:
            client, anonymous = anonymous(), None
        seen.add(target)
        url = target
    raise _Problem(url, f"too many redirects (more than {MAX_REDIRECTS})")


def _origin(url: str) -> tuple[str, str | None, int | None]:
    parts = urlsplit(url)
    return parts.scheme.lower(), parts.hostname, parts.port


def _accept(response: httpx.Response, url: str, max_bytes: int, deadline: float) -> FetchedText:
    if not response.is_success:
        raise _Problem(url, f"HTTP {response.status_code} {response.reason_phrase}".rstrip())
    declared = response.headers.get("content-length", "")
    if declared.isascii() and declared.isdigit() and (len(declared) > 18 or int(declared) > max_bytes):
        raise _Problem(url, _too_large(max_bytes))
    from ..bounds.decoding import Undecodable, is_encoded, iter_decoded

    coding = response.headers.get("content-encoding")
    chunks: list[bytes] = []
    total = 0
    try:
        # decoded piece by piece: a compression bomb counts as it grows (and what it reads, too)
        pieces = iter_decoded(response, max_bytes)
        for chunk in pieces:
            total += len(chunk)
            if total > max_bytes:
                raise _Problem(url, _too_large(max_bytes, coding if is_encoded(coding) else None))
            if time.monotonic() > deadline:
                late = f"still arriving after the total time limit ({total} bytes read)"
                raise _Problem(url, late, late=True)
            chunks.append(chunk)
    except Undecodable as exc:
        raise _Problem(url, str(exc)) from None
    media_type = response.headers.get("content-type", "").split(";")[0].strip() or None
    return FetchedText(b"".join(chunks), url, media_type)


def _too_large(max_bytes: int, coding: str | None = None) -> str:
    size = f"{max_bytes // 2**20} MiB" if max_bytes % 2**20 == 0 else f"{max_bytes} bytes"
    decoded = f" (decoded; Content-Encoding: {coding})" if coding else ""
    return f"larger than the {size} limit{decoded}"
