"""The agent loop: the documents' workflows offered as function tools to a chat-completions endpoint; each
tool call in an answer resolved by running its workflow (the calls of one answer concurrently, each with
its own inputs and options), its outcome (outputs, or the failure and its cause) sent back as a `tool`
message with the call's `tool_call_id`; until the model answers in text, or `max_turns` answers passed
without one. A turn is one chat completion.

A tool call the loop cannot run (no tool of that name, arguments that are not a JSON object, an input the
server supplies, inputs the workflow refuses) is answered with an error tool message, so the model can
correct itself: it is `rejected` in the result, never a crash. What the model is shown is masked: the API
key, the credentials of the tool runs and the values derived from them are `***` in tool messages; a
credential input is never in a tool's schema.

The model API is `Settings.api` (`apis.wire`): chat completions, OpenAI's Responses API or Anthropic's
Messages API, each turn rendered from one neutral `Conversation`. Without a chat URL, the bundled
reference server (`arazzo_runner.reference`) runs in-process in that API's flavour, so an agent works
offline; its model defaults to `agentaus`, and any API key opens it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Sequence
from types import MappingProxyType
from typing import Any

from ..masking.secrets import Masker
from .apis.base import NOT_AN_ANSWER, ModelError, ToolCallRequest, ToolResult, Usage
from .run_types import (  # noqa: F401 - the names `loop` has always given (the CLI, the library)
    ANSWERED,
    DEFAULT_CHAT_RETRIES,
    DEFAULT_CHAT_TIMEOUT,
    DEFAULT_EXCHANGE_TIMEOUT,
    DEFAULT_MAX_TURNS,
    FAILED,
    AgentResult,
    AgentToolCall,
    Settings,
    Watch,
)

REFERENCE_MODEL = "agentaus"
REFERENCE_KEY = "sk-reference-local"
REFERENCE_FLAVORS = MappingProxyType(
    {"responses": "responses", "anthropic": "anthropic"}
)  # the in-process server per API


def agent(source: Any, prompt: str, **settings: Any) -> AgentResult:
    """`aagent` from synchronous code."""
    from ..executor.runtime import sync_call

    return sync_call(aagent(source, prompt, **settings), "agent", "aagent")


async def aagent(
    source: Any,
    prompt: str,
    *,
    workflows: str | Iterable[str] | None = None,
    inputs: dict[str, Any] | None = None,
    options: Any = None,
    on_turn: Callable[[int, list[AgentToolCall]], None] | None = None,
    on_text: Callable[[int, str], None] | None = None,
    on_tool_start: Callable[[int, str, str, Any], None] | None = None,
    on_tool_end: Callable[[AgentToolCall], None] | None = None,
    **settings: Any,
) -> AgentResult:
    """Offer the workflows of `source` (a path or a loaded `Workspace`, or a list of them) as tools and
    run the loop for `prompt`. `inputs` are supplied where the tools run (they leave the tools' schemas);
    `options` (RunOptions) is what every tool run starts from. Settings: `chat_url`, `model`, `api_key`,
    `system`, `stream`, `api` (`chat`, `responses`, `anthropic`), `max_tokens`, `max_turns`,
    `chat_timeout`, `chat_retries`, `chat_exchange_timeout`, `agent_timeout`, `max_body`,
    `max_tool_calls`, `max_in_flight`, `record`, `replay` (`Settings`). `on_turn(turn, calls)` is
    called after each turn's tool calls; `on_text`, `on_tool_start`, `on_tool_end` as the loop goes
    (`Watch`). Document problems and missing credentials raise before anything is sent; what happens
    after is in the result."""
    from ..errors import UsageError
    from .tools import ToolSource, build_catalog

    sources = _workspaces(source)
    ids = [workflows] if isinstance(workflows, str) else None if workflows is None else list(workflows)
    catalog = build_catalog(ToolSource(ws, dict(inputs or {}), options, ids) for ws in sources)
    missing = [(tool.name, name) for tool in catalog.tools for name in tool.missing_credentials()]
    if missing:
        listed = ", ".join(f"'{name}' of tool '{tool}'" for tool, name in missing)
        raise UsageError(f"credential inputs nothing supplies (never asked of a model): {listed}")
    watch = Watch(on_text, on_tool_start, on_tool_end)
    return await run_agent(catalog, prompt, Settings(**settings), on_turn=on_turn, watch=watch)


def _workspaces(source: Any) -> list[Any]:
    from ..api import load
    from ..workspace import Workspace

    items = [source] if isinstance(source, (str, Workspace)) or hasattr(source, "__fspath__") else source
    return [item if isinstance(item, Workspace) else load(item) for item in items]


async def run_agent(
    catalog: Any,
    prompt: str,
    settings: Settings,
    *,
    on_turn: Callable[[int, list[AgentToolCall]], None] | None = None,
    watch: Watch | None = None,
) -> AgentResult:
    """The loop over an already built tool catalog (what `arazzo agent` calls)."""
    from ..http.transport import new_client
    from ..records import replace
    from .apis import DEFAULT_API
    from .tools.call import catalog_secrets

    server = recording = None
    url, api_key, model = settings.chat_url, settings.api_key, settings.model
    if settings.replay is not None:  # no model, no key: the recording answers, in its API
        from .apis.recording import read_recording

        recording = read_recording(settings.replay, settings.api)
        url, api_key, model = f"replay:{settings.replay}", "", recording.model
    elif url is None:
        from ..reference import ReferenceServer

        server = ReferenceServer(flavor=REFERENCE_FLAVORS.get(settings.api, "seed")).start()
        url, api_key, model = server.url, api_key or REFERENCE_KEY, model or REFERENCE_MODEL
    elif not api_key or not model:
        from ..errors import UsageError

        raise UsageError("a chat URL needs an API key and a model")
    settings = replace(settings, api=recording.api if recording else settings.api or DEFAULT_API)
    masker = Masker(catalog_secrets(catalog) | ({api_key} if api_key else set()))
    client = new_client(settings.chat_timeout)
    try:
        loop = _Loop(catalog, settings, masker, on_turn, watch or Watch(), recording)
        return await loop.run(prompt, url, api_key, model, client)
    finally:
        await client.aclose()
        if server is not None:
            await asyncio.to_thread(server.stop)


class _Loop:
    def __init__(
        self, catalog: Any, settings: Settings, masker: Masker, on_turn: Any, watch: Watch, recording: Any
    ) -> None:
        from .tools.call import InFlight

        self.catalog, self.settings, self.masker, self.on_turn = catalog, settings, masker, on_turn
        self.watch, self.recording = watch, recording
        self.in_flight = InFlight(settings.max_in_flight)
        self.cancelled = 0  # tool calls cut short by the run's time limit
        self.turn = 0  # the turn under way

    async def run(self, prompt: str, url: str, api_key: str, model: str, client: Any) -> AgentResult:
        from .apis import wire
        from .apis.base import Conversation
        from .apis.client import ModelClient

        settings = self.settings
        api = wire(settings.api, max_tokens=settings.max_tokens)
        chat = ModelClient(
            api, url, api_key, model, client=client, masker=self.masker, stream=settings.stream,
            timeout=settings.chat_timeout, max_body=settings.max_body, retries=settings.chat_retries,
            exchange_timeout=settings.chat_exchange_timeout,
        )  # fmt: skip
        chat = self._chosen(chat, api)
        result = AgentResult(FAILED, None, None, model, self.masker.url(url), settings.stream, settings.api)
        conversation = Conversation(settings.system)
        conversation.user(prompt)
        tools = self.catalog.definitions("openai")
        try:
            await asyncio.wait_for(self._turns(chat, conversation, tools, result), settings.agent_timeout)
        except asyncio.TimeoutError:
            cut = f"; {self.cancelled} tool call(s) in flight cancelled" if self.cancelled else ""
            limit = f"{settings.agent_timeout:g} s"
            message = f"the agent run passed its time limit of {limit} in turn {self.turn}{cut}"
            result.error = {"kind": "timeout", "message": message}
        result.messages = self.masker.data(api.rendered(conversation))
        if settings.record is not None:
            chat.write(settings.record, result, conversation)
        return result

    async def _turns(self, chat: Any, conversation: Any, tools: Any, result: AgentResult) -> None:
        settings = self.settings
        try:
            for turn in range(1, settings.max_turns + 1):
                self.turn = turn
                try:
                    completion = await self._complete(chat, conversation, tools, turn)
                finally:
                    retried = getattr(chat, "retried", None)  # a replay is never retried
                    if retried:
                        result.retries.extend({"turn": turn, **entry} for entry in retried)
                        retried.clear()
                _counted(result, turn, completion)
                if not completion.tool_calls:
                    self._finish(result, completion)
                    break
                calls = await self._calls(turn, completion.tool_calls)
                conversation.assistant(completion)
                conversation.tool_results([_tool_result(call) for call in calls])
                result.tool_calls.extend(calls)
                if self.on_turn is not None:
                    self.on_turn(turn, calls)
            else:
                result.error = {"kind": "max-turns", "message": f"no answer after {settings.max_turns} turns"}
        except ModelError as exc:
            result.error = {"kind": getattr(exc, "kind", "chat"), "message": str(exc)}
            self._answered_before(result, getattr(exc, "answered", None))

    def _answered_before(self, result: AgentResult, completion: Any) -> None:
        """An answer that was complete when its stream broke (an event after its end): the exchange
        failed, but the turn was made and its text is kept, as `partialAnswer` (not the answer)."""
        if completion is None:
            return
        _counted(result, self.turn, completion)
        text = completion.content if completion.content and completion.content.strip() else None
        result.partial_answer = self.masker.text(text) if text else None

    def _chosen(self, chat: Any, api: Any) -> Any:
        """The model client: the API's, or the recording's (`--replay`); saving each exchange
        (`--record`)."""
        if self.recording is None and self.settings.record is None:
            return chat
        from .apis.recording import RecordingClient, ReplayClient

        if self.recording is not None:
            chat = ReplayClient(self.recording, api, self.masker)
        return chat if self.settings.record is None else RecordingClient(chat, api, self.masker)

    async def _complete(self, chat: Any, conversation: Any, tools: Any, turn: int) -> Any:
        """One exchange; its text, masked as it arrives, to the watcher's `on_text` (the whole text
        once it is complete when the answer was not streamed)."""
        on_text = self.watch.on_text
        if on_text is None:
            return await chat.complete(conversation, tools)
        from ..masking.stream import MaskingStream

        stream = MaskingStream(self.masker, lambda text: on_text(turn, text))
        arrived = []
        try:
            completion = await chat.complete(
                conversation, tools, on_text=lambda piece: arrived.append(stream.feed(piece))
            )
            if not arrived and completion.content:  # not streamed: the whole text, in one call
                on_text(turn, self.masker.text(completion.content))
        finally:
            stream.flush()
        return completion

    def _finish(self, result: AgentResult, completion: Any) -> None:
        """A text is the answer unless the API says it stopped short of one: cut at the token limit
        (`length`) or by a content filter; that text is kept as `partialAnswer`, and the loop failed."""
        text = completion.content if completion.content and completion.content.strip() else None
        if completion.stop in NOT_AN_ANSWER:
            cause = "it reached its token limit" if completion.stop == "length" else "a content filter cut it"
            result.partial_answer = self.masker.text(text) if text else None
            reason = completion.finish_reason
            message = f"the model stopped before finishing its answer: {cause} (finish_reason {reason})"
            result.error = {"kind": "incomplete", "message": message}
            return
        if text is not None:
            result.status, result.answer = ANSWERED, self.masker.text(text)
            return
        refusal = f"; it refused: {completion.refusal}" if completion.refusal else ""
        message = f"the model ended without an answer (finish_reason {completion.finish_reason}){refusal}"
        result.error = {"kind": "no-answer", "message": self.masker.text(message)}

    async def _calls(self, turn: int, requests: Sequence[ToolCallRequest]) -> list[AgentToolCall]:
        """The answer's first `max_tool_calls` calls run (`max_in_flight` at a time); each one past them
        is answered with an error the model reads, and nothing runs for it."""
        from .tools.call import parse_arguments

        limit, watch = self.settings.max_tool_calls, self.watch
        if watch.on_tool_start is not None:
            for request in requests:
                shown = self.masker.data(parse_arguments(request.arguments)[0])
                watch.on_tool_start(turn, request.id, request.name, shown)
        refused = [self._ended(turn, r, self._over(r, len(requests))) for r in requests[limit:]]
        ran = await asyncio.gather(*(self._run(turn, request) for request in requests[:limit]))
        return [*ran, *refused]

    async def _run(self, turn: int, request: ToolCallRequest) -> AgentToolCall:
        return self._ended(turn, request, await self._call(request))

    def _ended(self, turn: int, request: ToolCallRequest, outcome: Any) -> AgentToolCall:
        call = AgentToolCall(turn, request.id, outcome)
        if self.watch.on_tool_end is not None:
            self.watch.on_tool_end(call)
        return call

    def _over(self, request: ToolCallRequest, made: int) -> Any:
        from .tools.call import parse_arguments, rejected

        limit = self.settings.max_tool_calls
        message = (
            f"not run: this answer made {made} tool calls and at most {limit} run per answer (the first "
            f"{limit} did); call this one again in your next answer if it is still needed"
        )
        arguments, _ = parse_arguments(request.arguments)
        return rejected(request.name, self.masker.data(arguments), message, self.catalog.get(request.name))

    async def _call(self, request: ToolCallRequest) -> Any:
        from .tools.call import call_tool, parse_arguments, rejected

        arguments, problem = parse_arguments(request.arguments)
        shown = self.masker.data(arguments)
        tool = self.catalog.get(request.name)
        if tool is None:
            names = ", ".join(t.name for t in self.catalog.tools) or "none"
            return rejected(request.name, shown, f"no tool named '{request.name}' (tools: {names})")
        if problem is not None:
            return rejected(request.name, shown, self.masker.text(problem), tool)
        try:
            async with self.in_flight:
                return await call_tool(tool, arguments, secrets=self.masker.secrets)
        except asyncio.CancelledError:
            self.cancelled += 1
            raise


def _counted(result: AgentResult, turn: int, completion: Any) -> None:
    """The turn made, its finish reason and its usage in the result."""
    result.turns, result.finish_reason = turn, completion.finish_reason
    if completion.usage is not None:
        result.usage = result.usage or Usage()
        result.usage.add(completion.usage)


def _tool_result(call: AgentToolCall) -> ToolResult:
    outcome = call.outcome
    return ToolResult(call.id, outcome.name, outcome.content_text(), outcome.ok)
