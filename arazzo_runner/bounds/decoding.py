"""A response body's Content-Encoding undone piece by piece, so its decoded size is counted as it grows.

httpx's decoders turn each chunk read into all it decodes to at once: an 809-byte brotli body became
512 MiB in one call, before any byte limit could look at it (gzip grows ~1000 times, brotli and stacked
codings far more). Here every coding hands out at most `PIECE` bytes (plus brotli's own rounding, under
2 x PIECE) per step, the rest of its input kept until the reader asks again, so a reader that counts what
it is handed (`--max-response-bytes`, a source's 64 MiB) stops at its limit having decoded at most one
piece more. What a decoder holds besides is its window: 32 KiB for gzip/deflate, at most 16 MiB for
brotli (what its stream header asks), per coding; at most `MAX_CODINGS` codings are undone.

Codings: `gzip` (and `x-gzip`), `deflate` (zlib-wrapped, or raw as some servers send it), `br` with a
brotli module whose decoder takes an output limit (`brotli` >= 1.2, or `brotlicffi` with the same call),
`zstd` with the standard library's `compression.zstd` (Python 3.14); `identity` and unknown names are
left as they are (as httpx does). A coding named but not decodable here within a bound (`br` without such
a module, `zstd` before 3.14) is `Undecodable`: the body is not read, rather than read unbounded or shown
still encoded. `accept_encoding()` is what the engine's clients ask for: only these.

What each coding reads is bounded too: given the reader's limit, a coding that has read more than it
stops the body (`EncodedTooLarge`): an endless run of empty deflate blocks decodes to nothing, and the
inner coding of "gzip, gzip" reads what the outer one decodes to. Bytes after the end of a gzip/deflate
stream are not kept: a next gzip member is read (RFC 1952 allows several), anything else is a broken body
("data after the end of the compressed body"), never input piled up behind an ended stream.

Readers: `decoded(raw, limit)` over an async response with `aiter_raw()` (httpx's, the blocking wrapper's, the
load fast lane's), `iter_decoded(response, limit)` over a sync httpx response (source fetches).
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import sys
import zlib
from collections.abc import Iterator
from typing import Any

PIECE = 64 * 1024  # decoded bytes handed out per step
MAX_CODINGS = 4  # codings undone on one body ("gzip, gzip" is legal; eight of them is an attack)


class Undecodable(Exception):
    """The body's codings cannot be undone within a bound here: it is not read (or reading stops)."""


class EncodedTooLarge(Undecodable):
    """What a coding reads passed the reader's limit: the body as sent (an endless run of empty deflate
    blocks decodes to nothing, so no count of decoded bytes would stop it), or an inner coding's input
    (the outer one's output). Reading stops."""


def codings(content_encoding: str | None) -> list[str]:
    """The codings applied to the body, in the order the server applied them (lower case; identity and
    empty entries dropped)."""
    if not content_encoding:
        return []
    names = (value.strip().lower() for value in content_encoding.split(","))
    return [name for name in names if name and name != "identity"]


def is_encoded(content_encoding: str | None) -> bool:
    """Whether a body with this Content-Encoding is decoded before it is counted and read."""
    return any(name in _KNOWN for name in codings(content_encoding))


class BodyDecoder:
    """Undoes the codings of one body: `decode(chunk)` and at the end `flush()` yield its decoded bytes in
    pieces of about `PIECE`; `encoded` says whether any coding is undone (a limit then counts decoded
    bytes, and says so).

    `limit` (the reader's byte limit) bounds what each coding reads too: past it, `EncodedTooLarge`."""

    def __init__(self, content_encoding: str | None, limit: int | None = None) -> None:
        names = codings(content_encoding)
        known = [name for name in names if name in _KNOWN]
        if len(known) > MAX_CODINGS:
            raise Undecodable(
                f"the response body has {len(known)} content codings (Content-Encoding: {content_encoding}), "
                f"more than {MAX_CODINGS}: it was not read"
            )
        stages = []
        for name in reversed(known):  # the last coding applied is the first undone
            stage = _stage(name)
            if stage is None:
                needed = _NEEDED_FOR_BR if name == "br" else _NEEDED_FOR_ZSTD
                raise Undecodable(
                    f"the response body is encoded with {name} (Content-Encoding: {content_encoding}), "
                    f"which cannot be decoded here within the size limit ({needed}): it was not read"
                )
            stages.append(stage)
        self.stages = stages
        self.encoded = bool(stages)
        self.content_encoding = content_encoding
        self.limit = limit
        self.read = [0] * len(stages)  # bytes each coding has read

    def decode(self, chunk: bytes) -> Iterator[bytes]:
        return self._through(0, chunk, False)

    def flush(self) -> Iterator[bytes]:
        return self._through(0, b"", True)

    def _through(self, index: int, data: bytes, last: bool) -> Iterator[bytes]:
        if index == len(self.stages):
            if data:
                yield data
            return
        stage = self.stages[index]
        if self.limit is not None and data:
            self.read[index] += len(data)
            if self.read[index] > self.limit:
                stage_of = "before it is decoded" if index == 0 else "part-decoded"
                raise EncodedTooLarge(
                    f"the response body is larger than the limit of {self.limit} bytes {stage_of} "
                    f"(Content-Encoding: {self.content_encoding}): reading stopped at the limit"
                )
        for piece in stage.feed(data):
            yield from self._through(index + 1, piece, False)
        if last:
            for piece in stage.finish():
                yield from self._through(index + 1, piece, False)
            yield from self._through(index + 1, b"", True)


class decoded:  # used as a function: `async for piece in decoded(raw)`
    """The decoded body of `raw` (an async response: `headers`, `aiter_raw()`), in pieces; `Undecodable`
    at once (nothing read), httpx.DecodingError for a body its coding does not fit, `EncodedTooLarge`
    once a coding has read more than `limit` bytes (the reader counts the decoded pieces itself).

    A class, not an async generator: a reader that stops early (at its limit) leaves nothing suspended
    for the event loop to finalize later (an async generator is closed by a task of its own, whose
    repr can copy the response it awaited)."""

    __slots__ = ("chunks", "decoder", "done", "pending", "plain", "raw")

    def __init__(self, raw: Any, limit: int | None = None) -> None:
        content = _already_read(raw)
        if content is None:
            coding = _coding(raw.headers)
            self.decoder = _PLAIN if coding is None else BodyDecoder(coding, limit)  # (most answers: none)
            self.raw, self.chunks = raw, raw.aiter_raw()
        else:  # a caller's transport answered with a response read already (its content decoded)
            self.decoder = BodyDecoder(None, limit)
            self.raw, self.chunks = raw, _Once(content)
        self.pending: Iterator[bytes] = iter(())
        self.done = False
        self.plain = not self.decoder.stages  # nothing to undo: the pieces as the decoder passes them on

    def __aiter__(self) -> decoded:
        return self

    async def __anext__(self) -> bytes:
        if self.plain:  # (most answers: without the decoder's generators, ~5 k instructions a piece)
            chunk = await self.chunks.__anext__()
            while not chunk:
                chunk = await self.chunks.__anext__()
            return chunk
        while True:
            try:
                return next(self.pending)
            except StopIteration:
                pass
            except _Broken as exc:
                raise _decoding_error(exc, self.raw) from None
            if self.done:
                raise StopAsyncIteration
            try:
                chunk = await self.chunks.__anext__()
            except StopAsyncIteration:
                self.done, self.pending = True, self.decoder.flush()
                continue
            self.pending = self.decoder.decode(chunk)


_PLAIN = BodyDecoder(None)  # a body without Content-Encoding: nothing to undo, nothing counted (no state)


def arrived(raw: Any) -> bytes | None:
    """The body of `raw` in one piece, when it has no Content-Encoding (nothing to undo: `decoded` would
    pass its raw pieces on) and has all arrived (`arrived_raw`: the lean pool's responses); None: read
    it with `decoded`."""
    take = getattr(raw, "arrived_raw", None)
    if take is None or _coding(raw.headers) is not None:
        return None
    content: bytes | None = take()
    return content


def _coding(headers: Any) -> str | None:
    """`headers.get("content-encoding")`; for httpx's Headers without one (most answers) found from its
    list, without the lookup that works out the headers' encoding and raises KeyError (~15 k
    instructions a response)."""
    httpx = sys.modules.get("httpx")  # imported when `headers` is one of its Headers
    if (
        httpx is not None
        and type(headers) is httpx.Headers
        and not any(item[1] == b"content-encoding" for item in headers._list)  # names in lower case
    ):
        return None
    return headers.get("content-encoding")


class _Once:
    """An async iterator of one piece: the body of a response read before the engine saw it."""

    __slots__ = ("content",)

    def __init__(self, content: bytes) -> None:
        self.content: bytes | None = content

    def __aiter__(self) -> _Once:
        return self

    async def __anext__(self) -> bytes:
        content, self.content = self.content, None
        if content is None:
            raise StopAsyncIteration
        return content


def _already_read(response: Any) -> bytes | None:
    """The content of an httpx response read before it reached the engine, else None.

    A caller's own client may answer from a transport that builds `httpx.Response(json=...)` (a
    MockTransport in tests, a cache): httpx reads such a response at once, decoded, and its raw stream
    can no longer be read (`StreamConsumed`). Its content is in memory already, and decoded."""
    if not getattr(response, "is_stream_consumed", False):
        return None
    content = getattr(response, "_content", None)
    return content if isinstance(content, bytes) else None


def iter_decoded(response: Any, limit: int | None = None) -> Iterator[bytes]:
    """The same over a sync httpx response (`iter_raw()`)."""
    content = _already_read(response)
    if content is not None:
        yield content
        return
    decoder = BodyDecoder(response.headers.get("content-encoding"), limit)
    if not decoder.encoded:
        yield from response.iter_raw()
        return
    try:
        for chunk in response.iter_raw():
            yield from decoder.decode(chunk)
        yield from decoder.flush()
    except _Broken as exc:
        raise _decoding_error(exc, response) from None


@functools.lru_cache(maxsize=1)
def accept_encoding() -> str:
    """The Accept-Encoding the engine's clients send: the codings it can undo within a bound."""
    names = ["gzip", "deflate"]
    if _brotli() is not None:
        names.append("br")
    if _zstd() is not None:
        names.append("zstd")
    return ", ".join(names)


class _Broken(Exception):
    """The body does not decode (its coding's own message)."""


def _decoding_error(exc: _Broken, raw: Any) -> Exception:
    import httpx

    error = httpx.DecodingError(str(exc))
    with contextlib.suppress(AttributeError, RuntimeError):  # as httpx's errors carry their request
        error.request = raw.request
    return error


class _Zlib:
    """gzip and deflate: zlib's `max_length` keeps the rest of the input in `unconsumed_tail`.

    Input after the end of the stream is never handed to the ended inflater (zlib appends it to
    `unused_data`, copying all of it each time: held uncounted, in quadratic time). A gzip body may hold
    several members (RFC 1952 2.2; `gzip.decompress` reads them all): bytes after a member that start
    another are its next member, read the same way; any other bytes after the end are a broken body."""

    def __init__(self, wbits: int, raw_fallback: bool = False) -> None:
        self.wbits = wbits
        self.inflate = zlib.decompressobj(wbits)
        self.raw_fallback = raw_fallback  # deflate: zlib-wrapped, or raw when the first bytes say so
        self.started = False
        self.held = b""  # the first byte of a next gzip member, its second not come yet

    def feed(self, data: bytes) -> Iterator[bytes]:
        if self.held:
            data, self.held = self.held + data, b""
        while True:
            if self.inflate.eof:
                if not data:
                    return
                if self.wbits != _GZIP_WBITS or not _GZIP_MAGIC.startswith(data[:2]):
                    raise _Broken(_AFTER_THE_END)
                if len(data) < len(_GZIP_MAGIC):
                    self.held = data
                    return
                self.inflate = zlib.decompressobj(self.wbits)  # the next member
            try:
                out = self.inflate.decompress(data, PIECE)
            except zlib.error as exc:
                if self.raw_fallback and not self.started:
                    self.raw_fallback = False
                    self.wbits = -zlib.MAX_WBITS
                    self.inflate = zlib.decompressobj(self.wbits)
                    continue
                raise _Broken(str(exc)) from None
            self.started = self.started or bool(data)
            if out:
                yield out
            if self.inflate.eof:  # what followed the end in this input: at most one chunk's worth
                data = self.inflate.unused_data
                continue
            data = self.inflate.unconsumed_tail
            if not data and len(out) < PIECE:  # input used up and nothing pending in the window
                return

    def finish(self) -> Iterator[bytes]:
        if self.held:
            raise _Broken(_AFTER_THE_END)
        try:
            rest = self.inflate.flush(PIECE)
        except zlib.error as exc:
            raise _Broken(str(exc)) from None
        if rest:
            yield rest


class _Brotli:
    """brotli with an output limit per call: past it, the decoder is asked again with no new input."""

    def __init__(self, module: Any) -> None:
        self.module = module
        self.decompressor = module.Decompressor()
        step = getattr(self.decompressor, "process", None) or self.decompressor.decompress
        self.step = step

    def feed(self, data: bytes) -> Iterator[bytes]:
        if not data:
            return
        try:
            out = self.step(data, output_buffer_limit=PIECE)
            if out:
                yield out
            # more is pending while input is held back, or while the last call filled its buffer
            while len(out) >= PIECE or not self.decompressor.can_accept_more_data():
                out = self.step(b"", output_buffer_limit=PIECE)
                if out:
                    yield out
        except self.module.error as exc:
            raise _Broken(str(exc)) from None

    def finish(self) -> Iterator[bytes]:
        return iter(())


class _Zstd:
    """zstd (Python 3.14's `compression.zstd`), frame after frame, `max_length` per call."""

    def __init__(self, module: Any) -> None:
        self.module = module
        self.decompressor = module.ZstdDecompressor()

    def feed(self, data: bytes) -> Iterator[bytes]:
        try:
            while True:
                if self.decompressor.eof:
                    data = self.decompressor.unused_data + data
                    if not data:
                        return
                    self.decompressor = self.module.ZstdDecompressor()
                out = self.decompressor.decompress(data, PIECE)
                data = b""
                if out:
                    yield out
                if self.decompressor.eof:
                    continue
                if self.decompressor.needs_input:
                    return
        except self.module.ZstdError as exc:
            raise _Broken(str(exc)) from None

    def finish(self) -> Iterator[bytes]:
        return iter(())


_KNOWN = frozenset({"gzip", "x-gzip", "deflate", "br", "zstd"})
_GZIP_WBITS = zlib.MAX_WBITS | 16
_GZIP_MAGIC = b"\x1f\x8b"
_AFTER_THE_END = "data after the end of the compressed body"
_NEEDED_FOR_BR = "brotli 1.2 or later is needed"
_NEEDED_FOR_ZSTD = "Python 3.14's compression.zstd is needed"


def _stage(name: str) -> Any:
    if name in ("gzip", "x-gzip"):
        return _Zlib(_GZIP_WBITS)
    if name == "deflate":
        return _Zlib(zlib.MAX_WBITS, raw_fallback=True)
    if name == "br":
        module = _brotli()
        return None if module is None else _Brotli(module)
    module = _zstd()
    return None if module is None else _Zstd(module)


@functools.lru_cache(maxsize=1)
def _brotli() -> Any:
    """The brotli module whose decoder takes an output limit, or None."""
    for load in (lambda: importlib.import_module("brotli"), lambda: importlib.import_module("brotlicffi")):
        try:
            module = load()
        except ImportError:
            continue
        decompressor = module.Decompressor()
        step = getattr(decompressor, "process", None) or getattr(decompressor, "decompress", None)
        if step is None or not hasattr(decompressor, "can_accept_more_data"):
            continue
        try:
            step(b"", output_buffer_limit=PIECE)
        except TypeError:
            continue
        except Exception:
            pass
        return module
    return None


@functools.lru_cache(maxsize=1)
def _zstd() -> Any:
    try:
        from compression import zstd  # type: ignore[import-not-found]
    except ImportError:
        return None
    return zstd
