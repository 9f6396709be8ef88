"""Checking requests against the OpenAPI description (`--validate-requests`: off | warn | error), and
the events of an event-stream response for the contract checks (`contract.py`).

Requests: parameters and body, by openapi-core (`openapi_checks.py`, imported only when a policy is on).
Responses are the contract checks' (`contract.py`, no optional extra needed); an event stream's body is
checked here with jsonschema: each event (`{event, data, id, retry}`, `data` as sent) against the media
type's `itemSchema` (OpenAPI 3.2), when there is one. Findings never contain a secret of the run (they
are redacted).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..spelling import schema_message

POLICIES = ("off", "warn", "error")


def request_findings(session: Any, description: Any, operation: Any, request: Any) -> list[str]:
    from .openapi_checks import check_request

    findings = check_request(session.validators, description, operation, request)
    return [redact(f"request: {f}", session.secrets) for f in findings]


def event_findings(media: Any, response: Any, description: Any) -> list[str]:
    """What is wrong with the events of an event-stream response, against its media type's `itemSchema`
    (OpenAPI 3.2), if it has one: the contract checks' body check for `text/event-stream`."""
    return _event_items(media, response, description)


def _event_items(media: Any, response: Any, description: Any) -> list[str]:
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
