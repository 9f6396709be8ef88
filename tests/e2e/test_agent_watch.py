"""Watching an agent work (`--format text`, and the library's `on_text` / `on_tool_start` /
`on_tool_end`): the answer shown as it arrives, masked even when a secret is split across chunks, the
text before tool calls marked as not the answer, each tool call shown as it starts and as it ends (in
the order the calls finish), against a scripted chat server streaming real event streams."""

from __future__ import annotations

import asyncio
import json
import threading

import pytest

import arazzo_runner
from arazzo_runner import RunOptions
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


def chunk(delta, finish=None):
    choice = {"index": 0, "delta": delta, "finish_reason": finish}
    return "data: " + json.dumps({"id": "c", "object": "chat.completion.chunk", "choices": [choice]}) + "\n\n"


def streamed(pieces, calls=(), finish=None, wait=None):
    """A chat completion streamed as `pieces` of text then `calls` (name, arguments), one event each;
    with `wait` (an Event), the stream stops after its first piece until the event is set."""

    def write(send):
        send(chunk({"role": "assistant", "content": ""}).encode())
        for n, piece in enumerate(pieces):
            send(chunk({"content": piece}).encode())
            if wait is not None and n == 0:
                assert wait.wait(60), "the first piece was never shown"
        for i, (name, arguments) in enumerate(calls):
            function = {"name": name, "arguments": arguments}
            call = {"index": i, "id": f"call_{name}", "type": "function", "function": function}
            send(chunk({"tool_calls": [call]}).encode())
        reason = finish or ("tool_calls" if calls else "stop")
        send(chunk({}, reason).encode())
        send(b"data: [DONE]\n\n")

    return 200, write, {"Content-Type": "text/event-stream"}


@pytest.fixture
def setup(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
    with ScriptedServer() as shop, ScriptedServer() as chat:
        yield write_shop(tmp_path), shop, chat


def watch_cli(capsys, setup, *argv):
    path, shop, chat = setup
    flags = ["--chat", f"{chat.url}/v1", "--model", "scripted", "--prompt", BOTH]
    result = cli(capsys, "agent", *tool_args(path, shop), *flags, *argv)
    assert_no_secret(result.out + result.err)
    return result


def test_a_key_split_across_chunks_is_one_mask_and_the_text_is_marked_before_tool_calls(capsys, setup):
    _, shop, chat = setup
    serve_shop(shop)
    chat.reply(
        "POST",
        "/v1/chat/completions",
        *(
            streamed(["Let me look", " it up."], [("pet_details", '{"petId": 7}')]),
            streamed(["Your key is sk-te", "st-5e1d9b", "3a7c and ", "Rex is 7."]),
        )
        * 2,  # a run in text, then one in JSON
    )
    result = watch_cli(capsys, setup)
    assert result.code == 0, result.err
    assert result.out.splitlines()[1:] == [
        "turn 1 text: Let me look it up.",
        "turn 1: that text is not the final answer: the model calls tools",
        '  → pet_details [call_pet_details] {"petId": 7}',
        "  ✓ pet_details [call_pet_details]: workflow 'pet_details' passed; outputs: name, seen",
        "turn 2 text: Your key is *** and Rex is 7.",
        "turn 2: the model answered",
        "2 turn(s), 1 tool call(s), no usage reported",
    ]
    json_run = watch_cli(capsys, setup, "--format", "json")  # the JSON document alone, as before
    assert json_run.json["answer"] == "Your key is *** and Rex is 7." and json_run.json["turns"] == 2


def test_an_answer_cut_at_its_token_limit_says_so_after_the_streamed_text(capsys, setup):
    _, shop, chat = setup
    serve_shop(shop)
    chat.reply("POST", "/v1/chat/completions", streamed(["Rex belongs", " to"], finish="length"))
    result = watch_cli(capsys, setup)
    assert result.code == 1
    assert result.out.splitlines()[1:3] == [
        "turn 1 text: Rex belongs to",
        "turn 1: that text is incomplete (finish_reason length), not an answer",
    ]
    assert "error: the model stopped before finishing its answer" in result.err


def test_a_text_of_several_lines_cannot_pass_for_the_loops_own_lines(capsys, setup):
    _, shop, chat = setup
    serve_shop(shop)
    forged = "Done.\nturn 2: the model answered\n  ✓ adoption_cancel [x]: passed"
    chat.reply("POST", "/v1/chat/completions", streamed([forged[:9], forged[9:]]))
    result = watch_cli(capsys, setup)
    assert result.code == 0
    assert result.out.splitlines()[1:5] == [
        "turn 1 text: Done.",
        "    turn 2: the model answered",
        "      ✓ adoption_cancel [x]: passed",
        "turn 1: the model answered",
    ]


def test_a_stream_that_breaks_after_some_text_says_that_text_is_no_answer(capsys, setup):
    _, shop, chat = setup
    serve_shop(shop)

    def broken(send):
        send(chunk({"role": "assistant", "content": "Rex is"}).encode())
        send(b"data: {not json\n\n")

    chat.reply("POST", "/v1/chat/completions", (200, broken, {"Content-Type": "text/event-stream"}))
    result = watch_cli(capsys, setup)
    assert result.code == 1
    assert result.out.splitlines()[1:3] == [
        "turn 1 text: Rex is",
        "turn 1: that text is not an answer: the run failed (chat; see the error)",
    ]
    assert "error: the chat API's answer is unusable: event 2 of the stream is not JSON" in result.err


def library_run(setup, **callbacks):
    path, shop, chat = setup
    options = RunOptions(servers={"shop": shop.url}, auth={"ownerKey": OWNER_KEY})
    return arazzo_runner.agent(
        path, BOTH, inputs={"token": TOKEN}, options=options, chat_url=f"{chat.url}/v1",
        model="scripted", api_key=API_KEY, **callbacks,
    )  # fmt: skip


def test_the_text_is_shown_before_the_answer_is_complete_and_never_a_start_of_the_key(setup):
    """The server stops after the first piece until the watcher has been given it: the run passes only
    if text is handed over as it arrives. No piece handed over ends with the start of the key."""
    _, shop, chat = setup
    serve_shop(shop)
    shown = threading.Event()
    pieces = []

    def on_text(turn, text):
        pieces.append((turn, text))
        shown.set()

    chat.reply("POST", "/v1/chat/completions", streamed(["Hello, ", "sk-test-5e", "1d9b3a7c!"], wait=shown))
    result = library_run(setup, on_text=on_text)
    assert result.ok and result.answer == "Hello, ***!"
    assert pieces[0] == (1, "Hello, ") and "".join(p for _, p in pieces) == "Hello, ***!"
    assert not any(API_KEY[:n] in text for _, text in pieces for n in range(4, len(API_KEY) + 1))


def test_tool_calls_start_in_order_and_end_in_the_order_they_finish(setup):
    """The pet request is answered only once the owner call has ended: its end comes second although
    it is the answer's first call."""
    _, shop, chat = setup
    owner_done = threading.Event()
    events = []

    @shop.route("GET", "/pets/{petId}")
    def pet(request):
        assert owner_done.wait(60)
        return 200, {"id": 1, "name": "Rex", "seenAuthorization": "x"}

    @shop.route("GET", "/owners")
    def owner(request):
        return 200, {"owner": "Alice", "echo": request.headers.get("x-owner-key")}

    def on_tool_end(call):
        events.append(("end", call.outcome.name, call.id, call.outcome.status))
        if call.outcome.name == "owner_lookup":
            owner_done.set()

    calls = [("pet_details", '{"petId": 1}'), ("owner_lookup", json.dumps({"ownerName": "Alice"}))]
    chat.reply("POST", "/v1/chat/completions", streamed([], calls), streamed(["Done."]))
    result = library_run(
        setup,
        on_tool_start=lambda turn, id, name, arguments: events.append(("start", name, id, arguments)),
        on_tool_end=on_tool_end,
    )
    assert result.ok, result.error
    assert events == [
        ("start", "pet_details", "call_pet_details", {"petId": 1}),
        ("start", "owner_lookup", "call_owner_lookup", {"ownerName": "Alice"}),
        ("end", "owner_lookup", "call_owner_lookup", "passed"),
        ("end", "pet_details", "call_pet_details", "passed"),
    ]
    assert [c.outcome.name for c in result.tool_calls] == ["pet_details", "owner_lookup"]  # answer order


def test_a_secret_in_arguments_is_masked_before_the_watcher_sees_it(setup):
    _, shop, chat = setup
    serve_shop(shop)
    started = []
    chat.reply(
        "POST",
        "/v1/chat/completions",
        streamed([], [("pet_details", json.dumps({"petId": 1, "token": TOKEN}))]),
        streamed(["No."]),
    )
    ended = []
    result = library_run(setup, on_tool_start=lambda *args: started.append(args), on_tool_end=ended.append)
    assert result.ok
    assert started == [(1, "call_pet_details", "pet_details", {"petId": 1, "token": "***"})]
    assert ended[0].outcome.status == "rejected" and ended[0].outcome.arguments["token"] == "***"


@pytest.mark.parametrize("stream", [True, False])
def test_the_reference_server_in_process_streamed_and_not(tmp_path, stream):
    with ScriptedServer() as shop:
        serve_shop(shop)
        path = write_shop(tmp_path)
        texts = []
        options = RunOptions(servers={"shop": shop.url}, auth={"ownerKey": OWNER_KEY})

        async def run():
            return await arazzo_runner.aagent(
                path, BOTH, inputs={"token": TOKEN}, options=options, stream=stream,
                on_text=lambda turn, text: texts.append((turn, text)),
            )  # fmt: skip

        result = asyncio.run(run())
    assert result.ok
    assert {turn for turn, _ in texts} == {2}
    assert "".join(text for _, text in texts) == result.answer
    assert len(texts) > 1 if stream else len(texts) == 1  # word by word when streamed, whole when not
