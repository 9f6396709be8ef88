"""One attempt of an operation step: resolve values, build and send the request, check the criteria."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..expressions import Context, Missing
from ..http.body import EncodedBody, choose_content_type, encode_body
from ..http.request import (
    ParamValue,
    PreparedRequest,
    RequestBuildError,
    build_request,
    implicit_params,
    spec_index,
)
from ..http.transport import Response, TransportError, send
from ..result import Exchange
from .context import ResponseView, with_exchange
from .payload import apply_replacements
from .servers import ServerError, base_url
from .values import strip_missing

if TYPE_CHECKING:
    from .plan import CompiledCriterion, CompiledStep
    from .runner import Runner


@dataclass
class Attempt:
    ok: bool
    ctx: Context
    message: str | None = None
    failed_criteria: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    status_code: int | None = None
    method: str | None = None
    url: str | None = None
    retry_after: str | None = None
    exchange: Exchange | None = None


def check_criteria(criteria: list[CompiledCriterion], ctx: Context) -> list[str]:
    """Messages of the criteria that fail (all must pass)."""
    failed = []
    for criterion in criteria:
        outcome = criterion.check.evaluate(ctx)
        if not outcome.passed:
            failed.append(outcome.message or f"{criterion.text}: failed")
    return failed


async def attempt_operation(runner: Runner, cstep: CompiledStep, base: Context, workspace: Any) -> Attempt:
    target = workspace.resolve_operation(cstep.step)
    warnings: list[str] = []
    try:
        request = _prepare(runner, cstep, base, target, warnings)
    except (RequestBuildError, ServerError, ValueError) as exc:
        return Attempt(False, base, f"request not sent: {exc}", warnings=warnings)
    exchange = Exchange(request.method, request.url, request.headers, request.content, started_at=time.time())
    ctx = with_exchange(base, url=request.url, method=request.method, request=request.view)
    timeout = _timeout(runner, cstep)
    try:
        coro = send(runner.client, request, timeout=timeout, max_body=runner.options.max_body)
        if cstep.step.timeout_ms is not None:
            response = await asyncio.wait_for(coro, cstep.step.timeout_ms / 1000)
        else:
            response = await coro
    except TransportError as exc:
        exchange.error = str(exc)
        return _unsent(ctx, request, str(exc), warnings, exchange)
    except asyncio.TimeoutError:
        message = f"step timeout of {cstep.step.timeout_ms} ms exceeded"
        exchange.error = message
        return _unsent(ctx, request, message, warnings, exchange)
    _record(exchange, response)
    warnings.extend(request.warnings)
    warnings.extend(response.notes)
    ctx = with_exchange(
        ctx,
        status_code=response.status_code,
        response=ResponseView(headers=response.headers, body=response.body),
    )
    ok, message, failed = _judge(cstep, ctx, response)
    return Attempt(
        ok,
        ctx,
        message,
        failed,
        warnings,
        response.status_code,
        request.method,
        request.url,
        response.headers.get("retry-after"),
        exchange,
    )


def _judge(cstep: CompiledStep, ctx: Context, response: Response) -> tuple[bool, str | None, list[str]]:
    if response.error:
        return False, f"HTTP {response.status_code}: {response.error}", []
    if not cstep.criteria:
        if response.status_code < 400:
            return True, None, []
        return False, f"HTTP {response.status_code} (no successCriteria: a status below 400 is required)", []
    failed = check_criteria(cstep.criteria, ctx)
    if failed:
        return False, "successCriteria failed: " + "; ".join(failed), failed
    return True, None, []


def _unsent(
    ctx: Context, request: PreparedRequest, message: str, warnings: list[str], exchange: Exchange
) -> Attempt:
    return Attempt(
        False, ctx, message, warnings=warnings, method=request.method, url=request.url, exchange=exchange
    )


def _record(exchange: Exchange, response: Response) -> None:
    exchange.status_code = response.status_code
    exchange.response_headers = list(response.headers.items())
    exchange.response_body = response.content
    exchange.duration_ms = response.elapsed_ms


def _timeout(runner: Runner, cstep: CompiledStep) -> float | None:
    timeout = runner.options.timeout
    if cstep.step.timeout_ms is not None:
        step_timeout = cstep.step.timeout_ms / 1000
        timeout = step_timeout if timeout is None else min(timeout, step_timeout)
    return timeout


def _prepare(
    runner: Runner, cstep: CompiledStep, base: Context, target: Any, warnings: list[str]
) -> PreparedRequest:
    operation = target.operation
    specs = spec_index(operation.parameters)
    params = _param_values(cstep, base, specs, warnings)
    body = _body(cstep, base, operation, warnings)
    url = base_url(target.source, target.description, operation, runner.options)
    return build_request(
        method=operation.method,
        base_url=url,
        path_template=operation.path,
        params=params,
        specs=specs,
        body=body,
        implicit=implicit_params(target.description.security_schemes),
    )


def _param_values(cstep: CompiledStep, ctx: Context, specs: dict, warnings: list[str]) -> list[ParamValue]:
    values = []
    for param in cstep.params:
        where = f"parameter '{param.name}' (in {param.in_})"
        if param.in_ is None:
            raise RequestBuildError(f"{where[:-8]}has no 'in'; operation parameters need one")
        value, problems = strip_missing(param.value.evaluate(ctx), where)
        if isinstance(value, Missing):
            spec = specs.get((param.name.lower() if param.in_ == "header" else param.name, param.in_))
            if param.in_ == "path" or getattr(spec, "required", False):
                raise RequestBuildError(f"required {where} has no value: {value.reason}")
            warnings.append(f"{where} not sent: {value.reason}")
            continue
        warnings.extend(problems)
        values.append(ParamValue(param.name, param.in_, value))
    return values


def _body(cstep: CompiledStep, ctx: Context, operation: Any, warnings: list[str]) -> EncodedBody | None:
    if cstep.body is None:
        return None
    payload: Any = None
    if cstep.body.payload is not None:
        payload, problems = strip_missing(cstep.body.payload.evaluate(ctx), "requestBody payload")
        if isinstance(payload, Missing):
            raise RequestBuildError(f"the request body has no value: {payload.reason}")
        warnings.extend(problems)
    media_types = list((operation.request_body or {}).get("content", {}) or {})
    content_type = choose_content_type(cstep.body.content_type, media_types, payload)
    payload = apply_replacements(payload, cstep.body.replacements, ctx, content_type, warnings)
    return encode_body(payload, content_type)
