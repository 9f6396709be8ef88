"""The model APIs an agent talks to, behind one client (`client.ModelClient`).

An API is a `Wire` (`base.py`): how a conversation and the tools become a request body, how an answer
(a JSON body, or an event stream fed event by event to its `StreamFolder`) becomes a `Completion`, how
its errors read. The client does what is common to all of them: the request on the engine's HTTP
machinery (one pooled client per run, bodies within their byte limit), the stream read as it arrives
(each text piece handed to the caller as it comes), faults named and masked.

- `chat_completions`: OpenAI's Chat Completions (`POST {url}/chat/completions`), and the seed contract;
- `responses`: OpenAI's Responses API (`POST {url}/responses`);
- `anthropic`: Anthropic's Messages API (`POST {url}/messages`).

`wire(name)` returns the wire of `API_NAMES`' name.
"""

from __future__ import annotations

from typing import Any

API_NAMES = ("chat", "responses", "anthropic")
DEFAULT_API = "chat"


def wire(name: str, *, max_tokens: int | None = None) -> Any:
    """The `Wire` of an API name (`API_NAMES`). `max_tokens` bounds each answer where the API takes it
    (`max_output_tokens` of the Responses API; the Messages API's required `max_tokens`, which without
    it is `anthropic.DEFAULT_MAX_TOKENS`)."""
    if name == "chat":
        from .chat_completions import ChatCompletionsWire

        return ChatCompletionsWire()
    if name == "responses":
        from .responses import ResponsesWire

        return ResponsesWire(max_tokens)
    if name == "anthropic":
        from .anthropic import AnthropicWire

        return AnthropicWire(max_tokens)
    raise ValueError(f"unknown model API {name!r} (expected one of {', '.join(API_NAMES)})")
