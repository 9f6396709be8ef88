"""Running a tool call: the workflow run with the caller's arguments over the server's inputs, and its
outcome as a model or an MCP client may see it, masked.

Each call is a run of its own (`arun`): its own options (a copy of the source's, with a secret set of its
own holding the credentials it was given), its own pooled client; concurrent calls share nothing but the
loaded document. A call whose arguments are not a JSON object, that names anything but the tool's
parameters (an input the server supplies: a credential, an input fixed where the tools run; or a name
the workflow does not declare), or whose inputs the workflow refuses (its schema, a document problem
found before sending) is `rejected`: nothing was sent, and the message says why, naming no hidden
input (`hidden`). A workflow that ran and failed is `failed`, with the step it failed at (inside nested
workflows: the path to it), the cause, the failed criteria with the values seen, and the start of the
response; every value masked.

`ToolOutcome.content()` is what the caller reads (an MCP result's structured content, an agent's tool
message): `{"status": "passed", "outputs": {...}}`, or `{"status": "failed"|"rejected", "error": {...}}`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from ...bounds.limits import TOOL_CALLS_IN_FLIGHT
from ...errors import ArazzoError
from ...masking.secrets import MESSAGE_LIMIT, Masker
from ...records import Record, field, replace
from .catalog import Tool

PASSED, FAILED, REJECTED = "passed", "failed", "rejected"


class ToolOutcome(Record):
    name: str
    status: str  # passed | failed | rejected
    arguments: Any  # as the caller gave them: an object, or the text that is not one
    workflow_id: str | None = None
    file: str | None = None
    outputs: dict[str, Any] = field(default_factory=dict)  # masked
    error: dict[str, Any] | None = None  # masked: message, and where a run failed stepId, path, ...
    result: Any = field(default=None, repr=False, compare=False)  # the RunResult, when the workflow ran
    # with RunOptions.trace (`arazzo agent --report-json`): the run as `--report-json` writes it, masked
    run: Any = field(default=None, repr=False, compare=False)

    @property
    def ok(self) -> bool:
        return self.status == PASSED

    @property
    def summary(self) -> str:
        """One line: what happened."""
        what = f"workflow '{self.workflow_id}'" if self.workflow_id else f"tool '{self.name}'"
        if self.ok:
            names = ", ".join(self.outputs) or "none"
            return f"{what} passed; outputs: {names}"
        error = self.error or {}
        if self.status == FAILED and error.get("path"):
            return f"{what} failed at {' > '.join(error['path'])}: {_line(error.get('message'))}"
        verb = "failed" if self.status == FAILED else "was not run"
        return f"{what} {verb}: {_line(error.get('message'))}"

    def content(self) -> dict[str, Any]:
        if self.ok:
            return {"status": PASSED, "outputs": self.outputs}
        return {"status": self.status, "error": self.error}

    def content_text(self) -> str:
        return json.dumps(self.content(), ensure_ascii=False, default=str)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "workflowId": self.workflow_id,
            "file": self.file,
            "arguments": self.arguments,
            "status": self.status,
            "outputs": self.outputs,
            "error": self.error,
        }


def rejected(name: str, arguments: Any, message: str, tool: Tool | None = None) -> ToolOutcome:
    workflow_id, file = (tool.workflow_id, tool.file) if tool is not None else (None, None)
    return ToolOutcome(name, REJECTED, arguments, workflow_id, file, error={"message": message})


class InFlight:
    """At most `limit` tool calls running at once (`TOOL_CALLS_IN_FLIGHT` by default): `async with` it
    around a call; the others wait their turn, in order. Made before an event loop runs; its semaphore
    belongs to the loop that first uses it."""

    def __init__(self, limit: int | None = None) -> None:
        self.limit = TOOL_CALLS_IN_FLIGHT if limit is None else limit
        self.running = 0
        self.most = 0  # the most that ran at once (diagnostics, tests)
        self._semaphore: Any = None

    async def __aenter__(self) -> None:
        if self._semaphore is None:
            import asyncio

            self._semaphore = asyncio.Semaphore(self.limit)
        await self._semaphore.acquire()
        self.running += 1
        self.most = max(self.most, self.running)

    async def __aexit__(self, *exc_info: object) -> None:
        self.running -= 1
        self._semaphore.release()


def parse_arguments(text: Any) -> tuple[Any, str | None]:
    """A model's arguments (JSON text, or already an object): (the object, None), or (what was given,
    why it is not one)."""
    if isinstance(text, dict):
        return text, None
    if not isinstance(text, str):
        return text, "the arguments must be a JSON object"
    if not text.strip():
        return {}, None  # no arguments: some models send "" for a tool without parameters
    from ...bounds import json_text

    try:
        value = json_text.loads(text)  # the rule for JSON from outside: 128 levels, U+FFFD
    except json_text.TooDeep as exc:
        return text, f"the arguments were not read: they nest deeper than {exc.limit} levels"
    except ValueError as exc:
        return text, f"the arguments are not valid JSON: {exc}"
    if not isinstance(value, dict):
        return value, "the arguments must be a JSON object"
    return value, None


async def call_tool(
    tool: Tool, arguments: Any, *, secrets: Iterable[str] = (), on_event: Any = None, runtime: Any = None
) -> ToolOutcome:
    """Run `tool` with `arguments`; never raises for what the caller or the workflow did. `secrets` are
    masked by value in the outcome too (an agent's API key); `on_event` receives the run's events;
    `runtime`: the asyncio runtime the run is given (`PooledRuntime`: an MCP server's calls)."""
    from ...api import arun
    from ...executor.options import RunOptions

    base = tool.source.options or RunOptions()
    run_secrets = {
        *base.secrets,
        *secrets,
        *_strings([tool.fixed[n] for n in tool.credentials if n in tool.fixed]),
    }
    options = replace(base, secrets=run_secrets, on_event=on_event)
    workspace = tool.source.workspace
    masker = Masker.for_run(options, workspace)
    shown = masker.data(arguments)  # a refused call's too: a model may pass a credential it saw
    if not isinstance(arguments, dict):
        return rejected(tool.name, shown, "the arguments must be a JSON object", tool)
    from .hidden import check_names, inputs_refused, scrubber_for

    scrub = scrubber_for(tool)  # no name of a hidden input in what the caller reads
    refused = check_names(tool, arguments)
    if refused:
        return rejected(tool.name, shown, masker.clip(scrub.text(refused), MESSAGE_LIMIT), tool)
    inputs = {**tool.fixed, **arguments}
    try:
        result = await arun(workspace, tool.workflow_id, inputs, options=options, runtime=runtime)
    except ArazzoError as exc:
        from ...executor.inputs import InputsError

        message = (inputs_refused(tool, arguments) if isinstance(exc, InputsError) else None) or str(exc)
        return rejected(tool.name, shown, masker.clip(scrub.text(message), MESSAGE_LIMIT), tool)
    outcome = outcome_of(tool, shown, result, masker)
    outcome.error = scrub.error(outcome.error)
    if options.trace:  # the run in detail, for a report of the agent run
        from ...report.json_report import result_dict

        outcome.run = result_dict(result, masker, exchanges=True)
    return outcome


def outcome_of(tool: Tool, arguments: Any, result: Any, masker: Masker) -> ToolOutcome:
    from ...report.json_report import result_dict

    (workflow,) = result_dict(result, masker)["workflows"]
    outcome = ToolOutcome(tool.name, PASSED, arguments, tool.workflow_id, tool.file, workflow["outputs"])
    outcome.result = result
    if workflow["status"] != PASSED:
        outcome.status, outcome.outputs = FAILED, {}
        outcome.error = failure(workflow)
    return outcome


def failure(workflow: dict[str, Any]) -> dict[str, Any]:
    """Where a (masked) workflow entry failed: its error, and down the failed workflow steps the path to
    the step that failed first, with what that step saw."""
    error = dict(workflow.get("error") or {"message": "the workflow failed"})
    path: list[str] = []
    current, step = workflow, None
    for _ in range(64):  # workflows nest at most 32 deep (executor); a bound all the same
        step_id = (current.get("error") or {}).get("stepId")
        found = [s for s in current.get("steps", []) if s["stepId"] == step_id and s["status"] != PASSED]
        if not found:
            break
        step = found[-1]
        path.append(f"workflow '{current['workflowId']}' step '{step_id}'" if path else f"step '{step_id}'")
        child = step.get("workflow")
        if not child or child.get("status") == PASSED:
            break
        current = child
    if step is not None:
        error["path"] = path
        error["message"] = (
            step.get("error") or (current.get("error") or {}).get("message") or error.get("message")
        )
        for key in ("statusCode", "failedCriteria", "request", "response"):
            if step.get(key) is not None:
                error[key] = step[key]
    return error


def catalog_secrets(catalog: Any) -> set[str]:
    """What nothing a client or a model is shown may hold: the credentials every tool run is given
    (`--auth` values, credential inputs supplied where the tools run)."""
    found: set[str] = set()
    for tool in catalog.tools:
        options = tool.source.options
        found.update(options.secrets if options is not None else ())
        found.update(_strings([tool.fixed[n] for n in tool.credentials if n in tool.fixed]))
    return found


def _strings(values: list[Any]) -> list[str]:
    found: list[str] = []
    pending = list(values)
    while pending:
        value = pending.pop()
        if isinstance(value, str) and value:
            found.append(value)
        elif isinstance(value, dict):
            pending.extend(value.values())
        elif isinstance(value, list):
            pending.extend(value)
    return found


def _line(text: Any) -> str:
    return " ".join(str(text or "").split())[:500]
