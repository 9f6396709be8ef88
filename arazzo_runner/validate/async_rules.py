"""The rules of Arazzo 1.1 AsyncAPI steps: those on the document alone (`RULES`) and those that need the
AsyncAPI source (`check_async_step`, called by `sources.py` for each AsyncAPI step).

AsyncAPI operations are written from the described application's side, so a step's `action` may be the
same as its operation's or the opposite: neither is flagged (docs/semantics.md, "AsyncAPI steps").
"""

from __future__ import annotations

import re
from typing import Any

from ..errors import ArazzoError
from ..loader.pointer import resolve_pointer
from ..model import Step
from ..workspace.messages import channel_path_parts
from .checker import Checker, did_you_mean
from .openapi_schemas import payload_errors

_MESSAGE = re.compile(r"\$message\.")
_SOURCE_REF = re.compile(r"^\$sourceDescriptions\.([A-Za-z0-9_\-]+)\.(.+)$")
DEFAULT_TIMEOUT_MS = 30000  # steps/message.py DEFAULT_RECEIVE_TIMEOUT, in milliseconds


def _async_steps(ck: Checker) -> list[Step]:
    return [s for w in ck.document.workflows for s in w.steps if s.target_kind == "asyncapi"]


def _raw(ck: Checker, step: Step) -> Any:
    return resolve_pointer(ck.document.raw, [str(t) for t in step.at])


def async_action(ck: Checker) -> None:
    """An AsyncAPI step says send or receive; a correlationId only on a receive step."""
    for step in _async_steps(ck):
        if step.action not in ("send", "receive"):
            message = f"AsyncAPI step '{step.step_id}' needs action: send or receive"
            ck.report("async-action", (*step.at, "action") if step.action else step.at, message)
        if step.correlation_id is not None and step.action != "receive":
            kind = step.action or "step without action"
            message = f"correlationId applies only to a receive step; step '{step.step_id}' is a {kind}"
            ck.report("correlation-id-receive", (*step.at, "correlationId"), message)


def async_timeout(ck: Checker) -> None:
    for step in _async_steps(ck):
        if step.action == "receive" and step.timeout_ms is None:
            message = (
                f"receive step '{step.step_id}' has no timeout: it waits {DEFAULT_TIMEOUT_MS} ms "
                "(the engine's default) for its message"
            )
            ck.report("async-timeout", step.at, message)


def async_parameter_in(ck: Checker) -> None:
    for step in _async_steps(ck):
        for param, at in ck.parameters(step.parameters):
            if param.in_ not in ("header", "path"):
                where = "no 'in'" if param.in_ is None else f"in: {param.in_}"
                message = (
                    f"parameter '{param.name}' of AsyncAPI step '{step.step_id}' has {where}: a message "
                    "takes in: header (a message header) or in: path (a channel address parameter)"
                )
                ck.report("async-parameter-in", at, message)


def channel_path_form(ck: Checker) -> None:
    for step in _async_steps(ck):
        text = step.channel_path
        if text is not None and channel_path_parts(text) is None:
            message = (
                f"channelPath '{text}' does not name its source: write "
                "'{$sourceDescriptions.<name>.url}#/channels/<channel>'"
            )
            ck.report("channel-path-form", (*step.at, "channelPath"), message)


def message_expression(ck: Checker) -> None:
    """`$message` is only available in AsyncAPI steps (their criteria, outputs and actions)."""
    for workflow in ck.document.workflows:
        for step in workflow.steps:
            if step.target_kind == "asyncapi":
                continue
            text = repr(_raw(ck, step))
            if _MESSAGE.search(text):
                message = f"step '{step.step_id}' is not an AsyncAPI step: $message has no value there"
                ck.report("message-expression", step.at, message)
        for key in ("outputs", "successActions", "failureActions"):
            node = resolve_pointer(ck.document.raw, [str(t) for t in (*workflow.at, key)])
            if node is not None and _MESSAGE.search(repr(node)):
                ck.report(
                    "message-expression",
                    (*workflow.at, key),
                    f"$message in the {key} of workflow '{workflow.workflow_id}': "
                    "only AsyncAPI steps have one",
                )


RULES = (async_action, async_timeout, async_parameter_in, channel_path_form, message_expression)


def check_async_step(ck: Checker, checks: Any, step: Step) -> None:
    """The checks that read the AsyncAPI source: the operation or channel exists, a correlationId has
    a location in the messages, a send step's payload fits the message's payload schema."""
    if step.action not in ("send", "receive"):
        return
    target = _target(ck, checks, step)
    if target is None:
        return
    located = any(m.correlation_location for m in target.messages)
    if step.correlation_id is not None and step.action == "receive" and not located:
        message = (
            f"step '{step.step_id}' has a correlationId, but the messages of channel "
            f"'{target.channel.key}' define no correlationId location: no message can match"
        )
        ck.report("correlation-id-location", (*step.at, "correlationId"), message)
    if step.action == "send":
        _payload(ck, step, target)


def _target(ck: Checker, checks: Any, step: Step) -> Any:
    """The step's MessageTarget, or None after reporting why there is none (or the source is missing)."""
    if step.channel_path is not None:
        parts = channel_path_parts(step.channel_path)
        if parts is None:
            return None  # channel-path-form
        name: str | None = parts[0]
    else:
        match = _SOURCE_REF.match(step.operation_id or "")
        names = [match.group(1)] if match else [s.name for s in ck.document.sources if s.type == "asyncapi"]
        if not names:
            at = (*step.at, "operationId")
            ck.report(
                "async-target-exists", at, f"step '{step.step_id}' names no asyncapi source description"
            )
            return None
        name = names[0] if len(names) == 1 else None
    for other in [name] if name is not None else names:
        entry = ck.document.source(other)
        if entry is None:
            return None  # source-reference
        if entry.type != "asyncapi":
            field = "channelPath" if step.channel_path is not None else "action"
            message = (
                f"step '{step.step_id}' sends or receives messages, but source '{other}' is of type "
                f"{entry.type or 'openapi'}: action and channelPath apply to asyncapi sources only"
            )
            ck.report("async-action", (*step.at, field), message)
            return None
        if checks.source(other) is None:
            return None  # source-unavailable
    try:
        return checks.workspace.resolve_message(step)
    except ArazzoError as exc:
        field = "channelPath" if step.channel_path is not None else "operationId"
        message = getattr(exc, "message", str(exc))
        description = checks.source(name) if name else None
        if description is not None and step.operation_id and not step.channel_path:
            op = (_SOURCE_REF.match(step.operation_id) or [None, None, step.operation_id])[2]
            message += did_you_mean(op, list(description.operations)) if "did you mean" not in message else ""
        ck.report("async-target-exists", (*step.at, field), message)
        return None


def _payload(ck: Checker, step: Step, target: Any) -> None:
    body = step.request_body
    if body is None or not body.has_payload or isinstance(body.payload, str):
        return
    schemas = [m.payload for m in target.messages if isinstance(m.payload, dict)]
    if len(schemas) != 1:
        return  # several messages: the payload may be any one of them
    from .source_facts import unknown_paths

    unknown = unknown_paths(body.payload, True)
    for replacement in body.replacements:
        unknown.add(tuple(t for t in replacement.target.strip("/").split("/") if t))
    from ..bounds.budget import BudgetExceeded

    channel = target.channel.key
    try:
        errors = payload_errors(schemas[0], body.payload, unknown, "3.1.0", target.description.data)
    except BudgetExceeded as exc:  # PatternStopped, or the run's deadline
        message = f"payload could not be checked against the message schema of channel '{channel}': {exc}"
        ck.report("message-payload", (*body.at, "payload"), message)
        return
    for path, problem in errors:
        where = (*body.at, "payload", *path)
        ck.report(
            "message-payload",
            where,
            f"payload does not match the message schema of channel '{channel}': {problem}",
        )
