"""The model client: one exchange with a model API (`Wire`) on the engine's HTTP machinery.

One pooled client per agent run (the caller's), the request's body built by the wire from the
conversation, the answer read as it arrives within its byte limit (`--max-response-bytes`) and, for an
event stream, its event count (`EventLimits`): each event is fed to the wire's `StreamFolder`, each text
piece it adds handed to `on_text` (what a watcher prints as it arrives). A server that answers a
streamed request with JSON is read as JSON.

Every failure is a `ModelError` whose message is masked: the API unreachable, an HTTP error status (with
the error's message and details), a body that is unusable (invalid JSON, a stream that breaks its
protocol or ends before its API says the answer is complete, past its bounds), an answer that is not one.

Time limits: `timeout` is the idle limit (httpx's per-operation timeout: connecting, sending, and each
read - the longest the API may stay silent), `exchange_timeout` the longest one request and its whole
answer may take. A stream silent past the idle limit is a stall ("stopped sending for N s after M
events"), not an API out of reach. Failures worth asking again are retried up to `retries` times
(`retry.py`: which, and the waits); each retry is recorded in `retried` (attempt, cause, wait).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Callable
from typing import Any

from ...masking.secrets import MESSAGE_LIMIT, Masker
from .base import Completion, Conversation, ModelError, StreamError, Wire, shown
from .retry import retry_after, retryable_status

OnText = Callable[[str], None]


class ModelClient:
    """Sends `wire` requests to `url` (the base URL, e.g. `https://api.openai.com/v1`)."""

    def __init__(
        self,
        wire: Wire,
        url: str,
        api_key: str,
        model: str,
        *,
        client: Any,
        masker: Masker,
        stream: bool = True,
        timeout: float | None = None,
        max_body: int,
        retries: int = 0,
        exchange_timeout: float | None = None,
    ) -> None:
        self.wire = wire
        self.endpoint, self._base = wire.endpoint(url), url
        self.model = model
        self.stream = stream
        self._api_key = api_key
        self._client, self._masker = client, masker
        self._timeout, self._max_body = timeout, max_body
        self.retries, self.exchange_timeout = retries, exchange_timeout
        self.retried: list[dict[str, Any]] = []  # {"attempt", "cause", "waitedSeconds"}, over every call

    async def complete(
        self,
        conversation: Conversation,
        tools: list[dict[str, Any]],
        *,
        on_text: OnText | None = None,
    ) -> Completion:
        """One exchange: the conversation and the tools (in the chat-completions function form) sent,
        the answer read."""
        from .retry import MAX_RETRY_AFTER, backoff

        body = self.wire.body(self.model, conversation, self.wire.tools(tools), self.stream)
        attempt = 1
        while True:
            progress = _Progress()
            try:
                return await self._attempt(body, on_text, progress)
            except StreamError as exc:
                message = f"{self.wire.label}'s answer is unusable: {exc}"
                raise StreamError(self._masker.clip(message, MESSAGE_LIMIT), exc.answered) from None
            except ModelError as exc:
                message = self._masker.clip(str(exc), MESSAGE_LIMIT)
                again = isinstance(exc, _Retryable) and not progress.shown and attempt <= self.retries
                asked = exc.retry_after if isinstance(exc, _Retryable) else None
                if again and asked is not None and asked > MAX_RETRY_AFTER:
                    message += (
                        f" (it asks to retry after {asked:g} s; not retried: the longest wait this client "
                        f"accepts is {MAX_RETRY_AFTER:g} s)"
                    )
                    again = False
                if not again:
                    raise ModelError(message) from None
            wait = round(asked, 3) if asked is not None else backoff(attempt)
            self.retried.append({"attempt": attempt, "cause": message, "waitedSeconds": wait})
            await asyncio.sleep(wait)
            attempt += 1

    async def _attempt(self, body: dict[str, Any], on_text: OnText | None, progress: _Progress) -> Completion:
        """One request within the exchange limit."""
        try:
            return await asyncio.wait_for(self._exchange(body, on_text, progress), self.exchange_timeout)
        except asyncio.TimeoutError:
            limit = self.exchange_timeout
            raise _Retryable(
                f"{self.wire.label}'s answer took longer than {limit:g} s, the limit of one exchange "
                f"({progress.so_far()})"
            ) from None

    async def _exchange(
        self, body: dict[str, Any], on_text: OnText | None, progress: _Progress
    ) -> Completion:
        import httpx

        from ...bounds.decoding import Undecodable
        from ...http.failure_words import describe_error

        content = json.dumps(body, ensure_ascii=False).encode("utf-8")
        headers = self.wire.headers(self._api_key, self.stream)
        try:
            async with self._client.stream(
                "POST", self.endpoint, headers=headers, content=content, timeout=self._timeout
            ) as raw:
                progress.status = raw.status_code
                if raw.status_code >= 400:
                    detail = self.wire.error_detail(_parsed(await self._read(raw, progress), self.wire.label))
                    message = f"{self.wire.label} answered {raw.status_code}: {detail}"
                    named = bool(self.model) and self.model in detail  # "The model `x` does not exist"
                    if raw.status_code == 404 and not named:  # else most often a base URL without `/v1`
                        hint = self.wire.not_found(self._base)
                        message += f" (POST {self._masker.url(self.endpoint)}: {hint})"
                    if not retryable_status(raw.status_code):
                        raise ModelError(message)
                    raise _Retryable(message, retry_after(raw.headers))
                if _is_event_stream(raw.headers.get("content-type")):
                    return await self._read_stream(raw, on_text, progress)
                answer = _parsed(await self._read(raw, progress), self.wire.label)
                if isinstance(answer, (str, bytes)):
                    raise ModelError(
                        f"{self.wire.label}'s answer is unusable: it is not JSON: {shown(answer)}"
                    )
                return self.wire.completion(answer)
        except Undecodable as exc:  # a coding not undone within a bound here: not read
            raise ModelError(f"{self.wire.label}'s answer is unusable: {exc}") from None
        except httpx.HTTPError as exc:
            line = f"POST {self._masker.url(self.endpoint)}"
            if isinstance(exc, httpx.ReadTimeout):
                if progress.status is None:
                    raise _Retryable(
                        f"{self.wire.label} sent no answer for {self._timeout:g} s after the request ({line})"
                    ) from None
                raise _Retryable(
                    f"{self.wire.label} stopped sending for {self._timeout:g} s after {progress.so_far()}"
                ) from None
            reason = describe_error(exc, self._timeout, line, own=True)
            if progress.status is None:
                raise _Retryable(f"{self.wire.label} could not be reached: {reason}") from None
            raise _Retryable(
                f"{self.wire.label}'s answer broke off after {progress.so_far()}: {reason}"
            ) from None

    async def _read(self, raw: Any, progress: _Progress) -> bytes:
        from ...bounds.decoding import decoded

        buffer = bytearray()
        async for chunk in decoded(raw, self._max_body):  # decoded piece by piece, counted as it grows
            buffer += chunk
            progress.received = len(buffer)
            if len(buffer) > self._max_body:
                raise ModelError(self._oversize(raw))
        return bytes(buffer)

    async def _read_stream(self, raw: Any, on_text: OnText | None, progress: _Progress) -> Completion:
        from ...bounds.decoding import decoded
        from ...http.sse import EventLimits, EventStreamParser

        parser = EventStreamParser()
        folder = self.wire.folder()
        limit = EventLimits.for_body(self._max_body).max_events
        progress.events = 0
        async for chunk in decoded(raw, self._max_body):
            progress.received += len(chunk)
            if progress.received > self._max_body:
                raise ModelError(self._oversize(raw))
            for event in parser.feed(chunk):
                progress.events += 1
                if progress.events > limit:
                    raise StreamError(f"the stream has more than {limit} events")
                for piece in _fed(folder, event, progress.events):
                    if on_text is not None:
                        progress.shown = True
                        on_text(piece)
        for event in parser.close():
            progress.events += 1
            _fed(folder, event, progress.events)
        return folder.finish()

    def _oversize(self, raw: Any) -> str:
        from ...bounds.decoding import is_encoded

        coding = raw.headers.get("content-encoding")
        said = f" (decoded; Content-Encoding: {coding})" if is_encoded(coding) else ""
        return (
            f"{self.wire.label}'s answer is unusable: it is larger than the limit of {self._max_body} bytes"
            f"{said}"
        )


class _Retryable(ModelError):
    """A failure worth asking again for (`retry.py`), with the wait the server asked, if any."""

    def __init__(self, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class _Progress:
    """How far one attempt got: the status, the bytes and events read, whether text was handed out."""

    def __init__(self) -> None:
        self.status: int | None = None
        self.received = 0
        self.events: int | None = None  # None: not an event stream
        self.shown = False

    def so_far(self) -> str:
        if self.status is None:
            return "no answer began"
        if self.events is not None:
            return f"{self.events} event{'' if self.events == 1 else 's'}"
        return f"{self.received} bytes of its answer"


def _fed(folder: Any, event: Any, position: int) -> list[str]:
    """`folder.feed`, its StreamError told where in the stream the event is (its line) and, when the
    answer was complete before it, given that answer (`StreamError.answered`)."""
    try:
        return folder.feed(event.event, event.data, position)
    except StreamError as exc:
        where = f" (line {event.line} of the stream)" if event.line else ""
        answered = None
        if folder.complete:
            with contextlib.suppress(ModelError):
                answered = folder.finish()
        raise StreamError(f"{exc}{where}", answered) from None


def _parsed(content: bytes, label: str) -> Any:
    """An answer's JSON, read by the rule for JSON from outside (`bounds/json_text.py`); its text when it
    is not JSON; ModelError when it nests too deep to be read."""
    from ...bounds import json_text

    if not content:
        return ""
    try:
        return json_text.loads(content)
    except json_text.TooDeep as exc:
        raise ModelError(f"{label}'s answer is unusable: it {exc}: it was not read") from None
    except ValueError:
        return content.decode("utf-8", "replace")


def _is_event_stream(content_type: str | None) -> bool:
    return bool(content_type) and (content_type or "").split(";", 1)[0].strip().lower() == "text/event-stream"
