"""A second, independent OpenAI-compatible chat-completions server for end-to-end tests.

Written from the API notes alone, deliberately unlike `arazzo_runner.reference`, so the engine is not
tested only against its own server's habits:

- raw `socketserver` with hand-written HTTP/1.1: one request per connection (`Connection: close`), the
  event stream delimited by closing the connection (no chunked encoding), CRLF line endings in the
  stream, a leading `: ok` comment;
- a streamed answer is ONE chunk carrying role, the whole content (or every tool call with its complete
  arguments), the `finish_reason` and the `usage`, then `data: [DONE]` (no separate usage chunk);
- ids `resp_<n>` and `fc_<n>_<i>` from a counter; JSON fields are exactly the notes' ones.

Rules (simpler than the reference server's): the last message is a tool message -> `The tool returned:
<content>`; tool_choice `none` or no function tools -> `Echo: <last user message>`; otherwise the
function tools whose name words (split on `_`, 3+ letters, not get/list/send/set/create) occur in the
message are called, `required` falls back to the first tool, `allowed_tools` narrows the catalog first;
server-side tools alone -> a text answer naming them. Arguments: each required property gets the
message's last capitalized word (or the message), `2026-09-16` for names containing `date`, 0 for numbers.
A user message containing `trigger-stream-error` streams only the error event and `[DONE]`. Faults
for the client's retries and stream checks, when the last message contains: `trigger-rate-limit` - the
first request with that body is answered 429 with `Retry-After: 1`, the same body again is answered;
`trigger-malformed-chunk` - the streamed chunk is sent as two events, the first cut off mid-JSON (a
data line that is not JSON). `statuses` lists the status of every request answered, in order.
Validation: bearer token (401); JSON object with non-empty `messages` of known roles; an assistant
message needs content or tool calls; a tool message's `tool_call_id` must match an earlier tool call;
tool_choice must be a known mode or an allowed_tools object naming offered functions (400).
"""

from __future__ import annotations

import itertools
import json
import re
import socketserver
import threading
import time
from typing import Any

__all__ = ["OpenAICompatServer"]

_STOP = frozenset({"get", "list", "send", "set", "create"})
_REASONS = {200: "OK", 400: "Bad Request", 401: "Unauthorized", 404: "Not Found", 429: "Too Many Requests"}


def _fail(status: int, **data: list[str]) -> tuple[int, dict[str, Any]]:
    message = "The request cannot be fulfilled" if status == 400 else "Unauthorized"
    return status, {"status": status, "message": message, "data": data}


def _problems(body: Any) -> dict[str, list[str]]:
    if not isinstance(body, dict) or not isinstance(body.get("messages"), list) or not body["messages"]:
        return {"messages": ["is required"]}
    seen_calls: set[str] = set()
    for n, msg in enumerate(body["messages"]):
        role = msg.get("role") if isinstance(msg, dict) else None
        if role not in ("system", "user", "assistant", "tool"):
            return {f"messages.{n}.role": ["is invalid"]}
        if role == "assistant":
            if msg.get("content") is None and not msg.get("tool_calls"):
                return {f"messages.{n}": ["needs content or tool_calls"]}
            seen_calls.update(c.get("id") for c in msg.get("tool_calls") or [] if isinstance(c, dict))
        if role == "tool" and msg.get("tool_call_id") not in seen_calls:
            return {f"messages.{n}.tool_call_id": ["does not match a tool call"]}
    choice = body.get("tool_choice", "auto")
    names = [t["function"]["name"] for t in body.get("tools") or [] if t.get("type") == "function"]
    if isinstance(choice, dict):
        wanted = [t.get("name") for t in choice.get("tools") or []]
        if choice.get("type") != "allowed_tools" or not wanted or not set(wanted) <= set(names):
            return {"tool_choice": ["is invalid"]}
    elif choice not in ("auto", "none", "required"):
        return {"tool_choice": ["is invalid"]}
    return {}


def _text_of(msg: dict[str, Any]) -> str:
    content = msg.get("content")
    if isinstance(content, list):
        return " ".join(p.get("text", "") for p in content if isinstance(p, dict))
    return content or ""


def _plan(body: dict[str, Any]) -> tuple[str | None, list[tuple[str, dict[str, Any]]]]:
    """(text, []) or (None, [(function name, arguments), ...])."""
    msgs = body["messages"]
    if msgs[-1]["role"] == "tool":
        return "The tool returned: " + _text_of(msgs[-1]), []
    said = next((_text_of(m) for m in reversed(msgs) if m["role"] == "user"), "")
    tools, mode = body.get("tools") or [], body.get("tool_choice", "auto")
    if isinstance(mode, dict):
        keep = {t["name"] for t in mode["tools"]}
        tools = [t for t in tools if t.get("type") == "function" and t["function"]["name"] in keep]
        mode = mode["mode"]
    funcs = [t["function"] for t in tools if t.get("type") == "function"]
    if mode == "none" or not tools:
        return "Echo: " + said, []
    lowered = set(re.findall(r"[a-z]+", said.lower()))
    hits = [f for f in funcs if _words_of(f["name"]) & lowered]
    if not hits and mode == "required" and funcs:
        hits = funcs[:1]
    if not hits:
        extras = [t["type"] for t in tools if t.get("type") != "function"]
        return ("Used " + ", ".join(extras) + ": " + said) if extras else "Echo: " + said, []
    return None, [(f["name"], _args(f.get("parameters") or {}, said)) for f in hits]


def _words_of(name: str) -> set[str]:
    return {w for w in name.lower().split("_") if len(w) > 2} - _STOP


def _args(schema: dict[str, Any], said: str) -> dict[str, Any]:
    caps = re.findall(r"\b[A-Z][a-z]+\b", said)
    out: dict[str, Any] = {}
    for name in schema.get("required") or []:
        kind = (schema.get("properties") or {}).get(name, {}).get("type", "string")
        if kind in ("integer", "number"):
            out[name] = 0
        elif "date" in name:
            out[name] = "2026-09-16"
        else:
            out[name] = caps[-1] if caps else said
    return out


class _Conn(socketserver.StreamRequestHandler):
    disable_nagle_algorithm = True
    server: _TCP

    def handle(self) -> None:
        request_line = self.rfile.readline(8192).decode("latin-1").split()
        headers: dict[str, str] = {}
        while (line := self.rfile.readline(8192).decode("latin-1").strip()) != "":
            key, _, value = line.partition(":")
            headers[key.strip().lower()] = value.strip()
        raw = self.rfile.read(int(headers.get("content-length", "0") or 0))
        if (
            len(request_line) < 2
            or request_line[0] != "POST"
            or not request_line[1].endswith("/chat/completions")
        ):
            self._json(404, {"status": 404, "message": "Not Found", "data": {}})
            return
        token = headers.get("authorization", "")
        if not token.startswith("Bearer ") or not token[7:].strip():
            self._json(*_fail(401, authorization=["is missing"]))
            return
        try:
            body = json.loads(raw)
        except ValueError:
            self._json(*_fail(400, body=["is not JSON"]))
            return
        problems = _problems(body)
        if problems:
            self._json(*_fail(400, **problems))
            return
        if "trigger-rate-limit" in json.dumps(body["messages"][-1]) and raw not in self.server.limited:
            self.server.limited.add(raw)
            limited = {
                "error": {"message": "Rate limit reached", "type": "requests", "code": "rate_limit_exceeded"}
            }
            self._json(429, limited, {"Retry-After": "1"})
            return
        self._answer(body)

    def _answer(self, body: dict[str, Any]) -> None:
        n = next(self.server.counter)
        text, calls = _plan(body)
        said_words = sum(len(_text_of(m).split()) for m in body["messages"])
        out_words = len((text or "").split()) + sum(1 + len(json.dumps(a).split()) for _, a in calls)
        tool_calls = [
            {"id": f"fc_{n}_{i}", "type": "function", "function": {"name": name, "arguments": json.dumps(a)}}
            for i, (name, a) in enumerate(calls)
        ]
        head = {"id": f"resp_{n}", "created": int(time.time()), "model": body.get("model") or "compat"}
        usage = {"input_tokens": said_words, "output_tokens": out_words}
        reason = "tool_calls" if calls else "stop"
        if body.get("stream", True) is False:
            message = {"content": text, "refusal": None, "role": "assistant", "tool_calls": tool_calls}
            choice = {"finish_reason": reason, "index": 0, "logprobs": None, "message": message}
            self._json(200, {"choices": [choice], **head, "object": "chat.completion", "usage": usage})
            return
        delta: dict[str, Any] = {"role": "assistant", "content": text}
        if tool_calls:
            delta["tool_calls"] = [{"index": i, **c} for i, c in enumerate(tool_calls)]
        chunk = {
            **head,
            "object": "chat.completion.chunk",
            "usage": usage,
            "choices": [{"index": 0, "delta": delta, "finish_reason": reason}],
        }
        if "trigger-stream-error" in json.dumps(body["messages"][-1]):
            chunk = {"error": {"message": "the compat server failed on purpose"}}
        events = [b"data: " + json.dumps(chunk).encode() + b"\r\n\r\n"]
        if "trigger-malformed-chunk" in json.dumps(body["messages"][-1]):
            text = json.dumps(chunk).encode()
            events = [b"data: " + text[: len(text) // 2] + b"\r\n\r\n", b"data: " + text + b"\r\n\r\n"]
        self.server.statuses.append(200)
        self._head(200, "text/event-stream")
        for event in (b": ok\r\n\r\n", *events, b"data: [DONE]\r\n\r\n"):
            self.wfile.write(event)
            self.wfile.flush()

    def _head(
        self, status: int, content_type: str, length: int | None = None, extra: dict[str, str] | None = None
    ) -> None:
        lines = [
            f"HTTP/1.1 {status} {_REASONS.get(status, 'Error')}",
            f"Content-Type: {content_type}",
            "Connection: close",
            *(f"{name}: {value}" for name, value in (extra or {}).items()),
        ]
        if length is not None:
            lines.append(f"Content-Length: {length}")
        self.wfile.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))

    def _json(self, status: int, payload: dict[str, Any], extra: dict[str, str] | None = None) -> None:
        self.server.statuses.append(status)
        data = json.dumps(payload).encode()
        self._head(status, "application/json", len(data), extra)
        self.wfile.write(data)


class _TCP(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True
    counter: itertools.count[int]
    limited: set[bytes]  # request bodies already answered 429 (`trigger-rate-limit`)
    statuses: list[int]  # of every request answered, in order

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that went away while it was answered (an agent that stopped reading a malformed
        stream, on a busy machine before the server's last write) is expected: no traceback on the
        stderr a test reads (socketserver prints one there)."""
        import sys

        if not isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            super().handle_error(request, client_address)


class OpenAICompatServer:
    """Start with `.start()` (or `with`), stop with `.stop()`; `.url` ends in `/v1`."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        self._tcp = _TCP((host, port), _Conn)
        self._tcp.counter = itertools.count(1)
        self._tcp.limited, self._tcp.statuses = set(), []
        self._thread: threading.Thread | None = None

    @property
    def statuses(self) -> list[int]:
        return self._tcp.statuses

    @property
    def url(self) -> str:
        host, port = self._tcp.server_address[:2]
        return f"http://{host}:{port}/v1"

    def start(self) -> OpenAICompatServer:
        if self._thread is None:
            self._thread = threading.Thread(target=self._tcp.serve_forever, daemon=True)
            self._thread.start()
        return self

    def stop(self) -> None:
        if self._thread is not None:
            self._tcp.shutdown()
            self._thread.join()
            self._thread = None
        self._tcp.server_close()

    def __enter__(self) -> OpenAICompatServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
