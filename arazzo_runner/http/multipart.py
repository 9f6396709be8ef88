"""multipart/form-data bodies and file values.

Each property of the payload object is one part; an array is one part per item (same name). A file is
`bytes`, or a `data:` URL string (RFC 2397), which inputs can carry as plain JSON text:

    data:image/png;filename=cat.png;base64,iVBORw0KGgo...

`arazzo run --input-file NAME=PATH` reads a file into exactly such a URL. A file part gets a `filename`
(the URL's `filename` parameter, else the property name) and a Content-Type: the Encoding Object's
`contentType` for that property when it names one concrete type, else the URL's media type, else
application/octet-stream. An object or array item is a JSON part; a primitive is a text part (with the
Encoding Object's `contentType`, when declared).
"""

from __future__ import annotations

import base64
import binascii
import json
import os
import re
from typing import Any
from urllib.parse import quote, unquote_to_bytes

from ..records import Record
from .serialize import to_text

_DATA_URL = re.compile(r"^data:(?P<meta>[^,]*?),(?P<data>.*)$", re.DOTALL | re.IGNORECASE)
_BOUNDARY = re.compile(r'boundary="?([^";]+)"?', re.IGNORECASE)


class FileValue(Record, frozen=True):
    content: bytes
    media_type: str | None = None
    filename: str | None = None


def parse_data_url(text: str) -> FileValue | None:
    """The file a `data:` URL carries, or None when `text` is not one."""
    match = _DATA_URL.match(text) if text[:5].lower() == "data:" else None
    if match is None:
        return None
    meta = match.group("meta").split(";")
    media_type = meta[0].strip() or None
    params = [p.strip() for p in meta[1:]]
    filename = None
    for param in params:
        key, _, value = param.partition("=")
        if key.lower() in ("filename", "name") and value:
            filename = unquote_to_bytes(value).decode("utf-8", "replace")
    raw = match.group("data")
    if any(p.lower() == "base64" for p in params):
        try:
            content = base64.b64decode(raw.strip(), validate=False)
        except (binascii.Error, ValueError) as exc:
            raise ValueError(f"a data: URL has invalid base64 content ({exc})") from None
    else:
        content = unquote_to_bytes(raw)
    return FileValue(content, media_type, filename)


def data_url(content: bytes, media_type: str | None, filename: str | None) -> str:
    """A `data:` URL holding `content` (what `--input-file` passes as the input's value)."""
    meta = media_type or "application/octet-stream"
    if filename:
        meta += ";filename=" + quote(filename, safe="")
    return f"data:{meta};base64," + base64.b64encode(content).decode("ascii")


def as_file(value: Any) -> FileValue | None:
    if isinstance(value, (bytes, bytearray)):
        return FileValue(bytes(value))
    if isinstance(value, str):
        return parse_data_url(value)
    return None


def encode_multipart(
    payload: Any, content_type: str, encoding: dict[str, Any] | None = None
) -> tuple[bytes, str]:
    """The body and the Content-Type (with its boundary) of a multipart/form-data payload object."""
    if not isinstance(payload, dict):
        raise ValueError("a multipart/form-data payload must be an object")
    encoding = encoding if isinstance(encoding, dict) else {}
    given = _BOUNDARY.search(content_type)
    boundary = given.group(1) if given else "arazzo-" + os.urandom(16).hex()
    chunks: list[bytes] = []
    for name, value in payload.items():
        rule = encoding.get(name) if isinstance(encoding.get(name), dict) else {}
        for item in value if isinstance(value, list) else [value]:
            chunks.append(_part(boundary, str(name), item, rule))
    chunks.append(f"--{boundary}--\r\n".encode())
    base = content_type.split(";", 1)[0].strip() or "multipart/form-data"
    return b"".join(chunks), f"{base}; boundary={boundary}"


def _part(boundary: str, name: str, value: Any, rule: dict[str, Any]) -> bytes:
    declared = _concrete(rule.get("contentType"))
    disposition = f'Content-Disposition: form-data; name="{_quote(name)}"'
    file = as_file(value)
    if file is not None:
        filename = file.filename or name
        media = declared or file.media_type or "application/octet-stream"
        head = f'{disposition}; filename="{_quote(filename)}"\r\nContent-Type: {media}'
        data = file.content
    elif isinstance(value, (dict, list)):
        head = f"{disposition}\r\nContent-Type: {declared or 'application/json'}"
        data = json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    else:
        head = f"{disposition}\r\nContent-Type: {declared}" if declared else disposition
        data = to_text(value).encode("utf-8")
    for header, text in _part_headers(rule):
        head += f"\r\n{header}: {text}"
    return f"--{boundary}\r\n{head}\r\n\r\n".encode() + data + b"\r\n"


def _part_headers(rule: dict[str, Any]) -> list[tuple[str, str]]:
    """Encoding Object `headers` with a constant value (`schema.const` or `schema.default`)."""
    headers = rule.get("headers")
    found = []
    for header, spec in headers.items() if isinstance(headers, dict) else ():
        schema = spec.get("schema") if isinstance(spec, dict) else None
        if header.lower() == "content-type" or not isinstance(schema, dict):
            continue  # Content-Type comes from `contentType`, as OpenAPI says
        for key in ("const", "default"):
            if isinstance(schema.get(key), (str, int, float)) and not isinstance(schema.get(key), bool):
                found.append((header, _clean(to_text(schema[key]))))
                break
    return found


def _concrete(content_type: Any) -> str | None:
    """The one concrete media type of an Encoding `contentType` (`image/png, image/jpeg` or `image/*`
    name none: the file's own type is used then)."""
    if not isinstance(content_type, str) or "," in content_type or "*" in content_type:
        return None
    return _clean(content_type.strip()) or None


def _clean(text: str) -> str:
    return re.sub(r"[\r\n]", " ", text)


def _quote(text: str) -> str:
    return _clean(text).replace("\\", "\\\\").replace('"', '\\"')
