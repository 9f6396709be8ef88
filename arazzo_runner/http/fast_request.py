"""The httpx.Request of a step, built as `client.build_request` builds it, without the work it repeats.

`build_request` costs ~285 k instructions a request, a sixth of a step of a long chain: it parses the
URL (~110 k: a generator over every character looking for control characters, regular expressions,
percent-quoting each part), merges the client's headers into a copy (`Headers.update` of a list: ~40 k),
and `Request.__init__` then asks the headers for `Host`, `Content-Length` and `Transfer-Encoding` by
raising and catching KeyError, each lookup working out the headers' encoding again.

`build` makes the same request for the run's own clients (no base URL, no default query parameters):
- the URL: the part before the path (`scheme://authority`) is parsed by httpx once per distinct value
  and kept; the path and query are taken as they are when every character of them is one httpx's
  parser keeps as it is (`quote` leaves unreserved and "safe" characters alone, and `%xx` too), with its
  own dot-segment removal. Anything else (a `#`, a space, a non-ASCII or control character, a URL
  without a path) is parsed by httpx, as before.
- the headers: the client's defaults but those the request sets (compared in lower case, all
  occurrences, as `Headers.update` drops them), then the request's, then the client's cookies (httpx's
  own cookie code, on a copy of the jar), the body's Content-Length, and in front `Host` and the
  `Content-Length: 0` of a bodiless POST, PUT or PATCH: `Request._prepare`'s order and rules.
- the `timeout` extension: the given timeout's, or the client's.
- the request: without a cookie to add (the client's jar empty: a row's view of the shared client has
  its own jar, `run_client`), the fields `Request.__init__` sets when given a stream, set directly (its
  copies of the URL and the headers, and the type checks of each, cost ~20 k instructions); its
  content as `read()` keeps it.
None when it cannot say: the caller then builds the request the reference way (`client.build_request`),
which also raises whatever httpx raises for it. tests/unit/http/test_fast_request.py compares the two
ways, on a real server too, so an httpx release that changes either is noticed.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from http.cookiejar import CookieJar
from typing import Any

import httpx

try:  # httpx's own URL rules, so that what is taken as it is, is what its parser keeps as it is
    from httpx._client import UseClientDefault
    from httpx._urlparse import (
        MAX_URL_LENGTH,
        PATH_SAFE,
        QUERY_SAFE,
        UNRESERVED_CHARACTERS,
        ParseResult,
        normalize_path,
    )
except ImportError:  # another httpx: every request is built by `build_request`
    _REST = None
else:
    _PATH = re.escape("".join(sorted(set(UNRESERVED_CHARACTERS + PATH_SAFE))))
    _QUERY = re.escape("".join(sorted(set(UNRESERVED_CHARACTERS + QUERY_SAFE))))
    _REST = re.compile(f"/[{_PATH}]*(?:\\?[{_QUERY}]*)?")

_PREFIX = re.compile(r"[a-zA-Z][a-zA-Z0-9+.-]*://[^/?#]*")  # httpx's scheme and authority
# the URL whole in one match: (`_PREFIX`)(the path, `_REST`'s)(the query, `_REST`'s, or None without `?`)
_WHOLE = None if _REST is None else re.compile(f"({_PREFIX.pattern})(/[{_PATH}]*)(?:\\?([{_QUERY}]*))?")
_ORIGINS: dict[str, Any] = {}  # `scheme://authority` -> its ParseResult (None: parse such URLs whole)
_MAX_ORIGINS = 256
_OPTIONS = frozenset({"headers", "content", "timeout"})
_BODY_METHODS = ("POST", "PUT", "PATCH")  # given `Content-Length: 0` without a body (`Request._prepare`)


def build(client: Any, method: str, url: Any, options: dict[str, Any]) -> httpx.Request | None:
    """`client.build_request(method, url, **options)`, or None (see the module's docstring)."""
    if _REST is None or type(url) is not str or not _OPTIONS.issuperset(options):
        return None
    content = options.get("content")
    if content is not None and type(content) is not bytes:
        return None
    if client.params:  # default query parameters: `build_request` replaces the URL's query with them
        return None  # (a base URL is not merged into an absolute URL, which is all `fast_url` reads)
    parsed = fast_url(url)
    if parsed is None:
        return None
    given = given_items(options)
    if given is None:
        return None
    overridden = {k.lower() for k, _ in given}
    items = [item for item in client.headers._list if item[1] not in overridden]
    items += [(k, k.lower(), v) for k, v in given]
    body = content or b""
    stream = httpx.ByteStream(body)
    extensions = timeout_extensions(client, options)
    cookies = client.cookies
    if has_cookies(cookies):  # the jar's Cookie header, by httpx's own cookie code (on a copy of the jar)
        headers = headers_of(items)
        try:
            request = httpx.Request(
                method, parsed, headers=headers, cookies=cookies, stream=stream, extensions=extensions
            )
        except UnicodeEncodeError:  # a cookie of the jar holds non-ASCII text: `run_client._utf8_cookies`
            return None
        items = request.headers._list
        request.headers = _prepared(items, body, request.method, parsed)
        request._content = body  # `request.read()` of a ByteStream
        return request
    return assemble(method.upper(), parsed, items, body, stream, extensions)


def given_items(options: dict[str, Any]) -> list[tuple[bytes, bytes]] | None:
    """The request's own headers as bytes (text in ASCII); None when httpx would raise for one."""
    headers = options.get("headers") or ()
    # a Mapping: its pairs (iterated, a dict gives its keys: `TE` read as T, E); a list is none (no ABC check)
    if type(headers) is not list and isinstance(headers, Mapping):
        headers = headers.items()
    try:
        return [
            (k if type(k) is bytes else k.encode("ascii"), v if type(v) is bytes else v.encode("ascii"))
            for k, v in headers
        ]
    except (UnicodeEncodeError, AttributeError, ValueError, TypeError):
        return None  # httpx's own error, from `build_request`


def timeout_extensions(client: Any, options: dict[str, Any]) -> dict[str, Any]:
    """The request's `timeout` extension: the given timeout's, or the client's (`build_request`'s)."""
    timeout = options.get("timeout", httpx.USE_CLIENT_DEFAULT)
    if isinstance(timeout, UseClientDefault):
        limits = client.timeout
    else:
        limits = timeout if type(timeout) is httpx.Timeout else httpx.Timeout(timeout)
    return {"timeout": limits.as_dict()}


def assemble(
    method: str, url: httpx.URL, items: list, body: bytes, stream: Any, extensions: dict[str, Any]
) -> httpx.Request:
    """The request without a cookie to add: what `Request.__init__` sets when given a stream (`method`
    in upper case), without copying what was made here; its headers `_prepared`."""
    request = httpx.Request.__new__(httpx.Request)
    request.method = method
    request.url, request.extensions, request.stream = url, extensions, stream
    request.headers = _prepared(items, body, method, url)
    request._content = body  # `request.read()` of a ByteStream
    return request


def _prepared(items: list[tuple[bytes, bytes, bytes]], body: bytes, method: str, url: httpx.URL) -> Any:
    """`Request._prepare` for a body of bytes: its Content-Length unless one is set, then in front the
    Host and the Content-Length of a bodiless POST, PUT or PATCH unless set; a new Headers (its
    encoding worked out again when first read, as httpx's)."""
    keys = {item[1] for item in items}
    if body and b"content-length" not in keys:
        items.append((b"Content-Length", b"content-length", str(len(body)).encode()))
        keys.add(b"content-length")
    auto = []
    if b"host" not in keys and url.host:
        auto.append((b"Host", b"host", url.netloc))
    if b"content-length" not in keys and b"transfer-encoding" not in keys and method in _BODY_METHODS:
        auto.append((b"Content-Length", b"content-length", b"0"))
    return headers_of(auto + items)


def headers_of(items: list[tuple[bytes, bytes, bytes]]) -> Any:
    """httpx.Headers holding `items` (raw name, lower-case name, value), as `Headers()` then its list set,
    without `__init__`'s type checks (an ABC's isinstance among them); its encoding worked out when first
    read, as httpx's."""
    made = httpx.Headers.__new__(httpx.Headers)
    made._list, made._encoding = items, None
    return made


def has_cookies(cookies: Any) -> bool:
    """`bool(cookies)` (an httpx.Cookies), which iterates its jar under the jar's lock (~3 µs): a
    standard CookieJar whose table is empty holds none."""
    jar = getattr(cookies, "jar", None)
    if type(jar) is CookieJar and not jar._cookies:  # type: ignore[attr-defined]
        return False
    return bool(cookies)


def fast_url(url: str) -> httpx.URL | None:
    """`httpx.URL(url)` when its path and query are kept as they are (see the module's docstring);
    None: parse it with httpx."""
    parts = split_url(url)
    return None if parts is None else url_of(*parts[1:])


def split_url(url: str) -> tuple[str, Any, str, str | None] | None:
    """(`scheme://authority`, httpx's parse of it, the path without dot segments, the query or None)
    of a URL `fast_url` takes as it is; None: parse it with httpx."""
    if len(url) > MAX_URL_LENGTH:
        return None
    found = _WHOLE.fullmatch(url)  # type: ignore[union-attr]
    if found is None:
        return None
    prefix, path, query = found.groups()
    origin = _ORIGINS.get(prefix, False)
    if origin is False:
        origin = _origin(prefix)
        if len(_ORIGINS) >= _MAX_ORIGINS:
            _ORIGINS.clear()
        _ORIGINS[prefix] = origin
    if origin is None:
        return None
    return prefix, origin, normalize_path(path) if "." in path else path, query


def url_of(origin: Any, path: str, query: str | None) -> httpx.URL:
    """The httpx.URL of `split_url`'s parts, as httpx's parser makes it."""
    made = httpx.URL.__new__(httpx.URL)
    made._uri_reference = ParseResult(
        origin.scheme, origin.userinfo, origin.host, origin.port, path, query, None
    )  # fmt: skip
    return made


def _origin(prefix: str) -> Any:
    """The parsed `scheme://authority` (None: not one with a host, or not one httpx reads)."""
    try:
        parsed = httpx.URL(prefix)._uri_reference
    except (httpx.InvalidURL, ValueError, TypeError):
        return None
    return parsed if parsed.host else None
