"""Checking requests and responses against the OpenAPI description (`--validate-requests`,
`--validate-responses`: off | warn | error).

Requests: parameters and body, by openapi-core (`openapi_checks.py`, imported only when a policy is on).
Responses: the status code must be declared (exactly, by a `2XX`-style range, or by `default`) and the
content type must match a declared media type (wildcards allowed) - checked here, so the messages are
precise and event streams are covered; then headers and body by openapi-core. openapi-core cannot read an
event stream, so a `text/event-stream` body is checked here with jsonschema: each event (`{event, data,
id, retry}`, `data` as sent) against the media type's `itemSchema` (OpenAPI 3.2), when there is one.
Findings never contain a secret of the run (they are redacted).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..spelling import schema_message
from .body import base_type

POLICIES = ("off", "warn", "error")


def request_findings(session: Any, description: Any, operation: Any, request: Any) -> list[str]:
    from .openapi_checks import check_request

    findings = check_request(session.validators, description, operation, request)
    return [redact(f"request: {f}", session.secrets) for f in findings]


def response_findings(
    session: Any, description: Any, operation: Any, request: Any, response: Any
) -> list[str]:
    responses = operation.responses
    if not responses:
        return []  # nothing declared: nothing to check against
    findings = _status_and_type(responses, response)
    if not findings:
        if _is_event_stream(response.content_type):
            declared = declared_response(responses, response.status_code)[1]
            findings = _event_items(declared, response, description)
        else:
            from .openapi_checks import check_response

            findings = check_response(session.validators, description, operation, request, response)
    return [redact(f"response: {f}", session.secrets) for f in findings]


def declared_response(responses: dict[str, Any], status: int) -> tuple[str | None, Any]:
    """The Responses Object key answering `status` (exact, then `4XX`, then `default`) and its value."""
    by_key = {str(k).upper(): (str(k), v) for k, v in responses.items()}
    for key in (str(status), f"{status // 100}XX", "DEFAULT"):
        if key in by_key:
            return by_key[key]
    return None, None


def _status_and_type(responses: dict[str, Any], response: Any) -> list[str]:
    key, declared = declared_response(responses, response.status_code)
    if key is None:
        listed = ", ".join(str(k) for k in responses)
        return [f"status {response.status_code} is not declared by the operation (declared: {listed})"]
    content = declared.get("content") if isinstance(declared, dict) else None
    if not isinstance(content, dict) or not content or not response.content:
        return []  # no body described, or none sent
    actual = base_type(response.content_type)
    if not actual:
        return [f"the {key} response has a body but no Content-Type (declared: {', '.join(content)})"]
    if not any(_matches(actual, base_type(str(media))) for media in content):
        return [
            f"content type {actual} is not declared for the {key} response (declared: {', '.join(content)})"
        ]
    return []


def _matches(actual: str, declared: str) -> bool:
    if declared in ("*/*", actual):
        return True
    kind, _, sub = declared.partition("/")
    return sub == "*" and actual.startswith(kind + "/")


def _is_event_stream(content_type: str | None) -> bool:
    return base_type(content_type) == "text/event-stream"


def _event_items(declared: Any, response: Any, description: Any) -> list[str]:
    content = declared.get("content") if isinstance(declared, dict) else None
    media = _media(content, "text/event-stream")
    schema = media.get("itemSchema") if isinstance(media, dict) else None
    if not isinstance(schema, (dict, bool)):
        return []
    from jsonschema import Draft202012Validator

    from ..bounds.budget import BudgetExceeded
    from ..sources.schema_keywords import bounded
    from ..sources.schema_patterns import PatternStopped, run_check
    from ..sources.schema_registry import refusal, unusable

    findings: list[str] = []
    at = [0]  # the event being checked

    def check() -> None:
        # refs resolve against the description, from what the run loaded: never a fetch
        resolver = description.schema_registry.resolver(base_uri=description.uri)
        validator = bounded(Draft202012Validator)(schema, _resolver=resolver)
        for at[0], event in enumerate(_events(response.content)):
            item = {k: v for k, v in _event_dict(event).items() if v is not None}
            for error in validator.iter_errors(item):
                findings.append(f"event {at[0]}: {schema_message(error)}{_at(error)}")
            if len(findings) >= 20:
                break

    try:
        run_check(check)  # the stream's patterns share one check's time
    except PatternStopped as exc:
        findings[19:] = [f"event {at[0]}: {exc}; the rest of the stream was not validated"]
    except BudgetExceeded as exc:
        findings[19:] = [f"event {at[0]}: validation was stopped: {exc.cause()}"]
    except Exception as exc:  # a schema the validator cannot use: a finding, never a traceback
        findings.append(refusal(exc, description.ref_origin) or unusable(exc))
    return findings[:20]


def _events(content: bytes) -> Iterator[Any]:
    """The events of a stream, parsed piece by piece (never every event object at once), at most as
    many as a decoded body may hold (`EventLimits`)."""
    from .sse import EventLimits, EventStreamParser

    parser = EventStreamParser()

    def batches() -> Iterator[list[Any]]:
        for start in range(0, len(content), 2**16):
            yield parser.feed(content[start : start + 2**16])
        yield parser.close()

    left = EventLimits.for_body(len(content)).max_events
    for batch in batches():
        for event in batch:
            if left == 0:
                return
            left -= 1
            yield event


def _media(content: Any, media_type: str) -> Any:
    if not isinstance(content, dict):
        return None
    for key, value in content.items():
        if _matches(media_type, base_type(str(key))):
            return value
    return None


def _event_dict(event: Any) -> dict[str, Any]:
    return {
        "event": getattr(event, "event", None),
        "data": getattr(event, "data", None),
        "id": getattr(event, "id", None),
        "retry": getattr(event, "retry", None),
    }


def _at(error: Any) -> str:
    path = "/".join(str(p) for p in getattr(error, "absolute_path", ()))
    return f" (at /{path})" if path else ""


def redact(text: str, secrets: set[str]) -> str:
    """`text` with every secret value of the run (4 characters or more) replaced by `***`: the one
    masking function (`arazzo_runner.masking.secrets`)."""
    from ..masking.secrets import Masker

    return Masker(secrets).text(text)
