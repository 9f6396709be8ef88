"""What an AsyncAPI step sends and how a received message is read: the channel address with its
parameters, the headers, the payload encoded for its content type, the correlation value of a message.

Parameters of an AsyncAPI step (docs/semantics.md, "AsyncAPI steps"): `in: header` is a message
header; `in: path` fills a `{name}` of the channel address (AsyncAPI channel parameters). Any other
`in` has no meaning for a message and fails the step, never silently dropped.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..bounds import json_text
from ..expressions import Context, Missing
from ..http.body import encode_body, is_json
from ..loader.pointer import ABSENT, parse_pointer, resolve_pointer
from ..workspace.plan import CompiledStep
from .values import strip_missing

_PARAMETER = re.compile(r"\{([^{}]+)\}")


class MessageBuildError(ValueError):
    """The message cannot be built: a value is missing, a parameter has no place in a message."""


def address_of(cstep: CompiledStep, channel: Any, ctx: Context) -> str:
    """The channel address with its `{parameters}` filled from the step's `in: path` parameters."""
    if channel.address is None:
        raise MessageBuildError(f"channel '{channel.key}' has no address (address: null): nothing to use")
    values = {}
    for param in cstep.params:
        if param.in_ != "path":
            continue
        value, _ = strip_missing(param.value.evaluate(ctx), f"parameter '{param.name}'")
        if isinstance(value, Missing):
            raise MessageBuildError(f"channel parameter '{param.name}' has no value: {value.reason}")
        values[param.name] = value if isinstance(value, str) else json.dumps(value)

    def fill(match: re.Match) -> str:
        name = match.group(1)
        if name not in values:
            raise MessageBuildError(
                f"channel '{channel.key}' address {channel.address!r} needs parameter '{name}' "
                "(a step parameter with in: path)"
            )
        return str(values[name])

    return _PARAMETER.sub(fill, channel.address)


def header_values(cstep: CompiledStep, ctx: Context, warnings: list[str]) -> list[tuple[str, str]]:
    """The `in: header` parameters as message headers (strings; objects as JSON text)."""
    headers = []
    for param in cstep.params:
        if param.in_ == "path":
            continue
        if param.in_ != "header":
            where = "no 'in'" if param.in_ is None else f"in: {param.in_}"
            raise MessageBuildError(
                f"parameter '{param.name}' has {where}: a message takes in: header (a header) "
                "or in: path (a channel parameter)"
            )
        value, problems = strip_missing(param.value.evaluate(ctx), f"header '{param.name}'")
        if isinstance(value, Missing):
            raise MessageBuildError(f"header '{param.name}' has no value: {value.reason}")
        warnings.extend(problems)
        text = value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))
        headers.append((param.name, text))
    return headers


def content_type_of(cstep: CompiledStep, messages: list[Any], default: str) -> str:
    declared = cstep.body.content_type if cstep.body is not None else None
    if declared:
        return declared
    for message in messages:
        if message.content_type:
            return message.content_type
    return default


def payload_value(
    cstep: CompiledStep, ctx: Context, content_type: str, warnings: list[str], stand_ins: Any = ()
) -> tuple[Any, bytes]:
    """(the payload as resolved, its bytes); a step without a requestBody sends an empty message."""
    if cstep.body is None or cstep.body.payload is None:
        if cstep.body is not None and cstep.body.replacements:
            raise MessageBuildError("requestBody has replacements but no payload to apply them to")
        return None, b""
    payload, problems = strip_missing(cstep.body.payload.evaluate(ctx), "requestBody payload")
    if isinstance(payload, Missing):
        raise MessageBuildError(f"the message payload has no value: {payload.reason}")
    warnings.extend(problems)
    if cstep.body.replacements:
        from .payload import apply_replacements  # a step with replacements only

        payload = apply_replacements(payload, cstep.body.replacements, ctx, content_type, warnings)
    encoded = encode_body(payload, content_type, None, stand_ins=stand_ins)
    return payload, encoded.content or b""


def decode_payload(payload: bytes, content_type: str | None) -> tuple[Any, str | None]:
    """What `$message.payload` reads of a received message: JSON decoded by the rule for JSON from
    outside (`bounds/json_text.py`: 128 levels, a lone surrogate as U+FFFD) when the message is JSON,
    else text (bytes that are not UTF-8 stay bytes); and a note when JSON did not parse."""
    if is_json(content_type) or content_type is None:
        try:
            return json_text.loads(payload), None
        except json_text.TooDeep as exc:
            if is_json(content_type):
                return _text(payload), f"the message payload {exc}: read as text"
        except ValueError as exc:
            if is_json(content_type):
                return _text(payload), f"the message payload is not JSON ({exc}): read as text"
    return _text(payload), None


def _text(payload: bytes) -> Any:
    try:
        return payload.decode("utf-8")
    except UnicodeDecodeError:
        return payload


def correlation_of(location: str, headers: dict[str, str], body: Any) -> Any:
    """The value at an AsyncAPI correlationId `location` (`$message.header#/id`, `$message.payload#/a/b`)
    of a message; ABSENT when the message has none there."""
    where, _, pointer = location.partition("#")
    where = where.strip()
    try:
        tokens = parse_pointer(pointer) if pointer else ()
    except ValueError:
        return ABSENT
    if where == "$message.header":
        if not tokens:
            return ABSENT
        folded = {k.casefold(): v for k, v in headers.items()}
        value = folded.get(str(tokens[0]).casefold(), ABSENT)
        return value if len(tokens) == 1 or value is ABSENT else resolve_pointer(value, tokens[1:])
    if where == "$message.payload":
        return resolve_pointer(body, tokens)
    return ABSENT


def same_value(found: Any, wanted: Any) -> bool:
    """A correlation id matches when equal, or equal as text (a header is always text)."""
    if found is ABSENT:
        return False
    return found == wanted or _as_text(found) == _as_text(wanted)


def _as_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, separators=(",", ":"), sort_keys=True)
