"""`arazzo mcp FILE...`: the documents' workflows as the tools of an MCP server, over stdio (default) or
streamable HTTP (`--transport http`, `--host 127.0.0.1`, `--port 8000`); `docs/agents.md`. It needs the
MCP SDK (the `mcp` extra): without it, one line says what to install (exit 2)."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from ..errors import UsageError
from .common import EXIT_OK

TOKEN_ENV = "ARAZZO_MCP_TOKEN"


def register(commands: Any) -> None:
    from ..agents.mcp.sessions import DEFAULT_MAX_SESSIONS, DEFAULT_SESSION_IDLE_TIMEOUT
    from .common import positive_float, positive_int
    from .tool_flags import add_tool_call_flags, add_tool_flags

    parser = commands.add_parser("mcp", help="serve the workflows as the tools of an MCP server")
    add_tool_flags(parser, runs=True)
    add_tool_call_flags(parser, per_answer=False)
    parser.add_argument(
        "--transport", choices=("stdio", "http"), default="stdio", help="stdio (default) or streamable HTTP"
    )
    parser.add_argument("--host", default="127.0.0.1", help="http: the address to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="http: the port (default 8000; 0: a free one)")
    parser.add_argument(
        "--token",
        metavar="TOKEN",
        help=f"http: the bearer token every request must carry (better: the variable {TOKEN_ENV}); "
        "required on a non-loopback address",
    )
    parser.add_argument(
        "--token-env",
        default=TOKEN_ENV,
        metavar="NAME",
        help=f"http: the environment variable holding the token (default {TOKEN_ENV})",
    )
    parser.add_argument(
        "--allowed-host",
        action="append",
        default=[],
        metavar="NAME[:PORT]",
        help="http: a name the server also answers to in Host and Origin (repeatable; the port: the "
        "server's); on loopback only the address's own spellings are, by default",
    )
    parser.add_argument(
        "--max-sessions",
        type=positive_int,
        default=DEFAULT_MAX_SESSIONS,
        metavar="N",
        help=f"http: sessions open at once (default {DEFAULT_MAX_SESSIONS}); one more closes the one "
        "idle the longest",
    )
    parser.add_argument(
        "--session-idle-timeout",
        type=positive_float,
        default=DEFAULT_SESSION_IDLE_TIMEOUT,
        metavar="SECONDS",
        help=f"http: a session idle this long is closed (default {DEFAULT_SESSION_IDLE_TIMEOUT:g})",
    )
    parser.set_defaults(handler=mcp_command)


def mcp_command(args: argparse.Namespace) -> int:
    import asyncio

    from ..agents.mcp.server import require_sdk
    from ..agents.tools import build_catalog
    from ..agents.tools.call import catalog_secrets
    from .tool_flags import check_credentials, tool_sources, warn_credentials

    require_sdk()
    token = _token(args) if args.transport == "http" else None
    catalog = build_catalog(tool_sources(args, runs=True))
    check_credentials(catalog, args)
    warn_credentials(catalog)
    for note in catalog.notes:
        print(f"note: {note}", file=sys.stderr)
    secrets = catalog_secrets(catalog) | ({token} if token else set())
    count = f"{len(catalog.tools)} tool(s)"
    if args.transport == "stdio":
        from ..agents.mcp.server import serve_stdio

        print(f"arazzo mcp: {count} over stdio", file=sys.stderr, flush=True)
        asyncio.run(serve_stdio(catalog, secrets, max_in_flight=args.max_tool_calls_in_flight))
        return EXIT_OK
    from ..agents.mcp.http import bind, serve_http, url_of
    from ..agents.mcp.sessions import SessionLimits

    try:
        sock = bind(args.host, args.port)
    except OSError as exc:
        raise UsageError(f"cannot listen on {args.host}:{args.port}: {exc.strerror or exc}") from None
    access = "every request needs the bearer token" if token else "loopback only, no token"
    where = f"{url_of(sock, args.host)} (streamable HTTP; {access})"
    print(f"arazzo mcp: {count} at {where}", file=sys.stderr, flush=True)
    limits = SessionLimits(args.max_sessions, args.session_idle_timeout)
    serving = serve_http(
        catalog,
        sock,
        args.host,
        token,
        secrets,
        allowed_hosts=args.allowed_host,
        sessions=limits,
        max_tool_calls=args.max_tool_calls_in_flight,
    )
    asyncio.run(serving)
    return EXIT_OK


def _token(args: argparse.Namespace) -> str | None:
    from ..agents.mcp.http import is_loopback

    token = args.token or os.environ.get(args.token_env) or None
    if token is None and not is_loopback(args.host):
        raise UsageError(
            f"--host {args.host} is not a loopback address: the server would be reachable from other "
            f"machines, so it needs a bearer token (--token, or the variable {args.token_env})"
        )
    return token
