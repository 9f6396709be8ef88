"""The bound on the sessions of `arazzo mcp --transport http` (`--max-sessions`, `--session-idle-timeout`).

Each session the SDK opens (an `initialize` without `Mcp-Session-Id`) holds a server task and its
streams (~33 KB), until the client ends it (`DELETE`) or it has been idle for `idle_timeout` seconds
(no request in flight, no open `GET` stream), when the SDK closes it. Without a maximum, a client
that only ever initializes would grow the server without end. So at most `max_sessions` are open: a
request that would open one more first closes the session idle the longest (its id then answers 404,
and its client initializes again, as after an expiry); when none is idle (every one is serving a
request or holds a stream open), it is answered 503 and opens nothing.

`SessionBound` is ASGI middleware in front of the SDK's app. It learns a session from the
`Mcp-Session-Id` of the response that opened it, counts the requests in flight on each, forgets one
that ended (`DELETE`, a 404) or expired, and closes one with the `DELETE` the protocol defines, sent
to the SDK's app itself: no private part of the SDK is touched. Its count never falls below the SDK's
(an expired session is forgotten a little after the SDK closed it), so while it admits a session the
SDK has room for it; the SDK's own maximum is set to the same number besides.
"""

from __future__ import annotations

import json
import time
from typing import Any

from ...records import Record

DEFAULT_MAX_SESSIONS = 100
DEFAULT_SESSION_IDLE_TIMEOUT = 600.0  # seconds
GRACE = 2.0  # seconds an expired session is counted after the SDK's own timer closed it
SESSION_HEADER = b"mcp-session-id"


class SessionLimits(Record):
    max_sessions: int = DEFAULT_MAX_SESSIONS
    idle_timeout: float = DEFAULT_SESSION_IDLE_TIMEOUT


class _Session:
    __slots__ = ("in_flight", "last")

    def __init__(self, now: float) -> None:
        self.in_flight, self.last = 1, now  # learnt from the response of the request that opened it


class SessionBound:
    """ASGI middleware keeping the open sessions within `limits` (see the module doc)."""

    def __init__(self, app: Any, limits: SessionLimits, path: str, host: str) -> None:
        self.app, self.limits, self.path = app, limits, path
        self._host = host.encode("latin-1")  # the `Host` of the DELETE that closes a session
        self.sessions: dict[str, _Session] = {}
        self.opening = 0  # requests that may open a session, in flight
        self.closed = 0  # sessions closed to make room (for tests and diagnostics)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = scope.get("headers", ())
        given = next((v for k, v in headers if k.lower() == SESSION_HEADER), None)
        if given is not None:
            await self._in_session(given.decode("latin-1"), scope, receive, send)
        elif _may_open(scope):
            await self._opening(scope, receive, send)
        else:
            await self.app(scope, receive, send)

    async def _in_session(self, sid: str, scope: dict[str, Any], receive: Any, send: Any) -> None:
        session = self.sessions.get(sid)
        if session is not None:
            session.in_flight += 1
            session.last = time.monotonic()
        status = 0

        async def watch(message: dict[str, Any]) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, watch)
        finally:
            if session is not None:
                session.in_flight -= 1
                session.last = time.monotonic()
            if status == 404 or (scope.get("method") == "DELETE" and 200 <= status < 300):
                self.sessions.pop(sid, None)  # ended by its client, or gone already

    async def _opening(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        self._forget_expired()
        while len(self.sessions) + self.opening >= self.limits.max_sessions:
            victim = self._longest_idle()
            if victim is None:
                await _refuse(send, self.limits.max_sessions)
                return
            await self._close(victim)
        self.opening += 1
        opened: list[str] = []

        async def watch(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start" and message["status"] < 400:
                sid = next((v for k, v in message.get("headers", ()) if k.lower() == SESSION_HEADER), None)
                if sid is not None:
                    opened.append(sid.decode("latin-1"))
                    self.sessions[opened[0]] = _Session(time.monotonic())
            await send(message)

        try:
            await self.app(scope, receive, watch)
        finally:
            self.opening -= 1
            session = self.sessions.get(opened[0]) if opened else None
            if session is not None:
                session.in_flight -= 1
                session.last = time.monotonic()

    def _forget_expired(self) -> None:
        limit = time.monotonic() - self.limits.idle_timeout - GRACE
        for sid in [s for s, v in self.sessions.items() if v.in_flight == 0 and v.last < limit]:
            del self.sessions[sid]

    def _longest_idle(self) -> str | None:
        idle = [(v.last, s) for s, v in self.sessions.items() if v.in_flight == 0]
        return min(idle)[1] if idle else None

    async def _close(self, sid: str) -> None:
        """End session `sid` with the protocol's DELETE, through the SDK's app."""
        del self.sessions[sid]
        self.closed += 1
        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": "DELETE",
            "scheme": "http",
            "path": self.path,
            "raw_path": self.path.encode(),
            "root_path": "",
            "query_string": b"",
            "headers": [(b"host", self._host), (SESSION_HEADER, sid.encode("latin-1"))],
            "client": ("127.0.0.1", 0),
            "server": None,
        }
        requested = False

        async def receive() -> dict[str, Any]:
            nonlocal requested
            if not requested:
                requested = True
                return {"type": "http.request", "body": b"", "more_body": False}
            return {"type": "http.disconnect"}

        async def discard(message: dict[str, Any]) -> None:
            return None

        await self.app(scope, receive, discard)


def _may_open(scope: dict[str, Any]) -> bool:
    """A POST without a session id, in the initialize-handshake era (or none said): what opens one."""
    if scope.get("method") != "POST":
        return False
    version = next((v for k, v in scope.get("headers", ()) if k.lower() == b"mcp-protocol-version"), None)
    if version is None:
        return True
    from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

    return version.decode("latin-1") in HANDSHAKE_PROTOCOL_VERSIONS


async def _refuse(send: Any, limit: int) -> None:
    message = f"too many open sessions: {limit}, none idle; try again later"
    body = json.dumps({"jsonrpc": "2.0", "id": None, "error": {"code": -32603, "message": message}})
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": 503, "headers": [*headers, (b"retry-after", b"1")]})
    await send({"type": "http.response.body", "body": body.encode()})
