"""`agents/mcp/fast.py` alone: which messages it answers and which it leaves to the SDK's session, what
it writes for a call, a cancelled call, the end of stdin, and how it bounds the calls it keeps. The
calls are a stand-in (`Calls`) whose results the test releases; tests/e2e/test_mcp_fast.py compares
the answers with the SDK's over real pipes."""

from __future__ import annotations

import asyncio
import json
from types import SimpleNamespace

import pytest

from arazzo_runner.agents.mcp import fast
from arazzo_runner.agents.mcp.fast import FastCalls, encode, parse
from arazzo_runner.masking.secrets import Masker

ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "1"},
    "io.modelcontextprotocol/clientCapabilities": {},
}
RESULT = {
    "content": [{"type": "text", "text": "ok"}],
    "structuredContent": {"status": "passed"},
    "isError": False,
}


class Calls:
    """ToolCalls' face: one tool, `echo`; each result waits until the test releases it."""

    def __init__(self) -> None:
        self.masker = Masker({"s3cret"})
        self.started: list[dict] = []
        self.release = asyncio.Event()
        self.ended: list[str] = []

    def tool(self, name):
        return SimpleNamespace(name="echo") if name == "echo" else None

    async def result(self, tool, arguments):
        self.started.append(arguments)
        try:
            await self.release.wait()
        except asyncio.CancelledError:
            self.ended.append("cancelled")
            raise
        if arguments.get("boom"):
            raise RuntimeError("it broke with s3cret")
        self.ended.append("done")
        return RESULT


def call(request_id=1, meta=None, **params):
    params = {"name": "echo", "arguments": {"n": 1}, **params}
    if meta is not None:
        params["_meta"] = meta
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


OPENING = {"jsonrpc": "2.0", "id": "open", "method": "ping", "params": {"_meta": ENVELOPE}}


def fresh(opening: dict | None = OPENING):
    """FastCalls over the stand-in; `opening`: the connection's first request (the SDK's, whose era it
    sets: by default the stateless protocol's)."""
    written: list[dict] = []

    async def write(line: bytes) -> None:
        assert line.endswith(b"\n") and line.count(b"\n") == 1
        written.append(json.loads(line))

    calls = Calls()
    fast_calls = FastCalls(calls, write)
    if opening is not None:
        assert not fast_calls.take(opening)
    return fast_calls, calls, written


def handshake(calls: FastCalls, version: str = "2025-06-18") -> None:
    assert not calls.take({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {}})
    calls.sent(SimpleNamespace(id=0, result={"protocolVersion": version}))
    assert not calls.take({"jsonrpc": "2.0", "method": "notifications/initialized"})


def run(coroutine):
    return asyncio.run(coroutine)


def test_a_call_of_the_stateless_protocol_is_answered_here_stamped_as_the_sdk_stamps_it():
    async def main():
        calls, tools, written = fresh()
        assert calls.take(call(7, ENVELOPE))
        tools.release.set()
        await asyncio.sleep(0.01)
        return written

    (answer,) = run(main())
    assert answer == {
        "jsonrpc": "2.0",
        "id": 7,
        "result": {
            **RESULT,
            "resultType": "complete",
            "_meta": {
                "io.modelcontextprotocol/serverInfo": {"name": "arazzo-engine", "version": fast.__version__}
            },
        },
    }


@pytest.mark.parametrize(
    "meta",
    [
        None,  # no envelope and no handshake
        {},
        {**ENVELOPE, "progressToken": 3},
        {**ENVELOPE, "io.modelcontextprotocol/protocolVersion": "2025-11-25"},
        {**ENVELOPE, "io.modelcontextprotocol/clientInfo": {"name": "test"}},
        {**ENVELOPE, "io.modelcontextprotocol/clientCapabilities": None},
        {**ENVELOPE, "io.modelcontextprotocol/related-task": {"taskId": "t"}},
        [],
    ],
)
def test_what_the_stateless_protocol_does_not_say_exactly_so_goes_to_the_sdk(meta):
    async def main():
        calls, _, _ = fresh()
        return calls.take(call(1, meta))

    assert run(main()) is False


@pytest.mark.parametrize(
    "message",
    [
        call(True, ENVELOPE),  # an id that is a boolean
        call(1.5, ENVELOPE),
        call(None, ENVELOPE),
        call(1, ENVELOPE, name="nope"),  # no such tool: the SDK's invalid-params error
        call(1, ENVELOPE, name=None),
        call(1, ENVELOPE, arguments=[1]),
        call(1, ENVELOPE, arguments="{}"),
        call(1, ENVELOPE, arguments=[]),  # falsy, and still no object: the SDK's invalid params
        call(1, ENVELOPE, arguments=""),
        call(1, ENVELOPE, arguments=0),
        call(1, ENVELOPE, arguments=False),
        call(1, ENVELOPE, task={"ttl": 1}),  # a member of params this module does not know
        {**call(1, ENVELOPE), "extra": 1},
        {**call(1, ENVELOPE), "jsonrpc": "1.0"},
        {**call(1, ENVELOPE), "params": None},
        {"jsonrpc": "2.0", "method": "tools/call", "params": call(1, ENVELOPE)["params"]},  # a notification
        {"jsonrpc": "2.0", "id": 1, "method": "ping"},
        None,
        [call(1, ENVELOPE)],
    ],
)
def test_a_message_not_exactly_a_plain_call_goes_to_the_sdk(message):
    async def main():
        calls, _, _ = fresh()
        return calls.take(message)

    assert run(main()) is False


def test_absent_arguments_are_no_arguments():
    async def main():
        calls, tools, _ = fresh()
        message = call(1, ENVELOPE)
        del message["params"]["arguments"]
        assert calls.take(message)
        message = call(2, ENVELOPE, arguments=None)
        assert calls.take(message)
        await asyncio.sleep(0)
        return tools.started

    assert run(main()) == [{}, {}]


@pytest.mark.parametrize("version", ["2025-06-18", "2025-11-25"])
def test_after_the_handshake_a_call_without_meta_is_answered_here_as_it_is(version):
    async def main():
        calls, tools, written = fresh(None)
        assert not calls.take(call(1))  # before the handshake: the SDK's (which refuses it)
        handshake(calls, version)
        assert calls.take(call(2)) and calls.take(call(3, {}))
        assert not calls.take(call(4, {"progressToken": "p"}))
        assert not calls.take(call(5, ENVELOPE))  # the envelope on a handshake connection: the SDK's
        tools.release.set()
        await asyncio.sleep(0.01)
        return written

    assert run(main()) == [{"jsonrpc": "2.0", "id": n, "result": RESULT} for n in (2, 3)]


@pytest.mark.parametrize("version", ["2024-11-05", "2025-03-26", "2026-07-28", None])
def test_a_handshake_in_another_version_leaves_every_call_to_the_sdk(version):
    async def main():
        calls, _, _ = fresh(None)
        handshake(calls, version)
        return calls.take(call(1)), calls.take(call(2, ENVELOPE))

    assert run(main()) == (False, False)


def test_the_handshake_counts_only_once_the_sdk_answered_initialize_and_the_client_said_initialized():
    async def main():
        calls, _, _ = fresh(None)
        calls.take({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {}})
        calls.sent(SimpleNamespace(id="other", result={"protocolVersion": "2025-06-18"}))
        calls.sent(SimpleNamespace(id="init", error={"code": -32602}))  # refused: no result
        calls.take({"jsonrpc": "2.0", "method": "notifications/initialized"})
        refused = calls.take(call(1))
        calls.sent(SimpleNamespace(id="init", result={"protocolVersion": "2025-06-18"}))
        return refused, calls.take(call(2))

    assert run(main()) == (False, True)


def test_between_the_answer_to_initialize_and_the_clients_initialized_calls_go_to_the_sdk():
    async def main():
        calls, _, _ = fresh(None)
        calls.take({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {}})
        calls.sent(SimpleNamespace(id=0, result={"protocolVersion": "2025-06-18"}))
        early = calls.take(call(1))
        calls.take({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return early, calls.take(call(2))

    assert run(main()) == (False, True)


def test_an_id_in_flight_here_is_not_taken_twice():
    async def main():
        calls, tools, _ = fresh()
        assert calls.take(call("a", ENVELOPE))
        taken = calls.take(call("a", ENVELOPE))
        tools.release.set()
        await asyncio.sleep(0.01)
        return taken, calls.take(call("a", ENVELOPE))  # answered: the id is free again

    assert run(main()) == (False, True)


def test_a_cancelled_call_stops_and_is_not_answered_and_the_notification_goes_on_to_the_sdk():
    async def main():
        calls, tools, written = fresh()
        assert calls.take(call(1, ENVELOPE)) and calls.take(call(2, ENVELOPE))
        await asyncio.sleep(0)
        cancel = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}}
        assert not calls.take(cancel)
        assert not calls.take({**cancel, "params": {"requestId": 99}})  # not ours: nothing happens
        assert not calls.take({**cancel, "params": [1]})
        await asyncio.sleep(0)
        tools.release.set()
        await asyncio.sleep(0.01)
        return [a["id"] for a in written], tools.ended

    assert run(main()) == ([2], ["cancelled", "done"])


def test_at_the_end_of_stdin_the_calls_in_flight_stop_and_are_answered_connection_closed():
    async def main():
        calls, tools, written = fresh()
        assert calls.take(call(1, ENVELOPE)) and calls.take(call("two", ENVELOPE))
        await asyncio.sleep(0)
        await calls.close()
        return written, tools.ended

    written, ended = run(main())
    assert ended == ["cancelled", "cancelled"]
    assert written == [
        {"jsonrpc": "2.0", "id": i, "error": {"code": -32000, "message": "Connection closed"}}
        for i in (1, "two")
    ]


def test_a_fault_of_ours_is_answered_as_an_internal_error_masked():
    async def main():
        calls, tools, written = fresh()
        assert calls.take(call(1, ENVELOPE, arguments={"boom": True}))
        tools.release.set()
        await asyncio.sleep(0.01)
        return written

    (answer,) = run(main())
    assert answer["error"] == {"code": -32603, "message": "Internal server error"}  # as the SDK's


def test_a_fault_of_ours_after_the_handshake_is_answered_as_the_sdk_does_there_but_masked():
    async def main():
        calls, tools, written = fresh(None)
        handshake(calls)
        assert calls.take(call(1, arguments={"boom": True}))
        tools.release.set()
        await asyncio.sleep(0.01)
        return written

    (answer,) = run(main())
    assert answer["error"] == {"code": 0, "message": "RuntimeError: it broke with ***"}


def test_at_most_max_pending_calls_are_kept_and_room_waits_for_one_to_end(monkeypatch):
    monkeypatch.setattr(fast, "MAX_PENDING", 3)

    async def main():
        calls, tools, written = fresh()
        for n in range(3):
            assert calls.take(call(n, ENVELOPE))
        assert calls.full()
        waiting = asyncio.ensure_future(calls.room())
        await asyncio.sleep(0.01)
        blocked = not waiting.done()
        tools.release.set()
        await asyncio.wait_for(waiting, 5)
        return blocked, calls.full(), len(written)

    assert run(main()) == (True, False, 3)


def test_encode_writes_one_compact_line_of_json_whatever_the_values():
    assert encode({"a": [1, "é"]}) == '{"a":[1,"é"]}\n'.encode()
    assert encode({"a": float("nan"), "b": [float("inf")], "c": 1.5}) == b'{"a":null,"b":[null],"c":1.5}\n'
    assert encode({"a": "\ud800x", "\udfff": 1}) == '{"a":"\ufffdx","\ufffd":1}\n'.encode()
    assert encode({"d": object}) == b'{"d":"<class \'object\'>"}\n'


def test_parse_reads_what_the_sdk_reads_as_json():
    assert parse('{"a": 1}') == {"a": 1}
    assert parse('{"a": NaN}') is None
    assert parse('{"a": -Infinity}') is None
    assert parse("not json") is None
    assert parse("[" * 100_000) is None  # too deep for json
    assert parse('{"a": "\\ud800"}') is None  # a surrogate escape: the SDK's parser decides
    assert parse('{"a": "\\uDC00 and \\u00e9"}') is None
    assert parse('{"a": "\\u00e9"}') == {"a": "é"}


def test_answers_waiting_for_a_full_stdout_count_among_the_calls_kept(monkeypatch):
    """A client that sends calls and never reads stdout: each answer waits in `write` (the pipe's
    buffer), so it must count toward MAX_PENDING, else stdin is read on and answers pile up."""
    monkeypatch.setattr(fast, "MAX_PENDING", 3)

    async def main():
        stalled = asyncio.Event()  # stdout never drains
        waiting: list[bytes] = []

        async def write(line: bytes) -> None:
            waiting.append(line)
            await stalled.wait()

        tools = Calls()
        tools.release.set()
        calls = FastCalls(tools, write)
        assert not calls.take(OPENING)
        for n in range(3):
            assert calls.take(call(n, ENVELOPE))
        await asyncio.sleep(0.01)
        return len(waiting), calls.full()

    assert run(main()) == (3, True)


def test_the_first_request_is_the_sdks_and_sets_the_era_of_every_call_after_it():
    async def main():
        found = {}
        calls, _, _ = fresh(None)
        found["first call"] = calls.take(call(1, ENVELOPE))  # the first request: the SDK's
        found["modern"] = calls.take(call(2, ENVELOPE)), calls.take(call(3))
        calls.take({"jsonrpc": "2.0", "id": 4, "method": "initialize", "params": {}})  # refused there
        found["after an initialize"] = calls.take(call(5, ENVELOPE))
        calls, _, _ = fresh({"jsonrpc": "2.0", "id": 1, "method": "ping"})  # no envelope: legacy
        found["legacy"] = calls.take(call(2, ENVELOPE)), calls.take(call(3))
        calls, _, _ = fresh({**OPENING, "extra": 1})  # not read as the SDK reads it: nothing taken
        found["unknown"] = calls.take(call(2, ENVELOPE))
        calls, _, _ = fresh(None)
        calls.take({"jsonrpc": "2.0", "method": "notifications/initialized"})  # a notification first
        calls.take({"jsonrpc": "2.0", "id": 9, "result": {}})  # an answer: no request
        found["notifications do not open"] = calls.take(call(1, ENVELOPE)), calls.take(call(2, ENVELOPE))
        return found

    assert run(main()) == {
        "first call": False,
        "modern": (True, False),
        "after an initialize": True,
        "legacy": (False, False),
        "unknown": False,
        "notifications do not open": (False, True),
    }


@pytest.mark.parametrize(
    ("client_info", "capabilities", "taken"),
    [
        ({"name": "t", "version": "1", "title": "T"}, {}, True),
        ({"name": "t", "version": "1", "title": 5}, {}, False),  # the SDK validates all of clientInfo
        ({"name": "t"}, {}, False),
        ({"name": "t", "version": "1"}, {"roots": 5}, False),
        ({"name": "t", "version": "1"}, {"roots": {"listChanged": True}}, True),
        (None, {}, True),  # clientInfo is optional to the SDK
    ],
)
def test_the_envelope_is_checked_by_the_sdks_own_rules(client_info, capabilities, taken):
    meta = {**ENVELOPE, "io.modelcontextprotocol/clientCapabilities": capabilities}
    if client_info is None:
        del meta["io.modelcontextprotocol/clientInfo"]
    else:
        meta["io.modelcontextprotocol/clientInfo"] = client_info

    async def main():
        calls, _, _ = fresh()
        first = calls.take(call(1, meta))
        return first, calls.take(call(2, dict(meta))), len(calls.envelopes)

    assert run(main()) == (taken, taken, 1)  # checked once (the opening's is the SDK's alone)


def test_a_cancel_reads_the_id_as_the_sdk_does():
    async def main():
        calls, tools, written = fresh()
        assert calls.take(call(1, ENVELOPE)) and calls.take(call("x1", ENVELOPE))
        assert not calls.take(call("1", ENVELOPE))  # the same id to the SDK: in flight here
        await asyncio.sleep(0)
        cancel = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "1"}}
        calls.take(cancel)
        tools.release.set()
        await asyncio.sleep(0.01)
        return [a["id"] for a in written]

    assert run(main()) == ["x1"]


@pytest.mark.parametrize("cancelled", [False, True])
def test_an_answer_on_its_way_to_stdout_is_neither_cancelled_nor_answered_again_at_the_end(cancelled):
    async def main():
        stdout_free = asyncio.Event()
        written: list[dict] = []
        whole: list[int] = []  # the answers stdout took to their end (a cancelled write is cut)

        async def write(line: bytes) -> None:
            written.append(json.loads(line))
            await stdout_free.wait()  # the client is not reading: the answer waits in the pipe
            whole.append(json.loads(line)["id"])

        tools = Calls()
        calls = FastCalls(tools, write)
        assert not calls.take(OPENING)
        assert calls.take(call(1, ENVELOPE))
        tools.release.set()
        await asyncio.sleep(0.01)  # its answer is written, waiting for stdout
        if cancelled:  # too late: the answer is on its way
            calls.take({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}})
        closing = asyncio.ensure_future(calls.close())
        await asyncio.sleep(0.01)
        stdout_free.set()
        await asyncio.wait_for(closing, 5)
        await asyncio.sleep(0.01)
        return (
            [(a["id"], a.get("result", a.get("error"))["isError"]) for a in written],
            whole,
            calls.tasks,
            calls.ids,
        )

    assert run(main()) == ([(1, False)], [1], {}, {})  # its answer alone, once, whole


def test_an_initialize_carrying_the_envelope_opens_the_handshakes_era_as_at_the_sdk():
    async def main():
        opening = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"_meta": ENVELOPE}}
        calls, _, _ = fresh(opening)
        return calls.era, calls.take(call(1, ENVELOPE))

    assert run(main()) == ("legacy", False)


def test_a_result_holding_a_lone_surrogate_carries_u_fffd_in_its_place():
    from arazzo_runner.agents.mcp.calls import _replaced, unpaired

    assert unpaired("a\ud800b\udfffc\U0001f600") == "a\ufffdb\ufffdc\U0001f600"
    assert _replaced({"k\ud800": ["v\udfff", 1, {"x": "\ud83d"}], "ok": None}) == {
        "k\ufffd": ["v\ufffd", 1, {"x": "\ufffd"}],
        "ok": None,
    }


def test_a_call_cancelled_just_before_the_end_of_stdin_is_not_answered():
    """Its task not ended yet when stdin ends: stopped, and never answered (the client cancelled it)."""

    async def main():
        calls, tools, written = fresh()
        assert calls.take(call(1, ENVELOPE))
        await asyncio.sleep(0)
        calls.take({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}})
        await calls.close()
        return written, tools.ended

    assert run(main()) == ([], ["cancelled"])
