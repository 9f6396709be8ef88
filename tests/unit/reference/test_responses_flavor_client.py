"""The official `openai` client's Responses API (`client.responses`) against
`ReferenceServer(flavor="responses")`, over real sockets: function tools, a `function_call_output`
round trip, streamed and not, each error as the client's exception."""

from __future__ import annotations

import json
from collections.abc import Iterator

import openai
import pytest

from arazzo_runner.reference import ERROR_TRIGGER, ReferenceServer

CREATED = 1757930000
WEATHER = {
    "type": "function",
    "name": "get_current_weather",
    "description": "The weather of a city.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
}
ASK = "What is the weather in Paris?"


@pytest.fixture(scope="module")
def server() -> Iterator[ReferenceServer]:
    with ReferenceServer(flavor="responses", clock=lambda: CREATED) as running:
        yield running


@pytest.fixture(scope="module")
def client(server: ReferenceServer) -> Iterator[openai.OpenAI]:
    with openai.OpenAI(base_url=server.url, api_key="sk-test", max_retries=0) as api:
        yield api


def test_a_text_answer_is_a_completed_response(client: openai.OpenAI) -> None:
    response = client.responses.create(model="agentaus", input="Hello there", instructions="Be terse.")
    assert response.object == "response" and response.status == "completed"
    assert response.created_at == CREATED and response.id.startswith("resp_")
    assert (
        response.output_text == 'You asked: "Hello there". This is the reference server\'s scripted answer.'
    )
    (item,) = response.output
    assert item.type == "message" and item.role == "assistant" and item.content[0].type == "output_text"
    assert response.instructions == "Be terse."
    assert response.usage.input_tokens == 4  # "Be terse." and "Hello there"
    assert response.usage.output_tokens == len(response.output_text.split())
    assert response.usage.total_tokens == response.usage.input_tokens + response.usage.output_tokens


@pytest.mark.parametrize("stream", [False, True])
def test_a_function_call_and_its_output_make_a_round_trip(client: openai.OpenAI, stream: bool) -> None:
    if stream:
        with client.responses.stream(model="agentaus", input=ASK, tools=[WEATHER], store=False) as events:
            kinds = [event.type for event in events]
            first = events.get_final_response()
        assert kinds[:3] == ["response.created", "response.in_progress", "response.output_item.added"]
        assert "response.function_call_arguments.delta" in kinds and kinds[-1] == "response.completed"
    else:
        first = client.responses.create(model="agentaus", input=ASK, tools=[WEATHER], store=False)
    (call,) = first.output
    assert call.type == "function_call" and call.name == "get_current_weather"
    assert json.loads(call.arguments) == {"city": "Paris"} and call.call_id.startswith("call_")
    follow_up = [
        {"role": "user", "content": ASK},
        {"type": "function_call", "call_id": call.call_id, "name": call.name, "arguments": call.arguments},
        {"type": "function_call_output", "call_id": call.call_id, "output": '{"celsius": 21}'},
    ]
    second = client.responses.create(model="agentaus", input=follow_up, tools=[WEATHER], stream=False)
    assert second.output_text == 'Based on the tool result: {"celsius": 21}'


def test_streamed_text_arrives_in_deltas_that_make_the_final_text(client: openai.OpenAI) -> None:
    events = list(client.responses.create(model="agentaus", input="Hello there", stream=True))
    deltas = [e.delta for e in events if e.type == "response.output_text.delta"]
    assert len(deltas) > 3
    assert [e.sequence_number for e in events] == list(range(len(events)))
    assert events[-1].type == "response.completed"
    assert "".join(deltas) == events[-1].response.output_text


@pytest.mark.parametrize("stream", [False, True])
def test_max_output_tokens_makes_an_incomplete_response(client: openai.OpenAI, stream: bool) -> None:
    question = "Please tell me everything about the history of the city of Paris in one long answer"
    if stream:
        events = list(
            client.responses.create(model="agentaus", input=question, max_output_tokens=16, stream=True)
        )
        assert events[-1].type == "response.incomplete"
        response = events[-1].response
    else:
        response = client.responses.create(model="agentaus", input=question, max_output_tokens=16)
    assert response.status == "incomplete"
    assert response.incomplete_details.reason == "max_output_tokens"
    assert len(response.output_text.split()) == 16


def test_the_error_trigger_fails_the_response(client: openai.OpenAI) -> None:
    events = list(client.responses.create(model="agentaus", input=f"say {ERROR_TRIGGER}", stream=True))
    assert events[-1].type == "response.failed"
    assert events[-1].response.error.code == "server_error"
    with pytest.raises(openai.InternalServerError):
        client.responses.create(model="agentaus", input=f"say {ERROR_TRIGGER}")


@pytest.mark.parametrize(
    ("given", "param", "words"),
    [
        ({"input": "hi"}, "model", "'model' is required"),
        ({"model": "agentaus"}, "input", "'input' is required"),
        (
            {"model": "agentaus", "input": "hi", "previous_response_id": "resp_1"},
            "previous_response_id",
            "keeps no",
        ),
        (
            {
                "model": "agentaus",
                "input": [{"type": "function_call_output", "call_id": "c1", "output": "x"}],
            },
            "input[0].call_id",
            "function_call before it",
        ),
        (  # (an output neither text nor parts was a TypeError in the server: mypy found it)
            {
                "model": "agentaus",
                "input": [
                    {"type": "function_call", "call_id": "c1", "name": "t", "arguments": "{}"},
                    {"type": "function_call_output", "call_id": "c1", "output": 5},
                ],
            },
            "input[1].output",
            "must be a string or an array",
        ),
        (
            {"model": "agentaus", "input": "hi", "tools": [{"type": "web_search"}]},
            "tools[0].type",
            "function tools",
        ),
        ({"model": "agentaus", "input": "hi", "max_output_tokens": 8}, "max_output_tokens", "at least 16"),
        ({"model": "agentaus", "input": "hi", "frobnicate": 1}, "frobnicate", "unknown parameter"),
    ],
)
def test_a_bad_request_is_a_400_in_openai_error_shape(
    client: openai.OpenAI, given: dict, param: str, words: str
) -> None:
    with pytest.raises(openai.BadRequestError) as caught:
        client.post("/responses", body=given, cast_to=dict)
    error = caught.value.body
    assert error["param"] == param and words in error["message"]
    assert error["type"] == "invalid_request_error"


def test_a_wrong_key_and_another_path_get_openai_errors(server: ReferenceServer) -> None:
    guarded = ReferenceServer(flavor="responses", api_key="sk-right").start()
    try:
        wrong = openai.OpenAI(base_url=guarded.url, api_key="sk-wrong", max_retries=0)
        with wrong, pytest.raises(openai.AuthenticationError):
            wrong.responses.create(model="agentaus", input="hi")
    finally:
        guarded.stop()
    api = openai.OpenAI(base_url=server.url, api_key="sk-test", max_retries=0)
    with api, pytest.raises(openai.NotFoundError):
        api.chat.completions.create(model="agentaus", messages=[{"role": "user", "content": "hi"}])
