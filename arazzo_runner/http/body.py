"""Request body encoding by media type.

JSON (`application/json`, `+json`): data as compact JSON, a string as written (a template of JSON text),
which must parse as JSON: invalid JSON is never sent under a JSON content type.
Form (`application/x-www-form-urlencoded`): see `form.py`; multipart (`multipart/form-data`): see
`multipart.py`. Text (`text/*`) and XML: the string as written, encoded by the `charset` parameter
(UTF-8 by default). Anything else is binary: `bytes` or a `data:` URL as raw bytes, a string as UTF-8.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Collection
from typing import Any

from ..records import Record


class EncodedBody(Record):
    value: Any  # the payload as resolved, what `$request.body` sees
    content: bytes | None
    content_type: str | None
    shown: Any = None  # the EncodedBody printed instead, when part of the payload derives from a secret


@functools.lru_cache(maxsize=256)  # (a response's type, read by several checks of every response)
def base_type(media_type: str | None) -> str:
    return (media_type or "").split(";", 1)[0].strip().lower()


def is_json(media_type: str | None) -> bool:
    base = base_type(media_type)
    return base == "application/json" or base.endswith("+json") or base == "text/json"


def is_xml(media_type: str | None) -> bool:
    base = base_type(media_type)
    return base in ("application/xml", "text/xml") or base.endswith("+xml")


def is_form(media_type: str | None) -> bool:
    return base_type(media_type) == "application/x-www-form-urlencoded"


def is_multipart(media_type: str | None) -> bool:
    return base_type(media_type).startswith("multipart/")


def choose_content_type(declared: str | None, operation_types: list[str], payload: Any) -> str | None:
    """The step's contentType wins; otherwise the operation's first JSON media type, else its first
    concrete one (`*/*` or `image/*` name no type to send); otherwise one chosen by the payload."""
    if declared:
        return declared
    concrete = [t for t in operation_types if "*" not in t]
    if concrete:
        return next((t for t in concrete if is_json(t)), concrete[0])
    if isinstance(payload, (bytes, bytearray)):
        return "application/octet-stream"
    if isinstance(payload, str):
        from .multipart import parse_data_url  # the encoders of the other media types: on first use

        file = parse_data_url(payload)
        if file is not None:
            return file.media_type or "application/octet-stream"
        return "text/plain"
    return "application/json"


def media_type_object(request_body: dict[str, Any] | None, content_type: str | None) -> dict[str, Any]:
    """The operation's Media Type Object for `content_type` (exact, then `type/*`, then `*/*`)."""
    content = (request_body or {}).get("content")
    if not isinstance(content, dict) or not content_type:
        return {}
    wanted = base_type(content_type)
    by_base = {base_type(k): v for k, v in content.items()}
    for key in (wanted, wanted.split("/", 1)[0] + "/*", "*/*"):
        if isinstance(by_base.get(key), dict):
            return by_base[key]
    return {}


def encode_body(
    payload: Any,
    content_type: str | None,
    media: dict[str, Any] | None = None,
    *,
    stand_ins: Collection[str] = (),
) -> EncodedBody:
    """Encode `payload` for `content_type`; `media` (the Media Type Object) supplies the `encoding`.
    JSON text is checked with each of `stand_ins` (a dry run's `<$steps.a.outputs.b>` placeholders for
    values not known yet) read as `null`."""
    encoding = (media or {}).get("encoding")
    if is_json(content_type):
        content = _json_bytes(payload, stand_ins)
    elif is_form(content_type):
        from .form import encode_form

        content = encode_form(payload, encoding)
    elif is_multipart(content_type):
        from .multipart import encode_multipart

        content, content_type = encode_multipart(payload, content_type or "", encoding)
    elif is_xml(content_type) or base_type(content_type).startswith("text/"):
        content = _text_bytes(payload, content_type)
    else:
        content = _binary_bytes(payload)
    return EncodedBody(payload, content, content_type)


class InvalidJsonPayload(ValueError):
    """A payload given as text under a JSON content type that is not JSON: never sent as it is."""


def _json_bytes(payload: Any, stand_ins: Collection[str] = ()) -> bytes:
    if isinstance(payload, (bytes, str)):  # already JSON text (a template or a literal document)
        content = payload.encode("utf-8") if isinstance(payload, str) else payload
        checked = content
        for stand_in in stand_ins:
            checked = checked.replace(stand_in.encode("utf-8"), b"null")
        check_json_text(checked)
        return content
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def check_json_text(content: bytes) -> None:
    """Raise InvalidJsonPayload, showing where and the text around it, unless `content` parses as JSON
    (nesting no deeper than a document may: values from a server can make the text deeper still)."""
    from ..bounds.json_text import TooDeep, loads
    from ..loader.limits import DEFAULT_LIMITS

    try:
        loads(content, DEFAULT_LIMITS.max_depth)
    except TooDeep as exc:
        raise InvalidJsonPayload(f"the payload {exc}") from None
    except UnicodeDecodeError:
        raise InvalidJsonPayload("the payload is not valid JSON: it is not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        text = exc.doc if isinstance(exc.doc, str) else content.decode("utf-8", "replace")
        near = text[max(0, exc.pos - 30) : exc.pos + 30]
        where = f"line {exc.lineno}, column {exc.colno}"
        raise InvalidJsonPayload(
            f"the payload is not valid JSON ({exc.msg} at {where}, near {near!r})"
        ) from None


def _text_bytes(payload: Any, content_type: str | None) -> bytes:
    if isinstance(payload, bytes):
        return payload
    if is_xml(content_type) and not isinstance(payload, str):
        raise ValueError(f"an {base_type(content_type)} payload must be XML text (a string template)")
    from .serialize import to_text

    charset = charset_of(content_type)
    try:
        return to_text(payload).encode(charset)
    except LookupError:
        raise ValueError(f"unknown charset '{charset}' in the content type") from None
    except UnicodeEncodeError as exc:
        raise ValueError(f"the payload cannot be encoded as {charset}: {exc.reason}") from None


def _binary_bytes(payload: Any) -> bytes:
    if isinstance(payload, (bytes, bytearray)):
        return bytes(payload)
    if isinstance(payload, str):
        from .multipart import parse_data_url

        file = parse_data_url(payload)
        return file.content if file is not None else payload.encode("utf-8")
    return _json_bytes(payload)


def charset_of(content_type: str | None) -> str:
    """The `charset` parameter of a media type; UTF-8 when it names none."""
    for part in (content_type or "").split(";")[1:]:
        key, _, value = part.partition("=")
        if key.strip().lower() == "charset" and value.strip():
            return value.strip().strip('"')
    return "utf-8"
