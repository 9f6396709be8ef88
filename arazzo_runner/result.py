"""Run results: what happened, in execution order, with a stable JSON form."""

from __future__ import annotations

from typing import Any

from .http.exchange import Exchange
from .masking.secrets import MESSAGE_LIMIT, clip
from .records import Record, field

__all__ = [
    "FAILED",
    "NOT_RUN",
    "PASSED",
    "Exchange",
    "LeftOut",
    "Message",
    "NullOutput",
    "ResponseExcerpt",
    "RunResult",
    "StepResult",
    "WorkflowResult",
]

PASSED = "passed"
FAILED = "failed"
NOT_RUN = "not_run"  # refused before anything was sent: it cannot run with one meaning (`problems` say why)
INTERRUPTED_STEP = "interrupted before it completed"  # the error of the step in flight at an interrupt


class NullOutput(str):
    """A warning that an output is null as a whole because what it reads is absent: a step that did not
    run, a member the response does not have (the tool call of a direct answer). That is most often a
    branch not taken rather than something to act on, so the console shows it only with `--verbose`;
    it stays a plain string among the `warnings` of the JSON and the reports."""

    __slots__ = ()


class LeftOut(str):
    """A warning that optional parameters were left out of a request because the declared inputs that
    are their values were not provided (`--input` not given): the caller's choice, not something to act
    on, so it is one line per step execution, and the console shows it only with `--verbose`; it stays
    a plain string among the `warnings` of the JSON and the reports. A parameter whose value went
    missing any other way (a step output, a member of a response) keeps a warning of its own, always
    shown."""

    __slots__ = ()


class ResponseExcerpt(Record):
    """The start of the response a step failed on (criteria, status, validation): its status and the
    first `limit` bytes of its body, masked with the secrets the run knew then, cut on a character
    boundary; a binary body is described by its size, never dumped."""

    status: int
    content_type: str | None = None
    body: str | None = None  # None: empty or binary
    size: int = 0  # bytes of the whole body
    omitted: int = 0  # bytes of the body left out of `body`
    binary: bool = False

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"status": self.status, "body": self.body, "bodySize": self.size}
        if self.content_type:
            data["contentType"] = self.content_type
        if self.omitted:
            data["bodyOmittedBytes"] = self.omitted
        if self.binary:
            data["bodyBinary"] = True
        return data


class Message(Record):
    """One AsyncAPI message an async step sent or received (or meant to send, when `error` says why
    not): the broker's URL, the channel address it used, headers and the payload bytes as they went."""

    direction: str  # send | receive
    protocol: str
    server: str  # the broker's URL, credentials never in it
    channel: str  # the channel address (parameters substituted)
    headers: list[tuple[str, str]] = field(default_factory=list)
    payload: bytes | None = None
    correlation_id: str | None = None
    at: float = 0.0  # time.time() when published or received
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "direction": self.direction,
            "protocol": self.protocol,
            "server": self.server,
            "channel": self.channel,
            "headers": [{"name": n, "value": v} for n, v in self.headers],
            "payload": None if self.payload is None else self.payload.decode("utf-8", "replace"),
        }
        if self.correlation_id is not None:
            data["correlationId"] = self.correlation_id
        if self.error:
            data["error"] = self.error
        return data


class StepResult(Record):
    step_id: str
    status: str = PASSED
    attempts: int = 0
    status_code: int | None = None
    outputs: dict[str, Any] = field(default_factory=dict)
    duration_ms: float = 0.0
    error: str | None = None
    failed_criteria: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    action: str | None = None  # the action taken after the step, e.g. "goto resolveToolCall"
    method: str | None = None
    url: str | None = None
    exchanges: list[Exchange] = field(default_factory=list)
    workflow: WorkflowResult | None = None  # the (last) child run of a workflowId step, goto or retry
    earlier_workflows: list[WorkflowResult] = field(default_factory=list)  # child runs before `workflow`
    response: ResponseExcerpt | None = None  # of a step failed on its response: what the server said
    messages: list[Message] = field(default_factory=list)  # of an AsyncAPI step: sent and received
    kind: str | None = None  # "send" / "receive" for an AsyncAPI step (None: HTTP or workflow)
    started_at: float = 0.0  # time.time() when the step execution started
    trace: dict[str, Any] | None = None  # with RunOptions.trace: its attempts in detail (executor/tracing.py)

    def __init__(
        self,
        step_id: str,
        status: str = PASSED,
        attempts: int = 0,
        status_code: int | None = None,
        outputs: dict[str, Any] | None = None,
        duration_ms: float = 0.0,
        error: str | None = None,
        failed_criteria: list[str] | None = None,
        warnings: list[str] | None = None,
        action: str | None = None,
        method: str | None = None,
        url: str | None = None,
        exchanges: list[Exchange] | None = None,
        workflow: WorkflowResult | None = None,
        earlier_workflows: list[WorkflowResult] | None = None,
        response: ResponseExcerpt | None = None,
        messages: list[Message] | None = None,
        kind: str | None = None,
        started_at: float = 0.0,
        trace: dict[str, Any] | None = None,
    ) -> None:  # one per step: written out, not derived (records.py)
        self.step_id, self.status, self.attempts, self.status_code = step_id, status, attempts, status_code
        self.outputs = {} if outputs is None else outputs
        self.duration_ms, self.error = duration_ms, error
        self.failed_criteria = [] if failed_criteria is None else failed_criteria
        self.warnings = [] if warnings is None else warnings
        self.action, self.method, self.url = action, method, url
        self.exchanges = [] if exchanges is None else exchanges
        self.workflow = workflow
        self.earlier_workflows = [] if earlier_workflows is None else earlier_workflows
        self.response = response
        self.messages = [] if messages is None else messages
        self.kind, self.started_at, self.trace = kind, started_at, trace

    @property
    def passed(self) -> bool:
        return self.status == PASSED

    @property
    def workflow_runs(self) -> list[WorkflowResult]:
        """Every workflow run of the step execution, in the order they ran: a `workflowId` step's child
        per attempt, a workflow a `retry` runs first, the target of a `goto`."""
        return [*self.earlier_workflows, self.workflow] if self.workflow is not None else []

    def add_workflow(self, child: WorkflowResult) -> None:
        if self.workflow is not None:
            self.earlier_workflows.append(self.workflow)
        self.workflow = child

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "stepId": self.step_id,
            "status": self.status,
            "attempts": self.attempts,
            "statusCode": self.status_code,
            "outputs": self.outputs,
            "durationMs": round(self.duration_ms, 3),
        }
        if self.method:
            data["request"] = {"method": self.method, "url": self.url}
        if self.kind:
            data["messageAction"] = self.kind
        if self.messages:
            data["messages"] = [m.to_dict() for m in self.messages]
        if self.error:
            data["error"] = self.error
        if self.failed_criteria:
            data["failedCriteria"] = self.failed_criteria
        if self.warnings:
            data["warnings"] = self.warnings
        contract = [v for exchange in self.exchanges for v in exchange.contract]
        if contract:  # the response's departures from its description (`http/contract.py`)
            data["contract"] = contract
        if self.action:
            data["action"] = self.action
        if self.response is not None:
            data["response"] = self.response.to_dict()
        if self.workflow is not None:
            data["workflow"] = self.workflow.to_dict()
        if self.earlier_workflows:
            data["earlierWorkflows"] = [w.to_dict() for w in self.earlier_workflows]
        return data


class WorkflowResult(Record):
    workflow_id: str
    status: str = PASSED
    outputs: dict[str, Any] = field(default_factory=dict)
    error: dict[str, Any] | None = None  # {"stepId": ..., "message": ...}; "dependency" when one failed
    steps: list[StepResult] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    duration_ms: float = 0.0
    dependencies: list[WorkflowResult] = field(default_factory=list)
    problems: list[dict[str, Any]] = field(default_factory=list)  # of a workflow not run: why
    started_at: float = 0.0  # time.time() when the workflow execution started
    item: int | None = None  # an `x-forEach` iteration: the index of its item (0-based)

    def __init__(  # written out: one per workflow run (`arazzo load` makes thousands a second)
        self,
        workflow_id: str,
        status: str = PASSED,
        outputs: dict[str, Any] | None = None,
        error: dict[str, Any] | None = None,
        steps: list[StepResult] | None = None,
        warnings: list[str] | None = None,
        duration_ms: float = 0.0,
        dependencies: list[WorkflowResult] | None = None,
        problems: list[dict[str, Any]] | None = None,
        started_at: float = 0.0,
        item: int | None = None,
    ) -> None:
        self.workflow_id, self.status, self.error, self.item = workflow_id, status, error, item
        self.outputs = {} if outputs is None else outputs
        self.steps = [] if steps is None else steps
        self.warnings = [] if warnings is None else warnings
        self.duration_ms, self.started_at = duration_ms, started_at
        self.dependencies = [] if dependencies is None else dependencies
        self.problems = [] if problems is None else problems

    @classmethod
    def not_run(cls, workflow_id: str, problems: list[dict[str, Any]]) -> WorkflowResult:
        """A selected workflow the run refused, nothing of it sent: `problems` are the located reasons
        (`rule`, `message`, `path`, `file`, `line`, `column`), its own first, then those of what it
        reaches."""
        first = problems[0]["message"] if problems else "it cannot run"
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        error = {"stepId": None, "message": clip(f"not run: {first}{more}", MESSAGE_LIMIT)}
        return cls(workflow_id, NOT_RUN, error=error, problems=problems)

    @property
    def passed(self) -> bool:
        return self.status == PASSED

    @property
    def ran(self) -> bool:
        return self.status != NOT_RUN

    def fail(self, step_id: str | None, message: str, *, dependency: str | None = None) -> None:
        """Mark the workflow failed; the first cause is kept. A workflow stopped by its `dependsOn`
        names the dependency (`stepId` null: no step of its own ran)."""
        self.status = FAILED
        if self.error is None:
            self.error = {"stepId": step_id, "message": clip(message, MESSAGE_LIMIT)}
            if dependency is not None:
                self.error["dependency"] = dependency

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "workflowId": self.workflow_id,
            "status": self.status,
            "outputs": self.outputs,
            "error": self.error,
            "steps": [s.to_dict() for s in self.steps],
            "durationMs": round(self.duration_ms, 3),
        }
        if self.item is not None:
            data["item"] = self.item
        if self.warnings:
            data["warnings"] = self.warnings
        if self.dependencies:
            data["dependencies"] = [d.to_dict() for d in self.dependencies]
        if self.problems:
            data["problems"] = self.problems
        return data


class RunResult(Record):
    workflows: list[WorkflowResult] = field(default_factory=list)
    # the run was interrupted (Ctrl-C, a cancelled task): `workflows` holds what ran until then, the one
    # in flight failed at its step in flight; the selected workflows after it are not listed
    interrupted: bool = False

    def __init__(self, workflows: list[WorkflowResult] | None = None, interrupted: bool = False) -> None:
        self.workflows = [] if workflows is None else workflows  # (written out: one per run)
        self.interrupted = interrupted

    @property
    def status(self) -> str:
        return PASSED if all(w.passed for w in self.workflows) and not self.interrupted else FAILED

    @property
    def ok(self) -> bool:
        """`status == PASSED`, found without the status's text (asked of every row of `--inputs-file`)."""
        if self.interrupted:
            return False
        for workflow in self.workflows:  # noqa: SIM110 (a loop: no generator made for one workflow)
            if workflow.status != PASSED:
                return False
        return True

    def workflow(self, workflow_id: str) -> WorkflowResult | None:
        for workflow in self.workflows:
            if workflow.workflow_id == workflow_id:
                return workflow
        return None

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"status": self.status, "workflows": [w.to_dict() for w in self.workflows]}
        if self.interrupted:
            data["interrupted"] = True
        return data
