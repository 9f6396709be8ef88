"""Sending an operation step's request: within the step's `timeout` (Arazzo 1.1) and the run's deadline,
through the run's journal when it has one, at the `--rate` of its host."""

from __future__ import annotations

from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any

from ...http.transport import Response, TransportError, send
from ..bounds import within
from .session import certificate_client, http_session

if TYPE_CHECKING:
    from ...http.request import PreparedRequest
    from ...workspace.plan import CompiledStep
    from .base import Host


def send_request(
    host: Host, cstep: CompiledStep, request: PreparedRequest, direct: bool = False, uses: Any = None
) -> Awaitable[Response]:
    """Send within the step's `timeout` (Arazzo 1.1) and the run's deadline, whichever ends first; when
    it passes, the in-flight exchange is cancelled (its connection closed). A run with a journal has it
    answered from there when it holds this exchange, else sent (`direct`: the journal's call) and recorded.
    A run without a journal or a `--rate` is given the exchange itself when no time limit is set: no
    coroutine around it (a TimeoutError out of it is said by the attempt as `_send_around` says it)."""
    if host.journal is not None or host.options.rate is not None:
        return _send_around(host, cstep, request, direct, uses)
    client = host.client if request.tls is None else certificate_client(host, request.tls)
    step_limit = None if cstep.step.timeout_ms is None else cstep.step.timeout_ms / 1000
    coro = send(client, request, timeout=_timeout(host, cstep), max_body=host.options.max_body, uses=uses)
    limit = within(step_limit, host.deadline)
    return coro if limit is None else _within(host, cstep, coro, limit, step_limit)


async def _send_around(
    host: Host, cstep: CompiledStep, request: PreparedRequest, direct: bool, uses: Any
) -> Response:
    client = host.client if request.tls is None else certificate_client(host, request.tls)
    step_limit = None if cstep.step.timeout_ms is None else cstep.step.timeout_ms / 1000
    if not direct and host.journal is not None:
        resend = lambda: _send_around(host, cstep, request, True, uses)  # noqa: E731
        concurrent = not host.runtime.blocking  # answers held in their recorded order (journal/scope.py)
        # the limits, for a tracker that sends elsewhere (a Temporal activity: `temporal/workflow.py`)
        limits = {"timeout": _timeout(host, cstep), "limit": step_limit,
                  "timeout_message": None if step_limit is None else step_timeout(cstep),
                  "secrets": http_session(host).secrets}  # fmt: skip
        return await host.journal.send(resend, request, client, host.options.max_body, concurrent, **limits)
    if host.options.rate is not None:  # `--rate`: this host's next free start (http/rate.py)
        wait = host.options.rate.delay(request.url)
        if wait > 0:
            await host.runtime.sleep(wait)
    coro = send(client, request, timeout=_timeout(host, cstep), max_body=host.options.max_body, uses=uses)
    limit = within(step_limit, host.deadline)
    try:
        return await (coro if limit is None else host.runtime.within(coro, limit))
    except TimeoutError:
        raise _timed_out(host, cstep, limit, step_limit) from None


async def _within(
    host: Host, cstep: CompiledStep, coro: Any, limit: float, step_limit: float | None
) -> Response:
    try:
        return await host.runtime.within(coro, limit)
    except TimeoutError:
        raise _timed_out(host, cstep, limit, step_limit) from None


def _timed_out(
    host: Host, cstep: CompiledStep, limit: float | None, step_limit: float | None
) -> TransportError:
    """The words of a send that ran out of time: decided by which limit was set, not by the clock (a
    timer may fire a hair early)."""
    by_step = step_limit is not None and limit == step_limit
    return TransportError(step_timeout(cstep) if by_step else host.deadline.message)


def step_timeout(cstep: CompiledStep) -> str:
    return f"step timeout of {cstep.step.timeout_ms} ms exceeded"


def _timeout(host: Host, cstep: CompiledStep) -> float | None:
    timeout = host.options.timeout
    if cstep.step.timeout_ms is not None:
        step_timeout = cstep.step.timeout_ms / 1000
        timeout = step_timeout if timeout is None else min(timeout, step_timeout)
    return timeout
