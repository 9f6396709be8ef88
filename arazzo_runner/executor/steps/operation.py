"""One attempt of an operation step: resolve values, build and send the request, check the criteria."""

from __future__ import annotations

import time
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any

from ...expressions import Context, Missing
from ...http.request import (
    SAME,
    PreparedRequest,
    RequestBuildError,
    build_request,
    implicit_params,
    spec_index,
)
from ...http.security import HttpSession, SecurityError, apply_security, record_step_credentials
from ...http.transport import Response, TransportError
from ...http.userinfo import split_userinfo, userinfo_header
from ...masking.secrets import MESSAGE_LIMIT, URL_LIMIT, Masker, clip, cookie_values
from ...records import Record
from ...result import Exchange, ResponseExcerpt
from ..bounds import reads_response_body
from ..context import ResponseView, with_exchange
from ..events import RequestSent, ResponseReceived
from ..request_values import body_value, carried_credentials, check_input_reads, param_values
from ..servers import ServerError, resolve_base_url, top_description
from .base import Attempt, Host, StepKind, check_criteria
from .body_stream import body_uses
from .contract import check_contract
from .credentials import family_source, step_credentials
from .sending import send_request, step_timeout
from .session import http_session

if TYPE_CHECKING:
    from ...http.body import EncodedBody
    from ...http.request import ParamValue
    from ...result import StepResult
    from ...workspace import Workspace
    from ...workspace.plan import CompiledStep
    from ..context import WorkflowState

EXCERPT_LIMIT = 500  # bytes of a failed step's response body kept in the result
# how a user reads a body above the limit, said where a step fails for one (the command line's flag and
# the library's option)
RAISE_BODY_LIMIT = "raise the limit with --max-response-bytes (max_body= in Python)"


class OperationStep(StepKind):
    """A step that calls an OpenAPI operation (`operationId` / `operationPath`) over HTTP."""

    name = "operation"

    def attempt(  # the attempt's coroutine itself: no frame that only forwards it
        self,
        host: Host,
        workspace: Workspace,
        cstep: CompiledStep,
        base: Context,
        step_result: StepResult,
        depth: int,
        state: WorkflowState,
    ) -> Coroutine[Any, Any, Attempt]:
        return attempt_operation(host, cstep, base, workspace)


async def attempt_operation(host: Host, cstep: CompiledStep, base: Context, workspace: Any) -> Attempt:
    """One attempt; the OAuth2 token requests made while preparing it are its `token_exchanges`."""
    tokens: list[Exchange] = []
    target = workspace.resolve_operation(cstep.step)
    session = http_session(host)
    warnings: list[str] = []
    try:
        left = host.deadline.remaining()
        request = None if left is not None else prepared_now(host, cstep, base, target, warnings, workspace)
        if request is None:  # bounded by the deadline too: preparing may fetch an OAuth2 token
            prepared = prepare_request(host, cstep, base, target, warnings, tokens, workspace)
            request = await (prepared if left is None else host.runtime.within(prepared, left))
        foreign = session.guard.foreign(request.url, request.headers, request.content)
        foreign = foreign or session.guard.derived_foreign(request.url, request.carried)
        if foreign is not None:  # a credential the engine added, or what was computed from it, elsewhere
            raise SecurityError(foreign)
        _check_request(host, session, target, request, warnings)
    except (RequestBuildError, ServerError, SecurityError, ValueError) as exc:
        _emit_exchanges(host, cstep, tokens)
        unsent = Attempt(False, base, f"request not sent: {exc}", warnings=warnings, token_exchanges=tokens)
        return _redacted(unsent, session)
    except TimeoutError:
        _emit_exchanges(host, cstep, tokens)
        why = f"request not sent: {host.deadline.message}"
        return Attempt(False, base, why, warnings=warnings, token_exchanges=tokens)
    if tokens:  # (most requests fetch no token)
        _emit_exchanges(host, cstep, tokens)
    session.secret(*cookie_values(request.headers))  # masked by name; an echo of one by value too
    if host.journal is not None:  # `--idempotency-header`: the step execution's key
        host.journal.stamp(request)
    printed = request.printed()  # what derives from a secret is `***` in every record of the request
    exchange = Exchange(request.method, printed.url, printed.headers, printed.content, started_at=time.time())
    if request.sent is not None:  # the operation called and what of it was sent (`--coverage`)
        exchange.operation = _called(host, workspace, target, request.sent)
    host.emit(RequestSent, cstep.step_id, exchange)
    try:
        response = await send_request(host, cstep, request, uses=lambda: body_uses(host, cstep, target))
    except (TransportError, TimeoutError) as exc:
        if isinstance(exc, TransportError):
            message = str(exc)
        else:  # the journal's; without one, the exchange's own (no limit set): said as `_send_around` says it
            message = step_timeout(cstep) if host.journal is not None else host.deadline.message
        exchange.error = message
        exchange.duration_ms = (time.time() - exchange.started_at) * 1000
        host.emit(ResponseReceived, cstep.step_id, exchange)
        ctx = with_exchange(base, url=request.document_url, method=request.method, request=request.view)
        return _redacted(_unsent(ctx, request, message, warnings, exchange, tokens), session)
    _record(exchange, response)
    if "set-cookie" in response.headers or "cookie" in response.headers:  # (its names: those it reads)
        session.secret(*cookie_values(exchange.response_headers))  # the cookie jar sends them back
    host.emit(ResponseReceived, cstep.step_id, exchange)
    if response.oversize and response.error is None and reads_response_body(cstep):
        response.error = (
            f"the response body is larger than the limit of {host.options.max_body} bytes "
            f"(max-response-bytes) and the step reads $response.body: {RAISE_BODY_LIMIT}"
        )
    warnings.extend(request.warnings)
    warnings.extend(response.notes)
    # `$url` and `$request` are what the document wrote: the engine's credentials are not readable there
    ctx = with_exchange(
        base,
        url=request.document_url,
        method=request.method,
        request=request.view,
        status_code=response.status_code,
        response=ResponseView(headers=response.headers, body=_body_seen(response)),
    )
    invalid = check_contract(host, session, target, exchange, response, warnings, (cstep, workspace))
    ok, message, failed = _judge(cstep, ctx, response, invalid)
    attempt = Attempt(
        ok,
        ctx,
        message,
        failed,
        warnings,
        response.status_code,
        request.method,
        printed.url,
        response.headers.get("retry-after"),
        exchange,
        tokens,
    )
    if not ok:  # say what the server answered, not only `$statusCode == 200: got 400`
        attempt.response = _excerpt(response, session)
    return _redacted(attempt, session)


def _excerpt(response: Response, session: HttpSession) -> ResponseExcerpt:
    """The status and the first `EXCERPT_LIMIT` bytes of the body, masked with the secrets known now
    (before it is cut, so no secret shows half of itself), binary bodies as a size."""
    from ...http.bodies import render_body

    masker = Masker(session.secrets)
    body = render_body(
        response.content, response.content_type, masker, limit=EXCERPT_LIMIT, known_json=response.json
    )
    binary = body.kind == "binary"
    return ResponseExcerpt(
        response.status_code, response.content_type, body.text, body.size, body.omitted, binary
    )


def _emit_exchanges(host: Host, cstep: CompiledStep, exchanges: list[Exchange]) -> None:
    """Exchanges made while preparing the request (token requests), told to listeners once done."""
    for exchange in exchanges:
        host.emit(RequestSent, cstep.step_id, exchange)
        host.emit(ResponseReceived, cstep.step_id, exchange)


def _body_seen(response: Response) -> Any:
    """`$response.body`: a body not kept (above the size limit) is a missing value saying why."""
    return Missing(response.oversize) if response.oversize else response.body


def _check_request(
    host: Host, session: HttpSession, target: Any, request: PreparedRequest, warnings: list[str]
) -> None:
    policy = host.options.validate_requests
    if policy == "off" or target.source is None:  # an x-operation has no description to validate against
        return
    from ...http.validation import request_findings

    findings = request_findings(session, target.description, target.operation, request)
    if findings and policy == "error":
        raise RequestBuildError("request validation failed: " + "; ".join(findings))
    warnings.extend(findings)


def _redacted(attempt: Attempt, session: HttpSession) -> Attempt:
    """No message, warning or displayed URL of an attempt shows a credential (`$url` keeps the real one),
    and each is cut, after masking, to a bounded length: a 5 MB URL is never repeated in a result."""
    fit = Masker(session.secrets).clip if session.secrets else clip
    if attempt.message:
        attempt.message = fit(attempt.message, MESSAGE_LIMIT)
    if attempt.warnings:
        attempt.warnings = [fit(w, MESSAGE_LIMIT) for w in attempt.warnings]
    if attempt.url:
        attempt.url = fit(attempt.url, URL_LIMIT)
    return attempt


def _judge(
    cstep: CompiledStep, ctx: Context, response: Response, invalid: str | None = None
) -> tuple[bool, str | None, list[str]]:
    if response.error:
        return False, f"HTTP {response.status_code}: {response.error}", []
    if invalid:
        return False, f"HTTP {response.status_code}: {invalid}", []
    if not cstep.criteria:
        if response.status_code < 400:
            return True, None, []
        return False, f"HTTP {response.status_code} (no successCriteria: a status below 400 is required)", []
    failed = check_criteria(cstep.criteria, ctx)
    if failed:
        return False, "successCriteria failed: " + "; ".join(failed), failed
    return True, None, []


def _unsent(
    ctx: Context,
    request: PreparedRequest,
    message: str,
    warnings: list[str],
    exchange: Exchange,
    tokens: list[Exchange],
) -> Attempt:
    url = request.printed().url
    return Attempt(False, ctx, message, warnings=warnings, method=request.method, url=url, exchange=exchange,
                   token_exchanges=tokens)  # fmt: skip


def _record(exchange: Exchange, response: Response) -> None:
    exchange.status_code = response.status_code
    exchange.response_headers = list(response.headers.items())
    exchange.response_body = response.content
    exchange.body_cut = len(response.content) if response.oversize else None
    exchange.response_json = response.json
    exchange.duration_ms = response.elapsed_ms


async def prepare_request(
    host: Host,
    cstep: CompiledStep,
    base: Context,
    target: Any,
    warnings: list[str],
    exchanges: list[Exchange] | None = None,
    workspace: Any = None,
) -> PreparedRequest:
    """The step's request, built from its operation (of a source of `workspace`, the run's document by
    default); OAuth2 token requests made for its credentials are recorded in `exchanges`. When parts of
    it carry a value derived from a secret, its printed form is built too (`http/shown.py`)."""
    check_input_reads(cstep, base)
    if target.source is None:  # Respect's x-operation: a method and a URL (x_operation.py)
        from ..x_operation import prepare_x_request

        return await prepare_x_request(host, cstep, base, target, warnings, http_session(host))
    facts, params, body = _values(host, cstep, base, target, warnings, workspace)
    url, operation = facts.url, target.operation
    # Respect's x-security: the document's credentials, set before the engine's (which then leave alone
    # what they find set, as for any parameter the step sets itself)
    if cstep.x_security:
        from ..x_operation import with_x_security

        params = await with_x_security(host, cstep, base, target, params, url, warnings, http_session(host))
    schemes = target.description.security_schemes
    tls: list[Any] = []  # a mutualTLS client certificate's context
    if operation.security:
        credentials = step_credentials(host, base, workspace, target.source)
        try:
            added, notes = await apply_security(
                operation=operation,
                schemes=schemes,
                params=params,
                credentials=credentials,
                session=http_session(host),
                client=host.client,
                base_url=url,
                timeout=host.options.timeout,
                exchanges=exchanges,
                tls=tls,
            )
        except SecurityError as exc:  # the warnings said before it failed are kept
            warnings.extend(exc.warnings)
            raise
        warnings.extend(notes)
    else:  # nothing to apply; a credential the step sets itself is still a secret
        added = []
        record_step_credentials(schemes, params, http_session(host))
    return _assembled(host, cstep, base, target, facts, params, added, body, tls, warnings)


def prepared_now(
    host: Host, cstep: CompiledStep, base: Context, target: Any, warnings: list[str], workspace: Any
) -> PreparedRequest | None:
    """`prepare_request`'s request when preparing it awaits nothing (an operation of a description,
    without x-security or a security requirement: most steps), built here with no coroutine around it;
    None (nothing done) for any other step."""
    if target.source is None or cstep.x_security or target.operation.security:
        return None
    check_input_reads(cstep, base)
    facts, params, body = _values(host, cstep, base, target, warnings, workspace)
    # nothing to apply; a credential the step sets itself is still a secret
    record_step_credentials(target.description.security_schemes, params, http_session(host))
    return _assembled(host, cstep, base, target, facts, params, [], body, [], warnings)


def _values(
    host: Host, cstep: CompiledStep, base: Context, target: Any, warnings: list[str], workspace: Any
) -> tuple[_OperationFacts, list[ParamValue], EncodedBody | None]:
    """The operation's facts, the step's parameter values and body; the facts' notes said."""
    facts = _facts(host, target, workspace)
    params = param_values(cstep, base, facts.specs, warnings)
    body = body_value(cstep, base, target.operation, warnings, host.placeholders)
    warnings.extend(facts.notes)
    return facts, params, body


def _assembled(
    host: Host,
    cstep: CompiledStep,
    base: Context,
    target: Any,
    facts: _OperationFacts,
    params: list[ParamValue],
    added: list[ParamValue],
    body: EncodedBody | None,
    tls: list[Any],
    warnings: list[str],
) -> PreparedRequest:
    """The request of the step's values and the credentials `added`, as `build_request` makes it."""
    operation, given_url, url, specs = target.operation, facts.base_url, facts.url, facts.specs
    if url != given_url:  # a user and password in the server URL: a credential (`http/userinfo.py`)
        basic = userinfo_header(given_url, params + added, http_session(host), warnings)
        added = added if basic is None else [*added, basic]
    request = build_request(
        method=operation.method,
        base_url=url,
        path_template=operation.path,
        params=params + added,
        specs=specs,
        body=body,
        implicit=facts.implicit,
    )
    request.tls = tls[0] if tls else None
    properties = body.value if body is not None and isinstance(body.value, dict) else {}
    request.sent = (tuple([(p.in_, p.name) for p in params]), tuple([str(k) for k in properties]))
    if (body is not None and body.shown is not None) or any([p.shown is not SAME for p in params]):
        from ...http.shown import build_shown  # parts derived from a secret: `***` where printed

        shown = body.shown if body is not None else None
        build_shown(request, base_url=url, path_template=operation.path, params=params + added,
                    specs=specs, body=body, shown_body=shown, implicit=facts.implicit)  # fmt: skip
        request.carried = carried_credentials(cstep, base)
    return request


def _called(host: Host, workspace: Any, target: Any, sent: tuple) -> dict[str, Any]:
    """The operation an exchange called, by its source's family name, and what of it the step sent:
    what `report/coverage.py` counts. Parameter and property names only, never a value."""
    operation = target.operation
    return {
        "source": family_source(host, workspace, target.source),
        "method": operation.method.upper(),
        "path": operation.path,
        "operationId": operation.operation_id,
        "parameters": [list(pair) for pair in sent[0]],
        "bodyProperties": list(sent[1]),
    }


class _OperationFacts(Record):
    specs: dict
    base_url: str
    notes: list[str]
    implicit: frozenset
    url: str  # `base_url` without its user and password (`split_userinfo`)


def _facts(host: Host, target: Any, workspace: Any) -> _OperationFacts:
    """What stays the same for an operation of a source during one run (its options are fixed): computed
    once. The source is named by its place in the run's family (`--server kid/a=...`): two sources
    reading one description are two keys."""
    family = family_source(host, workspace, target.source)
    key = (family, id(target.operation))
    facts = host.operation_facts.get(key)
    if facts is None:
        declared = getattr(target, "server", None)  # the source's x-serverUrl (Respect's extension)
        same = top_description(host.root, target.source, family, host.options.servers)
        url, notes = resolve_base_url(
            target.source, target.description, target.operation, host.options, declared, family, same
        )
        implicit = implicit_params(target.description.security_schemes)
        plain = split_userinfo(url)[0]
        facts = _OperationFacts(spec_index(target.operation.parameters), url, notes, implicit, plain)
        host.operation_facts[key] = facts
    return facts
