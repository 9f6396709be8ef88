"""The official `openai` client against `ReferenceServer(flavor="openai")`, over real sockets: ordinary
OpenAI code works unchanged, and each error raises the client's matching exception."""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import openai
import pydantic
import pytest
from openai.lib.streaming.chat import ChatCompletionStreamState

from arazzo_runner.reference import ReferenceServer
from tests.unit.reference.openai_kit import BOTH, CALENDAR, EMAIL, TEXT_ANSWER, WEATHER, follow_up, user

CREATED = 1757930000
ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def server() -> Iterator[ReferenceServer]:
    with ReferenceServer(flavor="openai", clock=lambda: CREATED) as running:
        yield running


@pytest.fixture(scope="module")
def client(server: ReferenceServer) -> Iterator[openai.OpenAI]:
    # No retries: a 500 must raise at once, not be retried with back-off.
    with openai.OpenAI(base_url=server.url, api_key="sk-test", max_retries=0) as api:
        yield api


def test_a_plain_create_returns_a_chat_completion(client: openai.OpenAI) -> None:
    completion = client.chat.completions.create(
        model="gpt-4o-mini",
        messages=[{"role": "developer", "content": "Be terse."}, *user("Hello there")],
        temperature=0.2,
        top_p=1,
        max_tokens=200,
        n=1,
        seed=7,
        user="user-42",
        response_format={"type": "text"},
    )
    assert isinstance(completion, openai.types.chat.ChatCompletion)
    assert completion.object == "chat.completion"
    assert completion.model == "gpt-4o-mini"
    assert completion.created == CREATED
    choice = completion.choices[0]
    assert choice.message.content == TEXT_ANSWER.format("Hello there")
    assert choice.message.tool_calls is None
    assert choice.finish_reason == "stop"
    usage = completion.usage
    assert usage is not None
    assert (usage.prompt_tokens, usage.completion_tokens) == (4, 11)  # words: "Be terse. Hello there"
    assert usage.total_tokens == 15


def test_the_standard_stream_loop_without_include_usage(client: openai.OpenAI) -> None:
    stream = client.chat.completions.create(model="m", messages=user("Hello there"), stream=True)
    pieces, finish, chunks = [], None, 0
    for chunk in stream:
        chunks += 1
        delta = chunk.choices[0].delta  # an IndexError here is what the seed flavour's usage chunk causes
        pieces.append(delta.content or "")
        finish = chunk.choices[0].finish_reason or finish
        assert chunk.usage is None
    assert "".join(pieces) == TEXT_ANSWER.format("Hello there")
    assert finish == "stop"
    assert chunks == len(TEXT_ANSWER.format("Hello there").split()) + 2  # role chunk, words, finish


def test_include_usage_sends_the_usage_in_the_last_chunk(client: openai.OpenAI) -> None:
    stream = client.chat.completions.create(
        model="m", messages=user("Hello there"), stream=True, stream_options={"include_usage": True}
    )
    chunks = list(stream)
    *content_chunks, last = chunks
    assert last.choices == []
    assert last.usage is not None and last.usage.completion_tokens == 11 and last.usage.prompt_tokens == 2
    assert all(chunk.usage is None and chunk.choices for chunk in content_chunks)
    text = "".join(chunk.choices[0].delta.content or "" for chunk in content_chunks)
    assert text == TEXT_ANSWER.format("Hello there")


def _calls(message: openai.types.chat.ChatCompletionMessage) -> list[tuple[str, dict[str, str]]]:
    assert message.tool_calls is not None
    return [(call.function.name, json.loads(call.function.arguments)) for call in message.tool_calls]


def test_auto_tool_calls_by_name_matching_and_in_parallel(client: openai.OpenAI) -> None:
    completion = client.chat.completions.create(
        model="m", messages=user(BOTH), tools=[WEATHER, CALENDAR, EMAIL]
    )
    choice = completion.choices[0]
    assert choice.finish_reason == "tool_calls"
    assert choice.message.content is None
    assert _calls(choice.message) == [
        ("get_current_weather", {"location": "Sydney"}),
        ("get_calendar_events", {"date": "2026-09-16"}),
    ]
    ids = [call.id for call in choice.message.tool_calls or []]
    assert all(i.startswith("call_") for i in ids) and len(set(ids)) == 2


def test_parallel_tool_calls_false_keeps_one_call(client: openai.OpenAI) -> None:
    completion = client.chat.completions.create(
        model="m", messages=user(BOTH), tools=[WEATHER, CALENDAR], parallel_tool_calls=False
    )
    assert _calls(completion.choices[0].message) == [("get_current_weather", {"location": "Sydney"})]


def test_a_forced_function_tool_choice_calls_that_function(client: openai.OpenAI) -> None:
    completion = client.chat.completions.create(
        model="m",
        messages=user("What's the weather in Sydney?"),  # matches get_current_weather, not send_email
        tools=[WEATHER, EMAIL],
        tool_choice={"type": "function", "function": {"name": "send_email"}},
    )
    assert _calls(completion.choices[0].message) == [("send_email", {"to": "What's the weather in Sydney?"})]


def test_openai_allowed_tools_narrow_the_catalog(client: openai.OpenAI) -> None:
    completion = client.chat.completions.create(
        model="m",
        messages=user(BOTH),
        tools=[WEATHER, CALENDAR],
        tool_choice={
            "type": "allowed_tools",
            "allowed_tools": {
                "mode": "auto",
                "tools": [{"type": "function", "function": {"name": "get_calendar_events"}}],
            },
        },
    )
    assert _calls(completion.choices[0].message) == [("get_calendar_events", {"date": "2026-09-16"})]


def _streamed(client: openai.OpenAI, **request: object) -> openai.types.chat.ParsedChatCompletion[None]:
    """A streamed answer accumulated the way the client's own `stream()` helper does it."""
    state: ChatCompletionStreamState[None] = ChatCompletionStreamState()
    for chunk in client.chat.completions.create(model="m", stream=True, **request):  # type: ignore[call-overload]
        state.handle_chunk(chunk)
    return state.get_final_completion()


def test_streamed_tool_calls_accumulate_into_the_non_streamed_answer(client: openai.OpenAI) -> None:
    request = {"messages": user(BOTH), "tools": [WEATHER, CALENDAR]}
    streamed = _streamed(client, **request, stream_options={"include_usage": True})
    plain = client.chat.completions.create(model="m", **request)  # type: ignore[call-overload]
    assert streamed.id == plain.id
    streamed_calls = streamed.choices[0].message.tool_calls or []
    plain_calls = plain.choices[0].message.tool_calls or []
    assert [(c.id, c.function.name, c.function.arguments) for c in streamed_calls] == [
        (c.id, c.function.name, c.function.arguments) for c in plain_calls
    ]
    assert _calls(streamed.choices[0].message) == _calls(plain.choices[0].message)
    assert streamed.choices[0].finish_reason == "tool_calls"
    assert streamed.usage == plain.usage


def test_a_streamed_forced_call(client: openai.OpenAI) -> None:
    streamed = _streamed(
        client,
        messages=user("Sydney"),
        tools=[WEATHER, CALENDAR],
        tool_choice={"type": "function", "function": {"name": "get_calendar_events"}},
    )
    assert _calls(streamed.choices[0].message) == [("get_calendar_events", {"date": "2026-09-16"})]


def test_the_stream_helper_of_the_client(client: openai.OpenAI) -> None:
    with client.chat.completions.stream(model="m", messages=user("Hello there")) as stream:
        kinds = [event.type for event in stream]
        final = stream.get_final_completion()
    assert kinds[0] == "chunk" and "content.done" in kinds
    assert final.choices[0].message.content == TEXT_ANSWER.format("Hello there")


def test_a_tool_result_follow_up_turn(client: openai.OpenAI) -> None:
    first = client.chat.completions.create(model="m", messages=user("Weather in Sydney?"), tools=[WEATHER])
    call = (first.choices[0].message.tool_calls or [])[0]
    messages = [
        *user("Weather in Sydney?"),
        first.choices[0].message.model_dump(
            exclude_none=True
        ),  # the assistant turn, as OpenAI code replays it
        {"role": "tool", "tool_call_id": call.id, "content": '{"temp_c": 19}'},
    ]
    second = client.chat.completions.create(model="m", messages=messages, tools=[WEATHER])
    assert second.choices[0].message.content == 'Based on the tool result: {"temp_c": 19}'
    assert second.choices[0].finish_reason == "stop"
    streamed = _streamed(client, messages=follow_up(), tools=[WEATHER])
    assert streamed.choices[0].message.content == 'Based on the tool result: {"temp_c": 19}'


def test_structured_output_parses_into_the_model(client: openai.OpenAI) -> None:
    class Forecast(pydantic.BaseModel):
        location: str
        summary: str
        days: int

    parsed = client.chat.completions.parse(
        model="m", messages=user("Forecast for Sydney, as JSON"), response_format=Forecast
    )
    forecast = parsed.choices[0].message.parsed
    assert forecast == Forecast(
        location="Sydney", summary=TEXT_ANSWER.format("Forecast for Sydney, as JSON"), days=1
    )


def test_max_tokens_cuts_the_answer_with_finish_reason_length(client: openai.OpenAI) -> None:
    completion = client.chat.completions.create(
        model="m", messages=user("Hello there"), max_completion_tokens=3
    )
    assert completion.choices[0].message.content == 'You asked: "Hello'
    assert completion.choices[0].finish_reason == "length"
    assert completion.usage is not None and completion.usage.completion_tokens == 3


def test_the_model_list(client: openai.OpenAI) -> None:
    models = client.models.list()
    assert [(m.id, m.object, m.owned_by, m.created) for m in models] == [
        ("agentaus", "model", "arazzo-reference", CREATED)
    ]
    assert client.models.retrieve("agentaus").id == "agentaus"


def test_an_invalid_request_raises_bad_request_with_param(client: openai.OpenAI) -> None:
    messages = [*follow_up()[:2], {"role": "tool", "content": "19 degrees"}]
    with pytest.raises(openai.BadRequestError) as raised:
        client.chat.completions.create(model="m", messages=messages)  # type: ignore[arg-type]
    error = raised.value
    assert error.status_code == 400
    assert error.param == "messages[2].tool_call_id"
    assert error.code == "missing_required_parameter"
    assert error.type == "invalid_request_error"
    assert "'messages[2].tool_call_id' is required" in error.message


@pytest.mark.parametrize(
    ("request_extra", "param", "code"),
    [
        ({"tool_choice": {"type": "function", "function": {"name": "nope"}}, "tools": [WEATHER]},
         "tool_choice.function.name", "invalid_value"),
        ({"temperature": 3}, "temperature", "invalid_value"),
        ({"n": 2}, "n", "unsupported_parameter"),
        ({"extra_body": {"frobnicate": True}}, "frobnicate", "unknown_parameter"),
    ],
)  # fmt: skip
def test_each_bad_parameter_is_named(
    client: openai.OpenAI, request_extra: dict[str, object], param: str, code: str
) -> None:
    with pytest.raises(openai.BadRequestError) as raised:
        client.chat.completions.create(model="m", messages=user("hi"), **request_extra)  # type: ignore[call-overload]
    assert (raised.value.param, raised.value.code) == (param, code)
    assert f"'{param}'" in raised.value.message


def test_a_wrong_api_key_raises_authentication_error() -> None:
    with ReferenceServer(flavor="openai", api_key="sk-right") as server:
        good = openai.OpenAI(base_url=server.url, api_key="sk-right", max_retries=0)
        assert good.models.list().data[0].id == "agentaus"
        bad = openai.OpenAI(base_url=server.url, api_key="sk-wrong-but-secret", max_retries=0)
        with pytest.raises(openai.AuthenticationError) as raised:
            bad.chat.completions.create(model="m", messages=user("hi"))
    error = raised.value
    assert (error.status_code, error.code, error.type) == (401, "invalid_api_key", "invalid_request_error")
    assert error.param is None  # as OpenAI's: the key is no request parameter
    assert "Incorrect API key provided" in error.message
    assert "sk-wrong" not in json.dumps(error.body)  # the key is never echoed back


def test_an_unknown_model_raises_not_found(client: openai.OpenAI) -> None:
    with pytest.raises(openai.NotFoundError) as raised:
        client.models.retrieve("gpt-9")
    error = raised.value
    assert (error.param, error.code) == ("model", "model_not_found")
    assert "'gpt-9' does not exist" in error.message


def test_an_unknown_path_raises_not_found(server: ReferenceServer) -> None:
    api = openai.OpenAI(base_url=server.url + "/nothing", api_key="k", max_retries=0)
    with pytest.raises(openai.NotFoundError) as raised:
        api.chat.completions.create(model="m", messages=user("hi"))
    assert "Invalid URL (POST /v1/nothing/chat/completions)" in raised.value.message


def test_a_model_failure_raises_internal_server_error(client: openai.OpenAI) -> None:
    with pytest.raises(openai.InternalServerError) as raised:
        client.chat.completions.create(model="m", messages=user("please trigger-stream-error"))
    error = raised.value
    assert (error.status_code, error.type) == (500, "server_error")
    assert "Simulated model failure (trigger-stream-error)" in error.message


def test_a_failure_mid_stream_raises_api_error(client: openai.OpenAI) -> None:
    stream = client.chat.completions.create(model="m", messages=user("trigger-stream-error"), stream=True)
    seen = []
    with pytest.raises(openai.APIError) as raised:
        for chunk in stream:
            seen.append(chunk.choices[0].delta.role)
    assert seen == ["assistant"]  # the first chunk arrived, then the error event
    assert raised.value.message == "Simulated model failure (trigger-stream-error)"
    assert raised.value.type == "server_error"


def test_the_readme_example_runs_as_written(tmp_path: Path) -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    (example,) = [
        b for b in re.findall(r"^```python\n(.*?)^```$", text, re.S | re.M) if 'flavor="openai"' in b
    ]
    script = tmp_path / "readme_openai.py"
    script.write_text(example, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}  # this checkout's package, as from its root
    proc = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, cwd=ROOT, env=env, timeout=120
    )
    assert (proc.returncode, proc.stderr) == (0, "")
    assert proc.stdout == TEXT_ANSWER.format("Hi") + "\n"


def test_the_async_client_streams_tool_calls(server: ReferenceServer) -> None:
    async def run() -> list[tuple[int, str | None, str | None, str | None]]:
        async with openai.AsyncOpenAI(base_url=server.url, api_key="k", max_retries=0) as api:
            stream = await api.chat.completions.create(
                model="m", messages=user(BOTH), tools=[WEATHER, CALENDAR], stream=True
            )
            fragments = []
            async for chunk in stream:
                for call in chunk.choices[0].delta.tool_calls or []:
                    function = call.function
                    fragments.append(
                        (call.index, call.id, function and function.name, function and function.arguments)
                    )
            return fragments

    fragments = asyncio.run(run())
    names = [name for _, _, name, _ in fragments if name]
    assert names == ["get_current_weather", "get_calendar_events"]
    arguments = ["".join(a or "" for i, _, _, a in fragments if i == index) for index in (0, 1)]
    assert [json.loads(a) for a in arguments] == [{"location": "Sydney"}, {"date": "2026-09-16"}]
