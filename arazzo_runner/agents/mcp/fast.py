"""Plain `tools/call` requests over stdio answered beside the SDK's session, not through it.

The SDK's session spends more CPU on a call than the call's own work outside the run: the line
validated into pydantic models, a task and a middleware chain for each request, the result validated
again for the connection's protocol version and serialized by pydantic (~1 ms a call here, measured
by `bench/mcp_calls.py`). The stdio transport (`stdio.py`) hands each line it reads to `FastCalls`
first; a call this module knows how to answer exactly as the SDK would is answered here, with the same
`ToolCalls` (`calls.py`); every other message goes to the SDK's session, as before:

- a request `{"jsonrpc": "2.0", "id": <int or string>, "method": "tools/call", "params": {...}}` with no
  other member, its id not in flight here, `params` holding `name` (a tool of the catalog), `arguments`
  (an object, or none) and `_meta`, nothing else;
- in the stateless protocol (2026-07-28, the official client's default): `_meta` is the per-request
  envelope and nothing more (`io.modelcontextprotocol/protocolVersion` 2026-07-28, `clientInfo` with a
  name and a version, `clientCapabilities` an object), on a connection that made no `initialize`
  handshake; the answer is stamped as the SDK stamps it (`resultType`, `serverInfo`);
- after an `initialize` handshake that the SDK answered with 2025-06-18 or 2025-11-25 and the client's
  `notifications/initialized`: no `_meta`, or an empty one; the answer is the result as it is;
- anything else (a progress token, a task, another protocol version, a name that is no tool, arguments
  that are not an object, a request before the handshake) goes to the SDK, which answers, refuses or
  reports progress by its own rules.

The answers are the SDK's in substance and form (tests/e2e/test_mcp_fast.py compares them, call for
call, in both protocol eras). Like the SDK's: `notifications/cancelled` for a call in flight here stops
its run and nothing is answered for it (the notification goes on to the SDK too, for its own calls);
at the end of stdin, the calls in flight are stopped and answered with the SDK's "Connection closed"
error. Calls wait for their turn under the same `max_in_flight` as the SDK's; at most `MAX_PENDING` are
kept here at once (running or waiting): past that, stdin is not read until one ends.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
from collections.abc import Awaitable, Callable
from typing import Any

from ... import DISTRIBUTION, __version__

MODERN = "2026-07-28"
HANDSHAKE = frozenset({"2025-06-18", "2025-11-25"})
_PREFIX = "io.modelcontextprotocol/"
_VERSION, _CLIENT, _CAPABILITIES = (
    f"{_PREFIX}{key}" for key in ("protocolVersion", "clientInfo", "clientCapabilities")
)
_ENVELOPE = frozenset({_VERSION, _CLIENT, _CAPABILITIES})
_REQUEST = frozenset({"jsonrpc", "id", "method", "params"})
_PARAMS = frozenset({"name", "arguments", "_meta"})
MAX_PENDING = 256
CONNECTION_CLOSED = -32000  # the SDK's code for a request the closing connection leaves unanswered
INTERNAL_ERROR = -32603
_NO_ID = object()
logger = logging.getLogger(__name__)


class FastCalls:
    """The calls answered beside the SDK's session (module doc); `write` sends one line on stdout."""

    def __init__(self, calls: Any, write: Callable[[bytes], Awaitable[None]]) -> None:
        self.calls, self.write = calls, write
        self.tasks: dict[int | str, asyncio.Task[None]] = {}
        self.cancelled: set[int | str] = set()  # in `tasks`, cancelled by the client: never answered
        self.handshake = self.initialized = False
        self.initialize_id: Any = _NO_ID
        self.version: str | None = None  # the handshake's, as the SDK answered it
        self._room: asyncio.Event | None = None

    def take(self, message: Any) -> bool:
        """Whether `message` (a line, parsed) is answered here; the SDK's session gets the others."""
        if not isinstance(message, dict):
            return False
        method = message.get("method")
        if method == "tools/call":
            return self._call(message)
        if method == "notifications/cancelled":
            self._cancel(message.get("params"))
        elif method == "initialize":
            self.handshake, self.initialize_id = True, message.get("id", _NO_ID)
        elif method == "notifications/initialized":
            self.initialized = True
        return False

    def sent(self, message: Any) -> None:
        """The SDK sends `message` (a JSON-RPC model): its answer to `initialize` sets the version."""
        if self.version is None and self.initialize_id is not _NO_ID:
            result = getattr(message, "result", None)
            if getattr(message, "id", _NO_ID) == self.initialize_id and isinstance(result, dict):
                version = result.get("protocolVersion")
                self.version = version if isinstance(version, str) else None

    def full(self) -> bool:
        return len(self.tasks) >= MAX_PENDING

    async def room(self) -> None:
        """Returns once fewer than MAX_PENDING calls are kept here."""
        while self.full():
            self._room = asyncio.Event()
            await self._room.wait()

    def _call(self, message: dict[str, Any]) -> bool:
        request_id, params = message.get("id"), message.get("params")
        if type(request_id) not in (int, str) or request_id in self.tasks or message.get("jsonrpc") != "2.0":
            return False
        if not (message.keys() <= _REQUEST and isinstance(params, dict) and params.keys() <= _PARAMS):
            return False
        tool, arguments = self.calls.tool(params.get("name")), params.get("arguments")
        arguments = {} if arguments is None else arguments
        version = self._version(params.get("_meta"))
        if tool is None or not isinstance(arguments, dict) or version is None:
            return False
        task = asyncio.ensure_future(self._serve(request_id, tool, arguments, version))
        self.tasks[request_id] = task
        return True

    def _version(self, meta: Any) -> str | None:
        """The protocol version the call is answered in, or None: not one answered here."""
        if not meta:  # absent or empty: the handshake's version
            if meta in (None, {}) and self.initialized and self.version in HANDSHAKE:
                return self.version
            return None
        if self.handshake or not isinstance(meta, dict) or meta.keys() != _ENVELOPE:
            return None
        client = meta[_CLIENT]
        named = isinstance(client, dict) and all(isinstance(client.get(k), str) for k in ("name", "version"))
        if meta[_VERSION] == MODERN and named and isinstance(meta[_CAPABILITIES], dict):
            return MODERN
        return None

    async def _serve(self, request_id: int | str, tool: Any, arguments: dict[str, Any], version: str) -> None:
        try:
            result = await self.calls.result(tool, arguments)
            if version == MODERN:  # what the SDK adds to a result of the stateless protocol
                stamp = {f"{_PREFIX}serverInfo": {"name": DISTRIBUTION, "version": __version__}}
                result = {**result, "resultType": "complete", "_meta": stamp}
            line = encode({"jsonrpc": "2.0", "id": request_id, "result": result})
        except Exception as exc:  # a fault of ours (the run never raises for the caller's): said, answered
            message = self.calls.masker.text(f"{type(exc).__name__}: {exc}")
            logger.error("tools/call %r of tool '%s' failed: %s", request_id, tool.name, message)
            line = error_line(request_id, INTERNAL_ERROR, f"internal error: {message}")
        finally:
            self.tasks.pop(request_id, None)
            self.cancelled.discard(request_id)
            if self._room is not None and not self.full():
                self._room.set()
        await self.write(line)

    def _cancel(self, params: Any) -> None:
        request_id = params.get("requestId") if isinstance(params, dict) else None
        task = self.tasks.get(request_id) if type(request_id) in (int, str) else None
        if task is not None:
            self.cancelled.add(request_id)
            task.cancel()  # its run stops where it is; nothing is answered for it

    async def close(self) -> None:
        """stdin ended: the calls in flight stopped, each answered "Connection closed" (as the SDK's)."""
        left = dict(self.tasks)
        unanswered = [request_id for request_id in left if request_id not in self.cancelled]
        for task in left.values():
            task.cancel()
        await asyncio.gather(*left.values(), return_exceptions=True)
        for request_id in unanswered:  # (one the client cancelled before stdin ended stays unanswered)
            await self.write(error_line(request_id, CONNECTION_CLOSED, "Connection closed"))

    def abort(self) -> None:
        """The session is over (stdout gone): the calls in flight stopped, nothing answered."""
        for task in self.tasks.values():
            task.cancel()


def error_line(request_id: Any, code: int, message: str) -> bytes:
    return encode({"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}})


def encode(message: dict[str, Any]) -> bytes:
    """One line of JSON, as compact as the SDK's; a value JSON has no form for written as the text
    content writes it (`str`), a non-finite number as null (pydantic's JSON), a lone surrogate escaped."""
    try:
        text = json.dumps(message, ensure_ascii=False, separators=(",", ":"), allow_nan=False, default=str)
    except ValueError:  # NaN or an infinity in the outputs
        text = json.dumps(_finite(message), ensure_ascii=False, separators=(",", ":"), default=str)
    try:
        return text.encode("utf-8") + b"\n"
    except UnicodeEncodeError:  # a lone surrogate (from `\ud800` in an argument or a response)
        return json.dumps(json.loads(text), separators=(",", ":")).encode("ascii") + b"\n"


def _finite(value: Any) -> Any:
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    return value


def parse(text: str) -> Any:
    """A line's JSON, or None when it is none by the SDK's reading (NaN and the infinities are not JSON)."""
    try:
        return json.loads(text, parse_constant=_no_constant)
    except (ValueError, RecursionError):  # too deep for json: the SDK's parser refuses it too
        return None


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")
