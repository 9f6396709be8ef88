"""`arazzo mcp --transport http`: the MCP server over streamable HTTP (`POST/GET /mcp`), served by
uvicorn on a socket bound before the start line is printed (so `--port 0` says the port it got).

Bound to a loopback address (the default 127.0.0.1) it needs no token, and the SDK's DNS-rebinding
protection checks `Host` and `Origin`. Bound to any other address it refuses to start without a bearer
token (`--token`, or the variable `--token-env` names): every request must then carry
`Authorization: Bearer <token>` (compared in constant time), else it is answered 401 before the SDK
sees it. A token given on loopback is required likewise.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
import socket
from collections.abc import Callable
from typing import Any

PATH = "/mcp"


def is_loopback(host: str) -> bool:
    if host == "localhost":
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


async def serve_http(
    catalog: Any,
    sock: socket.socket,
    host: str,
    token: str | None,
    secrets: set[str] | None = None,
) -> None:
    """Serve on the bound `sock` until interrupted."""
    import uvicorn

    from .mcp_server import build_server

    server = build_server(catalog, secrets)
    app: Any = server.streamable_http_app(streamable_http_path=PATH, host=host)
    if token is not None:
        app = BearerGate(app, token)
    config = uvicorn.Config(app, log_level="warning", lifespan="on", access_log=False)
    await uvicorn.Server(config).serve(sockets=[sock])


class BearerGate:
    """ASGI middleware: HTTP requests without `Authorization: Bearer <token>` are answered 401."""

    def __init__(self, app: Callable[..., Any], token: str) -> None:
        self.app = app
        self._expected = f"Bearer {token}".encode()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            given = next((v for k, v in scope.get("headers", ()) if k.lower() == b"authorization"), b"")
            if not hmac.compare_digest(given, self._expected):
                body = json.dumps({"error": "unauthorized: a bearer token is required"}).encode()
                headers = [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    (b"www-authenticate", b"Bearer"),
                ]
                await send({"type": "http.response.start", "status": 401, "headers": headers})
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)
