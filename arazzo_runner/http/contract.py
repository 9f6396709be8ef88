"""Contract checks: a response of an OpenAPI-described operation against what the description says of it
(`--contract warn|fail|off`, `RunOptions.contract`; on by default, `warn`).

Checked, in this order, each check only when the ones before it passed:
- the status code is documented: exactly, by a range (`2XX`), or by `default`;
- the documented response headers marked `required` are present, and each documented header present fits
  its schema (`Content-Type` aside: OpenAPI ignores it);
- a response with a body has a Content-Type, one of the documented media types (`*/*`, `type/*` allowed);
- the body fits the media type's schema (`contract_schema.py`: JSON media types; an event stream's
  events against its `itemSchema`, `validation.py`).
An operation that documents no responses, an `x-operation`, a body not read whole and an exchange that
failed below HTTP are not checked. Each violation is one `Violation`: where (status, header, content
type, the JSON pointer in the body), what the description wanted and what came, without a secret of the
run. Compiled schemas are kept for the run (`HttpSession.validators`), one per operation, status key and
media type.
"""

from __future__ import annotations

from typing import Any

from ..records import Record
from .body import base_type, is_json

MODES = ("warn", "fail", "off")
DEFAULT_MODE = "warn"
# `--validate-responses` (before the contract checks): its values and the mode each is now
LEGACY = {"off": "off", "warn": "warn", "error": "fail"}


class Violation(Record):
    """One way a response departs from its description."""

    status: int
    media_type: str  # the response's Content-Type (base type), "" without one
    part: str  # "status", "header", "content-type", "body"
    pointer: str  # the JSON pointer in the body ("" for the whole body, or not about the body)
    wanted: str
    got: str

    def text(self) -> str:
        """`response 200 application/json: body /a/b: wanted type integer, got string "x"`."""
        media = f" {self.media_type}" if self.media_type else ""
        where = {"body": f"body {self.pointer or '(whole)'}"}.get(self.part, self.part)
        return f"response {self.status}{media}: {where}: wanted {self.wanted}, got {self.got}"

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Violation:
        """A violation from its `to_dict` form (as the reports read it back)."""
        return cls(
            int(data.get("status") or 0),
            str(data.get("mediaType") or ""),
            str(data.get("part") or ""),
            str(data.get("pointer") or ""),
            str(data.get("wanted") or ""),
            str(data.get("got") or ""),
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "mediaType": self.media_type,
            "part": self.part,
            "pointer": self.pointer,
            "wanted": self.wanted,
            "got": self.got,
        }


def mode_of(options: Any) -> str:
    """The contract mode of a run's options: `contract`, unless the older `validate_responses` was set."""
    legacy = getattr(options, "validate_responses", None)
    if legacy is not None:
        return LEGACY.get(legacy, legacy)
    return getattr(options, "contract", DEFAULT_MODE)


def check(cache: dict, description: Any, operation: Any, response: Any) -> list[Violation]:
    """Every violation of `response` against `operation` (none when it documents no responses)."""
    responses = operation.responses
    if not responses:
        return []
    status = response.status_code
    media = (base_type(response.content_type) or "") if response.content else ""  # a body's type
    key, declared = declared_response(responses, status)
    if key is None:
        listed = ", ".join(str(k) for k in responses)
        return [Violation(status, media, "status", "", f"a documented status ({listed})", str(status))]
    declared = declared if isinstance(declared, dict) else {}
    found = _headers(cache, description, operation, key, declared, response, media)
    content = declared.get("content")
    if not isinstance(content, dict) or not content or not response.content:
        return found  # no body described, or none sent
    listed = ", ".join(str(k) for k in content)
    if not media:
        return [*found, Violation(status, "", "content-type", "", f"one of {listed}", "no Content-Type")]
    media_key = media_key_for(media, content)
    if media_key is None:
        return [*found, Violation(status, media, "content-type", "", f"one of {listed}", media)]
    if response.error:
        return found  # a body that contradicts its type fails the step already
    if media == "text/event-stream":
        from .validation import event_findings

        events = event_findings(content[media_key], response, description)
        return [
            *found,
            *(Violation(status, media, "body", "", "events fitting the itemSchema", e) for e in events),
        ]
    schema = content[media_key].get("schema") if isinstance(content[media_key], dict) else None
    if schema is None or not is_json(media):
        return found
    checker = _checker(cache, description, operation, (key, media_key), schema)
    return [
        *found,
        *(
            Violation(status, media, "body", m.pointer, m.wanted, m.got)
            for m in checker.check(response.body, len(response.content))
        ),
    ]


def declared_response(responses: dict[str, Any], status: int) -> tuple[str | None, Any]:
    """The Responses Object key answering `status` (exact, then `4XX`, then `default`) and its value."""
    by_key = {str(k).upper(): (str(k), v) for k, v in responses.items()}
    for key in (str(status), f"{status // 100}XX", "DEFAULT"):
        if key in by_key:
            return by_key[key]
    return None, None


def media_key_for(actual: str, content: dict[str, Any]) -> str | None:
    """The key of `content` the media type `actual` falls under: exact, then `type/*`, then `*/*`."""
    ranked: list[tuple[int, str]] = []
    for key in content:
        declared = base_type(str(key))
        if declared == actual:
            ranked.append((0, key))
        elif declared.endswith("/*") and actual.startswith(declared[:-1]):
            ranked.append((1, key))
        elif declared == "*/*":
            ranked.append((2, key))
    return min(ranked)[1] if ranked else None


def _headers(
    cache: dict,
    description: Any,
    operation: Any,
    key: str,
    declared: dict[str, Any],
    response: Any,
    media: str,
) -> list[Violation]:
    """The documented headers of the response: each `required` one present, each present one fitting its
    schema (read as the `simple` style gives it: a number, a boolean, a comma-separated array)."""
    headers = declared.get("headers")
    if not isinstance(headers, dict):
        return []
    status, out = response.status_code, []
    for name, spec in headers.items():
        if str(name).lower() == "content-type" or not isinstance(spec, dict):
            continue
        value = response.headers.get(str(name))
        if value is None:
            if spec.get("required") is True:
                out.append(Violation(status, media, f"header {name}", "", "the header (required)", "nothing"))
            continue
        schema = spec.get("schema")
        if schema is None:
            continue
        checker = _checker(cache, description, operation, (key, "header", str(name).lower()), schema)
        for m in checker.check(_simple(value, schema)):
            out.append(Violation(status, media, f"header {name}", m.pointer, m.wanted, m.got))
    return out


def _simple(value: str, schema: Any) -> Any:
    """A header's text as the value its schema describes (`simple` style); as text when it is not one."""
    kind = schema.get("type") if isinstance(schema, dict) else None
    kinds = kind if isinstance(kind, list) else [kind]
    text = value.strip()
    if "array" in kinds:
        return [part.strip() for part in text.split(",")] if text else []
    if "boolean" in kinds and text in ("true", "false"):
        return text == "true"
    if "integer" in kinds or "number" in kinds:
        try:
            return int(text)
        except ValueError:
            pass
        if "number" in kinds:
            try:
                number = float(text)
            except ValueError:
                return value
            return number if number == number and abs(number) != float("inf") else value
    return value


def _checker(cache: dict, description: Any, operation: Any, where: Any, schema: Any) -> Any:
    """The compiled schema of one operation at `where` (status key and media type, or header): built on
    first use in the run."""
    slot = ("contract", id(description), getattr(operation, "pointer", None), where)
    found = cache.get(slot)
    if found is None:
        from .contract_schema import BodyChecker

        version = description.version if description is not None else "3.1.0"
        found = cache[slot] = BodyChecker(schema, version, description)
    return found
