"""`arazzo mcp --transport http`: the MCP server over streamable HTTP (`POST/GET /mcp`), served by
uvicorn on a socket bound before the start line is printed (so `--port 0` says the port it got).

Bound to a loopback address (the default 127.0.0.1; any of 127.0.0.0/8, `::1`, `localhost`, however
spelled) it needs no token, and every request's `Host` and `Origin` must name the server by one of
that address's own spellings with its port (`127.0.0.2:8000`, `[::1]:8000`; `localhost` too for
127.0.0.1 and `::1`, which it names on every machine), or a name given with `--allowed-host`: a page
of another site whose name was made to resolve to 127.0.0.1 (DNS rebinding) sends its own name, and
is answered 421 (`Host`) or 403 (`Origin`) before the SDK sees it. Bound to any other address it
refuses to start without a bearer token (`--token`, or the variable `--token-env` names): every request
must then carry `Authorization: Bearer <token>` (the scheme in any case, RFC 9110; the token compared
in constant time), else it is answered 401 before the SDK sees it. A token given on loopback is
required likewise. Sessions are bounded (`mcp_sessions.py`).
"""

from __future__ import annotations

import hmac
import ipaddress
import json
import socket
from collections.abc import Callable, Iterable
from typing import Any

PATH = "/mcp"


def is_loopback(host: str) -> bool:
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    return socket.create_server((host.strip("[]"), port), family=family, backlog=128)


def url_of(sock: socket.socket, host: str) -> str:
    port = sock.getsockname()[1]
    shown = f"[{host.strip('[]')}]" if ":" in host else host
    return f"http://{shown}:{port}{PATH}"


def host_names(host: str, port: int, allowed: Iterable[str] = ()) -> list[str]:
    """The `Host` values the server answers to (`name:port`; a bare name too on port 80): the spellings
    of a loopback `host` (as written, and canonical: `127.0.0.2`, `[::1]`; `localhost` for 127.0.0.1 and
    ::1, with their own spellings for `localhost`), and each `allowed` name (`NAME` or `NAME:PORT`, the
    server's port by default). Empty for another address with no `allowed` name: nothing is checked."""
    names: list[str] = []
    if is_loopback(host):
        bare = host.strip("[]").lower()
        if bare == "localhost":
            names += ["localhost", "127.0.0.1"]
        else:
            address = ipaddress.ip_address(bare)
            names += [_literal(bare), _literal(str(address))]
            if str(address) in ("127.0.0.1", "::1"):
                names.append("localhost")
    found = []
    for name in dict.fromkeys(names):
        found.append(f"{name}:{port}")
        if port == 80:
            found.append(name)
    for name in allowed:
        found.append(name.lower() if _has_port(name) else f"{name.lower()}:{port}")
    return list(dict.fromkeys(found))


def _literal(address: str) -> str:
    return f"[{address}]" if ":" in address else address


def _has_port(name: str) -> bool:
    if name.startswith("["):
        return "]:" in name
    return name.count(":") == 1


async def serve_http(
    catalog: Any,
    sock: socket.socket,
    host: str,
    token: str | None,
    secrets: set[str] | None = None,
    *,
    allowed_hosts: Iterable[str] = (),
    sessions: Any = None,
    max_tool_calls: int | None = None,
) -> None:
    """Serve on the bound `sock` until interrupted. `sessions`: `mcp_sessions.SessionLimits`."""
    import uvicorn
    from mcp.server.transport_security import TransportSecuritySettings

    from .calls import ToolCalls
    from .server import build_server
    from .sessions import SessionBound, SessionLimits

    limits = sessions or SessionLimits()
    port = sock.getsockname()[1]
    hosts = host_names(host, port, allowed_hosts)
    # `HostGate` checks Host and Origin in front of the SDK (its own check takes exact strings only)
    security = TransportSecuritySettings(enable_dns_rebinding_protection=False)
    calls = ToolCalls(catalog, secrets, max_in_flight=max_tool_calls)
    server = build_server(catalog, calls=calls)
    app: Any = server.streamable_http_app(
        streamable_http_path=PATH,
        host=host,
        transport_security=security,
        session_idle_timeout=limits.idle_timeout,
        max_sessions=limits.max_sessions,
    )
    app = SessionBound(app, limits, PATH, hosts[0] if hosts else f"{_literal(host.strip('[]'))}:{port}")
    if hosts:
        bound = host.strip("[]") if is_loopback(host) and host.lower() != "localhost" else ""
        app = HostGate(app, hosts, bound, port)
    if token is not None:
        app = BearerGate(app, token)
    config = uvicorn.Config(app, log_level="warning", lifespan="on", access_log=False)
    try:
        await uvicorn.Server(config).serve(sockets=[sock])
    finally:
        await calls.runtime.aclose()  # the calls' connection pool


class HostGate:
    """ASGI middleware: an HTTP request whose `Host` is not one of `hosts` (or the bound IP `address`,
    however its literal is spelled, with the port) is answered 421, one whose `Origin` (when it has one)
    is not one of those, as `http://` or `https://`, 403: before anything else sees it."""

    def __init__(self, app: Callable[..., Any], hosts: Iterable[str], address: str, port: int) -> None:
        self.app = app
        self._hosts = frozenset(h.lower() for h in hosts)
        self._address, self._port = _ip(address), port

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            host = _header(scope, b"host").decode("latin-1").lower()
            origin = _header(scope, b"origin").decode("latin-1").lower()
            if not self._names_us(host):
                await _refuse(send, 421, f"this server does not answer to the host {host!r}")
                return
            if origin and not self._from_us(origin):
                await _refuse(send, 403, f"requests from the origin {origin!r} are not allowed")
                return
        await self.app(scope, receive, send)

    def _names_us(self, host: str) -> bool:
        if host in self._hosts:
            return True
        if self._address is None:
            return False
        name, _, port = host.rpartition(":")
        return port == str(self._port) and _ip(name) == self._address

    def _from_us(self, origin: str) -> bool:
        scheme, sep, host = origin.partition("://")
        return bool(sep) and scheme in ("http", "https") and "/" not in host and self._names_us(host)


def _ip(text: str) -> Any:
    """The IP address a literal (`127.0.0.2`, `[0::1]`) writes, or None (a name)."""
    if text.startswith("[") != text.endswith("]"):
        return None
    try:
        return ipaddress.ip_address(text.strip("[]"))
    except ValueError:
        return None


class BearerGate:
    """ASGI middleware: HTTP requests without `Authorization: Bearer <token>` are answered 401."""

    def __init__(self, app: Callable[..., Any], token: str) -> None:
        self.app = app
        self._expected = token.encode()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http" and not self._authorized(_header(scope, b"authorization")):
            headers = [(b"www-authenticate", b"Bearer")]
            await _refuse(send, 401, "unauthorized: a bearer token is required", headers)
            return
        await self.app(scope, receive, send)

    def _authorized(self, given: bytes) -> bool:
        scheme, _, credential = given.strip().partition(b" ")
        if scheme.lower() != b"bearer":  # RFC 9110 section 11.1: the scheme is case-insensitive
            return False
        return hmac.compare_digest(credential.strip(b" "), self._expected)


def _header(scope: dict[str, Any], name: bytes) -> bytes:
    return next((v for k, v in scope.get("headers", ()) if k.lower() == name), b"")


async def _refuse(send: Any, status: int, message: str, extra: Iterable[tuple[bytes, bytes]] = ()) -> None:
    body = json.dumps({"error": message}).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        *extra,
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
