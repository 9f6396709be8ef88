"""The official `anthropic` client (`messages.create`, `messages.stream`) against
`ReferenceServer(flavor="anthropic")`, over real sockets: tools as `tool_use` / `tool_result` blocks,
streamed and not, stop reasons, each error as the client's exception."""

from __future__ import annotations

from collections.abc import Iterator

import anthropic
import httpx
import pytest

from arazzo_runner.reference import ERROR_TRIGGER, ReferenceServer

WEATHER = {
    "name": "get_current_weather",
    "description": "The weather of a city.",
    "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
}
ASK = [{"role": "user", "content": "What is the weather in Paris?"}]


@pytest.fixture(scope="module")
def server() -> Iterator[ReferenceServer]:
    with ReferenceServer(flavor="anthropic") as running:
        yield running


def base(server: ReferenceServer) -> str:
    return server.url.removesuffix("/v1")  # the client adds /v1/messages


@pytest.fixture(scope="module")
def client(server: ReferenceServer) -> Iterator[anthropic.Anthropic]:
    with anthropic.Anthropic(base_url=base(server), api_key="sk-ant-test", max_retries=0) as api:
        yield api


def test_a_text_answer_is_a_message_that_ends_its_turn(client: anthropic.Anthropic) -> None:
    message = client.messages.create(
        model="agentaus",
        max_tokens=200,
        system="Be terse.",
        messages=[{"role": "user", "content": "Hello there"}],
    )
    assert message.type == "message" and message.role == "assistant" and message.id.startswith("msg_")
    (block,) = message.content
    assert block.type == "text" and block.text.startswith('You asked: "Hello there".')
    assert message.stop_reason == "end_turn" and message.stop_sequence is None
    assert message.usage.input_tokens == 4 and message.usage.output_tokens == len(block.text.split())


@pytest.mark.parametrize("stream", [False, True])
def test_a_tool_use_and_its_result_make_a_round_trip(client: anthropic.Anthropic, stream: bool) -> None:
    if stream:
        with client.messages.stream(
            model="agentaus", max_tokens=200, messages=ASK, tools=[WEATHER]
        ) as events:
            kinds = [event.type for event in events]
            first = events.get_final_message()
        assert kinds[0] == "message_start" and kinds[-1] == "message_stop"
        assert "input_json" in kinds  # the client's own event for each input_json_delta
    else:
        first = client.messages.create(model="agentaus", max_tokens=200, messages=ASK, tools=[WEATHER])
    assert first.stop_reason == "tool_use"
    (use,) = first.content
    assert use.type == "tool_use" and use.name == "get_current_weather" and use.input == {"city": "Paris"}
    assert use.id.startswith("toolu_")
    follow_up = [
        *ASK,
        {"role": "assistant", "content": [use.model_dump(include={"type", "id", "name", "input"})]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": use.id, "content": "21 C"}]},
    ]
    second = client.messages.create(model="agentaus", max_tokens=200, messages=follow_up, tools=[WEATHER])
    assert second.stop_reason == "end_turn"
    assert second.content[0].text == "Based on the tool result: 21 C"


def test_streamed_text_arrives_in_deltas(client: anthropic.Anthropic) -> None:
    messages = [{"role": "user", "content": "Hello there"}]
    with client.messages.stream(model="agentaus", max_tokens=200, messages=messages) as events:
        pieces = list(events.text_stream)
        final = events.get_final_message()
    assert len(pieces) > 3 and "".join(pieces) == final.content[0].text
    assert final.usage.output_tokens == len(final.content[0].text.split())


@pytest.mark.parametrize("stream", [False, True])
def test_max_tokens_and_stop_sequences_cut_the_text(client: anthropic.Anthropic, stream: bool) -> None:
    messages = [{"role": "user", "content": "Please tell me everything about Paris"}]
    if stream:
        with client.messages.stream(model="agentaus", max_tokens=3, messages=messages) as events:
            cut = events.get_final_message()
    else:
        cut = client.messages.create(model="agentaus", max_tokens=3, messages=messages)
    assert cut.stop_reason == "max_tokens" and len(cut.content[0].text.split()) == 3
    stopped = client.messages.create(
        model="agentaus", max_tokens=200, messages=messages, stop_sequences=["Paris"]
    )
    assert stopped.stop_reason == "stop_sequence" and stopped.stop_sequence == "Paris"
    assert "Paris" not in stopped.content[0].text


def test_the_error_trigger_fails_the_stream_and_the_request(client: anthropic.Anthropic) -> None:
    messages = [{"role": "user", "content": f"say {ERROR_TRIGGER}"}]
    stream = client.messages.stream(model="agentaus", max_tokens=50, messages=messages)
    with pytest.raises(anthropic.APIStatusError) as caught, stream as events:
        events.get_final_message()
    assert "Simulated model failure" in str(caught.value)
    with pytest.raises(anthropic.InternalServerError):
        client.messages.create(model="agentaus", max_tokens=50, messages=messages)


@pytest.mark.parametrize(
    ("given", "words"),
    [
        ({"model": "agentaus", "messages": ASK}, "max_tokens: Field required"),
        ({"max_tokens": 5, "messages": ASK}, "model: Field required"),
        (
            {"model": "agentaus", "max_tokens": 5, "messages": [{"role": "assistant", "content": "x"}]},
            "starting with user",
        ),
        (
            {"model": "agentaus", "max_tokens": 5, "messages": ASK, "frobnicate": 1},
            "Extra inputs are not permitted",
        ),
        (
            {
                "model": "agentaus",
                "max_tokens": 5,
                "messages": [
                    *ASK,
                    {
                        "role": "assistant",
                        "content": [{"type": "tool_use", "id": "t1", "name": "x", "input": {}}],
                    },
                ],
            },
            "tool_result",
        ),
        ({"model": "agentaus", "max_tokens": 5, "messages": ASK, "tools": [{"name": "x"}]}, "input_schema"),
    ],
)
def test_a_bad_request_is_a_400_in_anthropic_error_shape(
    server: ReferenceServer, given: dict, words: str
) -> None:
    answer = httpx.post(f"{server.url}/messages", json=given, headers={"x-api-key": "k"})
    assert answer.status_code == 400
    body = answer.json()
    assert body["type"] == "error" and body["error"]["type"] == "invalid_request_error"
    assert words in body["error"]["message"]


def test_the_key_is_read_from_x_api_key_or_a_bearer_token(server: ReferenceServer) -> None:
    guarded = ReferenceServer(flavor="anthropic", api_key="sk-right").start()
    try:
        body = {"model": "agentaus", "max_tokens": 20, "messages": ASK}
        url = f"{guarded.url}/messages"
        assert httpx.post(url, json=body, headers={"x-api-key": "sk-right"}).status_code == 200
        assert httpx.post(url, json=body, headers={"Authorization": "Bearer sk-right"}).status_code == 200
        wrong = httpx.post(url, json=body, headers={"x-api-key": "sk-wrong"})
        assert wrong.status_code == 401 and wrong.json()["error"]["type"] == "authentication_error"
        api = anthropic.Anthropic(base_url=base(guarded), api_key="sk-wrong", max_retries=0)
        with api, pytest.raises(anthropic.AuthenticationError):
            api.messages.create(model="agentaus", max_tokens=20, messages=ASK)
    finally:
        guarded.stop()
    missing = httpx.post(f"{server.url}/chat/completions", json={}, headers={"x-api-key": "k"})
    assert missing.status_code == 404 and missing.json()["error"]["type"] == "not_found_error"
