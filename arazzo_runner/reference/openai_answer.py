"""How the OpenAI flavour's answer settings shape the scripted model's reply (the model itself is shared).

Applied to a text answer, in order:

1. `response_format` `json_object` -> the content becomes `{"answer": <text>}`; `json_schema` -> an
   object for the schema filled as tool-call arguments are (`arguments.py`: each required property,
   strings from the text, place names from the last user message), so
   `client.chat.completions.parse(response_format=Model)` gets a `Model`;
2. `stop` -> the content is cut before the first occurrence of any stop sequence (`finish_reason`
   stays `stop`);
3. `max_tokens` / `max_completion_tokens` -> a content of more words (the model's tokens) is cut to
   that many, with `finish_reason: "length"`.

To tool calls only `parallel_tool_calls: false` applies: the first call is kept. Tool calls are never
cut by `max_tokens` (their arguments stay valid JSON). `usage.completion_tokens` counts what is sent.
A reply that fails (the error trigger) is left as it is.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ..records import replace
from .arguments import schema_value
from .completion import WORD
from .model import Reply, output_tokens
from .openai_request import OpenAIOptions


def shape_reply(reply: Reply, options: OpenAIOptions, *, date: str, user_text: str = "") -> Reply:
    if reply.stream_error is not None:
        return reply
    if reply.tool_calls:
        if options.parallel_tool_calls or len(reply.tool_calls) == 1:
            return reply
        calls = reply.tool_calls[:1]
        return replace(reply, tool_calls=calls, output_tokens=output_tokens(None, calls))
    content = reply.content or ""
    finish = reply.finish_reason
    if options.response_format is not None:
        content = formatted(content, options.response_format, date, user_text)
    content = cut_at_stop(content, options.stop)
    if options.max_tokens is not None:
        words = WORD.findall(content)
        if len(words) > options.max_tokens:
            content, finish = "".join(words[: options.max_tokens]).rstrip(), "length"
    return replace(reply, content=content, finish_reason=finish, output_tokens=output_tokens(content, ()))


def formatted(text: str, response_format: Mapping[str, Any], date: str, user_text: str = "") -> str:
    """The text answer in the JSON form `response_format` asks for (place names from `user_text`)."""
    if response_format["type"] == "json_object":
        return json.dumps({"answer": text})
    schema = response_format["json_schema"].get("schema")
    return json.dumps(schema_value(schema, text, date=date, places=user_text or text))


def cut_at_stop(content: str, stops: tuple[str, ...]) -> str:
    """`content` up to the first occurrence of any (non-empty) stop sequence."""
    positions = [content.find(stop) for stop in stops if stop]
    found = [position for position in positions if position >= 0]
    return content[: min(found)] if found else content
