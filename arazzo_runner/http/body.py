"""Request body encoding by media type."""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote_plus

from .serialize import to_text


@dataclass
class EncodedBody:
    value: Any  # the payload as resolved, what `$request.body` sees
    content: bytes | None
    content_type: str | None


def is_json(media_type: str | None) -> bool:
    if not media_type:
        return False
    base = media_type.split(";", 1)[0].strip().lower()
    return base == "application/json" or base.endswith("+json") or base == "text/json"


def is_xml(media_type: str | None) -> bool:
    if not media_type:
        return False
    base = media_type.split(";", 1)[0].strip().lower()
    return base in ("application/xml", "text/xml") or base.endswith("+xml")


def choose_content_type(declared: str | None, operation_types: list[str], payload: Any) -> str | None:
    """The step's contentType wins; otherwise the operation's first media type; otherwise by payload."""
    if declared:
        return declared
    if operation_types:
        return next((t for t in operation_types if is_json(t)), operation_types[0])
    if isinstance(payload, (dict, list, int, float, bool)) or payload is None:
        return "application/json"
    if isinstance(payload, bytes):
        return "application/octet-stream"
    return "text/plain"


def encode_body(payload: Any, content_type: str | None) -> EncodedBody:
    base = (content_type or "").split(";", 1)[0].strip().lower()
    if is_json(content_type):
        content = _json_bytes(payload)
    elif base == "application/x-www-form-urlencoded":
        content = _form_bytes(payload)
    elif base == "multipart/form-data":
        content, content_type = _multipart(payload, content_type or base)
    elif isinstance(payload, bytes):
        content = payload
    elif isinstance(payload, str):
        content = payload.encode("utf-8")
    else:
        content = _json_bytes(payload)
    return EncodedBody(payload, content, content_type)


def _json_bytes(payload: Any) -> bytes:
    if isinstance(payload, bytes):
        return payload
    if isinstance(payload, str):
        return payload.encode("utf-8")  # already JSON text (a template or a literal document)
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def _form_bytes(payload: Any) -> bytes:
    if isinstance(payload, (str, bytes)):
        return payload if isinstance(payload, bytes) else payload.encode("utf-8")
    if not isinstance(payload, dict):
        raise ValueError("a form-urlencoded payload must be an object or a string")
    pieces = []
    for key, value in payload.items():
        values = value if isinstance(value, list) else [value]
        pieces.extend(f"{quote_plus(str(key))}={quote_plus(to_text(v))}" for v in values)
    return "&".join(pieces).encode("ascii")


def _multipart(payload: Any, content_type: str) -> tuple[bytes, str]:
    if not isinstance(payload, dict):
        raise ValueError("a multipart/form-data payload must be an object")
    boundary = "arazzo-" + uuid.uuid4().hex
    chunks: list[bytes] = []
    for name, value in payload.items():
        for item in value if isinstance(value, list) else [value]:
            chunks.append(_part(boundary, str(name), item))
    chunks.append(f"--{boundary}--\r\n".encode())
    return b"".join(chunks), f"multipart/form-data; boundary={boundary}"


def _part(boundary: str, name: str, value: Any) -> bytes:
    disposition = f'Content-Disposition: form-data; name="{_quote_header(name)}"'
    if isinstance(value, bytes):
        head = f'{disposition}; filename="{_quote_header(name)}"\r\nContent-Type: application/octet-stream'
        data = value
    elif isinstance(value, (dict, list)):
        head = f"{disposition}\r\nContent-Type: application/json"
        data = _json_bytes(value)
    else:
        head = disposition
        data = to_text(value).encode("utf-8")
    return f"--{boundary}\r\n{head}\r\n\r\n".encode() + data + b"\r\n"


def _quote_header(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')
