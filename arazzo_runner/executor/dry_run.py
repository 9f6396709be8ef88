"""Dry run: the requests a run would send down the linear path, built but never sent.

Steps are followed in the order a run takes them (the array order, each step after the steps it depends
on: `workspace/order.py`), each assumed to succeed (no goto, no retry); a `workflowId` step
plans its child's steps, `dependsOn` workflows are planned first (once). Requests are built by the same
code as a real run (`operation.prepare_request`), so what is shown is what would go out. A value that
only a response could supply (`$steps.login.outputs.token`, `$workflows.w.outputs.x`) is shown as the
placeholder `<$steps.login.outputs.token>`. The run's HTTP client is replaced by one that cannot reach the
network: an OAuth2 token request is answered locally with a placeholder token, and the step says so.
"""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import unquote

from ..errors import DocumentError
from ..expressions import Context, Missing, ast
from ..http.request import RequestBuildError
from ..http.security import SecurityError
from ..masking.taint import Taint
from ..model import Workflow
from ..records import Record, field, replace
from ..workspace import Workspace
from .context import WorkflowState, base_context
from .inputs import apply_defaults, mark_secret_inputs, secret_values
from .options import RunOptions
from .runner import MAX_DEPTH, Runner, dependency_inputs
from .servers import ServerError
from .steps.operation import prepare_request
from .values import strip_missing

_ENCODED_PLACEHOLDER = re.compile(r"%3C%24[^%\s]*(?:%(?!3E)[0-9A-Fa-f]{2}[^%\s]*)*%3E")


class PlannedRequest(Record):
    """One step of the plan: the request it would send, or why it could not be built."""

    workflow_id: str
    step_id: str
    kind: str = "operation"  # operation | workflow (its child's steps follow) | asyncapi | not_run
    method: str | None = None
    url: str | None = None
    headers: list[tuple[str, str]] = field(default_factory=list)
    body: bytes | None = None
    warnings: list[str] = field(default_factory=list)
    error: str | None = None
    depth: int = 0
    target: str | None = None  # the child workflow of a `workflowId` step
    shown: Any = None  # the printed form (`http/shown.py`) when parts derive from a secret; None: as is

    @property
    def display_url(self) -> str | None:
        """The URL as printed: percent-encoded placeholders as written (`<$steps.a.outputs.b>`), parts
        derived from a secret as `***`."""
        url = self.url if self.shown is None else self.shown.url
        if url is None:
            return None
        return _ENCODED_PLACEHOLDER.sub(lambda m: unquote(m.group(0)), url)

    @property
    def display_headers(self) -> list[tuple[str, str]]:
        return self.headers if self.shown is None else list(self.shown.headers)

    @property
    def display_body(self) -> bytes | None:
        return self.body if self.shown is None else self.shown.content

    def to_dict(self) -> dict[str, Any]:
        """The printed form (what `--dry-run` shows before masking); `url`, `headers`, `body` stay as
        they would be sent, for library callers."""
        data: dict[str, Any] = {"workflowId": self.workflow_id, "stepId": self.step_id, "kind": self.kind}
        if self.method:
            body = self.display_body
            data["request"] = {
                "method": self.method,
                "url": self.display_url,
                "headers": [{"name": n, "value": v} for n, v in self.display_headers],
                "body": None if body is None else body.decode("utf-8", "replace"),
            }
        if self.target:
            data["workflow"] = self.target
        if self.warnings:
            data["warnings"] = self.warnings
        if self.error:
            data["error"] = self.error
        return data


class Planner:
    """Builds the plan of one dry run; `planned` lists the steps in the order a passing run takes them."""

    def __init__(
        self,
        options: RunOptions,
        client: Any,
        inputs: dict[str, Any],
        token_requests: list[str],
        root: Workspace,
    ) -> None:
        self.runner = Runner(options, client, inputs, root=root)
        self.planned: list[PlannedRequest] = []
        self.token_requests = token_requests  # token URLs the offline client answered (it appends)
        self.placeholders = self.runner.placeholders  # request code reads them as null in JSON text
        self._done: set[tuple[int, str]] = set()

    async def workflow(self, workspace: Workspace, workflow: Workflow, inputs: dict, depth: int = 0) -> None:
        key = (id(workspace), workflow.workflow_id)
        if depth > MAX_DEPTH or (depth == 0 and key in self._done):
            return
        self._done.add(key)
        for ref in workflow.depends_on:
            target = workspace.resolve_workflow(ref, (*workflow.at, "dependsOn"))
            if (id(target.workspace), target.workflow.workflow_id) not in self._done:
                given = dependency_inputs(target.workflow, self.runner.inputs)
                await self.workflow(target.workspace, target.workflow, given)
        # Not validated: a placeholder may stand where the schema wants a number (the real run checks).
        filled = apply_defaults(workflow.inputs or {}, inputs, workspace.document.raw)
        self.runner.options.secrets.update(
            secret_values(workflow.inputs or {}, filled, workspace.document.raw)
        )
        filled = mark_secret_inputs(filled, workflow.inputs, workspace.document.raw)
        self.runner.taint = self.runner.taint or Taint(self.runner.options.secrets, workspace)
        state = WorkflowState(workspace, filled, taint=self.runner.taint)
        self.runner.workflows[workflow.workflow_id] = {"inputs": filled, "outputs": {}, "steps": state.steps}
        base = replace(base_context(state, self.runner.workflows), unresolved=self.placeholder)
        for cstep in workspace.compiled(workflow).order:
            await self._step(workspace, workflow, cstep, base, depth)

    def placeholder(self, expr: ast.Expression, missing: Missing) -> Any:
        """A value only an earlier response can supply stays visible as its expression."""
        if isinstance(expr, (ast.StepOutputRef, ast.WorkflowRef, ast.WorkflowStepOutputRef)):
            self.placeholders.add(f"<{expr.text}>")
            return f"<{expr.text}>"
        return missing

    def _forget_placeholder_secrets(self) -> None:
        # `Authorization: Bearer <$steps.login.outputs.token>` set by a step joined the run's secrets;
        # a placeholder hides nothing and must stay readable.
        secrets = self.runner.options.secrets
        secrets -= {s for s in secrets if any(p in s for p in self.placeholders)}

    async def _step(
        self, workspace: Workspace, workflow: Workflow, cstep: Any, base: Context, depth: int
    ) -> None:
        planned = PlannedRequest(workflow.workflow_id, cstep.step_id, depth=depth)
        self.planned.append(planned)
        kind = cstep.step.target_kind
        if kind == "asyncapi":
            planned.kind = "asyncapi"
            self._message(workspace, cstep, base, planned)
        elif kind == "workflow":
            await self._child(workspace, cstep, base, planned, depth)
        else:
            await self._operation(workspace, cstep, base, planned)

    async def _operation(
        self, workspace: Workspace, cstep: Any, base: Context, planned: PlannedRequest
    ) -> None:
        fetched = len(self.token_requests)
        try:
            target = workspace.resolve_operation(cstep.step)
            request = await prepare_request(
                self.runner, cstep, base, target, planned.warnings, None, workspace
            )
        except (RequestBuildError, ServerError, SecurityError, ValueError) as exc:
            planned.error = f"request cannot be built: {exc}"
            return
        finally:
            self._forget_placeholder_secrets()
        planned.method, planned.url = request.method, request.url
        planned.headers, planned.body = list(request.headers), request.content
        planned.shown = request.shown  # what `--dry-run` prints: parts derived from a secret as `***`
        planned.warnings.extend(request.warnings)
        for url in self.token_requests[fetched:]:
            planned.warnings.append(f"an OAuth2 token would be fetched from {url} (not in a dry run)")

    def _message(self, workspace: Workspace, cstep: Any, base: Context, planned: PlannedRequest) -> None:
        """The message a send step would publish (`SEND broker/channel`), or what a receive step would
        wait for (`RECEIVE broker/channel`, its correlation id and timeout as warnings)."""
        from .brokers import BrokerError, choose_broker
        from .message_values import (
            MessageBuildError,
            address_of,
            content_type_of,
            header_values,
            payload_value,
        )
        from .steps.credentials import family_source

        step = cstep.step
        try:
            target = workspace.resolve_message(step)
            family = family_source(self.runner, workspace, target.source)  # type: ignore[arg-type]
            broker, notes = choose_broker(self.runner.options, None, target, family)
            planned.warnings.extend(notes)
            address = address_of(cstep, target.channel, base)
            planned.method, planned.url = (step.action or "").upper(), f"{broker.url}/{address.lstrip('/')}"
            if step.action == "send":
                planned.headers = header_values(cstep, base, planned.warnings)
                default = target.description.default_content_type
                content_type = content_type_of(cstep, target.messages, default)
                _, planned.body = payload_value(
                    cstep, base, content_type, planned.warnings, self.placeholders
                )
                return
            if cstep.correlation is not None:
                wanted, _ = strip_missing(cstep.correlation.evaluate(base), "correlationId")
                shown = wanted if not isinstance(wanted, Missing) else f"<{wanted.reason}>"
                planned.warnings.append(f"would wait for correlationId {shown!r}")
            timeout = "the default 30000 ms" if step.timeout_ms is None else f"{step.timeout_ms} ms"
            planned.warnings.append(f"would wait up to {timeout} (not in a dry run)")
        except (DocumentError, BrokerError, MessageBuildError, ValueError) as exc:
            planned.error = f"message cannot be built: {getattr(exc, 'message', None) or exc}"

    async def _child(
        self, workspace: Workspace, cstep: Any, base: Context, planned: PlannedRequest, depth: int
    ) -> None:
        target = workspace.resolve_workflow(cstep.step.workflow_id or "", (*cstep.step.at, "workflowId"))
        planned.kind, planned.target = "workflow", target.workflow.workflow_id
        inputs = {}
        for param in cstep.params:
            value, problems = strip_missing(param.value.evaluate(base), f"input '{param.name}'")
            planned.warnings.extend(problems)
            if not isinstance(value, Missing):
                inputs[param.name] = value
        loop = cstep.for_each
        if loop is not None:  # planned for one item, its value a placeholder
            items = loop.items.raw if isinstance(loop.items.raw, str) else "the items listed"
            placeholder = f"<{items}[*]>" if items.startswith("$") else "<an item of the items listed>"
            inputs[loop.input] = placeholder
            self.placeholders.add(placeholder)
            planned.warnings.append(
                f"x-forEach: runs workflow '{target.workflow.workflow_id}' once per item of {items}, "
                f"each given as input '{loop.input}'; planned here for one item"
            )
        await self.workflow(target.workspace, target.workflow, inputs, depth + 1)


def offline_client(token_requests: list[str]) -> Any:
    """An httpx client that never touches the network: a token request gets a placeholder token."""
    import httpx

    def answer(request: httpx.Request) -> httpx.Response:
        url = str(request.url.copy_with(query=None))
        token_requests.append(url)
        token = json.dumps({"access_token": f"<token from {url}>", "token_type": "Bearer"}).encode()
        # a stream, as a server's answer is: the token request is read by the bounded reader (raw bytes)
        headers = {"Content-Type": "application/json"}
        return httpx.Response(200, headers=headers, stream=httpx.ByteStream(token))

    return httpx.AsyncClient(transport=httpx.MockTransport(answer))
