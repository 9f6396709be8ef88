"""Respect's extensions in a run: `x-operation` requests and `x-security` credentials (`docs/semantics.md`,
*Extensions*). The targets and the schemes are described in `sources/x_operation.py` and
`http/x_security.py`; this module evaluates them for one attempt.

An x-operation request is built by the same code as an operation's (parameters, body, serialization),
from the URL the step gives; it has no source description, so no credential of the engine's (`--auth`,
`ARAZZO_AUTH_*`) is ever added to it. x-security credentials are the document's values, sent where the
document sends the step, replacing a parameter at the same place; over plain http to another machine
the step gets the engine's usual warning.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from ..errors import ExpressionError
from ..expressions import Context, Missing, compile_value, iter_missing
from ..http.outbound import remote_plain_http_host
from ..http.request import PreparedRequest, RequestBuildError, build_request
from ..http.userinfo import split_userinfo, userinfo_header
from ..http.x_security import XSecurityError, params_for, replacing, resolve_scheme
from ..http.x_security import secrets_of as x_secrets
from ..spelling import json_spelling
from .request_values import body_value, carried_credentials, param_values

# The step and the run are the operation kind's (`steps/operation.py`, which calls this module): typed
# loosely here, so that nothing of the executor is imported back (tests/unit/test_executor_layout.py).
CompiledStep = Host = Any


async def with_x_security(
    host: Host,
    cstep: CompiledStep,
    ctx: Context,
    target: Any,
    params: list,
    base_url: str,
    warnings: list,
    session: Any,
) -> list:
    """`params` with the step's x-security credentials applied (replacing what is at the same place);
    `session`: the run's HttpSession, whose secrets the values join."""
    compiled = getattr(cstep, "x_security", ())
    if not compiled:
        return params
    added = []
    for item in compiled:
        values = {}
        for name, value in item.values:
            evaluated = value.evaluate(ctx)
            missing = next((m for _, m in iter_missing(evaluated)), None)
            if isinstance(evaluated, Missing) or missing is not None:
                reason = (evaluated if isinstance(evaluated, Missing) else missing).reason
                raise RequestBuildError(f"x-security value '{name}' has no value: {reason}")
            values[name] = evaluated
        try:
            scheme = resolve_scheme(item.entry, target.source, lambda name: _schemes(host, target, name))
            made = params_for(scheme, values, "x-security")
        except XSecurityError as exc:
            raise RequestBuildError(str(exc)) from None
        session.secret(*x_secrets(made, values.values()))
        added.extend(made)
    host = remote_plain_http_host(base_url)
    if host is not None and f"x-security {host}" not in session.cleartext_warned:
        session.cleartext_warned.add(f"x-security {host}")
        warnings.append(
            f"x-security credentials are sent over plain http to {host}: anyone on the network can read "
            "them; use an https URL"
        )
    return replacing(params, added)


def _schemes(host: Host, target: Any, source: str) -> dict:
    if source == target.source:
        return target.description.security_schemes
    try:  # `$sourceDescriptions.<other>.<scheme>`: a source of the run's document
        return host.root.source(source).security_schemes
    except Exception as exc:  # not an OpenAPI source, or it cannot be loaded
        raise XSecurityError(f"x-security: source '{source}' has no security schemes ({exc})") from None


async def prepare_x_request(
    host: Host, cstep: CompiledStep, base: Context, target: Any, warnings: list[str], session: Any
) -> PreparedRequest:
    """The request of an x-operation step: its URL evaluated for this attempt, used as written."""
    given = _evaluated_url(cstep, base, target)
    url = split_userinfo(given)[0]  # a user and password in it: a credential (`http/userinfo.py`)
    parts = urlsplit(url)
    origin = f"{parts.scheme}://{parts.netloc}"
    params = param_values(cstep, base, {}, warnings)
    params = await with_x_security(host, cstep, base, target, params, url, warnings, session)
    if url != given:
        basic = userinfo_header(given, params, session, warnings)
        params = params if basic is None else [*params, basic]
    body = body_value(cstep, base, target.operation, warnings, host.placeholders)
    declared = frozenset((p.name.lower() if p.in_ == "header" else p.name, p.in_) for p in params)
    request = build_request(
        method=target.operation.method,
        base_url=origin,
        path_template=parts.path or "/",
        params=params,
        specs={},
        body=body,
        implicit=declared,  # the step describes its own request: nothing is "undeclared"
    )
    if parts.query:  # the URL's own query (a presigned URL's signature) first, as written
        request.url = _with_query(request.url, parts.query)
        request.document_url = _with_query(request.document_url, parts.query)
    _printed(request, base, target, params, body, declared, given)
    if request.shown is not None:  # derived parts: what they were computed from stays with its origins
        url_value = compile_value(target.operation.url, strict=True)
        request.carried = carried_credentials(cstep, base, url_value)
    return request


def _printed(
    request: PreparedRequest,
    base: Context,
    target: Any,
    params: list,
    body: Any,
    declared: frozenset,
    url: str,
) -> None:
    """The printed form of an x-operation request (`http/shown.py`), its URL included: a part of the URL
    derived from a secret is `***` too."""
    from ..http.request import SAME
    from ..http.shown import build_shown
    from ..masking.secrets import MASK, SHOWN_MASK

    shown_url, taint = url, base.taint
    compiled = compile_value(target.operation.url, strict=True)
    if taint is not None and not compiled.is_constant and taint.output(compiled, base):
        value = compiled.evaluate(taint.shown_context(base))
        shown_url = value if isinstance(value, str) else url
    shown_body = body.shown if body is not None else None
    if shown_url == url and shown_body is None and all(p.shown is SAME for p in params):
        return
    parts = urlsplit(split_userinfo(shown_url)[0])
    origin = f"{parts.scheme}://{parts.netloc}"
    path, derived = parts.path or "/", shown_url != url
    build_shown(request, base_url=origin, path_template=path, params=params, specs={}, body=body,
                shown_body=shown_body, implicit=declared, url_derived=derived)  # fmt: skip
    if parts.query and request.shown is not None:  # the URL's own query first, as for the wire
        request.shown.url = _with_query(request.shown.url, parts.query.replace(SHOWN_MASK, MASK))


def _evaluated_url(cstep: CompiledStep, base: Context, target: Any) -> str:
    try:
        compiled = compile_value(target.operation.url, strict=True)
    except ExpressionError as exc:
        raise RequestBuildError(f"x-operation url {target.operation.url!r}: {exc}") from None
    value = compiled.evaluate(base)
    if isinstance(value, Missing):
        raise RequestBuildError(f"x-operation url {target.operation.url!r} has no value: {value.reason}")
    if not isinstance(value, str):
        shown = json_spelling(value)
        raise RequestBuildError(f"x-operation url {target.operation.url!r} is not a string: {shown}")
    parts = urlsplit(value)
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc:
        raise RequestBuildError(f"x-operation url {value!r} is not an absolute http(s) URL")
    if parts.fragment:
        raise RequestBuildError(f"x-operation url {value!r} has a fragment, which is never sent")
    return value


def _with_query(url: str, query: str) -> str:
    head, sep, tail = url.partition("?")
    return f"{head}?{query}&{tail}" if sep else f"{head}?{query}"
