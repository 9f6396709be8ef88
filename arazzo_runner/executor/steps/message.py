"""A step that sends or receives an AsyncAPI message (`operationId` of an AsyncAPI operation, or
`channelPath`, with `action: send | receive`).

send: the payload from `requestBody`, headers from `in: header` parameters, the channel address's
parameters from `in: path` ones; the step completes once the broker has the message (no delivery to a
consumer is modelled). `$message` then reads the message sent.

receive: non-blocking (the scheduler runs it beside the steps after it, and joins it where a step
`dependsOn` it or reads its outputs), unless a `goto` or `end` among its actions makes its outcome
decide what runs next: then it is waited for where it stands. Its subscription is made before the
steps before it run (`prepare`, called by the scheduler), so a reply to a message sent by an earlier
step is never missed, however fast. Success is a message whose correlation value (at the AsyncAPI
message's correlationId location) equals the step's `correlationId` within the step's `timeout`
(`DEFAULT_RECEIVE_TIMEOUT` when it has none), then the step's `successCriteria` over `$message`.
Without a `correlationId` the first message counts. A message larger than `--max-response-bytes`
fails the receive, whatever its correlation value (it is never decoded to read it).
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any

from ...errors import DocumentError
from ...expressions import Missing
from ...masking.secrets import MESSAGE_LIMIT, Masker, clip
from ...messages import Received, TransportError
from ...result import Message
from ..bounds import within
from ..brokers import BrokerError, brokers, choose_broker
from ..context import ResponseView, base_context, with_exchange
from ..events import MessageReceived, MessageSent
from ..message_values import (
    MessageBuildError,
    address_of,
    content_type_of,
    correlation_of,
    decode_payload,
    header_values,
    payload_value,
    same_value,
)
from ..values import strip_missing
from .base import Attempt, Host, StepKind, check_criteria
from .credentials import family_source, scheme_owners

if TYPE_CHECKING:
    from ...expressions import Context
    from ...result import StepResult
    from ...workspace import Workspace
    from ...workspace.plan import CompiledStep
    from ..context import WorkflowState

DEFAULT_RECEIVE_TIMEOUT = 30.0  # seconds a receive step without `timeout` waits (validate warns)
_PROBLEMS = (DocumentError, BrokerError, TransportError, MessageBuildError, ValueError)


class Armed:
    """A receive step's subscription for one workflow execution (or why it could not be made)."""

    def __init__(
        self, subscription: Any = None, transport: Any = None, broker: Any = None, address: str = ""
    ) -> None:
        self.subscription, self.transport, self.broker, self.address = (
            subscription,
            transport,
            broker,
            address,
        )
        self.error: str | None = None
        self.skipped = 0  # messages that did not match the correlation id


class MessageStep(StepKind):
    name = "asyncapi"

    def non_blocking(self, cstep: CompiledStep) -> bool:
        """A receive step runs beside the steps after it, unless its outcome decides what runs next: a
        `goto` or `end` among its actions (its own or the workflow's) makes it wait where it stands."""
        if cstep.step.action != "receive":
            return False
        return not any(a.type in ("goto", "end") for a in (*cstep.on_success, *cstep.on_failure))

    async def prepare(
        self, host: Host, workspace: Workspace, cstep: CompiledStep, state: WorkflowState
    ) -> None:
        """Subscribe a receive step, once per workflow execution, as soon as its address is known."""
        if cstep.step.action != "receive" or cstep.step_id in state.armed:
            return
        armed = await _subscribe(host, workspace, cstep, base_context(state, host.workflows), final=False)
        if armed is not None:
            state.armed[cstep.step_id] = armed
            host.on_close(f"armed:{id(state)}:{cstep.step_id}", lambda: _unsubscribe(armed))

    async def ready(
        self, host: Host, workspace: Workspace, cstep: CompiledStep, state: WorkflowState
    ) -> tuple[str, list[str]] | None:
        """Before the workflow's first step: the step's broker connected (one connection per broker for
        the run) and, for a receive step whose address is known, its subscription made. A broker that
        does not answer, or refuses the subscription, is the workflow's failure before anything is sent
        (an order placed whose confirmation can never be seen is worse than no order)."""
        try:
            target = workspace.resolve_message(cstep.step)
            family = family_source(host, workspace, target.source)
            broker, notes = choose_broker(host.options, host.inputs, target, family, scheme_owners(host))
        except _PROBLEMS:
            return None  # the step itself says what is wrong with it, when it runs
        if cstep.step.action == "receive":
            await self.prepare(host, workspace, cstep, state)
            armed = state.armed.get(cstep.step_id)
            if armed is not None:
                return (armed.error, notes) if armed.error else None
        try:
            await asyncio.wait_for(brokers(host).connection(broker), host.deadline.remaining())
        except asyncio.TimeoutError:
            return f"message not sent: {host.deadline.message}", notes
        except TransportError as exc:
            return f"message not sent: {exc}", notes
        return None

    async def attempt(
        self,
        host: Host,
        workspace: Workspace,
        cstep: CompiledStep,
        base: Context,
        step_result: StepResult,
        depth: int,
        state: WorkflowState,
    ) -> Attempt:
        step_result.kind = cstep.step.action
        try:
            target = workspace.resolve_message(cstep.step)
        except DocumentError as exc:
            return Attempt(False, base, exc.message)
        if target.action == "send":
            return await _send(host, cstep, base, target, family_source(host, workspace, target.source))
        armed = state.armed.get(cstep.step_id)
        if armed is None:
            armed = await _subscribe(host, workspace, cstep, base, final=True)
            state.armed[cstep.step_id] = armed
            host.on_close(f"armed:{id(state)}:{cstep.step_id}", lambda: _unsubscribe(armed))
        if armed.error:
            return Attempt(False, base, armed.error)
        return await _receive(host, cstep, base, target, armed)


async def _subscribe(
    host: Host, workspace: Workspace, cstep: CompiledStep, ctx: Context, *, final: bool
) -> Any:
    """The step's subscription; None (not `final`) when its address needs a value not known yet."""
    armed = Armed()
    try:
        target = workspace.resolve_message(cstep.step)
        family = family_source(host, workspace, target.source)
        broker, _ = choose_broker(host.options, host.inputs, target, family, scheme_owners(host))
        address = address_of(cstep, target.channel, ctx)
    except MessageBuildError as exc:
        if not final:
            return None
        armed.error = f"message not received: {exc}"
        return armed
    except _PROBLEMS as exc:
        armed.error = f"cannot subscribe: {_message(exc)}"
        return armed
    armed.broker, armed.address = broker, address
    try:
        armed.transport = await brokers(host).connection(broker)
        armed.subscription = await asyncio.wait_for(
            armed.transport.subscribe(address), host.deadline.remaining()
        )
    except asyncio.TimeoutError:
        armed.error = f"cannot subscribe to '{address}': {host.deadline.message}"
    except TransportError as exc:
        armed.error = f"cannot subscribe to '{address}': {exc}"
    return armed


async def _unsubscribe(armed: Armed) -> None:
    if armed.transport is not None and armed.subscription is not None:
        await armed.transport.unsubscribe(armed.subscription)


async def _send(host: Host, cstep: CompiledStep, base: Context, target: Any, family: str) -> Attempt:
    warnings: list[str] = []
    try:
        broker, notes = choose_broker(host.options, host.inputs, target, family, scheme_owners(host))
        warnings.extend(notes)
        address = address_of(cstep, target.channel, base)
        headers = header_values(cstep, base, warnings)
        content_type = content_type_of(cstep, target.messages, target.description.default_content_type)
        payload, content = payload_value(cstep, base, content_type, warnings, host.placeholders)
    except _PROBLEMS as exc:
        return _masked(host, Attempt(False, base, f"message not sent: {_message(exc)}", warnings=warnings))
    record = Message("send", broker.protocol, broker.url, address, headers, content, at=time.time())
    ctx = with_exchange(base, message=ResponseView(headers=dict(headers), body=payload))
    try:
        transport = await brokers(host).connection(broker)
        publishing = transport.publish(address, content, headers, content_type=content_type)
        await asyncio.wait_for(publishing, host.deadline.remaining())
    except (TransportError, asyncio.TimeoutError) as exc:
        record.error = str(exc) if isinstance(exc, TransportError) else host.deadline.message
        host.emit(MessageSent, cstep.step_id, record)
        return _masked(
            host,
            Attempt(False, ctx, f"message not sent: {record.error}", warnings=warnings, messages=[record]),
        )
    host.emit(MessageSent, cstep.step_id, record)
    failed = check_criteria(cstep.criteria, ctx)
    message = "successCriteria failed: " + "; ".join(failed) if failed else None
    return _masked(host, Attempt(not failed, ctx, message, failed, warnings, messages=[record]))


async def _receive(host: Host, cstep: CompiledStep, base: Context, target: Any, armed: Armed) -> Attempt:
    step = cstep.step
    wanted: Any = None
    if cstep.correlation is not None:
        wanted, _ = strip_missing(cstep.correlation.evaluate(base), "correlationId")
        if isinstance(wanted, Missing):
            return Attempt(False, base, f"correlationId has no value: {wanted.reason}")
    locations = sorted({m.correlation_location for m in target.messages if m.correlation_location})
    if cstep.correlation is not None and not locations:
        where = f"channel '{target.channel.key}'"
        return Attempt(
            False, base, f"correlationId given, but the messages of {where} define no correlationId location"
        )
    timeout = DEFAULT_RECEIVE_TIMEOUT if step.timeout_ms is None else step.timeout_ms / 1000
    started = time.monotonic()
    subscription = armed.subscription
    content_type = (
        target.messages[0].content_type if target.messages else target.description.default_content_type
    )
    while True:
        received = subscription.take()
        if received is None:
            left = within(max(timeout - (time.monotonic() - started), 0.0), host.deadline)
            if (left is not None and left <= 0) or not await subscription.wait(left):
                return _timed_out(host, cstep, base, armed, wanted, timeout, started)
            continue
        if received.error is not None:  # over the size limit: not read, so not matched either
            where = f"channel '{armed.address}' ({armed.broker.url})"
            return _masked(host, Attempt(False, base, f"message not received on {where}: {received.error}"))
        media = received.headers.get("content-type") or content_type
        decoded = received.decoded.get(media)
        if decoded is None:  # once per message, whichever receive step reads it first
            decoded = received.decoded[media] = decode_payload(received.payload, media)
        body, note = decoded
        if wanted is not None and not any(
            same_value(correlation_of(loc, received.headers, body), wanted) for loc in locations
        ):
            armed.skipped += 1
            continue
        return _judge(host, cstep, base, armed, received, body, note, wanted)


def _judge(
    host: Host,
    cstep: CompiledStep,
    base: Context,
    armed: Armed,
    received: Received,
    body: Any,
    note: Any,
    wanted: Any,
) -> Attempt:
    broker = armed.broker
    headers = sorted(received.headers.items())
    correlation = None if wanted is None else str(wanted)
    record = Message(
        "receive",
        broker.protocol,
        broker.url,
        received.address,
        headers,
        received.payload,
        correlation,
        received.at,
    )
    host.emit(MessageReceived, cstep.step_id, record)
    ctx = with_exchange(base, message=ResponseView(headers=received.headers, body=body))
    warnings = [note] if note else []
    if armed.subscription.dropped:
        warnings.append(
            f"{armed.subscription.dropped} messages on '{armed.address}' were dropped: the buffer was full"
        )
    failed = check_criteria(cstep.criteria, ctx)
    message = "successCriteria failed: " + "; ".join(failed) if failed else None
    return _masked(host, Attempt(not failed, ctx, message, failed, warnings, messages=[record]))


def _timed_out(
    host: Host, cstep: CompiledStep, base: Context, armed: Armed, wanted: Any, timeout: float, started: float
) -> Attempt:
    waited = (time.monotonic() - started) * 1000
    by_deadline = (
        host.deadline.expired() and (host.deadline.remaining() or 0) <= 0 and waited < timeout * 1000
    )
    what = "no message" if wanted is None else f"no message with correlationId {clip(str(wanted), 200)!r}"
    limit = host.deadline.message if by_deadline else f"within the step timeout of {timeout * 1000:g} ms"
    message = f"{what} on channel '{armed.address}' ({armed.broker.url}) {limit} (waited {waited:.0f} ms)"
    if armed.skipped:
        message += f"; {armed.skipped} other message(s) did not match"
    if cstep.step.timeout_ms is None:
        message += " (no timeout given: the default applies)"
    return _masked(host, Attempt(False, base, message))


def _masked(host: Host, attempt: Attempt) -> Attempt:
    """No message or warning of an attempt shows a credential, and each is bounded in length."""
    secrets = host.options.secrets
    fit = Masker(secrets).clip if secrets else clip
    if attempt.message:
        attempt.message = fit(attempt.message, MESSAGE_LIMIT)
    attempt.warnings = [fit(w, MESSAGE_LIMIT) for w in attempt.warnings]
    return attempt


def _message(exc: BaseException) -> str:
    return exc.message if isinstance(exc, DocumentError) else str(exc)
