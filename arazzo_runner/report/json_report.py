"""The run result as JSON, masked: `--format json` (stdout) and `--report-json PATH` (plus every exchange).

The report file is the `--format json` document with, on each step, `exchanges`: each request and its
response (headers, bodies cut at 1 MiB, binary bodies as a size) in the order they happened, `startedAt`,
and `trace` (where the step is written, each attempt with its criteria values and resolved expressions:
`executor/tracing.py`); on each workflow `startedAt`. With
`--inputs-file` it is the rows' `--format json` document, each row's result with its exchanges.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from .. import DISTRIBUTION
from ..masking.secrets import Masker
from ..result import Exchange, RunResult, StepResult, WorkflowResult

if TYPE_CHECKING:
    from .bodies import Body


def result_dict(result: RunResult, masker: Masker, *, exchanges: bool = False) -> dict[str, Any]:
    """`result.to_dict()` masked (secrets by value, apiKey query parameters of URLs by name)."""
    data = result.to_dict()
    for entry, workflow in zip(data["workflows"], result.workflows, strict=True):
        _workflow(entry, workflow, masker, exchanges)
    return masker.data(data)


def report_dict(result: RunResult, masker: Masker, *, tool_version: str = "") -> dict[str, Any]:
    return report_document(result_dict(result, masker, exchanges=True), masker.enabled, tool_version)


def report_document(body: dict[str, Any], masked: bool, tool_version: str = "") -> dict[str, Any]:
    """The report file: who wrote it and when, then `body` (a run's document, or the rows' one)."""
    return {
        "tool": {"name": DISTRIBUTION, "version": tool_version},
        "generatedAt": iso_time(datetime.now(timezone.utc).timestamp()),
        "masked": masked,
        **body,
    }


def write_report_json(path: str, data: dict[str, Any]) -> None:
    with open(path, "w", encoding="utf-8") as handle:
        write_json(handle, data)


def write_json(stream: Any, data: Any) -> None:
    """`data` as indented JSON (and a newline) in one write: `json.dump` to a stream writes every token
    separately, thousands of calls for a report; the text is built in memory first."""
    stream.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def _workflow(entry: dict[str, Any], workflow: WorkflowResult, masker: Masker, exchanges: bool) -> None:
    entry["outputs"] = masker.outputs(workflow.outputs)
    if exchanges and workflow.started_at:
        entry["startedAt"] = iso_time(workflow.started_at)
    for step_entry, step in zip(entry["steps"], workflow.steps, strict=True):
        _step(step_entry, step, masker, exchanges)
    for dep_entry, dependency in zip(entry.get("dependencies", []), workflow.dependencies, strict=True):
        _workflow(dep_entry, dependency, masker, exchanges)


def _step(entry: dict[str, Any], step: StepResult, masker: Masker, exchanges: bool) -> None:
    entry["outputs"] = masker.outputs(step.outputs)
    if "request" in entry:
        entry["request"]["url"] = masker.url(entry["request"]["url"] or "")
    if exchanges:
        entry["exchanges"] = [exchange_dict(e, masker) for e in step.exchanges]
        if step.started_at:
            entry["startedAt"] = iso_time(step.started_at)
        if step.trace is not None:
            entry["trace"] = _trace(step.trace)
        for message_entry, message in zip(entry.get("messages", []), step.messages, strict=True):
            if message.at:
                message_entry["at"] = iso_time(message.at)
    if step.workflow is not None:
        _workflow(entry["workflow"], step.workflow, masker, exchanges)
    for earlier_entry, earlier in zip(entry.get("earlierWorkflows", []), step.earlier_workflows, strict=True):
        _workflow(earlier_entry, earlier, masker, exchanges)


def _trace(trace: dict[str, Any]) -> dict[str, Any]:
    """The step's trace (`executor/tracing.py`) with its times as ISO text (masked with the rest)."""
    attempts = [{**a, "startedAt": iso_time(a["startedAt"])} for a in trace["attempts"]]
    return {**trace, "attempts": attempts}


def exchange_dict(exchange: Exchange, masker: Masker) -> dict[str, Any]:
    from .bodies import FILE_LIMIT, header, render_body  # HTTP exchanges only (a message run has none)

    request_type = header(exchange.request_headers, "content-type")
    data: dict[str, Any] = {
        "startedAt": iso_time(exchange.started_at),
        "durationMs": round(exchange.duration_ms, 3),
        "request": {
            "method": exchange.method,
            "url": masker.url(exchange.url),
            "headers": _headers(exchange.request_headers, masker),
            **_body(render_body(exchange.request_body, request_type, masker, limit=FILE_LIMIT)),
        },
        "response": None,
    }
    if exchange.status_code is not None:
        response_type = header(exchange.response_headers, "content-type")
        data["response"] = {
            "status": exchange.status_code,
            "headers": _headers(exchange.response_headers, masker),
            **_body(
                render_body(
                    exchange.response_body,
                    response_type,
                    masker,
                    limit=FILE_LIMIT,
                    known_json=exchange.response_json,
                )
            ),
        }
    if exchange.error:
        data["error"] = masker.text(exchange.error)
    if exchange.purpose:
        data["purpose"] = exchange.purpose  # "oauth2 token": made to authorize the step's request
    return data


def _headers(pairs: list[tuple[str, str]], masker: Masker) -> list[dict[str, str]]:
    return [{"name": name, "value": value} for name, value in masker.headers(pairs)]


def _body(body: Body) -> dict[str, Any]:
    data: dict[str, Any] = {"body": body.text, "bodySize": body.size}
    if body.kind == "binary":
        data["bodyBinary"] = True
    if body.omitted:
        data["bodyOmittedBytes"] = body.omitted
    if body.events:
        data["events"] = body.events
    return data


def iso_time(timestamp: float) -> str:
    """UTC, millisecond precision, with `Z` (what HAR and most tools read)."""
    moment = datetime.fromtimestamp(timestamp, timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"
