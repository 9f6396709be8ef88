"""A HAR 1.2 file read as recorded exchanges, for `arazzo run --replay-http FILE` (`har_replay.py`).

Read by the one rule for JSON from outside (`bounds/json_text.loads`), at most `MAX_HAR_BYTES`. Any HAR
that says what was asked and answered is read: the engine's own (`--record-http`, `--har`), a browser's
export, Playwright's `recordHar`. What each entry gives:

- the request: `method`, `url` (its query, or `queryString` when the URL has none), the body from
  `postData.text` (base64 when `postData.encoding` says so), else its `params` as a form;
- the answer: `status`, `headers`, the body from `content.text` (`content.encoding: base64` decoded),
  or from the file `content._file` names beside the HAR (Playwright's `content: "attach"`);
  an entry with status 0 records an exchange that got no answer (its `_error`, said again on replay).

A file that is not such a HAR is a usage error naming where (`/log/entries/3/request/url`).
"""

from __future__ import annotations

import base64
import binascii
from typing import Any
from urllib.parse import urlencode

from ..records import Record

MAX_HAR_BYTES = 64 * 1024 * 1024  # bodies are embedded: a recorded run, not an archive of a site
FLAG = "--replay-http"


class Recorded(Record):
    """One entry of the file: the request that was sent and what answered it."""

    number: int  # 1-based, in file order
    method: str
    url: str
    headers: list[tuple[str, str]]  # the request's (read for the body's media type)
    body: bytes
    status: int
    response_headers: list[tuple[str, str]]
    content: bytes
    comment: str
    error: str | None  # status 0: why no answer came
    unkept: int = 0  # bytes of an answer whose body the file does not hold (`content.size`, no text)
    cut: bool = False  # the body holds only the part a run kept (`content._cut`: `--record-http`)


def read_har(path: str, flag: str = FLAG) -> list[Recorded]:
    """The entries of the HAR file at `path`; a UsageError saying where when it is not one."""
    from ..bounds import json_text
    from ..errors import UsageError

    try:
        with open(path, "rb") as handle:
            raw = handle.read(MAX_HAR_BYTES + 1)
    except OSError as exc:
        raise UsageError(f"{flag} {path}: cannot read it: {exc.strerror or exc}") from None
    if len(raw) > MAX_HAR_BYTES:
        raise UsageError(f"{flag} {path}: larger than {MAX_HAR_BYTES} bytes")
    try:
        data = json_text.loads(raw)  # the rule for JSON from outside
    except json_text.TooDeep as exc:
        raise UsageError(f"{flag} {path}: not read: it {exc}") from None
    except ValueError as exc:
        raise UsageError(f"{flag} {path}: not JSON: {exc}") from None
    log = data.get("log") if isinstance(data, dict) else None
    entries = log.get("entries") if isinstance(log, dict) else None
    if not isinstance(entries, list):
        raise UsageError(f"{flag} {path}: not a HAR file (no /log/entries list)")
    found = []
    for index, entry in enumerate(entries):
        try:
            found.append(_entry(index, entry, _Attached(path)))
        except _Misshapen as exc:
            where = f"/log/entries/{index}" + (f"/{exc.pointer}" if exc.pointer else "")
            raise UsageError(f"{flag} {path}: {where} is not {exc.wanted}") from None
    return found


class _Misshapen(Exception):
    def __init__(self, pointer: str, wanted: str) -> None:
        super().__init__(pointer)
        self.pointer, self.wanted = pointer, wanted


class _Attached:
    """Bodies Playwright keeps beside the HAR (`content: "attach"`: `_file`, a name in the HAR's folder),
    read within the folder and within `MAX_HAR_BYTES` for all of them together."""

    def __init__(self, har: str) -> None:
        import os

        self.folder = os.path.dirname(os.path.abspath(har))
        self.left = MAX_HAR_BYTES

    def read(self, name: str, pointer: str) -> bytes:
        import os

        path = os.path.realpath(os.path.join(self.folder, name))
        if os.path.dirname(path) != os.path.realpath(self.folder):
            raise _Misshapen(f"{pointer}/_file", "a file name in the HAR file's folder")
        try:
            with open(path, "rb") as handle:
                data = handle.read(self.left + 1)
        except OSError as exc:
            raise _Misshapen(f"{pointer}/_file", f"a file that can be read ({exc.strerror or exc})") from None
        if len(data) > self.left:
            raise _Misshapen(f"{pointer}/_file", f"within {MAX_HAR_BYTES} bytes with the others")
        self.left -= len(data)
        return data


def _entry(index: int, entry: Any, attached: _Attached) -> Recorded:
    if not isinstance(entry, dict):
        raise _Misshapen("", "an object")
    request, response = _object(entry, "request"), _object(entry, "response")
    method, url = _text(request, "request/method"), _text(request, "request/url")
    if "?" not in url and request.get("queryString"):  # the query given only as a list
        pairs = [(n, v) for n, v in _pairs(request, "queryString", "request")]
        url = f"{url}?{urlencode(pairs)}"
    status = response.get("status")
    if type(status) is not int:
        raise _Misshapen("response/status", "an integer")
    content = response.get("content") or {}
    if not isinstance(content, dict):
        raise _Misshapen("response/content", "an object")
    error = entry.get("_error")
    comment = entry.get("comment")
    return Recorded(
        index + 1,
        method.upper(),
        url,
        _pairs(request, "headers", "request"),
        _request_body(request, attached),
        status,
        _pairs(response, "headers", "response"),
        _bytes(content, "response/content", attached),
        comment if isinstance(comment, str) else "",
        error if isinstance(error, str) else None,
        _unkept(content),
        content.get("_cut") is True,
    )


def _unkept(content: dict[str, Any]) -> int:
    """The size of a body the entry does not hold: `--har` keeps a binary body by its size only, a
    browser may leave a body out. Answering it as empty would be a lie; such an entry fails its request."""
    size = content.get("size")
    held = isinstance(content.get("text"), str) or isinstance(content.get("_file"), str)
    return size if type(size) is int and size > 0 and not held else 0


def _object(entry: dict[str, Any], name: str) -> dict[str, Any]:
    value = entry.get(name)
    if not isinstance(value, dict):
        raise _Misshapen(name, "an object")
    return value


def _text(data: dict[str, Any], pointer: str) -> str:
    value = data.get(pointer.rsplit("/", 1)[-1])
    if not isinstance(value, str):
        raise _Misshapen(pointer, "a string")
    return value


def _pairs(data: dict[str, Any], name: str, where: str) -> list[tuple[str, str]]:
    """`[{"name": ..., "value": ...}]` (headers, queryString, params) as pairs."""
    items = data.get(name) or []
    if not isinstance(items, list):
        raise _Misshapen(f"{where}/{name}", "a list")
    pairs = []
    for number, item in enumerate(items):
        if not (isinstance(item, dict) and isinstance(item.get("name"), str)):
            raise _Misshapen(f"{where}/{name}/{number}", "an object with a name")
        value = item.get("value", "")
        pairs.append((item["name"], value if isinstance(value, str) else ""))
    return pairs


def _request_body(request: dict[str, Any], attached: _Attached) -> bytes:
    post = request.get("postData")
    if post is None:
        return b""
    if not isinstance(post, dict):
        raise _Misshapen("request/postData", "an object")
    if isinstance(post.get("text"), str) or isinstance(post.get("_file"), str):
        return _bytes(post, "request/postData", attached)
    if post.get("params"):  # a form given only as its fields
        return urlencode(_pairs(post, "params", "request/postData")).encode()
    return b""


def _bytes(holder: dict[str, Any], pointer: str, attached: _Attached) -> bytes:
    """`text` as bytes: base64-decoded when `encoding` says base64, else in the charset of `mimeType`;
    or the file `_file` names (Playwright's attached bodies)."""
    text = holder.get("text")
    if text is None:
        name = holder.get("_file")
        return attached.read(name, pointer) if isinstance(name, str) else b""
    if not isinstance(text, str):
        raise _Misshapen(f"{pointer}/text", "a string")
    encoding = holder.get("encoding") or holder.get("_encoding")
    if encoding == "base64":
        try:
            return base64.b64decode(text, validate=False)
        except (binascii.Error, ValueError):
            raise _Misshapen(f"{pointer}/text", "base64 (its encoding says base64)") from None
    charset = _charset(holder.get("mimeType"))
    try:
        return text.encode(charset, "surrogatepass")
    except UnicodeEncodeError as exc:
        if charset == "cp1252":  # the five bytes windows-1252 leaves undefined, read as U+0081...
            try:
                return text.encode("latin-1")
            except UnicodeEncodeError:
                pass
        raise _Misshapen(
            f"{pointer}/text", f"text its charset ({charset}) can carry ({exc.reason})"
        ) from None


# Labels a browser decodes as windows-1252 (the WHATWG Encoding Standard), so the text of a browser's
# HAR holds what windows-1252 can carry (U+2019, the euro sign): only it gives them back as their bytes.
_READ_AS_1252 = frozenset({"latin_1", "iso8859-1", "ascii", "cp1252"})


def _charset(mime: Any) -> str:
    """The text encoding `mimeType`'s charset names (a bytes-to-bytes codec such as `hex` is none),
    else UTF-8."""
    import codecs

    if isinstance(mime, str):
        for part in mime.split(";")[1:]:
            name, _, value = part.strip().partition("=")
            if name.lower() == "charset":
                try:
                    codec = codecs.lookup(value.strip().strip('"'))
                except LookupError:
                    break
                if not getattr(codec, "_is_text_encoding", True):
                    break
                return "cp1252" if codec.name in _READ_AS_1252 else codec.name
    return "utf-8"
