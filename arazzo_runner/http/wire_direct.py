"""A run client's request written for the lean pool straight from what the step prepared: its head's
bytes made once, its httpx.Request only when something reads it.

Over the lean pool (`lean_exchange.py`) a request was built three times: an httpx.Request
(`fast_request.build`, ~50 k instructions), httpcore's fields of it (`lean_exchange._Request`, ~15 k:
each URL part a property encoding text again) and its head's bytes (`wire_request.request_head`, ~40 k:
each header line formatted and checked by regular expressions, h11's rules). Here the head is written
from the same parts `build` reads, in the order and case httpx and h11 write them: the request line,
`Host` (httpx's `netloc` of the URL), the `Content-Length: 0` of a bodiless POST, PUT or PATCH, the
client's default headers but those the request sets (all occurrences, compared in lower case), the
request's own, the body's Content-Length. What h11 checks is checked: the method and each line of the
request's own headers as `request_head` checks them, every time; the lines of the URL's origin (its
Host) and of the client's defaults, checked once and kept (the engine's own values: Accept,
Accept-Encoding, Connection, User-Agent), at most `_MAX_KEPT` of each; the target needs no check
(`fast_request`'s characters are all visible ASCII, asserted at import). The httpx.Request is
`fast_request.assemble`'s of the same parts, made when a failure, a Set-Cookie, httpx's log line or
the response's `request` asks for it.

None (the request is built and sent as before, which raises what httpx and h11 raise) when anything is
not that plain case: a transport other than the lean pool or routes by URL (a proxy's, a caller's,
`--replay-http`'s, one whose sending was replaced), cookies in a jar, a URL `fast_request` leaves to
httpx, options other than headers, bytes and a timeout, a header httpx would refuse or h11 would, and
any Host, Content-Length, Transfer-Encoding or Connection header set by the request (or by the
client's defaults, but for a `Connection` that is not `close`).
tests/unit/http/test_wire_direct.py compares the bytes, requests and failures with the way before.
"""

from __future__ import annotations

from http.cookiejar import CookieJar
from typing import Any

import httpx

from .fast_request import (
    _BODY_METHODS,
    _OPTIONS,
    _REST,
    assemble,
    given_items,
    has_cookies,
    split_url,
    timeout_extensions,
    url_of,
)
from .wire_request import _LINE, _NAME, Written

_MAX_KEPT = 64  # checked lines kept per table (origins, client defaults, methods); cleared when full
_HOSTS: dict[str, Any] = {}  # `scheme://authority` -> (its `_Origin`, the Host line) or None
_DEFAULTS: dict[tuple, Any] = {}  # the client's default header items -> their checked lines, or None
_METHODS: dict[str, Any] = {}  # the method as given -> (upper case, as bytes) when h11 writes it
_NO_BODY = httpx.ByteStream(b"")  # an empty body's stream (nothing in it changes as it is read)
_SET_APART = frozenset({b"host", b"content-length", b"transfer-encoding", b"connection"})


def written(client: Any, method: str, url: Any, options: dict[str, Any], jar: Any) -> Written | None:
    """`client`'s request (`client.build_request(method, url, **options)`, `jar`'s cookies beside it) as
    the lean pool sends it, or None (see the module's docstring). The caller has checked that the
    client's one transport is httpx's own over the lean pool."""
    if not _VISIBLE or type(url) is not str or not _OPTIONS.issuperset(options):
        return None
    content = options.get("content")
    if (content is not None and type(content) is not bytes) or client.params:
        return None
    cookies = client.cookies.jar  # `has_cookies`, without a call for the plain empty jar
    if type(cookies) is not CookieJar or cookies._cookies:  # type: ignore[attr-defined]
        return None
    if jar is not None and has_cookies(jar):  # the run's own, beside a shared client
        return None
    verb = _METHODS.get(method)
    if verb is None:
        verb = _method(method)
        if verb is None:
            return None
    parts = split_url(url)
    if parts is None:
        return None
    prefix, origin, path, query = parts
    host = _HOSTS.get(prefix, False)
    if host is False:
        host = _keep(_HOSTS, prefix, _host(origin))
    if host is None:
        return None
    given = given_items(options) if options.get("headers") else []
    if given is None:
        return None
    lines = []
    if given:
        overridden = set()
        for name, value in given:
            lower = name.lower()
            line = b"%s: %s\r\n" % (name, value)
            if lower in _SET_APART or b":" in name or not _LINE.fullmatch(line):  # (see `request_head`)
                return None
            overridden.add(lower)
            lines.append(line)
        defaults = [item for item in client.headers._list if item[1] not in overridden]
        items = defaults + [(k, k.lower(), v) for k, v in given]
    else:
        defaults = items = client.headers._list[:]
    key = tuple(defaults)
    block = _DEFAULTS.get(key, False)
    if block is False:
        block = _keep(_DEFAULTS, key, _checked(defaults))
    if block is None:
        return None
    upper, method_bytes = verb
    body = content or b""
    raw_path = (path or "/") if query is None else (path or "/") + "?" + query  # httpx's `raw_path`
    target = raw_path.encode("ascii")
    head = [b"%s %s HTTP/1.1\r\n" % (method_bytes, target), host[1]]
    length = None
    if body:
        length = len(body)
    elif upper in _BODY_METHODS:
        length = 0
        head.append(b"Content-Length: 0\r\n")
    head.append(block)
    head += lines
    if body:
        head.append(b"Content-Length: %d\r\n" % len(body))
    head.append(b"\r\n")
    stream = httpx.ByteStream(body) if body else _NO_BODY
    timeout = options.get("timeout")
    if type(timeout) is httpx.Timeout:
        extensions = {"timeout": timeout.as_dict()}
    else:
        extensions = timeout_extensions(client, options)
    return Written(method_bytes, host[0], stream, extensions, b"".join(head), length,
                   (upper, origin, path, query, items, body))  # fmt: skip


def request_of(written: Written) -> httpx.Request:
    """The httpx.Request `written` was made from: `fast_request.build`'s for a client without cookies."""
    upper, origin, path, query, items, body = written.parts
    url = url_of(origin, path, query)
    return assemble(upper, url, list(items), body, written.stream, written.extensions)


def _keep(table: dict, key: Any, value: Any) -> Any:
    if len(table) >= _MAX_KEPT:
        table.clear()
    table[key] = value
    return value


def _method(method: str) -> tuple[str, bytes] | None:
    """(`method` in upper case as httpx sends it, its bytes) when h11 writes it; None: the way before."""
    upper = method.upper()
    try:
        raw = upper.encode("ascii")
    except UnicodeEncodeError:
        return None
    if not _NAME.fullmatch(raw):
        return None
    return _keep(_METHODS, method, (upper, raw))


class _Origin:
    """httpcore.URL's fields as the pool reads them of a written request (its target is in the head)."""

    __slots__ = ("host", "port", "scheme")

    def __init__(self, scheme: bytes, host: bytes, port: int | None) -> None:
        self.scheme, self.host, self.port = scheme, host, port


def _host(origin: Any) -> tuple[_Origin, bytes] | None:
    """(scheme, host and port as httpx's URL gives them to httpcore, the Host line `Request._prepare`
    writes) of the origin's URLs; None when h11 would refuse the line."""
    url = url_of(origin, "/", None)
    line = b"Host: %s\r\n" % url.netloc
    if not _LINE.fullmatch(line):
        return None
    return _Origin(url.raw_scheme, url.raw_host, url.port), line


def _checked(defaults: list[tuple[bytes, bytes, bytes]]) -> bytes | None:
    """The client's default header lines, as h11 writes them; None when one is set apart (see the
    module's docstring) or h11 would refuse it."""
    lines = []
    for name, lower, value in defaults:
        line = b"%s: %s\r\n" % (name, value)
        if b":" in name or not _LINE.fullmatch(line):
            return None
        if lower in _SET_APART and not (lower == b"connection" and b"close" not in value.lower()):
            return None
        lines.append(line)
    return b"".join(lines)


def _visible_only() -> bool:
    """Whether every character `fast_request` takes as it is in a path or query is visible ASCII (h11's
    rule for a target): then a target made of them needs no check."""
    if _REST is None:
        return False
    return all(0x21 <= ord(c) <= 0x7E for c in _REST.pattern)  # each character of its classes, escaped


_VISIBLE = _visible_only()  # else (another httpx's rules) every request goes the way before
