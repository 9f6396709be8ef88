"""Plain `tools/call` requests over stdio answered beside the SDK's session, not through it.

The SDK's session spends more CPU on a call than the call's own work outside the run: the line
validated into pydantic models, a task and a middleware chain for each request, the result validated
again for the connection's protocol version and serialized by pydantic (~1 ms a call here, measured
by `bench/mcp_calls.py`). The stdio transport (`stdio.py`) hands each line it reads to `FastCalls`
first; a call this module knows how to answer exactly as the SDK would is answered here, with the same
`ToolCalls` (`calls.py`); every other message goes to the SDK's session, as before:

- never the connection's first request: the SDK serves it, and the era it opens (as the SDK's
  `serve_dual_era_loop` decides: the stateless protocol when it carries the envelope's version and is
  not `initialize`, else the handshake's) decides what is taken after it;
- a request `{"jsonrpc": "2.0", "id": <int or string>, "method": "tools/call", "params": {...}}` with no
  other member, its id (as the SDK reads ids: "7" is 7) not in flight here, `params` holding `name` (a
  tool of the catalog), `arguments` (an object, or none) and `_meta`, nothing else;
- in the stateless protocol (2026-07-28, the official client's default): `_meta` is the per-request
  envelope and nothing more, one the SDK's own checks accept (its envelope ladder, then the request
  validated for the envelope's version: once for each envelope); the answer is stamped as the SDK
  stamps it (`resultType`, `serverInfo`);
- in the handshake's era, after an `initialize` the SDK answered with 2025-06-18 or 2025-11-25 and the
  client's `notifications/initialized`: no `_meta`, or an empty one; the answer is the result as it is;
- anything else (a progress token, a task, another protocol version, a name that is no tool, arguments
  that are not an object, a line with a surrogate escape, which the SDK's parser may refuse) goes to the
  SDK, which answers, refuses or reports progress by its own rules. With an SDK that lacks the
  functions used for those checks, every message goes to it.

The answers are the SDK's in substance and form (tests/e2e/test_mcp_fast.py compares them, call for
call, in both protocol eras). Like the SDK's: `notifications/cancelled` for a call in flight here stops
its run and nothing is answered for it (the notification goes on to the SDK too, for its own calls);
at the end of stdin, the calls in flight are stopped and answered with the SDK's "Connection closed"
error (not one the client cancelled); a fault of ours is answered as the SDK answers a handler that
raised (masked here). Calls wait for their turn under the same `max_in_flight` as the SDK's; at most
`MAX_PENDING` are kept here at once (running, waiting, or their answer waiting for stdout): past that,
stdin is not read until one ends. A client that reuses an id while it is in flight, one call at the
SDK and the other here, cancels both with one notification (the SDK alone would stop the newer).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import math
from collections.abc import Awaitable, Callable
from typing import Any

from ... import DISTRIBUTION, __version__
from ...loader.json_load import SURROGATE_ESCAPE
from .calls import unpaired

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
MAX_ENVELOPES = 64  # distinct envelopes whose check is kept (a client sends one)
CONNECTION_CLOSED = -32000  # the SDK's code for a request the closing connection leaves unanswered
INTERNAL_ERROR = -32603
_NO_ID = object()
logger = logging.getLogger(__name__)


class FastCalls:
    """The calls answered beside the SDK's session (module doc); `write` sends one line on stdout."""

    def __init__(self, calls: Any, write: Callable[[bytes], Awaitable[None]]) -> None:
        self.calls, self.write = calls, write
        self.sdk = _sdk_rules()  # None: this SDK is not the one mirrored here; every call goes to it
        self.tasks: dict[int | str, asyncio.Task[None]] = {}  # by the SDK's reading of the id
        self.ids: dict[int | str, int | str] = {}  # the same keys: the id as the client sent it
        self.cancelled: set[int | str] = set()  # in `tasks`, cancelled by the client: never answered
        self.writing: set[int | str] = set()  # in `tasks`, their answer on its way to stdout
        self.era: str | None = None  # the connection's, set by its first request: MODERN, "legacy", "?"
        self.initialized = False
        self.initialize_id: Any = _NO_ID
        self.version: str | None = None  # the handshake's, as the SDK answered it
        self.envelopes: dict[str, bool] = {}  # an envelope (as JSON) -> whether the SDK accepts it
        self._room: asyncio.Event | None = None

    def take(self, message: Any) -> bool:
        """Whether `message` (a line, parsed) is answered here; the SDK's session gets the others."""
        if not isinstance(message, dict) or self.sdk is None:
            return False
        method = message.get("method")
        if self.era is None and "id" in message and method is not None:
            self.era = _era_opened_by(message)  # the first request: the SDK's, and it sets the era
        elif method == "tools/call":
            return self._call(message)
        if method == "notifications/cancelled":
            self._cancel(message.get("params"))
        elif method == "notifications/initialized":
            self.initialized = True
        elif method == "initialize" and self.era == "legacy" and self.initialize_id is _NO_ID:
            self.initialize_id = message.get("id", _NO_ID)
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

    async def room(self, lines: Any = None) -> None:
        """Returns once fewer than MAX_PENDING calls are kept here. Meanwhile the lines stdin has
        already given (`lines`: stdio's `_Lines`, which reads up to MAX_QUEUED of them ahead) are
        looked through as they arrive for cancellations: one naming a call kept here stops it now,
        so a client cancelling one of the calls that fill the room makes room at once instead of
        waiting behind all of them. The line is still read in its turn (the SDK gets it then; here
        the call is gone by then, so nothing more is done)."""
        seen = 0
        while self.full():
            self._room = asyncio.Event()
            if lines is None:
                await self._room.wait()
                continue
            for line in itertools.islice(lines.lines, seen, None):
                seen += 1
                if isinstance(line, bytes) and b"notifications/cancelled" in line:
                    message = parse(line.decode("utf-8", "replace"))
                    if isinstance(message, dict) and message.get("method") == "notifications/cancelled":
                        self._cancel(message.get("params"))
            room = asyncio.ensure_future(self._room.wait())
            await asyncio.wait({room, lines.arrival()}, return_when=asyncio.FIRST_COMPLETED)
            room.cancel()

    def _call(self, message: dict[str, Any]) -> bool:
        request_id, params = message.get("id"), message.get("params")
        if type(request_id) not in (int, str) or message.get("jsonrpc") != "2.0":
            return False
        key = self.sdk.coerce(request_id)  # type: ignore[union-attr]
        if key in self.tasks or not (message.keys() <= _REQUEST and isinstance(params, dict)):
            return False
        if not params.keys() <= _PARAMS:
            return False
        tool, arguments = self.calls.tool(params.get("name")), params.get("arguments")
        arguments = {} if arguments is None else arguments
        if tool is None or not isinstance(arguments, dict):
            return False
        version = self._version(tool.name, params.get("_meta"))
        if version is None:
            return False
        self.ids[key] = request_id
        self.tasks[key] = asyncio.ensure_future(self._serve(request_id, key, tool, arguments, version))
        return True

    def _version(self, name: str, meta: Any) -> str | None:
        """The protocol version the call is answered in, or None: not one answered here."""
        if self.era == "legacy":  # no `_meta` (or an empty one), after the handshake
            if meta in (None, {}) and self.initialized and self.version in HANDSHAKE:
                return self.version
            return None
        if self.era != MODERN or not isinstance(meta, dict) or not meta.keys() <= _ENVELOPE:
            return None
        try:
            key = json.dumps(meta, sort_keys=True)
        except (TypeError, ValueError):
            return None
        accepted = self.envelopes.get(key)
        if accepted is None:  # the SDK's own checks of the envelope, once for each envelope
            accepted = self.sdk.accepts(name, meta)  # type: ignore[union-attr]
            if len(self.envelopes) < MAX_ENVELOPES:
                self.envelopes[key] = accepted
        return MODERN if accepted else None

    async def _serve(
        self, request_id: int | str, key: int | str, tool: Any, arguments: dict[str, Any], version: str
    ) -> None:
        try:
            try:
                result = await self.calls.result(tool, arguments)
                if version == MODERN:  # what the SDK adds to a result of the stateless protocol
                    stamp = {f"{_PREFIX}serverInfo": {"name": DISTRIBUTION, "version": __version__}}
                    result = {**result, "resultType": "complete", "_meta": stamp}
                line = encode({"jsonrpc": "2.0", "id": request_id, "result": result})
            except Exception as exc:  # a fault of ours (the run never raises for the caller's): said
                message = self.calls.masker.text(f"{type(exc).__name__}: {exc}")
                logger.error("tools/call %r of tool '%s' failed: %s", request_id, tool.name, message)
                if version == MODERN:  # the SDK's answers to a handler that raised, masked here
                    line = error_line(request_id, INTERNAL_ERROR, "Internal server error")
                else:
                    line = error_line(request_id, 0, message)
            self.writing.add(key)  # counted among the calls kept until stdout has taken it
            await self.write(line)
        finally:
            self.tasks.pop(key, None)
            self.ids.pop(key, None)
            self.cancelled.discard(key)
            self.writing.discard(key)
            if self._room is not None and not self.full():
                self._room.set()

    def _cancel(self, params: Any) -> None:
        request_id = params.get("requestId") if isinstance(params, dict) else None
        key = self.sdk.coerce(request_id) if type(request_id) in (int, str) else None  # type: ignore[union-attr]
        task = self.tasks.get(key) if key is not None else None
        if task is not None and key not in self.writing:
            self.cancelled.add(key)
            task.cancel()  # its run stops where it is; nothing is answered for it

    async def close(self) -> None:
        """stdin ended: the calls in flight stopped, each answered "Connection closed" (as the SDK's);
        one the client cancelled stays unanswered, one whose answer is on its way is left to finish."""
        left = {key: task for key, task in self.tasks.items() if key not in self.writing}
        unanswered = [self.ids[key] for key in left if key not in self.cancelled]
        for task in left.values():
            task.cancel()
        await asyncio.gather(*left.values(), return_exceptions=True)
        for request_id in unanswered:
            await self.write(error_line(request_id, CONNECTION_CLOSED, "Connection closed"))

    def abort(self) -> None:
        """The session is over (stdout gone): the calls in flight stopped, nothing answered."""
        for task in self.tasks.values():
            task.cancel()


class _SdkRules:
    """The SDK's own functions for what fast.py must decide as the SDK does."""

    def __init__(self, coerce: Any, classify: Any, validate: Any) -> None:
        self.coerce, self._classify, self._validate = coerce, classify, validate

    def accepts(self, name: str, meta: dict[str, Any]) -> bool:
        """Whether the SDK serves a `tools/call` of `name` with this envelope (its envelope ladder,
        then the request checked for the envelope's version); arguments, an object, do not matter."""
        params = {"name": name, "arguments": {}, "_meta": meta}
        try:
            route = self._classify({"method": "tools/call", "params": params})
            version = getattr(route, "protocol_version", None)
            if version != MODERN:
                return False
            self._validate("tools/call", version, params)
        except Exception:  # refused (ValidationError, a version it does not know): the SDK answers
            return False
        return True


def _sdk_rules() -> _SdkRules | None:
    try:
        from mcp.shared.dispatcher import coerce_request_id
        from mcp.shared.inbound import classify_inbound_request
        from mcp_types.methods import validate_client_request
    except ImportError:  # another SDK than the one this module mirrors
        return None
    return _SdkRules(coerce_request_id, classify_inbound_request, validate_client_request)


def _era_opened_by(request: dict[str, Any]) -> str:
    """The era the SDK serves a connection in, from its first request (`serve_dual_era_loop`): the
    stateless protocol when it carries the envelope's version (and is not `initialize`), else the
    handshake's; "?" when the request is not one this module reads as the SDK does."""
    params = request.get("params")
    if not request.keys() <= _REQUEST or not isinstance(request.get("method"), str):
        return "?"
    meta = params.get("_meta") if isinstance(params, dict) else None
    if request["method"] != "initialize" and isinstance(meta, dict) and _VERSION in meta:
        return MODERN
    return "legacy"


def error_line(request_id: Any, code: int, message: str) -> bytes:
    return encode({"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}})


def encode(message: dict[str, Any]) -> bytes:
    """One line of JSON, as compact as the SDK's; a value JSON has no form for written as the text
    content writes it (`str`), a non-finite number as null (pydantic's JSON), a lone surrogate as
    U+FFFD (`calls.unpaired`: no UTF-8 has it, and the official client refuses its escape)."""
    try:
        text = json.dumps(message, ensure_ascii=False, separators=(",", ":"), allow_nan=False, default=str)
    except ValueError:  # NaN or an infinity in the outputs
        text = json.dumps(_finite(message), ensure_ascii=False, separators=(",", ":"), default=str)
    try:
        return text.encode("utf-8") + b"\n"
    except UnicodeEncodeError:  # a lone surrogate (from `\ud800` in an argument or a response)
        return unpaired(text).encode("utf-8") + b"\n"


def _finite(value: Any) -> Any:
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    return value


def parse(text: str) -> Any:
    """A line's JSON by the rule for JSON from outside (`bounds/json_text.py`), or None, the line then
    the SDK's to read as it reads any: NaN and the infinities, a line deeper than the rule's 128
    levels, a surrogate escape (the SDK's parser refuses a lone one, so a line with any goes to it
    rather than being read with U+FFFD here)."""
    from ...bounds import json_text

    if SURROGATE_ESCAPE.search(text):
        return None
    try:
        return json_text.loads(text, parse_constant=_no_constant)
    except ValueError:  # not JSON, or too deep (json_text.TooDeep)
        return None


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")
