"""The chat-completions client as a one-call API (`ChatClient.complete(messages, tools)`), for callers
that hold chat messages rather than a `Conversation` (`generate/propose.py`): a `ModelClient` on the
chat-completions wire (`apis/`), which is where the exchange, its bounds and its failures are.

Names kept here for those callers: `ChatError` (every failure, masked), `Completion`, `ToolCallRequest`,
`Usage`, `usage_of`.
"""

from __future__ import annotations

from typing import Any

from ..masking.secrets import Masker
from .apis.base import Completion, Conversation, ToolCallRequest, Usage, usage_of
from .apis.base import ModelError as ChatError

__all__ = ["ChatClient", "ChatError", "Completion", "ToolCallRequest", "Usage", "usage_of"]


class ChatClient:
    """Sends chat-completion requests to `url` (the base URL, e.g. `https://api.openai.com/v1`)."""

    def __init__(
        self,
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
        from .apis.chat_completions import ChatCompletionsWire
        from .apis.client import ModelClient

        self._model = ModelClient(
            ChatCompletionsWire(), url, api_key, model, client=client, masker=masker, stream=stream,
            timeout=timeout, max_body=max_body, retries=retries, exchange_timeout=exchange_timeout,
        )  # fmt: skip
        self.endpoint, self.model, self.stream = self._model.endpoint, model, stream

    async def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Completion:
        """`messages` are system and user messages (their `content` a string), in order."""
        conversation = Conversation()
        for message in messages:
            if message.get("role") == "system" and not conversation.items and conversation.system is None:
                conversation.system = message["content"]
            else:
                conversation.user(message["content"])
        return await self._model.complete(conversation, tools)

    @property
    def retried(self) -> list[dict[str, Any]]:
        """The retries so far: {"attempt", "cause", "waitedSeconds"} each (`apis/retry.py`)."""
        return self._model.retried
