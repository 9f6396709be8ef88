"""Contract checks: a response of an OpenAPI-described operation against what the description says of it
(`--contract warn|fail|off`, `RunOptions.contract`; on by default, `warn`).

Checked, in this order, each check only when the ones before it passed:
- the status code is documented: exactly, by a range (`2XX`), or by `default`;
- the documented response headers marked `required` are present, and each documented header present fits
  its schema (`Content-Type` aside: OpenAPI ignores it), or its `content` media type's schema (the value
  read as JSON under a JSON media type);
- a response with a body has a Content-Type, one of the documented media types (`*/*`, `type/*` allowed);
- the body fits the media type's schema (`contract_schema.py`: JSON media types; an XML body is
  well-formed and read into the value its schema describes, `contract_xml.py`; an event stream's
  events against its `itemSchema`, `validation.py`).
An operation that documents no responses, an `x-operation`, a body not read whole and an exchange that
failed below HTTP are not checked. Each violation is one `Violation`: where (status, header, content
type, the JSON pointer in the body), what the description wanted and what came, without a secret of the
run. Compiled schemas are kept for the run (`HttpSession.validators`, which the runs of a batch share:
`executor/steps/session.http_session`), one per operation, status key and media type.
"""

from __future__ import annotations

from typing import Any

from ..bounds.json_stream import StreamedJson
from ..records import Record
from .body import base_type, is_json, is_xml

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
    media = (base_type(response.content_type) or "") if response.content else ""  # a body's type
    slot = ("contract", id(description), getattr(operation, "pointer", None), response.status_code, media)
    plan = cache.get(slot)
    if plan is None:
        plan = _Plan(cache, description, operation, response.status_code, media)
        if len(cache) < MAX_PLANS:  # a server inventing media types cannot grow the run's memory
            cache[slot] = plan
    return plan.run(response, description)


MAX_PLANS = 10_000


class _Plan:
    """What is checked of a response with one status and media type (the description's side, worked
    out once): the violations that follow from those two alone, the headers documented, the compiled
    schema of the body or the event stream's media type."""

    def __init__(self, cache: dict, description: Any, operation: Any, status: int, media: str) -> None:
        self.status, self.media = status, media
        self.fixed: list[Violation] = []
        self.final = False  # the fixed violations are all there is to say (an undocumented status)
        self.headers: dict[str, Any] = {}
        self.checker: Any = None
        self.stream: Any = None
        self.xml: Any = False  # an XML media type's schema: the body read by `contract_xml` (else False)
        self.missing_type: str | None = None  # the documented media types, for a body sent without one
        self.header_checkers: dict[str, Any] = {}
        responses = operation.responses
        key, declared = declared_response(responses, status)
        if key is None:
            listed = ", ".join(str(k) for k in responses)
            self.fixed, self.final = [_status(status, media, listed)], True
            return
        declared = declared if isinstance(declared, dict) else {}
        headers = declared.get("headers")
        headers = headers if isinstance(headers, dict) else {}
        for name, spec in headers.items():  # OpenAPI ignores a documented Content-Type header
            if isinstance(spec, dict) and str(name).lower() != "content-type":
                self.headers[str(name)] = spec
        content = declared.get("content")
        if not isinstance(content, dict) or not content or not media:
            if isinstance(content, dict) and content and not media:
                self.missing_type = ", ".join(str(k) for k in content)
            return
        listed = ", ".join(str(k) for k in content)
        media_key = media_key_for(media, content)
        if media_key is None:
            self.fixed = [Violation(status, media, "content-type", "", f"one of {listed}", media)]
            return
        if media == "text/event-stream":
            self.stream = content[media_key]
            return
        schema = content[media_key].get("schema") if isinstance(content[media_key], dict) else None
        if schema is not None and (is_json(media) or is_xml(media)):
            self.checker = _checker(cache, description, operation, (key, media_key), schema)
        if is_xml(media) and schema is not None:  # (without a schema, nothing is said of the body)
            self.xml = schema

    def header_checker(self, name: str, schema: Any, description: Any) -> Any:
        found = self.header_checkers.get(name)
        if found is None:
            from .contract_schema import BodyChecker

            version = description.version if description is not None else "3.1.0"
            found = self.header_checkers[name] = BodyChecker(schema, version, description)
        return found

    def run(self, response: Any, description: Any) -> list[Violation]:
        if self.final:
            return list(self.fixed)
        found = _headers(self, response, description) if self.headers else []
        if not response.content:
            return found  # no body: nothing more to check
        if self.missing_type is not None:
            return [
                *found,
                Violation(
                    self.status, "", "content-type", "", f"one of {self.missing_type}", "no Content-Type"
                ),
            ]
        found += self.fixed
        if response.error or self.fixed:
            return found  # a body that contradicts its type fails the step already
        if self.stream is not None:
            from .validation import event_findings

            events = event_findings(self.stream, response, description)
            wanted = "events fitting the itemSchema"
            return [*found, *(Violation(self.status, self.media, "body", "", wanted, e) for e in events)]
        if self.xml is False and (self.checker is None or self.checker.accepts_all):
            return found  # (a schema that admits every value: the body is not read)
        body = response.body
        if type(body) is StreamedJson:  # read as a stream for the step's uses: the document is needed
            body = body.tree()
        if self.xml is not False:
            body = _xml_value(self, body, description, found)
            if body is _UNREAD:
                return found
        mismatches = self.checker.check(body)
        if not mismatches:  # (the usual body: no list built over an empty generator)
            return found
        return [
            *found,
            *(Violation(self.status, self.media, "body", m.pointer, m.wanted, m.got) for m in mismatches),
        ]


_UNREAD = object()


def _xml_value(plan: _Plan, text: Any, description: Any, found: list[Violation]) -> Any:
    """The value an XML body stands for under its schema (`contract_xml.py`); `_UNREAD`, with the
    violation added to `found`, when it is not well-formed XML or its root element is misnamed."""
    from .contract_xml import WELL_FORMED, NotXml, parse, root_name_problem, to_value

    data = description.data if description is not None else {}
    try:
        root = parse(text)
        misnamed = root_name_problem(root, plan.xml, data)
        if misnamed is None:
            return to_value(root, plan.xml, data)
        found.append(Violation(plan.status, plan.media, "body", "", *misnamed))
    except NotXml as exc:
        found.append(Violation(plan.status, plan.media, "body", "", WELL_FORMED, str(exc)))
    return _UNREAD


def _status(status: int, media: str, listed: str) -> Violation:
    return Violation(status, media, "status", "", f"a documented status ({listed})", str(status))


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


def _headers(plan: _Plan, response: Any, description: Any) -> list[Violation]:
    """The documented headers of the response: each `required` one present, each present one fitting its
    schema (read as the `simple` style gives it: a number, a boolean, a comma-separated array)."""
    out = []
    for name, spec in plan.headers.items():
        value = response.headers.get(name)
        where = f"header {name}"
        if value is None:
            if spec.get("required") is True:
                out.append(Violation(plan.status, plan.media, where, "", "the header (required)", "nothing"))
            continue
        schema, media = _header_schema(spec)
        if media is not None and is_json(media):
            from ..bounds import json_text

            try:
                read = json_text.loads(value)
            except ValueError:
                got = f"{_quoted(value)}, not JSON"
                out.append(Violation(plan.status, plan.media, where, "", f"a value in {media}", got))
                continue
        else:
            read = value if media is not None else _simple(value, schema)
        checker = schema is not None and plan.header_checker(name, schema, description)
        for m in checker.check(read) if checker else ():
            out.append(Violation(plan.status, plan.media, where, m.pointer, m.wanted, m.got))
    return out


def _header_schema(spec: dict[str, Any]) -> tuple[Any, str | None]:
    """A documented header's schema and, when it is given as `content` (one media type, whose schema
    describes the header's value read as that type: JSON parsed, anything else as text), its media type."""
    content = spec.get("content")
    if spec.get("schema") is None and isinstance(content, dict) and len(content) == 1:
        [(media, holder)] = content.items()
        return (holder.get("schema") if isinstance(holder, dict) else None), base_type(str(media))
    return spec.get("schema"), None


def _quoted(text: str, limit: int = 80) -> str:
    from ..spelling import json_spelling

    shown = json_spelling(text)
    return shown if len(shown) <= limit else shown[: limit - 3] + "..."


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
