"""The MCP server of `arazzo mcp`: the catalog's tools over the official MCP SDK (the `mcp` extra:
`pip install 'arazzo-engine[mcp]'`), imported only here and only when a server starts.

- `tools/list`: the tools in their MCP form (`Tool.definition("mcp")`: schema without credentials or
  fixed inputs, the `outputSchema` of the structured content, read-only / destructive / open-world
  hints);
- `tools/call`: the workflow run with the arguments over the server's inputs (`call.call_tool`). The
  result's structured content is `ToolOutcome.content()` (`{"status": "passed", "outputs": {...}}`, or
  the failure: the step, its cause, the masked values it saw), its content a one-line summary and the
  same JSON as text (for clients that read only text); `isError` when the workflow failed or was not
  run. The structured content is checked against the tool's `outputSchema` before it is sent: what
  does not fit (an API answering outside its description) is sent as a failure saying so
  (`outputs.Contract`). A name that is no tool is a JSON-RPC error (invalid params).
- Progress: when the caller asks for it (a progress token), every step that starts, retries or finishes
  is a progress notification (`step 'getPet' passed (HTTP 200)`), numbered from 1. A call without one
  makes no events. Every call runs on the server's event loop (not in a thread), so that a call the
  client cancels stops its run where it is: a worker thread's run could not be stopped, and would go
  on sending requests for a caller that left.

Each call is a run of its own, with its own client: concurrent calls share nothing but the loaded
documents and the connection pool under their clients (`PooledRuntime`). Over stdio, the pipes are read
and written on the event loop (`stdio.py`).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from ... import DISTRIBUTION, __version__
from ...errors import UsageError
from ...masking.secrets import Masker

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
) -> Any:
    """The SDK's low-level server for `catalog`; `secrets` are masked in whatever it sends too. At most
    `max_in_flight` tool calls run at once (`DEFAULT_MAX_IN_FLIGHT`), whichever clients sent them: the
    others wait their turn. The calls' runs share `runtime`'s connection pool (`PooledRuntime`, one
    made here by default): each run has its own client, and a call reuses the connections an earlier
    call left open to the same API."""
    import mcp_types as types
    from mcp.server.lowlevel import Server
    from mcp.shared.exceptions import MCPError

    from ...executor.runtime import PooledRuntime
    from ..tools.call import InFlight
    from ..tools.outputs import Contract

    masker = Masker(set(secrets or ()))
    in_flight = InFlight(max_in_flight)
    runtime = runtime or PooledRuntime()
    definitions = catalog.definitions("mcp")
    listed = [types.Tool.model_validate(d) for d in definitions]
    contracts = {d["name"]: Contract(d["outputSchema"]) for d in definitions}

    async def list_tools(ctx: Any, params: Any) -> Any:
        return types.ListToolsResult(tools=listed)

    async def call(ctx: Any, params: Any) -> Any:
        from ..tools.call import call_tool

        tool = catalog.get(params.name)
        if tool is None:
            names = ", ".join(t.name for t in catalog.tools) or "none"
            raise MCPError(types.INVALID_PARAMS, f"no tool named '{params.name}' (tools: {names})")
        async with in_flight:
            if not _progress_asked(params):  # no step events to make
                outcome = await call_tool(
                    tool, params.arguments or {}, secrets=masker.secrets, runtime=runtime
                )
            else:
                progress = _Progress(ctx.session, masker)
                pump = asyncio.ensure_future(progress.pump())
                try:
                    outcome = await call_tool(
                        tool,
                        params.arguments or {},
                        secrets=masker.secrets,
                        on_event=progress.on_event,
                        runtime=runtime,
                    )
                finally:
                    progress.close()
                    await pump
        content, changed = contracts[tool.name].kept(masker.data(outcome.content()))
        summary = f"tool '{tool.name}' failed: {content['error']['message']}" if changed else outcome.summary
        text = json.dumps(content, ensure_ascii=False, default=str)
        return types.CallToolResult(
            content=[types.TextContent(text=masker.text(summary)), types.TextContent(text=text)],
            structured_content=content,
            is_error=changed or not outcome.ok,
        )

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
    """Step events (called synchronously by the run) queued, and sent as progress notifications."""

    def __init__(self, session: Any, masker: Masker) -> None:
        self.session, self.masker = session, masker
        self.queue: asyncio.Queue[str | None] = asyncio.Queue()
        self.sent = 0

    def on_event(self, event: Any) -> None:
        message = progress_message(event)
        if message is not None:
            self.queue.put_nowait(self.masker.text(message))

    def close(self) -> None:
        self.queue.put_nowait(None)

    async def pump(self) -> None:
        while (message := await self.queue.get()) is not None:
            self.sent += 1
            await self.session.report_progress(self.sent, None, message)


def progress_message(event: Any) -> str | None:
    """The line a step event makes, or None for the events that are not about a step."""
    from ...executor.events import StepFinished, StepRetrying, StepStarted

    if isinstance(event, StepStarted):
        return f"{_where(event.workflow_id, event.step_id, event.depth)} started"
    if isinstance(event, StepRetrying):
        return f"{_where(event.workflow_id, event.step_id, event.depth)} retrying (attempt {event.attempt})"
    if isinstance(event, StepFinished):
        step = event.result
        code = f" (HTTP {step.status_code})" if step.status_code is not None else ""
        return f"{_where(event.workflow_id, step.step_id, event.depth)} {step.status}{code}"
    return None


def _where(workflow_id: str, step_id: str, depth: int) -> str:
    return f"step '{step_id}'" if depth == 0 else f"workflow '{workflow_id}' step '{step_id}'"


async def serve_stdio(
    catalog: Any, secrets: set[str] | None = None, *, max_in_flight: int | None = None
) -> None:
    """Serve over this process's stdin and stdout until stdin closes (`stdio.py`: read and written on
    the event loop)."""
    from ...executor.runtime import PooledRuntime
    from .stdio import open_stdio

    runtime = PooledRuntime()
    server = build_server(catalog, secrets, max_in_flight=max_in_flight, runtime=runtime)
    try:
        async with open_stdio() as (read, write):
            await server.run(read, write, server.create_initialization_options())
    finally:
        await runtime.aclose()
