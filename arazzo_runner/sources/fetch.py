"""Fetching the bytes of a source description from disk or over http(s), with limits."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import urljoin

from ..errors import SourceError
from .locations import is_http, resolve_location

if TYPE_CHECKING:  # httpx is imported lazily: local-only runs never pay for it
    import httpx

DEFAULT_TIMEOUT = 10.0
DEFAULT_MAX_BYTES = 64 * 2**20
MAX_REDIRECTS = 5


@dataclass(frozen=True)
class FetchedText:
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

    def __init__(self, url: str, cause: str) -> None:
        super().__init__(cause)
        self.url = url
        self.cause = cause


def fetch_source(
    url: str,
    base: str | None,
    *,
    timeout: float = DEFAULT_TIMEOUT,
    max_bytes: int = DEFAULT_MAX_BYTES,
    client: httpx.Client | None = None,
) -> FetchedText:
    """Read `url` (resolved against `base`, see `resolve_location`); any failure is a `SourceError`."""
    location = resolve_location(url, base)
    if is_http(location):
        try:
            return _fetch_http(location, timeout, max_bytes, client)
        except _Problem as problem:
            prefix = "" if url == problem.url else f"cannot read {url}: "
            raise SourceError(f"{prefix}GET {problem.url}: {problem.cause}", file=base) from None
    try:
        return FetchedText(_read_file(location, max_bytes), location)
    except _Problem as problem:
        where = "" if url == location else f" (resolved to {location})"
        raise SourceError(f"cannot read {url}: {problem.cause}{where}", file=base) from None


def _read_file(path: str, max_bytes: int) -> bytes:
    try:
        with open(path, "rb") as handle:
            if os.fstat(handle.fileno()).st_size > max_bytes:
                raise _Problem(path, _too_large(max_bytes))
            content = handle.read(max_bytes + 1)  # a FIFO or /proc file reports no size
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


def _fetch_http(url: str, timeout: float, max_bytes: int, client: httpx.Client | None) -> FetchedText:
    import httpx

    own = client is None
    active = httpx.Client(timeout=timeout) if client is None else client
    try:
        return _follow(active, url, timeout, max_bytes)
    finally:
        if own:
            active.close()


def _follow(client: httpx.Client, url: str, timeout: float, max_bytes: int) -> FetchedText:
    """GET `url`, following at most MAX_REDIRECTS redirects by hand so loops get a clear message."""
    import httpx

    seen = {url}
    for _ in range(MAX_REDIRECTS + 1):
        try:
            with client.stream("GET", url, timeout=timeout, follow_redirects=False) as response:
                if not response.is_redirect:
                    return _accept(response, url, max_bytes)
                target = urljoin(url, response.headers["location"])
        except httpx.TimeoutException:
            raise _Problem(url, f"timed out after {timeout:g} s") from None
        except (httpx.HTTPError, httpx.InvalidURL) as exc:
            raise _Problem(url, f"{type(exc).__name__}: {exc}") from None
        if target in seen:
            raise _Problem(url, f"redirect loop (redirected back to {target})")
        if not is_http(target):
            raise _Problem(url, f"redirected to unsupported location {target}")
        seen.add(target)
        url = target
    raise _Problem(url, f"too many redirects (more than {MAX_REDIRECTS})")


def _accept(response: httpx.Response, url: str, max_bytes: int) -> FetchedText:
    if not response.is_success:
        raise _Problem(url, f"HTTP {response.status_code} {response.reason_phrase}".rstrip())
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > max_bytes:
        raise _Problem(url, _too_large(max_bytes))
    chunks: list[bytes] = []
    total = 0
    for chunk in response.iter_bytes():  # decoded bytes: a compressed bomb is caught too
        total += len(chunk)
        if total > max_bytes:
            raise _Problem(url, _too_large(max_bytes))
        chunks.append(chunk)
    media_type = response.headers.get("content-type", "").split(";")[0].strip() or None
    return FetchedText(b"".join(chunks), url, media_type)


def _too_large(max_bytes: int) -> str:
    size = f"{max_bytes // 2**20} MiB" if max_bytes % 2**20 == 0 else f"{max_bytes} bytes"
    return f"larger than the {size} limit"
