"""`arazzo agent` against model endpoints as they are met in the wild, over real sockets: a proxy that
ends the Responses and Messages streams with the chat stream's `data: [DONE]` (as LiteLLM's
`/v1/responses` and `/v1/messages` do) in front of the bundled reference server in the API's flavour;
base URLs with and without `/v1`; a replay taking its recording's API; retry notes naming the API."""

from __future__ import annotations

import threading

import httpx
import pytest

from arazzo_runner.reference import ReferenceServer
from tests.e2e.agentkit import (
    API_KEY,
    BOTH,
    OWNER_KEY,
    TOKEN,
    assert_no_secret,
    serve_shop,
    tool_args,
    write_shop,
)
from tests.e2e.helpers import cli
from tests.servers.scripted import ScriptedServer
from tests.untested import importorskip_untested

APIS = ["responses", "anthropic"]
KEY_ENV = {"responses": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}
FORWARDED = ("authorization", "x-api-key", "anthropic-version", "content-type", "accept")


@pytest.fixture
def shop(tmp_path):
    with ScriptedServer() as server:
        yield write_shop(tmp_path), server


def done_adding_proxy(target: str, proxy: ScriptedServer, client: httpx.Client) -> list[bytes]:
    """`proxy` forwards `/v1/...` to `target` (a base URL ending in /v1), each event stream it answers
    followed by `data: [DONE]`, as LiteLLM's proxy sends it; returns the bodies it sent, in order."""
    sent: list[bytes] = []

    @proxy.route("POST", "/v1/{path}")
    def forward(recorded):
        headers = {k: v for k, v in recorded.headers.items() if k in FORWARDED}
        answer = client.post(f"{target}/{recorded.params['path']}", content=recorded.body, headers=headers)
        body, kind = answer.content, answer.headers["content-type"]
        if kind.startswith("text/event-stream"):
            body += b"data: [DONE]\n\n"
        sent.append(body)
        return answer.status_code, body, {"Content-Type": kind}

    return sent


@pytest.mark.parametrize("api", APIS)
def test_a_proxy_ending_each_stream_with_done_gives_the_whole_round_trip(capsys, shop, api, monkeypatch):
    path, server = shop
    serve_shop(server, threading.Barrier(2, timeout=60))
    monkeypatch.setenv(KEY_ENV[api], API_KEY)
    with (
        ReferenceServer(flavor=api) as reference,
        ScriptedServer() as proxy,
        httpx.Client(timeout=60) as client,
    ):
        sent = done_adding_proxy(reference.url, proxy, client)
        argv = ["--prompt", BOTH, "--api", api, "--chat", proxy.url + "/v1", "--model", "agentaus"]
        result = cli(capsys, "agent", *tool_args(path, server), *argv, "--format", "json")
    assert_no_secret(result.out + result.err)
    data = result.json
    assert result.code == 0, data["error"]
    assert data["status"] == "answered" and data["turns"] == 2 and data["retries"] == []
    assert sorted(call["name"] for call in data["toolCalls"]) == ["owner_lookup", "pet_details"]
    assert "Alice" in data["answer"]
    assert len(sent) == 2 and all(body.endswith(b"\n\ndata: [DONE]\n\n") for body in sent)


def test_an_anthropic_base_url_without_v1_is_anthropics_own_convention(capsys, shop, monkeypatch):
    """`ANTHROPIC_BASE_URL` and the official client take the URL without `/v1`; both forms reach
    `/v1/messages`."""
    path, server = shop
    serve_shop(server, threading.Barrier(2, timeout=60))
    monkeypatch.setenv("ANTHROPIC_API_KEY", API_KEY)
    with ReferenceServer(flavor="anthropic") as reference, ScriptedServer() as proxy:
        recorded: list[str] = []
        with httpx.Client(timeout=60) as client:
            sent = done_adding_proxy(reference.url, proxy, client)
            for base in (proxy.url, proxy.url + "/"):  # the origin alone, as ANTHROPIC_BASE_URL has it
                argv = ["--prompt", BOTH, "--api", "anthropic", "--chat", base, "--model", "agentaus"]
                result = cli(capsys, "agent", *tool_args(path, server), *argv)
                assert result.code == 0, result.err
                assert result.out.startswith(f"agent: 3 tool(s), Messages API at {base}, streamed\n")
                assert "turn 2: the model answered" in result.out
                recorded += [r.path for r in proxy.requests]
                proxy.requests.clear()
    assert recorded == ["/v1/messages"] * 4 and len(sent) == 4


@pytest.mark.parametrize("api", ["chat", "responses"])
def test_an_openai_base_url_without_v1_is_a_404_that_says_to_add_it(capsys, shop, api, monkeypatch):
    path, server = shop
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
    flavor = "openai" if api == "chat" else api
    with ReferenceServer(flavor=flavor) as reference, ScriptedServer() as proxy, httpx.Client() as client:
        done_adding_proxy(reference.url, proxy, client)  # the API under /v1 only, as OpenAI's
        origin = proxy.url
        argv = ["--prompt", BOTH, "--api", api, "--chat", origin, "--model", "agentaus", "--format", "json"]
        result = cli(capsys, "agent", *tool_args(path, server), *argv)
    assert result.code == 1 and result.json["retries"] == []  # a 404 is not asked again
    endpoint = f"{origin}/{'chat/completions' if api == 'chat' else 'responses'}"
    label = "the chat API" if api == "chat" else "the Responses API"
    message = result.json["error"]["message"]
    assert message.startswith(f"{label} answered 404: ")
    assert message.endswith(
        f"(POST {endpoint}: the base URL holds the API's version, such as https://api.openai.com/v1: add /v1)"
    )


def test_a_replay_speaks_the_api_of_its_recording_unless_told_another(capsys, shop, tmp_path):
    path, server = shop
    serve_shop(server, threading.Barrier(2, timeout=60))
    recording = tmp_path / "both.recording.json"
    made = cli(capsys, "agent", *tool_args(path, server), "--prompt", BOTH, "--api", "responses",
               "--record", recording)  # fmt: skip
    assert made.code == 0, made.err
    replayed = cli(capsys, "agent", *tool_args(path, server), "--replay", recording)
    assert replayed.code == 0, replayed.err
    assert replayed.out.startswith(
        f"agent: 3 tool(s), Responses API at the recording {recording}, replayed\n"
    )
    assert replayed.out.splitlines()[-1].startswith("2 turn(s), 2 tool call(s)")
    other = cli(capsys, "agent", *tool_args(path, server), "--replay", recording, "--api", "chat")
    assert other.code == 2 and other.out == ""
    assert other.err == (
        f"error: --replay {recording}: recorded with the API 'responses', not 'chat': leave --api out (a "
        "replay speaks its recording's API) or give --api responses\n"
    )


def test_the_library_replays_in_the_recordings_api(shop, tmp_path):
    from arazzo_runner import agent
    from arazzo_runner.executor.options import RunOptions

    path, server = shop
    serve_shop(server, threading.Barrier(2, timeout=60))
    recording = str(tmp_path / "both.recording.json")
    options = RunOptions(servers={"shop": server.url}, auth={"ownerKey": OWNER_KEY})
    made = agent(str(path), BOTH, api="anthropic", record=recording, inputs={"token": TOKEN},
                 options=options)  # fmt: skip
    assert made.ok and made.api == "anthropic"
    replayed = agent(str(path), BOTH, replay=recording, inputs={"token": TOKEN}, options=options)
    assert replayed.ok and replayed.api == "anthropic" and replayed.answer == made.answer


@pytest.mark.parametrize(
    ("api", "label"), [("responses", "the Responses API"), ("anthropic", "the Messages API")]
)
def test_the_retry_note_names_the_api_spoken(capsys, shop, api, label, monkeypatch):
    path, server = shop
    monkeypatch.setenv(KEY_ENV[api], API_KEY)
    with ReferenceServer(flavor=api) as reference, ScriptedServer() as model, httpx.Client() as client:
        overloaded = {"error": {"type": "overloaded_error", "message": "overloaded"}}
        answers = [(503, overloaded, {"Retry-After": "0"})]

        @model.route("POST", "/v1/{path}")
        def once_overloaded(recorded):  # the first request answered 503, the others by the reference
            if answers:
                return answers.pop()
            headers = {k: v for k, v in recorded.headers.items() if k in FORWARDED}
            answer = client.post(f"{reference.url}/{recorded.params['path']}", content=recorded.body,
                                 headers=headers)  # fmt: skip
            return answer.status_code, answer.content, {"Content-Type": answer.headers["content-type"]}

        argv = ["--prompt", "Say hello", "--api", api, "--chat", model.url + "/v1", "--model", "agentaus"]
        result = cli(capsys, "agent", *tool_args(path, server), *argv)
    assert result.code == 0, result.err
    assert (
        f"note: turn 1: {label} was asked again after attempt 1 failed ({label} answered 503: " in result.err
    )
    assert "the chat API" not in result.err


@pytest.mark.parametrize("api", APIS)
def test_the_official_clients_read_the_same_streams_as_the_engine_does(api):
    """What the docs say of a trailing `[DONE]` (the official clients skip it) and of Anthropic's base
    URL (without `/v1`), checked with those clients through the same proxy."""
    openai = importorskip_untested("openai", "the official OpenAI client against the reference server")
    anthropic = importorskip_untested(
        "anthropic", "the official Anthropic client against the reference server"
    )
    with (
        ReferenceServer(flavor=api) as reference,
        ScriptedServer() as proxy,
        httpx.Client(timeout=60) as client,
    ):
        sent = done_adding_proxy(reference.url, proxy, client)
        if api == "responses":
            with openai.OpenAI(base_url=proxy.url + "/v1", api_key=API_KEY, max_retries=0) as official:
                events = list(official.responses.create(model="agentaus", input="Say hello", stream=True))
            assert events[-1].type == "response.completed"
            text = events[-1].response.output_text
        else:
            with anthropic.Anthropic(base_url=proxy.url, api_key=API_KEY, max_retries=0) as official:
                message = [{"role": "user", "content": "Say hello"}]
                with official.messages.stream(model="agentaus", max_tokens=64, messages=message) as stream:
                    text = "".join(stream.text_stream)
                    assert stream.get_final_message().stop_reason == "end_turn"
    assert "Say hello" in text
    assert [r.path for r in proxy.requests] == [f"/v1/{'responses' if api == 'responses' else 'messages'}"]
    assert sent[0].endswith(b"data: [DONE]\n\n")


@pytest.mark.parametrize(
    ("api", "path", "body"),
    [
        (
            "chat",
            "/v1/chat/completions",
            {"error": {"message": "The model `gpt-9` does not exist or you do not have access to it.",
                       "type": "invalid_request_error", "param": None, "code": "model_not_found"}},
        ),
        (
            "anthropic",
            "/v1/messages",
            {"type": "error", "error": {"type": "not_found_error", "message": "model: gpt-9"}},
        ),
    ],
)  # fmt: skip
def test_a_404_for_an_unknown_model_does_not_blame_the_base_url(capsys, shop, monkeypatch, api, path, body):
    """OpenAI and Anthropic answer 404 for a model that does not exist: the base URL is right, and a
    hint asking whether it is would send the user to the wrong flag."""
    tools, server = shop
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
    monkeypatch.setenv("ANTHROPIC_API_KEY", API_KEY)
    with ScriptedServer() as model:
        model.reply("POST", path, (404, body))
        chat = ["--api", api, "--chat", f"{model.url}/v1", "--model", "gpt-9"]
        argv = ["--prompt", BOTH, *chat, "--format", "json"]
        result = cli(capsys, "agent", *tool_args(tools, server), *argv)
    assert result.code == 1, result.err
    message = result.json["error"]["message"]
    assert "gpt-9" in message and "base URL" not in message and "/v1" not in message, message
