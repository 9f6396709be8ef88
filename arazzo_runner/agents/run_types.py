"""What an agent run is given and what it returns (`loop.py` runs it): its settings and their defaults,
what a watcher is told (`Watch`), and the result (`AgentResult`, `AgentToolCall`), kept apart from the
loop so that each stays a size one can read."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..bounds.limits import DEFAULT_MAX_BODY, MAX_TOOL_CALLS, TOOL_CALLS_IN_FLIGHT
from ..records import Record, field
from .apis.base import Usage

DEFAULT_MAX_TURNS = 8
DEFAULT_CHAT_TIMEOUT = 120.0  # the idle limit: the longest the chat API may stay silent
DEFAULT_CHAT_RETRIES = 2  # as OpenAI's own clients
DEFAULT_EXCHANGE_TIMEOUT = 600.0  # one request and its whole answer (OpenAI's clients' overall default)
ANSWERED, FAILED = "answered", "failed"


class AgentToolCall(Record):
    turn: int
    id: str
    outcome: Any  # tools.ToolOutcome

    def to_dict(self) -> dict[str, Any]:
        return {"turn": self.turn, "id": self.id, **self.outcome.to_dict()}


class AgentResult(Record):
    status: str  # answered | failed
    answer: str | None
    error: dict[str, str] | None  # {"kind": chat | max-turns | no-answer | incomplete | timeout, "message"}
    model: str
    endpoint: str
    stream: bool
    api: str = "chat"
    turns: int = 0
    finish_reason: str | None = None  # the last answer's, as the API said it
    partial_answer: str | None = None  # the text of an answer that stopped short (length, content filter)
    tool_calls: list[AgentToolCall] = field(default_factory=list)
    retries: list[dict[str, Any]] = field(default_factory=list)  # each: turn, attempt, cause, waitedSeconds
    usage: Usage | None = None
    messages: list[dict[str, Any]] = field(default_factory=list)  # what the model was sent, in order

    @property
    def ok(self) -> bool:
        return self.status == ANSWERED

    def to_dict(self) -> dict[str, Any]:
        """The pinned JSON document (`docs/agents.md`): every key always present."""
        return {
            "status": self.status,
            "answer": self.answer,
            "error": self.error,
            "model": self.model,
            "endpoint": self.endpoint,
            "stream": self.stream,
            "api": self.api,
            "turns": self.turns,
            "finishReason": self.finish_reason,
            "partialAnswer": self.partial_answer,
            "toolCalls": [call.to_dict() for call in self.tool_calls],
            "retries": self.retries,
            "usage": self.usage.to_dict() if self.usage is not None else None,
            "messages": self.messages,
        }


class Settings(Record):
    chat_url: str | None = None  # None: the bundled reference server, in-process
    model: str | None = None
    api_key: str | None = None
    system: str | None = None
    stream: bool = True
    api: str | None = None  # the model API: chat | responses | anthropic (`apis.API_NAMES`); None: chat,
    # or with `replay` the recording's
    max_tokens: int | None = None  # per answer, where the API takes it (`apis.wire`)
    max_turns: int = DEFAULT_MAX_TURNS
    chat_timeout: float | None = DEFAULT_CHAT_TIMEOUT  # the idle limit (`--chat-idle-timeout`)
    chat_retries: int = DEFAULT_CHAT_RETRIES  # retries of one exchange (`apis/retry.py`); 0: none
    chat_exchange_timeout: float | None = DEFAULT_EXCHANGE_TIMEOUT  # one request and its whole answer
    agent_timeout: float | None = None  # the whole loop; past it the run fails (kind `timeout`)
    max_body: int = DEFAULT_MAX_BODY
    max_tool_calls: int = MAX_TOOL_CALLS  # tool calls of one answer that run; the rest are refused
    max_in_flight: int = TOOL_CALLS_IN_FLIGHT  # tool calls running at once, over the whole loop
    record: str | None = None  # a file the model exchanges are saved to (`apis/recording.py`)
    replay: str | None = None  # a recording answering instead of a model (no chat URL, no key)


class Watch(Record):
    """What a watcher is told as the loop goes (`aagent`'s `on_text`, `on_tool_start`, `on_tool_end`),
    every value masked before it is called: `on_text(turn, text)` the model's text as it arrives (held
    back while it could be the start of a secret, `masking/stream.py`; all of it by the end of the
    answer; not streamed, the whole text in one call), `on_tool_start(turn, call_id, name, arguments)`
    each tool call as it starts, `on_tool_end(call)` each as it ends (an `AgentToolCall`; the calls of
    one answer run at once, so they end in the order they finish)."""

    on_text: Callable[[int, str], None] | None = None
    on_tool_start: Callable[[int, str, str, Any], None] | None = None
    on_tool_end: Callable[[AgentToolCall], None] | None = None
