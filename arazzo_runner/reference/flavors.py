"""The wires the reference server speaks over one scripted model (`model.py`).

- `SeedFlavor` (the default): the contract of `openapi/chatgpt-chat-completions-api-openapi.yml` and
  the API notes: `stream` defaults to true, a usage chunk always ends a stream, usage as
  `input_tokens` / `output_tokens`, errors as `{"status", "message", "data"}`. Unknown request members
  are ignored.
- `OpenAIFlavor`: OpenAI chat completions as the official clients expect it (`openai_request.py` for
  the request, `openai_answer.py` for the answer settings, `wire_openai.py` for the objects sent).
- `ResponsesFlavor`: OpenAI's Responses API at `/v1/responses` (`responses_request.py`,
  `wire_responses.py`); `AnthropicFlavor`: Anthropic's Messages API at `/v1/messages`
  (`anthropic_request.py`, `wire_anthropic.py`). Each flavour answers its own paths only.

A flavour turns each request into an `Outcome` (a status and a JSON body, or the chunks of a stream);
the HTTP layer (`server.py`) only reads bodies, checks the bearer token and writes outcomes.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote

from ..records import Record, replace
from . import wire_anthropic, wire_openai, wire_responses
from .completion import completion_object, stream_chunks
from .model import decide, last_user_text
from .openai_answer import shape_reply
from .openai_request import answer_options, check_request, model_request
from .validation import ERROR_MESSAGE, error_body, validate_request

CHAT_PATHS = ("/v1/chat/completions", "/chat/completions")
MODEL_PATHS = ("/v1/models", "/models")
_SHOWN_PATH = 200  # characters of a request path an error message repeats, at most


class Outcome(Record, frozen=True):
    """One answer: `body` is sent as JSON, or `chunks` as an event stream (then `[DONE]`), or `events`
    (`(name, data)` pairs) as a stream of named events (`event:` and `data:` lines, no `[DONE]`)."""

    status: int
    body: Any = None
    chunks: tuple[Any, ...] | None = None
    events: tuple[tuple[str, Any], ...] | None = None


class Flavor:
    """How one dialect of the chat-completions API looks on the wire."""

    name = ""
    default_stream = True  # what a request without `stream` gets
    paths = CHAT_PATHS  # the POST paths it answers

    def token(self, headers: Any) -> tuple[str, str]:
        """(the credential a request gave, "" when none; the header that carries it): a bearer token."""
        scheme, _, token = (headers.get("Authorization") or "").partition(" ")
        return (token.strip() if scheme.lower() == "bearer" else ""), "Authorization"

    def __init__(self, stream_default: bool | None = None) -> None:
        self.stream_default = self.default_stream if stream_default is None else stream_default

    def complete(self, request: Any, *, date: str, created: int) -> Outcome:
        raise NotImplementedError

    def get(self, path: str, auth_failure: Outcome | None, created: int) -> Outcome:
        raise NotImplementedError

    def invalid_json(self, detail: str) -> Outcome:
        raise NotImplementedError

    def unauthorized(self, token_given: bool) -> Outcome:
        raise NotImplementedError

    def not_found(self, method: str, path: str) -> Outcome:
        raise NotImplementedError

    def failure(self, status: int, message: str) -> Outcome:
        """An answer without request-specific details: an unreadable body (400, 413), a bug (500)."""
        raise NotImplementedError


class SeedFlavor(Flavor):
    """The seed contract's wire: today's behaviour, unchanged."""

    name = "seed"

    def complete(self, request: Any, *, date: str, created: int) -> Outcome:
        problems = validate_request(request)
        if problems:
            return Outcome(400, error_body(400, ERROR_MESSAGE, problems))
        reply = decide(request, date=date)
        # Both forms are rendered before anything is sent, so a bug still gets a proper 500 answer.
        chunks = tuple(stream_chunks(reply, created))
        completion = completion_object(reply, created)
        if request.get("stream", self.stream_default) is True:
            return Outcome(200, chunks=chunks)
        if reply.stream_error is not None:
            return Outcome(500, error_body(500, reply.stream_error, {}))
        return Outcome(200, completion)

    def get(self, path: str, auth_failure: Outcome | None, created: int) -> Outcome:
        return Outcome(405, error_body(405, "Method not allowed", {"method": ["use POST"]}))

    def invalid_json(self, detail: str) -> Outcome:
        return Outcome(400, error_body(400, ERROR_MESSAGE, {"body": [f"is not valid JSON: {detail}"]}))

    def unauthorized(self, token_given: bool) -> Outcome:
        data = {"Authorization": ['must be "Bearer <api key>"']}
        return Outcome(401, error_body(401, "Missing or invalid bearer token", data))

    def not_found(self, method: str, path: str) -> Outcome:
        return Outcome(404, error_body(404, "Not found", {"path": [f"no such endpoint: {path}"]}))

    def failure(self, status: int, message: str) -> Outcome:
        return Outcome(status, error_body(status, message, {}))


class OpenAIFlavor(Flavor):
    """OpenAI chat completions: `stream` defaults to false, usage chunk only with `include_usage`,
    `prompt_tokens` / `completion_tokens`, forced-function `tool_choice`, `developer` messages,
    `GET /v1/models`, and OpenAI's error object."""

    name = "openai"
    default_stream = False

    def complete(self, request: Any, *, date: str, created: int) -> Outcome:
        problems = check_request(request)
        if problems:
            return Outcome(400, wire_openai.invalid_request(problems))
        options = answer_options(request)
        if request.get("stream") is None and self.stream_default:
            options = replace(options, stream=True)
        seen = model_request(request)
        user_text = last_user_text(seen["messages"])
        reply = shape_reply(decide(seen, date=date), options, date=date, user_text=user_text)
        chunks = tuple(wire_openai.stream_chunks(reply, created, options))
        completion = wire_openai.completion_object(reply, created, options)
        if options.stream:
            return Outcome(200, chunks=chunks)
        if reply.stream_error is not None:
            return self.failure(500, reply.stream_error)
        return Outcome(200, completion)

    def get(self, path: str, auth_failure: Outcome | None, created: int) -> Outcome:
        path = path.rstrip("/")
        if path in MODEL_PATHS:
            return auth_failure or Outcome(200, wire_openai.model_list(created))
        prefix = next((p for p in MODEL_PATHS if path.startswith(p + "/")), None)
        if prefix is None:
            status = 405 if path in CHAT_PATHS else 404
            return self._invalid_url(status, "GET", path)
        if auth_failure is not None:
            return auth_failure
        model_id = unquote(path[len(prefix) + 1 :])
        if model_id in wire_openai.MODELS:
            return Outcome(200, wire_openai.model_object(model_id, created))
        message = f"The model '{model_id[:_SHOWN_PATH]}' does not exist (the reference server has " + (
            ", ".join(wire_openai.MODELS) + ")"
        )
        return Outcome(404, wire_openai.error_body(message, param="model", code="model_not_found"))

    def invalid_json(self, detail: str) -> Outcome:
        message = f"The request body is not valid JSON: {detail}"
        return Outcome(400, wire_openai.error_body(message, code="invalid_json"))

    def unauthorized(self, token_given: bool) -> Outcome:
        if token_given:
            body = wire_openai.error_body("Incorrect API key provided.", code="invalid_api_key")
        else:
            message = (
                "You didn't provide an API key. Send it in an Authorization header using Bearer auth "
                "(Authorization: Bearer YOUR_KEY)."
            )
            body = wire_openai.error_body(message)
        return Outcome(401, body)

    def not_found(self, method: str, path: str) -> Outcome:
        return self._invalid_url(404, method, path)

    def _invalid_url(self, status: int, method: str, path: str) -> Outcome:
        message = f"Invalid URL ({method} {path[:_SHOWN_PATH]})"
        return Outcome(status, wire_openai.error_body(message, wire_openai.status_kind(status)))

    def failure(self, status: int, message: str) -> Outcome:
        return Outcome(status, wire_openai.error_body(message, wire_openai.status_kind(status)))


class ResponsesFlavor(OpenAIFlavor):
    """OpenAI's Responses API (`POST /v1/responses`, `wire_responses.py`): the same scripted model,
    OpenAI's error object, `GET /v1/models`."""

    name = "responses"
    paths = wire_responses.PATHS

    def complete(self, request: Any, *, date: str, created: int) -> Outcome:
        if isinstance(request, dict) and request.get("stream") is None and self.stream_default:
            request = {**request, "stream": True}
        status, body, events = wire_responses.answer(request, date=date, created=created)
        return Outcome(status, body, events=None if events is None else tuple(events))

    def get(self, path: str, auth_failure: Outcome | None, created: int) -> Outcome:
        if path.rstrip("/") in self.paths:
            return self._invalid_url(405, "GET", path)
        return super().get(path, auth_failure, created)


class AnthropicFlavor(Flavor):
    """Anthropic's Messages API (`POST /v1/messages`, `wire_anthropic.py`): the key in `x-api-key` (or
    `Authorization: Bearer`), Anthropic's error object; `stream` defaults to false."""

    name = "anthropic"
    default_stream = False
    paths = wire_anthropic.PATHS

    def token(self, headers: Any) -> tuple[str, str]:
        """`x-api-key`, or (as the official client of today sends the key) a bearer token."""
        key = (headers.get("x-api-key") or "").strip()
        return (key, "x-api-key") if key else super().token(headers)

    def complete(self, request: Any, *, date: str, created: int) -> Outcome:
        if isinstance(request, dict) and request.get("stream") is None and self.stream_default:
            request = {**request, "stream": True}
        status, body, events = wire_anthropic.answer(request, date=date)
        return Outcome(status, body, events=None if events is None else tuple(events))

    def get(self, path: str, auth_failure: Outcome | None, created: int) -> Outcome:
        status = 405 if path.rstrip("/") in self.paths else 404
        return self.failure(status, f"Not found: GET {path[:_SHOWN_PATH]}")

    def invalid_json(self, detail: str) -> Outcome:
        return self.failure(400, f"The request body is not valid JSON: {detail}")

    def unauthorized(self, token_given: bool) -> Outcome:
        message = "invalid x-api-key" if token_given else "x-api-key header is required"
        return self.failure(401, message)

    def not_found(self, method: str, path: str) -> Outcome:
        return self.failure(404, f"Not found: {method} {path[:_SHOWN_PATH]}")

    def failure(self, status: int, message: str) -> Outcome:
        return Outcome(status, wire_anthropic.error_body(wire_anthropic.error_kind(status), message))


FLAVORS = ("seed", "openai", "responses", "anthropic")


def make_flavor(name: str, stream_default: bool | None = None) -> Flavor:
    """The flavour called `name` (`FLAVORS`); ValueError for another name."""
    if name == "seed":
        return SeedFlavor(stream_default)
    if name == "openai":
        return OpenAIFlavor(stream_default)
    if name == "responses":
        return ResponsesFlavor(stream_default)
    if name == "anthropic":
        return AnthropicFlavor(stream_default)
    raise ValueError(f"unknown flavour {name!r}: expected one of {', '.join(FLAVORS)}")
