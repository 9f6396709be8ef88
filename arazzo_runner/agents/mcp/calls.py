"""A `tools/call` of `arazzo mcp` answered: the workflow run with the arguments over the server's inputs
(`call.call_tool`), and the result in its wire form, a plain dict: the structured content
(`ToolOutcome.content()`: `{"status": "passed", "outputs": {...}}`, or the failure: the step, its cause,
the masked values it saw), its content a one-line summary and the same JSON as text (for clients that
read only text), `isError` when the workflow failed or was not run. The structured content is checked
against the tool's `outputSchema` before it is sent: what does not fit (an API answering outside its
description) is sent as a failure saying so (`outputs.Contract`).

One `ToolCalls` serves every call of a server, whichever way it arrives: through the SDK's session
(`server.py`) or the stdio transport's own path for plain calls (`fast.py`); both send the same dict.
At most `max_in_flight` calls run at once, whichever way they came: the others wait their turn. Their
runs share `runtime`'s connection pool (`PooledRuntime`).

Progress: when the caller asks for it, `progress` receives each step that starts, retries or finishes as
a line (`step 'getPet' passed (HTTP 200)`). A call without it makes no events.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import Any

from ...masking.secrets import Masker

Report = Callable[[str], Awaitable[None]]  # sends one progress line


class ToolCalls:
    """The catalog's tools, called (module doc)."""

    def __init__(
        self,
        catalog: Any,
        secrets: set[str] | None = None,
        *,
        max_in_flight: int | None = None,
        runtime: Any = None,
    ) -> None:
        from ...executor.runtime import PooledRuntime
        from ..tools.call import InFlight
        from ..tools.outputs import Contract

        self.catalog = catalog
        self.masker = Masker(set(secrets or ()))
        self.in_flight = InFlight(max_in_flight)
        self.runtime = runtime or PooledRuntime()
        self.definitions = catalog.definitions("mcp")
        self.contracts = {d["name"]: Contract(d["outputSchema"]) for d in self.definitions}

    def tool(self, name: Any) -> Any:
        """The tool named `name`, or None."""
        return self.catalog.get(name) if isinstance(name, str) else None

    def unknown(self, name: Any) -> str:
        """Why `name` is no tool (the message of the invalid-params error)."""
        names = ", ".join(t.name for t in self.catalog.tools) or "none"
        return f"no tool named '{name}' (tools: {names})"

    async def result(self, tool: Any, arguments: Any, progress: Report | None = None) -> dict[str, Any]:
        """The call's result in its wire form (module doc); never raises for what the caller or the
        workflow did."""
        from ..tools.call import call_tool

        masker = self.masker
        async with self.in_flight:
            if progress is None:  # no step events to make
                outcome = await call_tool(tool, arguments, secrets=masker.secrets, runtime=self.runtime)
            else:
                steps = _Progress(progress, masker)
                pump = asyncio.ensure_future(steps.pump())
                try:
                    outcome = await call_tool(
                        tool, arguments, secrets=masker.secrets, on_event=steps.on_event, runtime=self.runtime
                    )
                finally:
                    steps.close()
                    await pump
        content, changed = self.contracts[tool.name].kept(masker.data(outcome.content()))
        summary = f"tool '{tool.name}' failed: {content['error']['message']}" if changed else outcome.summary
        text = json.dumps(content, ensure_ascii=False, default=str)
        summary = masker.text(summary)
        if not _utf8(text) or not _utf8(summary):  # an API's lone surrogate escape (`"\ud800"`)
            content, summary = _replaced(content), unpaired(summary)
            text = json.dumps(content, ensure_ascii=False, default=str)
        return {
            "content": [{"type": "text", "text": summary}, {"type": "text", "text": text}],
            "structuredContent": content,
            "isError": changed or not outcome.ok,
        }


def unpaired(text: str) -> str:
    """`text` with each lone surrogate as U+FFFD: what the rule for JSON from outside reads one as
    (`bounds/json_text.py`), applied here to what reached a result another way. Pydantic cannot
    write a lone surrogate, and the official client's parser refuses its escape, so a result holding
    one would reach no client."""
    from ...bounds.json_text import unpaired as replaced

    return replaced(text)


def _utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _replaced(value: Any) -> Any:
    """`value` with `unpaired` applied to every string in it (keys too)."""
    if isinstance(value, str):
        return unpaired(value)
    if isinstance(value, dict):
        return {_replaced(k): _replaced(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_replaced(v) for v in value]
    return value


class _Progress:
    """Step events (called synchronously by the run) queued, and sent as progress lines."""

    def __init__(self, report: Report, masker: Masker) -> None:
        self.report, self.masker = report, masker
        self.queue: asyncio.Queue[str | None] = asyncio.Queue()

    def on_event(self, event: Any) -> None:
        message = progress_message(event)
        if message is not None:
            self.queue.put_nowait(self.masker.text(message))

    def close(self) -> None:
        self.queue.put_nowait(None)

    async def pump(self) -> None:
        while (message := await self.queue.get()) is not None:
            await self.report(message)


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
