"""Model exchanges saved and answered again: `arazzo agent --record FILE` and `--replay FILE`.

`RecordingClient` wraps the model client of a run and keeps, for each exchange, what the request asked
(the conversation as the API was sent it, and the names of the tools offered) and the answer (the
`Completion`, in the neutral form every API reads back into), all masked: no secret of the tool runs,
no API key (a key is sent in a header, never in a body). `write` saves them with the API and the
model they were made with and a `version`.

`ReplayClient` has the same `complete(conversation, tools, on_text)` as `ModelClient` and answers from
a recording instead of a model: no URL, no key. The tools still run their workflows for real. An
exchange is answered only when the recording *holds* it: the same turn, the same tool names offered,
and the same conversation sent (the prompt, the system text, the answers, and every tool result in
full), masked values compared as masked. A tool result's `error.request.url` is compared without its
origin (scheme, host, port): where the API ran is not what the test is about, and test servers pick a
port each run. Anything looser would answer a conversation the recorded model never saw: the point of
a replay is to fail when a workflow's outputs, failures or tools changed. A conversation it does not
hold fails the run (`ReplayError`, error kind `replay`), naming the turn and the first difference.
"""

from __future__ import annotations

import json
import os
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from ...bounds.limits import MAX_BODY_DEPTH
from ...masking.secrets import MESSAGE_LIMIT, Masker
from ...records import Record
from .base import Completion, Conversation, ModelError, ToolCallRequest, Usage, Wire

VERSION = 1
MAX_RECORDING_BYTES = 64 * 1024 * 1024
# A recording holds values read by the rule for JSON from outside (at most `MAX_BODY_DEPTH` levels: a
# tool call's `input`, a conversation's content) a few levels down: exchange, request, message, block.
RECORDING_DEPTH = MAX_BODY_DEPTH + 16


class ReplayError(ModelError):
    """The loop asked what the recording does not hold."""

    kind = "replay"


class Recording(Record):
    path: str
    api: str
    model: str
    prompt: str | None
    system: str | None
    exchanges: list[dict[str, Any]]
    status: str | None = None  # how the recorded run ended: answered | failed


def read_recording(path: str, api: str | None = None) -> Recording:
    """A recording file; UsageError when it is not one, is of another version, names no API spoken
    here, or was made with another API than `api` (None: any)."""
    from ...errors import UsageError
    from ...spelling import json_spelling  # what the file holds, quoted as it writes it

    try:
        with open(path, "rb") as handle:
            raw = handle.read(MAX_RECORDING_BYTES + 1)
    except OSError as exc:
        raise UsageError(f"--replay {path}: cannot read it: {exc.strerror or exc}") from None
    if len(raw) > MAX_RECORDING_BYTES:
        raise UsageError(f"--replay {path}: larger than {MAX_RECORDING_BYTES} bytes")
    from ...bounds import json_text

    try:
        data = json_text.loads(raw, RECORDING_DEPTH)  # the rule for JSON from outside
    except json_text.TooDeep as exc:
        raise UsageError(f"--replay {path}: not read: it {exc}") from None
    except ValueError as exc:
        raise UsageError(f"--replay {path}: not JSON: {exc}") from None
    if not isinstance(data, dict) or not isinstance(data.get("exchanges"), list):
        raise UsageError(f"--replay {path}: not a recording of `arazzo agent --record` (no exchanges)")
    if data.get("version") != VERSION:
        raise UsageError(
            f"--replay {path}: recording version {json_spelling(data.get('version'))}; this version of the "
            f"engine reads version {VERSION}"
        )
    made_with = data.get("api")
    from . import API_NAMES

    if made_with not in API_NAMES:
        raise UsageError(
            f"--replay {path}: recorded with the API {json_spelling(made_with)}, not one this engine speaks "
            f"({', '.join(API_NAMES)})"
        )
    if api is not None and made_with != api:
        raise UsageError(
            f"--replay {path}: recorded with the API {made_with!r}, not {api!r}: leave --api out (a replay "
            f"speaks its recording's API) or give --api {made_with}"
        )
    for index, exchange in enumerate(data["exchanges"]):
        if not (isinstance(exchange, dict) and isinstance(exchange.get("completion"), dict)):
            raise UsageError(f"--replay {path}: exchange {index + 1} has no completion")
        where = _misshapen(exchange)
        if where is not None:
            pointer, wanted = where
            raise UsageError(
                f"--replay {path}: exchange {index + 1}: /exchanges/{index}/{pointer} is not {wanted}"
            )
    for field in ("model", "prompt", "system", "status"):
        if data.get(field) is not None and not isinstance(data[field], str):
            raise UsageError(f"--replay {path}: /{field} is not a string (nor null)")
    return Recording(
        path, made_with, str(data.get("model") or ""), data.get("prompt"), data.get("system"),
        data["exchanges"], data.get("status"),
    )  # fmt: skip


_TEXT = "a string (nor null)"


def _misshapen(exchange: dict[str, Any]) -> tuple[str, str] | None:
    """(the JSON pointer below the exchange, what it should be) of the first field the replay would
    stumble on (`completion_of`, `ReplayClient.complete`), or None: a hand-edited recording is a usage
    error that says where, never a KeyError or TypeError."""
    request = exchange.get("request")
    if request is not None and not isinstance(request, dict):
        return "request", "an object (nor null)"
    tools = (request or {}).get("tools")
    if tools is not None and not isinstance(tools, list):
        return "request/tools", "a list of tool names (nor null)"
    completion = exchange["completion"]
    for field in ("content", "refusal", "finishReason", "stop"):
        if completion.get(field) is not None and not isinstance(completion[field], str):
            return f"completion/{field}", _TEXT
    calls = completion.get("toolCalls")
    if calls is not None and not isinstance(calls, list):
        return "completion/toolCalls", "a list (nor null)"
    for number, call in enumerate(calls or ()):
        if not isinstance(call, dict):
            return f"completion/toolCalls/{number}", "an object"
        for field in ("id", "name", "arguments"):
            if not isinstance(call.get(field), str):
                return f"completion/toolCalls/{number}/{field}", "a string"
    usage = completion.get("usage")
    if usage is not None and not isinstance(usage, dict):
        return "completion/usage", "an object (nor null)"
    if usage:
        for field in ("inputTokens", "outputTokens", "totalTokens"):
            if not isinstance(usage.get(field), int) or isinstance(usage[field], bool):
                return f"completion/usage/{field}", "an integer"
    if completion.get("extra") is not None and not isinstance(completion["extra"], dict):
        return "completion/extra", "an object (nor null)"
    return None


def completion_data(completion: Completion) -> dict[str, Any]:
    return {
        "content": completion.content,
        "refusal": completion.refusal,
        "toolCalls": [{"id": c.id, "name": c.name, "arguments": c.arguments} for c in completion.tool_calls],
        "finishReason": completion.finish_reason,
        "stop": completion.stop,
        "usage": completion.usage.to_dict() if completion.usage is not None else None,
        "extra": completion.extra,
    }


def completion_of(data: dict[str, Any]) -> Completion:
    usage = data.get("usage")
    return Completion(
        data.get("content"),
        data.get("refusal"),
        [
            ToolCallRequest(str(c["id"]), str(c["name"]), str(c["arguments"]))
            for c in data.get("toolCalls") or ()
        ],
        data.get("finishReason"),
        Usage(usage["inputTokens"], usage["outputTokens"], usage["totalTokens"]) if usage else None,
        stop=data.get("stop"),
        extra=dict(data.get("extra") or {}),
    )


def tool_names(tools: list[dict[str, Any]]) -> list[str]:
    """The names of tools in the chat-completions function form."""
    return [str((tool.get("function") or {}).get("name")) for tool in tools]


class RecordingClient:
    """Keeps every exchange of `inner` (a `ModelClient` or a `ReplayClient`), masked."""

    def __init__(self, inner: Any, wire: Wire, masker: Masker) -> None:
        self.inner, self.wire, self.model = inner, wire, inner.model
        self._masker = masker
        self.exchanges: list[dict[str, Any]] = []

    async def complete(
        self, conversation: Conversation, tools: list[dict[str, Any]], *, on_text: Any = None
    ) -> Completion:
        completion = await self.inner.complete(conversation, tools, on_text=on_text)
        request = {"messages": self.wire.rendered(conversation), "tools": tool_names(tools)}
        exchange = {
            "turn": len(self.exchanges) + 1,
            "request": request,
            "completion": completion_data(completion),
        }
        self.exchanges.append(self._masker.data(exchange))
        return completion

    @property
    def retried(self) -> list[dict[str, Any]]:
        """The retries of the client recorded (`ModelClient.retried`; a replay has none)."""
        return getattr(self.inner, "retried", [])

    def write(self, path: str, result: Any, conversation: Conversation) -> None:
        """The recording, as JSON, written whole or not at all. The prompt and the system text are
        the conversation's (every API places the system text elsewhere), masked."""
        from ...errors import UsageError

        prompt = next((item for kind, item in conversation.items if kind == "user"), None)
        shown = self._masker.data({"content": prompt, "system": conversation.system})
        first, system = {"content": shown["content"]}, {"content": shown["system"]}
        document = {
            "version": VERSION,
            "api": self.wire.name,
            "model": result.model,
            "endpoint": result.endpoint,
            "prompt": first.get("content"),
            "system": system.get("content"),
            "status": result.status,
            "exchanges": self.exchanges,
        }
        text = json.dumps(document, ensure_ascii=False, indent=1) + "\n"
        temporary = f"{path}.part"
        try:
            with open(temporary, "w", encoding="utf-8") as handle:
                handle.write(text)
            os.replace(temporary, path)
        except OSError as exc:
            raise UsageError(f"--record {path}: cannot write it: {exc.strerror or exc}") from None


class ReplayClient:
    """Answers each exchange from a recording, when the recording holds it (module docstring)."""

    def __init__(self, recording: Recording, wire: Wire, masker: Masker) -> None:
        self.recording, self.wire, self.model = recording, wire, recording.model
        self._masker = masker
        self._turn = 0

    async def complete(
        self, conversation: Conversation, tools: list[dict[str, Any]], *, on_text: Any = None
    ) -> Completion:
        self._turn += 1
        turn, exchanges = self._turn, self.recording.exchanges
        if turn > len(exchanges):
            raise self._error(
                turn, f"the recording holds {len(exchanges)} exchange(s); the loop asks for one more"
            )
        request = exchanges[turn - 1].get("request") or {}
        offered, recorded = tool_names(tools), [str(n) for n in request.get("tools") or ()]
        if sorted(offered) != sorted(recorded):
            added = sorted(set(offered) - set(recorded)) or "none"
            missing = sorted(set(recorded) - set(offered)) or "none"
            raise self._error(turn, f"the tools offered differ: new {added}, gone {missing}")
        sent = self._masker.data(self.wire.rendered(conversation))
        difference = first_difference(comparable(request.get("messages")), comparable(sent), "messages")
        if difference is not None:
            raise self._error(turn, difference)
        return completion_of(exchanges[turn - 1]["completion"])

    def _error(self, turn: int, what: str) -> ReplayError:
        message = f"replay of {self.recording.path}: turn {turn}: {what}"
        return ReplayError(self._masker.clip(message, MESSAGE_LIMIT))


def comparable(value: Any) -> Any:
    """`value` as a replay compares it: a string holding a JSON object read as that object (a tool
    result), the origin left out of a failed call's `request.url`."""
    if isinstance(value, str) and value.startswith("{"):
        from ...bounds import json_text

        try:
            parsed = json_text.loads(value)  # the rule for JSON from outside, as the recording was read
        except ValueError:
            return value
        return comparable(parsed) if isinstance(parsed, dict) else value
    if isinstance(value, list):
        return [comparable(v) for v in value]
    if isinstance(value, dict):
        items = {k: comparable(v) for k, v in value.items()}
        request = items.get("request")
        if isinstance(request, dict) and isinstance(request.get("url"), str):
            items["request"] = {**request, "url": _without_origin(request["url"])}
        return items
    return value


def _without_origin(url: str) -> str:
    parts = urlsplit(url)
    return urlunsplit(("", "", parts.path, parts.query, parts.fragment)) if parts.scheme else url


def first_difference(recorded: Any, now: Any, path: str) -> str | None:
    """Where `now` first differs from `recorded`, in words; None when they are equal."""
    if type(recorded) is not type(now) and not (_number(recorded) and _number(now)):
        return f"{path}: the recording has {_shown(recorded)}, this run {_shown(now)}"
    if isinstance(recorded, dict):
        for key in [*recorded, *(k for k in now if k not in recorded)]:
            if key not in now:
                return f"{path}.{key}: the recording has {_shown(recorded[key])}, this run nothing"
            if key not in recorded:
                return f"{path}.{key}: the recording has nothing, this run {_shown(now[key])}"
            found = first_difference(recorded[key], now[key], f"{path}.{key}")
            if found is not None:
                return found
        return None
    if isinstance(recorded, list):
        for index, (old, new) in enumerate(zip(recorded, now, strict=False)):
            found = first_difference(old, new, f"{path}[{index}]{_label(new)}")
            if found is not None:
                return found
        if len(recorded) != len(now):
            return f"{path}: the recording has {len(recorded)} item(s), this run {len(now)}"
        return None
    if recorded != now:
        return f"{path}: the recording has {_shown(recorded)}, this run {_shown(now)}"
    return None


def _label(message: Any) -> str:
    """How a message names itself in a difference: its role, and the tool call it answers."""
    if not isinstance(message, dict):
        return ""
    call = message.get("tool_call_id") or message.get("call_id") or message.get("tool_use_id")
    role = message.get("role") or message.get("type")
    words = [str(role)] if role else []
    if call:
        words.append(f"of call {call}")
    return f" ({' '.join(words)})" if words else ""


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 120 else text[:120] + "..."
