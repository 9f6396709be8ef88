"""`arazzo run --replay-http FILE`: every request of the run answered from a HAR file, nothing sent.

It plugs in as the run client's transport (`transport.new_client(replay=...)`), below everything that
sends: operation steps, OAuth2 token requests, client-certificate clients; cookies, the log line and the
bounded body reader work as with a server. (The journal's hook, `Tracker.send`, sees only operation
steps: a token request there would still go out.)

A request is answered by an entry with the same method, URL (scheme, host, port, path, and the query as
a set of pairs) and body (JSON compared as data, a form as its pairs, else as bytes; the random
boundary of a multipart body left out). Headers are not compared: a fresh token or idempotency key
differs on every run. A recorded `***` (a masked value: `--record-http` never writes a secret) matches
whatever the request holds there, so a masked recording answers a run with real credentials.

Entries answer in file order: a request is given the first matching entry not used yet, and when all
are used, the last of them again (a poll that asks more often than when recorded gets the last
answer). A request no entry matches fails its step (`ReplayMiss`), naming the closest entry (the one
differing in the fewest of method, origin, path, query, body) and the first difference.
"""

from __future__ import annotations

import functools
import re
from collections.abc import AsyncIterator, Iterator
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

from ..masking.secrets import MASK
from .har_file import Recorded, read_har

_BOUNDARY = re.compile(r'boundary="?([^";]+)"?', re.I)
_DROPPED = frozenset({"content-encoding", "content-length", "transfer-encoding"})  # the body is decoded


class ReplayMiss(Exception):
    """A request the HAR file does not hold (or an entry that recorded no answer)."""


class HttpReplay:
    """The entries of one HAR file and which have answered (shared by the runs given this object)."""

    def __init__(self, path: str, entries: list[Recorded]) -> None:
        self.path, self.entries = path, entries
        self._used: set[int] = set()
        self.answered = 0
        # Each entry's URL parts and body read once, and the entries indexed by what a request must equal
        # to match them (`_Side.key`); those a request matches more loosely (a masked value, a form)
        # kept beside, by method and origin. A request is compared with the few that can answer it, not
        # with every entry (a 1,000-request replay compared each with each, parsing both bodies each time).
        self._sides = [_Side(e.method, e.url, e.headers, e.body) for e in entries]
        self._exact: dict[tuple[Any, ...], list[int]] = {}
        self._loose: dict[tuple[Any, ...], list[int]] = {}
        for index, side in enumerate(self._sides):
            key = side.key(recorded=True)
            if key is None:
                self._loose.setdefault((side.method, side.origin), []).append(index)
            else:
                self._exact.setdefault(key, []).append(index)

    @classmethod
    def open(cls, path: str) -> HttpReplay:
        return cls(path, read_har(path))

    def fresh(self) -> HttpReplay:
        """The same entries, none used yet (a run given a path: `RunOptions.http_replay`)."""
        return HttpReplay(self.path, self.entries)

    def answer(self, method: str, url: str, headers: list[tuple[str, str]], body: bytes) -> Recorded:
        asked = _Side(method, url, headers, body)
        exact = self._exact.get(asked.key(recorded=False) or (), [])
        candidates = sorted(exact + self._loose.get((asked.method, asked.origin), []))
        matching = [
            self.entries[i] for i in candidates if not _differences(self._sides[i], asked, first_only=True)
        ]
        if not matching:
            raise ReplayMiss(self._miss(asked))
        entry = next((e for e in matching if e.number not in self._used), matching[-1])
        self._used.add(entry.number)
        self.answered += 1
        if entry.status == 0:
            why = entry.error or "no response"
            raise ReplayMiss(f"recorded without an answer: {why} (entry {entry.number} of {self.path})")
        if entry.unkept:
            raise ReplayMiss(
                f"entry {entry.number} of {self.path} does not hold its answer's body ({entry.unkept} "
                "bytes: a --har report keeps a binary body by its size only); record with --record-http"
            )
        return entry

    def _miss(self, asked: _Side) -> str:
        said = f"{asked.method} {asked.url}"
        if not self.entries:
            return f"the HAR file {self.path} holds no exchange; it does not answer {said}"
        scored = [
            (len(_differences(side, asked)), e.number in self._used, e.number, index)
            for index, (e, side) in enumerate(zip(self.entries, self._sides, strict=True))
        ]
        index = min(scored)[3]
        closest = self.entries[index]
        first = _differences(self._sides[index], asked, first_only=True)[0]
        name = f", {closest.comment}" if closest.comment else ""
        return (
            f"no exchange of {self.path} answers {said}: the closest is entry {closest.number} "
            f"({closest.method} {closest.url}{name}); {first}"
        )


_UNREAD = object()


class _Side:
    """A request as compared: a recorded one (read once, when the file is opened) or this run's; its
    URL's parts and its body (the multipart boundary left out, JSON parsed when asked) kept."""

    __slots__ = ("_data", "body", "media", "method", "origin", "parts", "path", "query", "url")

    def __init__(self, method: str, url: str, headers: list[tuple[str, str]], body: bytes) -> None:
        self.method, self.url = method.upper(), url
        self.parts = urlsplit(url)
        self.origin = _origin(self.parts)
        self.path = unquote(self.parts.path or "/")
        self.query = _query(self.parts.query)
        self.media = _media(headers)
        self.body = _without_boundary(body, self.media)
        self._data: Any = _UNREAD

    def key(self, recorded: bool) -> tuple[Any, ...] | None:
        """What a request must equal to match this recorded entry exactly: method, origin, path, query
        and body, the body empty or JSON as data (`_canonical`). None (compared one by one) for an entry
        holding a mask (`***` matches anything) or a body compared otherwise (a form, text, or JSON
        whose media type does not say so, which the request's media type decides). A request's key:
        the same, its body empty, JSON, or anything else (then it matches no indexed entry)."""
        if recorded and (MASK in self.path or any(MASK in value for _, value in self.query)):
            return None
        body: tuple[Any, ...]
        if not self.body:
            body = ("empty",)
        elif recorded and (MASK.encode() in self.body or not _is_json(self.media)):
            return None
        else:
            try:
                body = ("json", _canonical(self.data()))
            except ValueError:
                if recorded:
                    return None
                body = ("other",)
        return (self.method, self.origin, self.path, tuple(self.query), body)

    def data(self) -> Any:
        """The body as JSON data; ValueError when it is not JSON."""
        if self._data is _UNREAD:
            from ..bounds import json_text

            try:
                self._data = json_text.loads(self.body)
            except ValueError as exc:
                self._data = exc
        if isinstance(self._data, ValueError):
            raise self._data
        return self._data


def _differences(entry: _Side, asked: _Side, first_only: bool = False) -> list[str]:
    """What differs between the entry and the request, in words, in the order compared."""
    found: list[str] = []

    def differs(what: str) -> bool:
        found.append(what)
        return first_only

    if entry.method != asked.method and differs(
        f"method: the recording has {entry.method}, this run {asked.method}"
    ):
        return found
    if entry.origin != asked.origin and differs(
        f"origin: the recording has {_origin_text(entry.parts)}, this run {_origin_text(asked.parts)}"
    ):
        return found
    if not _same_text(entry.path, asked.path) and differs(
        f"path: the recording has {_quoted(unquote(entry.parts.path))}, "
        f"this run {_quoted(unquote(asked.parts.path))}"
    ):
        return found
    query = _pairs_difference(entry.query, asked.query, "query")
    if query is not None and differs(query):
        return found
    body = _body_difference(entry, asked)
    if body is not None:
        differs(body)
    return found


def _origin(parts: Any) -> tuple[str, str, int | None]:
    scheme = parts.scheme.lower()
    try:
        port = parts.port or {"http": 80, "https": 443}.get(scheme)
    except ValueError:
        port = None
    return scheme, (parts.hostname or "").lower(), port


def _origin_text(parts: Any) -> str:
    scheme, host, port = _origin(parts)
    return f"{scheme}://{host}:{port}"


def _query(query: str) -> list[tuple[str, str]]:
    return sorted(parse_qsl(query, keep_blank_values=True))


def _pairs_difference(old: list[tuple[str, str]], new: list[tuple[str, str]], what: str) -> str | None:
    """The first pair (by name) that differs between two sorted lists of pairs; None: the same."""
    for (name, value), (new_name, new_value) in zip(old, new, strict=False):
        if name != new_name:
            break
        if not _same_text(value, new_value):
            return f"{what} {name}: the recording has {_quoted(value)}, this run {_quoted(new_value)}"
    if [n for n, _ in old] != [n for n, _ in new]:
        gone = sorted({n for n, _ in old} - {n for n, _ in new}) or "none"
        added = sorted({n for n, _ in new} - {n for n, _ in old}) or "none"
        return f"{what}: the names differ: only in the recording {gone}, only in this run {added}"
    return None


def _same_text(recorded: str, now: str) -> bool:
    """Equal, each `***` of the recording matching any text of this run's."""
    if MASK not in recorded:
        return recorded == now
    # a glob with `*` only: the ends fixed, each piece between found leftmost (linear, no backtracking)
    first, *middle, last = recorded.split(MASK)
    if len(now) < len(first) + len(last) or not now.startswith(first) or not now.endswith(last):
        return False
    at, end = len(first), len(now) - len(last)
    for piece in middle:
        found = now.find(piece, at, end)
        if found < 0:
            return False
        at = found + len(piece)
    return True


def _quoted(text: str) -> str:
    import json

    shown = json.dumps(text, ensure_ascii=False)
    return shown if len(shown) <= 120 else shown[:120] + '..."'


def _is_json(media: str) -> bool:
    from .body import is_json

    return is_json(media)


def _canonical(data: Any) -> str:
    """JSON data as text equal for data `_data_difference` calls the same: keys sorted, a whole float as
    its integer (1.0 matches 1; true does not), strings as they are."""
    import json

    def whole(value: Any) -> Any:
        if isinstance(value, float) and value.is_integer():
            return int(value)
        if isinstance(value, dict):
            return {k: whole(v) for k, v in value.items()}
        if isinstance(value, list):
            return [whole(v) for v in value]
        return value

    return json.dumps(whole(data), sort_keys=True, ensure_ascii=False, allow_nan=True)


def _media(headers: list[tuple[str, str]]) -> str:
    return next((v for n, v in headers if n.lower() == "content-type"), "")


def _body_difference(entry: _Side, asked: _Side) -> str | None:
    old, new = entry.body, asked.body
    if old == new:
        return None
    old_type, new_type = entry.media, asked.media
    from .body import is_form, is_json

    if (is_json(old_type) or is_json(new_type)) and old and new:
        try:
            return _data_difference(entry.data(), asked.data(), "body")
        except ValueError:
            pass
    try:
        text_old, text_new = old.decode("utf-8"), new.decode("utf-8")
    except UnicodeDecodeError:  # binary: the bytes differ
        text_old, text_new = old.decode("utf-8", "replace"), new.decode("utf-8", "replace")
    else:
        if (is_form(old_type) or is_form(new_type)) and "=" in text_old + text_new:
            return _pairs_difference(_query(text_old), _query(text_new), "body field")
        if _same_text(text_old, text_new):
            return None
    if not old or not new:
        return f"body: the recording has {len(old)} bytes, this run {len(new)}"
    at = next((i for i, (a, b) in enumerate(zip(text_old, text_new, strict=False)) if a != b), None)
    at = min(len(text_old), len(text_new)) if at is None else at
    return (
        f"body, at character {at}: the recording has {_quoted(text_old[at : at + 40])}, "
        f"this run {_quoted(text_new[at : at + 40])}"
    )


def _without_boundary(body: bytes, media: str) -> bytes:
    found = _BOUNDARY.search(media) if media.lower().startswith("multipart/") else None
    return body.replace(found.group(1).encode(), b"BOUNDARY") if found else body


def _data_difference(old: Any, new: Any, path: str) -> str | None:
    """Where JSON data first differs; a recorded string holding `***` matches as `_same_text` says,
    and a recorded `"***"` matches any value (a masked number or object)."""
    if old == MASK:
        return None
    if isinstance(old, str) and isinstance(new, str):
        return (
            None
            if _same_text(old, new)
            else f"{path}: the recording has {_quoted(old)}, this run {_quoted(new)}"
        )
    if isinstance(old, dict) and isinstance(new, dict):
        for key in [*old, *(k for k in new if k not in old)]:
            if key not in new:
                return f"{path}.{key}: the recording has {_shown(old[key])}, this run nothing"
            if key not in old:
                return f"{path}.{key}: the recording has nothing, this run {_shown(new[key])}"
            found = _data_difference(old[key], new[key], f"{path}.{key}")
            if found is not None:
                return found
        return None
    if isinstance(old, list) and isinstance(new, list):
        for index, (a, b) in enumerate(zip(old, new, strict=False)):
            found = _data_difference(a, b, f"{path}[{index}]")
            if found is not None:
                return found
        if len(old) != len(new):
            return f"{path}: the recording has {len(old)} item(s), this run {len(new)}"
        return None
    if old != new or (type(old) is not type(new) and not (_number(old) and _number(new))):
        return f"{path}: the recording has {_shown(old)}, this run {_shown(new)}"
    return None


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _shown(value: Any) -> str:
    import json

    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 120 else text[:120] + "..."


def replay_transport(replay: HttpReplay) -> Any:
    """An httpx transport (sync and async) answering from `replay`; nothing is sent."""
    import httpx

    class CutBody(httpx.SyncByteStream, httpx.AsyncByteStream):
        """The body of an entry recorded cut at `--max-response-bytes`: the part kept, one byte more,
        then an error. A run with the recording's limit reads what the recorded run read (the part, a
        byte over: cut there again); a run reading further is told the file does not hold the rest,
        rather than given the part as the whole body (a passing run, replayed, failed: invalid JSON)."""

        def __init__(self, entry: Recorded, request: httpx.Request) -> None:
            self.entry, self.request = entry, request

        def __iter__(self) -> Iterator[bytes]:
            yield self.entry.content
            yield b"\0"
            raise replay_error()(
                f"entry {self.entry.number} of {replay.path} holds only the first {len(self.entry.content)} "
                "bytes of its answer's body (cut at --max-response-bytes when recorded); record again "
                "with a larger --max-response-bytes",
                request=self.request,
            )

        async def __aiter__(self) -> AsyncIterator[bytes]:
            for part in self:
                yield part

    class ReplayTransport(httpx.BaseTransport, httpx.AsyncBaseTransport):
        def handle_request(self, request: httpx.Request) -> httpx.Response:
            body = request.read()
            try:
                entry = replay.answer(request.method, str(request.url), list(request.headers.items()), body)
            except ReplayMiss as exc:
                raise replay_error()(str(exc), request=request) from None
            kept = [(n, v) for n, v in entry.response_headers if n.lower() not in _DROPPED]
            if entry.cut:
                return httpx.Response(entry.status, headers=kept, stream=CutBody(entry, request))
            return httpx.Response(entry.status, headers=kept, stream=httpx.ByteStream(entry.content))

        async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
            return self.handle_request(request)

    return ReplayTransport()


@functools.lru_cache(maxsize=1)
def replay_error() -> Any:
    """The httpx error a replay raises for a request it does not answer (httpx imported when used);
    `failure_words.describe_error` gives its message as it is (`replayed`)."""
    import httpx

    class ReplayError(httpx.TransportError):
        replayed = True

    return ReplayError
