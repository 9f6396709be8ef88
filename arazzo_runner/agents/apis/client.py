"""The model client: one exchange with a model API (`Wire`) on the engine's HTTP machinery.

One pooled client per agent run (the caller's), the request's body built by the wire from the
conversation, the answer read as it arrives within its byte limit (`--max-response-bytes`) and, for an
event stream, its event count (`EventLimits`): each event is fed to the wire's `StreamFolder`, each text
piece it adds handed to `on_text` (what a watcher prints as it arrives). A server that answers a
streamed request with JSON is read as JSON.

Every failure is a `ModelError` whose message is masked: the API unreachable, an HTTP error status (with
the error's message and details), a body that is unusable (invalid JSON, a stream that breaks its
protocol or ends before its API says the answer is complete, past its bounds), an answer that is not one.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from ...masking.secrets import MESSAGE_LIMIT, Masker
from .base import Completion, Conversation, ModelError, StreamError, Wire, shown

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
    ) -> None:
        self.wire = wire
        self.endpoint = url.rstrip("/") + wire.path
        self.model = model
        self.stream = stream
        self._api_key = api_key
        self._client, self._masker = client, masker
        self._timeout, self._max_body = timeout, max_body

    async def complete(
        self,
        conversation: Conversation,
        tools: list[dict[str, Any]],
        *,
        on_text: OnText | None = None,
    ) -> Completion:
        """One exchange: the conversation and the tools (in the chat-completions function form) sent,
        the answer read."""
        body = self.wire.body(self.model, conversation, self.wire.tools(tools), self.stream)
        try:
            return await self._exchange(body, on_text)
        except StreamError as exc:
            message = f"{self.wire.label}'s answer is unusable: {exc}"
            raise StreamError(self._masker.clip(message, MESSAGE_LIMIT)) from None
        except ModelError as exc:
            raise type(exc)(self._masker.clip(str(exc), MESSAGE_LIMIT)) from None

    async def _exchange(self, body: dict[str, Any], on_text: OnText | None) -> Completion:
        import httpx

        from ...http.transport import describe_error

        content = json.dumps(body, ensure_ascii=False).encode("utf-8")
        headers = self.wire.headers(self._api_key, self.stream)
        try:
            async with self._client.stream(
                "POST", self.endpoint, headers=headers, content=content, timeout=self._timeout
            ) as raw:
                if raw.status_code >= 400:
                    detail = self.wire.error_detail(_parsed(await self._read(raw)))
                    raise ModelError(f"{self.wire.label} answered {raw.status_code}: {detail}")
                if _is_event_stream(raw.headers.get("content-type")):
                    return await self._read_stream(raw, on_text)
                answer = _parsed(await self._read(raw))
                if isinstance(answer, (str, bytes)):
                    raise ModelError(
                        f"{self.wire.label}'s answer is unusable: it is not JSON: {shown(answer)}"
                    )
                return self.wire.completion(answer)
        except httpx.HTTPError as exc:
            line = f"POST {self._masker.url(self.endpoint)}"
            reason = describe_error(exc, self._timeout, line, own=True)
            raise ModelError(f"{self.wire.label} could not be reached: {reason}") from None

    async def _read(self, raw: Any) -> bytes:
        buffer = bytearray()
        async for chunk in raw.aiter_bytes():
            buffer += chunk
            if len(buffer) > self._max_body:
                raise ModelError(self._oversize())
        return bytes(buffer)

    async def _read_stream(self, raw: Any, on_text: OnText | None) -> Completion:
        from ...http.sse import EventLimits, EventStreamParser

        parser = EventStreamParser()
        folder = self.wire.folder()
        limit = EventLimits.for_body(self._max_body).max_events
        received = count = 0
        async for chunk in raw.aiter_bytes():
            received += len(chunk)
            if received > self._max_body:
                raise ModelError(self._oversize())
            for event in parser.feed(chunk):
                count += 1
                if count > limit:
                    raise StreamError(f"the stream has more than {limit} events")
                for piece in folder.feed(event.event, event.data, count):
                    if on_text is not None:
                        on_text(piece)
        for event in parser.close():
            count += 1
            folder.feed(event.event, event.data, count)
        return folder.finish()

    def _oversize(self) -> str:
        return (
            f"{self.wire.label}'s answer is unusable: it is larger than the limit of {self._max_body} bytes"
        )


def _parsed(content: bytes) -> Any:
    if not content:
        return ""
    try:
        return json.loads(content)
    except ValueError:
        return content.decode("utf-8", "replace")


def _is_event_stream(content_type: str | None) -> bool:
    return bool(content_type) and content_type.split(";", 1)[0].strip().lower() == "text/event-stream"
