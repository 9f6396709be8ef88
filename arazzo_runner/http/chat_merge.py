"""Folding chat-completion chunks (and error events) of an event stream into one `chat.completion`
object: the rules are in `sse.py`'s docstring. Each chunk costs time in proportion to itself, never to
what was merged before it (a hostile stream may send hundreds of thousands of chunks)."""

from __future__ import annotations

from typing import Any


def is_chat_chunk(data: Any) -> bool:
    """A chat-completion chunk: `object` says so, or `choices` items carry a `delta`."""
    if not isinstance(data, dict):
        return False
    if data.get("object") == "chat.completion.chunk":
        return True
    choices = data.get("choices")
    return isinstance(choices, list) and any(isinstance(c, dict) and "delta" in c for c in choices)


class ChatCompletionMerger:
    """Folds chat-completion chunks (and error events) into one `chat.completion` object."""

    def __init__(self) -> None:
        self._top: dict[str, Any] = {}
        self._choices: dict[int, _Choice] = {}
        self._usage: Any = None
        self._error: Any = None
        self._done = False
        self.objects = 0  # choices, tool calls and logprobs items merged so far (what the body grows by)

    def add_done(self) -> None:
        """Records the `[DONE]` sentinel."""
        self._done = True

    def add(self, data: Any) -> None:
        """Adds one event's parsed data: a chunk or an `{"error": ...}` object; anything else is ignored."""
        if is_chat_chunk(data) or (isinstance(data, dict) and isinstance(data.get("choices"), list)):
            self._add_chunk(data)
        elif isinstance(data, dict) and "error" in data and self._error is None:
            self._error = data["error"]

    def _add_chunk(self, chunk: dict[str, Any]) -> None:
        for key, value in chunk.items():
            if key not in ("choices", "usage", "object") and self._top.get(key) is None:
                self._top[key] = value
        if chunk.get("usage") is not None:
            self._usage = chunk["usage"]
        for choice in chunk["choices"]:
            if isinstance(choice, dict):
                index = choice.get("index")
                index = index if isinstance(index, int) else 0
                merged = self._choices.get(index)
                if merged is None:
                    merged = self._choices[index] = _Choice(index)
                    self.objects += 1
                self.objects += merged.add(choice)

    def result(self) -> dict[str, Any]:
        merged = {key: self._top.get(key) for key in ("id", "object", "created", "model")}
        merged.update(self._top)
        merged["object"] = "chat.completion"
        merged["choices"] = [self._choices[i].result() for i in sorted(self._choices)]
        merged.update(usage=self._usage, error=self._error, stream_complete=self._done)
        return merged


class _Choice:
    """The merge state of one choice."""

    def __init__(self, index: int) -> None:
        self.index = index
        self.role: str | None = None
        self.content: list[str] = []
        self.refusal: list[str] = []
        self.calls: dict[int, dict[str, Any]] = {}
        self.last_call: int | None = None
        self.next_index = 0  # one past the largest call index seen (not max() over the calls each time)
        self.finish_reason: Any = None
        self.logprobs: list[Any] | None = None

    def add(self, choice: dict[str, Any]) -> int:
        """Merge one chunk's choice; returns how many tool calls and logprobs items it added."""
        calls = len(self.calls)
        items = len(self.logprobs or ())
        delta = choice.get("delta")
        delta = delta if isinstance(delta, dict) else {}
        if self.role is None and isinstance(delta.get("role"), str):
            self.role = delta["role"]
        if isinstance(delta.get("content"), str):
            self.content.append(delta["content"])
        if isinstance(delta.get("refusal"), str):
            self.refusal.append(delta["refusal"])
        for fragment in delta.get("tool_calls") or []:
            if isinstance(fragment, dict):
                self._add_call(fragment)
        if choice.get("finish_reason") is not None:
            self.finish_reason = choice["finish_reason"]
        logprobs = choice.get("logprobs")
        if isinstance(logprobs, dict) and isinstance(logprobs.get("content"), list):
            if self.logprobs is None:
                self.logprobs = []
            self.logprobs.extend(logprobs["content"])  # in place: a copy per chunk would be quadratic
        return len(self.calls) - calls + len(self.logprobs or ()) - items

    def _add_call(self, fragment: dict[str, Any]) -> None:
        index = fragment.get("index")
        if not isinstance(index, int):
            # No index: a new `id` starts a new call, anything else continues the last one.
            new = self.last_call is None or (
                fragment.get("id") and fragment["id"] != self.calls[self.last_call]["id"]
            )
            index = self.next_index if new else self.last_call
        call = self.calls.setdefault(index, {"id": None, "type": None, "name": None, "arguments": []})
        self.last_call = index
        self.next_index = max(self.next_index, index + 1)
        function = fragment.get("function")
        function = function if isinstance(function, dict) else {}
        for key, value in (
            ("id", fragment.get("id")),
            ("type", fragment.get("type")),
            ("name", function.get("name")),
        ):
            if call[key] is None and isinstance(value, str) and value:
                call[key] = value
        if isinstance(function.get("arguments"), str):
            call["arguments"].append(function["arguments"])

    def result(self) -> dict[str, Any]:
        calls = [
            {
                "id": call["id"],
                "type": call["type"] or "function",
                "function": {"name": call["name"], "arguments": "".join(call["arguments"])},
            }
            for _, call in sorted(self.calls.items())
        ]
        message = {
            "role": self.role or "assistant",
            "content": "".join(self.content) or None,
            "refusal": "".join(self.refusal) or None,
            "tool_calls": calls,
        }
        return {
            "index": self.index,
            "message": message,
            "finish_reason": self.finish_reason,
            "logprobs": {"content": self.logprobs} if self.logprobs is not None else None,
        }
