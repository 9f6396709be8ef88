"""The values of an operation step's request, evaluated for one attempt: parameters and body.

A required parameter (every path parameter; a query, header or cookie parameter the operation marks
`required: true`) that comes out null or missing fails the step before anything is sent, naming the
parameter and the expression that produced nothing; it is never sent as an empty path segment or an
empty value. An optional one that is missing is left out with a warning; an optional null is sent as
the empty value (`q=`), as the OpenAPI style table spells it. The same holds for an expression inside a
template (`pets-{$steps.a.outputs.id}`): null there fails a required parameter, and an optional one is
sent with the text `null` and a warning. An optional parameter whose value is an input the inputs
schema declares (`$inputs.tag`) and the caller did not provide is left out as the caller chose: the
step gets one warning for all of them (`result.LeftOut`), which the console shows only with --verbose.
An input the request reads that the inputs schema does not declare and the run did not supply
(`$inputs.modle`) fails the step unsent, with a did-you-mean (`check_input_reads`). A payload written
as text under a JSON content type must be JSON once its expressions are substituted (`http/body.py`).
"""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING, Any

from ..expressions import Context, Missing
from ..expressions.resolver import resolve
from ..expressions.values import TemplateValue
from ..http.body import EncodedBody, InvalidJsonPayload, choose_content_type, encode_body, media_type_object
from ..http.request import ParamValue, RequestBuildError
from ..masking.secrets import MASK
from ..result import LeftOut
from .values import null_reason, strip_missing

if TYPE_CHECKING:
    from ..workspace.plan import CompiledStep


def check_input_reads(cstep: CompiledStep, ctx: Context) -> None:
    """An input the step's request reads (`$inputs.modle`) that the workflow's inputs schema does not
    declare and the run did not supply is a misspelling, not an optional value: the step fails unsent,
    naming it (a declared optional input that was not given is left out, as ever)."""
    inputs = ctx.inputs
    missing = [
        (name, hint)
        for name, hint in cstep.undeclared
        if name not in inputs and not any(str(key).startswith(name + ".") for key in inputs)
    ]
    if missing:
        text = "; ".join(
            f"$inputs.{name}: the workflow's inputs schema declares no input '{name}' and none was given"
            f"{hint}"
            for name, hint in missing
        )
        raise RequestBuildError(text)


def param_values(cstep: CompiledStep, ctx: Context, specs: dict, warnings: list[str]) -> list[ParamValue]:
    """Each parameter's value; `specs` are the operation's declared parameters by (name, in). A value
    derived from a secret also gets its printed form (`ParamValue.shown`, see `http/shown.py`)."""
    values = []
    shown_ctx = None
    left_out: list[Any] = []
    for param in cstep.params:
        if param.in_ is None:
            raise RequestBuildError(f"parameter '{param.name}' has no 'in'; operation parameters need one")
        value = param.value.evaluate(ctx)
        kind = type(value)
        if kind is not dict and kind is not list and kind is not Missing:  # the usual scalar: no walk
            if value is None and _required(param, specs):
                raise RequestBuildError(_no_value(param, None, ctx))
            if kind is str and "null" in value and isinstance(param.value, TemplateValue):
                _null_in_template(param, ctx, _required(param, specs), warnings)
            found = ParamValue(param.name, param.in_, value)
        else:
            where = f"parameter '{param.name}' (in {param.in_})"
            value, problems = strip_missing(value, where)
            if isinstance(value, Missing):
                if _required(param, specs):
                    raise RequestBuildError(_no_value(param, value, ctx))
                if param.input is not None:  # a declared input not provided: the caller's choice
                    left_out.append(param)
                else:
                    warnings.append(f"{where} not sent: {value.reason}")
                continue
            warnings.extend(problems)
            found = ParamValue(param.name, param.in_, value)
        # (`any` of `Taint.marks`: derived from a secret, or holding secret members; `shows_secret`)
        if ctx.taint is not None and not param.value.is_constant and any(ctx.taint.marks(param.value, ctx)):
            shown_ctx = shown_ctx or ctx.taint.shown_context(ctx)
            found.shown = strip_missing(param.value.evaluate(shown_ctx), "")[0]
        values.append(found)
    if left_out:
        warnings.append(_left_out(left_out))
    return values


def _left_out(params: list[Any]) -> LeftOut:
    """One line for the optional parameters a step left out because their inputs were not provided."""
    if len(params) == 1:
        (param,) = params
        return LeftOut(
            f"parameter '{param.name}' (in {param.in_}) not sent: input '{param.input}' was not provided"
        )
    names = ", ".join(
        f"'{p.name}' (in {p.in_}" + ("" if p.input == p.name else f", input '{p.input}'") + ")"
        for p in params
    )
    return LeftOut(f"parameters {names} not sent: their inputs were not provided")


def _null_in_template(param: Any, ctx: Context, required: bool, warnings: list[str]) -> None:
    """A template spells a null as `null` (`pets-{$x}` -> `pets-null`): for a required parameter that is a
    value that came out null, refused like a bare one; for an optional one, sent with a warning."""
    template = param.value.template
    for part in template.embedded:
        if resolve(part.expression, ctx) is not None:
            continue
        written = template.text[part.start : part.end]
        head = f"parameter '{param.name}' (in {param.in_})"
        if required:
            raise RequestBuildError(f"required {head} has no value: {written} is null in {template.text!r}")
        warnings.append(f"{head}: {written} is null, sent as the text 'null'")


def _required(param: Any, specs: dict) -> bool:
    """Path parameters always are (OpenAPI); others when the operation says `required: true`."""
    if param.in_ == "path":
        return True
    spec = specs.get((param.name.lower() if param.in_ == "header" else param.name, param.in_))
    return bool(getattr(spec, "required", False))


def _no_value(param: Any, missing: Missing | None, ctx: Context) -> str:
    """Why a required parameter cannot be sent: the expression that produced nothing, and why (a null is
    never sent as an empty segment or an empty value)."""
    raw = param.value.raw
    written = raw if isinstance(raw, str) else str(raw)
    head = f"required parameter '{param.name}' (in {param.in_}) has no value"
    if missing is not None:
        reason = missing.reason
        return f"{head}: {reason}" if reason.startswith(written) else f"{head}: {written}: {reason}"
    if param.value.is_constant:
        return f"{head}: its value is null"
    why = null_reason(param.value, ctx)
    return f"{head}: {written} is null" + (f" ({why})" if why else "")


def body_value(
    cstep: CompiledStep, ctx: Context, operation: Any, warnings: list[str], stand_ins: Collection[str]
) -> EncodedBody | None:
    """The encoded request body; `stand_ins` are a dry run's placeholders (read as null in JSON text).
    When part of it derives from a secret, its printed form is `shown` (see `http/shown.py`)."""
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
    media = media_type_object(operation.request_body, content_type)
    body = _encoded(cstep, ctx, payload, content_type, media, warnings, stand_ins)
    taint = ctx.taint
    parts = [cstep.body.payload, *(r.value for r in cstep.body.replacements)]
    if taint is not None and any(
        p is not None and not p.is_constant and taint.shows_secret(p, ctx) for p in parts
    ):
        shown_ctx = taint.shown_context(ctx)
        shown = None
        if cstep.body.payload is not None:
            shown = strip_missing(cstep.body.payload.evaluate(shown_ctx), "")[0]
        try:
            body.shown = _encoded(cstep, shown_ctx, shown, content_type, media, [], stand_ins)
        except (RequestBuildError, ValueError, TypeError):  # the masks do not fit: show none of it
            body.shown = EncodedBody(None, MASK.encode(), body.content_type)
    return body


def _encoded(
    cstep: CompiledStep,
    ctx: Context,
    payload: Any,
    content_type: str | None,
    media: Any,
    warnings: list[str],
    stand_ins: Collection[str],
) -> EncodedBody:
    assert cstep.body is not None
    if cstep.body.replacements:  # the selector engines they may need: imported for them only
        from .payload import apply_replacements

        payload = apply_replacements(payload, cstep.body.replacements, ctx, content_type, warnings)
    try:
        return encode_body(payload, content_type, media, stand_ins=stand_ins)
    except InvalidJsonPayload as exc:
        if not isinstance(cstep.body.payload, TemplateValue):
            raise
        hint = "an object or array in a {$...} is embedded as JSON text: write it without quotes around it"
        raise InvalidJsonPayload(f"{exc}; {hint}") from None


def carried_credentials(cstep: CompiledStep, base: Context, *more: Any) -> tuple[Any, ...]:
    """The bound credentials the values of a request with derived parts were computed from (its
    parameters', its body's, its replacements', and `more` compiled values): the guard keeps the
    request with their origins."""
    taint = base.taint
    if taint is None:
        return ()
    values = [*(p.value for p in cstep.params), *more]
    if cstep.body is not None:
        values += [cstep.body.payload, *(r.value for r in cstep.body.replacements)]
    found: dict[int, Any] = {}
    for value in values:
        if value is not None and not value.is_constant:
            found.update((id(b), b) for b in taint.credentials(value, base))
    return tuple(found.values())
