"""What the flavour tests share: tool definitions, conversations, a free port."""

from __future__ import annotations

import socket
from typing import Any

WEATHER: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "get_current_weather",
        "description": "Get the current weather in a given location",
        "parameters": {
            "type": "object",
            "properties": {"location": {"type": "string"}},
            "required": ["location"],
        },
    },
}
CALENDAR: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "get_calendar_events",
        "parameters": {"type": "object", "properties": {"date": {"type": "string"}}, "required": ["date"]},
    },
}
EMAIL: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "send_email",
        "parameters": {"type": "object", "properties": {"to": {"type": "string"}}, "required": ["to"]},
    },
}
BOTH = "What's the weather in Sydney, and what's on my calendar today?"
TEXT_ANSWER = 'You asked: "{}". This is the reference server\'s scripted answer.'


def user(text: str) -> list[dict[str, Any]]:
    return [{"role": "user", "content": text}]


def follow_up(call_id: str = "call_1", result: str = '{"temp_c": 19}') -> list[dict[str, Any]]:
    """A conversation that answered one weather tool call."""
    call = {"id": call_id, "type": "function", "function": {"name": "get_current_weather", "arguments": "{}"}}
    return [
        {"role": "user", "content": "Weather in Sydney?"},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": call_id, "content": result},
    ]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]
