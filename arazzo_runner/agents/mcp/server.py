"""The MCP server of `arazzo mcp`: the catalog's tools over the official MCP SDK (the `mcp` extra:
`pip install 'arazzo-engine[mcp]'`), imported only here and only when a server starts.

- `tools/list`: the tools in their MCP form (`Tool.definition("mcp")`: schema without credentials or
  fixed inputs, the `outputSchema` of the structured content, read-only / destructive / open-world
  hints);
- `tools/call`: the workflow run with the arguments over the server's inputs, answered as `calls.py`
  says (the structured content checked against the tool's `outputSchema`, `isError` when the workflow
  failed or was not run). A name that is no tool is a JSON-RPC error (invalid params).
- Progress: when the caller asks for it (a progress token), every step that starts, retries or finishes
  is a progress notification (`step 'getPet' passed (HTTP 200)`), numbered from 1. A call without one
  makes no events. Every call runs on the server's event loop (not in a thread), so that a call the
  client cancels stops its run where it is: a worker thread's run could not be stopped, and would go
  on sending requests for a caller that left.

Each call is a run of its own, with its own client: concurrent calls share nothing but the loaded
documents and the connection pool under their clients (`PooledRuntime`). Over stdio, the pipes are read
and written on the event loop (`stdio.py`), and a plain call is answered there without the SDK's
session (`fast.py`).
"""

from __future__ import annotations

from typing import Any

from ... import DISTRIBUTION, __version__
from ...errors import UsageError

INSTRUCTIONS = (
    "Each tool runs an Arazzo workflow against real APIs and returns its outputs, or why it failed (the "
    "step, its cause and the values it saw): correct the arguments and call again. Credentials are "
    "supplied by the server; never pass them."
)


def require_sdk() -> None:
    """UsageError (one line, what to install) when the MCP SDK is not installed."""
    try:
        import mcp.server.lowlevel  # noqa: F401
    except ImportError:
        from ...extras import install_hint

        raise UsageError(
            f"arazzo mcp needs the MCP SDK: {install_hint('mcp')} (or pip install 'mcp>=2.3')"
        ) from None


def build_server(
    catalog: Any,
    secrets: set[str] | None = None,
    *,
    max_in_flight: int | None = None,
    runtime: Any = None,
    calls: Any = None,
) -> Any:
    """The SDK's low-level server for `catalog`; `secrets` are masked in whatever it sends too. At most
    `max_in_flight` tool calls run at once (`DEFAULT_MAX_IN_FLIGHT`), whichever clients sent them: the
    others wait their turn. The calls' runs share `runtime`'s connection pool (`PooledRuntime`, one
    made here by default): each run has its own client, and a call reuses the connections an earlier
    call left open to the same API. `calls`: the `ToolCalls` it answers with (one made of the rest by
    default), when another path answers calls too (`fast.py`)."""
    import mcp_types as types
    from mcp.server.lowlevel import Server
    from mcp.shared.exceptions import MCPError

    from .calls import ToolCalls

    calls = calls or ToolCalls(catalog, secrets, max_in_flight=max_in_flight, runtime=runtime)
    listed = [types.Tool.model_validate(d) for d in calls.definitions]

    async def list_tools(ctx: Any, params: Any) -> Any:
        return types.ListToolsResult(tools=listed)

    async def call(ctx: Any, params: Any) -> Any:
        tool = calls.tool(params.name)
        if tool is None:
            raise MCPError(types.INVALID_PARAMS, calls.unknown(params.name))
        progress = _Progress(ctx.session) if _progress_asked(params) else None
        result = await calls.result(tool, params.arguments or {}, progress and progress.report)
        return types.CallToolResult.model_validate(result)  # the SDK shapes it for the protocol version

    return Server(
        DISTRIBUTION,
        version=__version__,
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call,
    )


def _progress_asked(params: Any) -> bool:
    """Whether the call carries a progress token (`_meta.progressToken`): without one the SDK sends no
    progress notification, so the run need not make the events they are made of."""
    meta = getattr(params, "meta", None) or {}
    if not isinstance(meta, dict):
        meta = getattr(meta, "model_dump", dict)() if hasattr(meta, "model_dump") else {}
    return meta.get("progress_token", meta.get("progressToken")) is not None


class _Progress:
    """A call's progress lines sent as the session's progress notifications, numbered from 1."""

    def __init__(self, session: Any) -> None:
        self.session, self.sent = session, 0

    async def report(self, message: str) -> None:
        self.sent += 1
        await self.session.report_progress(self.sent, None, message)


async def serve_stdio(
    catalog: Any, secrets: set[str] | None = None, *, max_in_flight: int | None = None
) -> None:
    """Serve over this process's stdin and stdout until stdin closes (`stdio.py`: read and written on
    the event loop)."""
    from .calls import ToolCalls
    from .stdio import open_stdio

    calls = ToolCalls(catalog, secrets, max_in_flight=max_in_flight)
    server = build_server(catalog, calls=calls)
    try:
        async with open_stdio(calls) as (read, write):
            await server.run(read, write, server.create_initialization_options())
    finally:
        await calls.runtime.aclose()
