"""One model answer cannot start unbounded work (issue 23, point 5): `arazzo agent` runs at most
`--max-tool-calls` calls of an answer, each one past them answered with an error the model reads, and
at most `--max-tool-calls-in-flight` at once; `arazzo mcp` runs at most that many at once whichever
clients sent them. A scripted chat server and the MCP SDK's client over stdio drive real `arazzo`
runs; the shop API records how many of its requests were in flight at once."""

from __future__ import annotations

import asyncio
import json
import threading

import pytest

from tests.e2e.agentkit import API_KEY, assert_no_secret, serve_shop, tool_args, write_shop
from tests.e2e.helpers import cli
from tests.e2e.test_agent_loop import completion
from tests.servers.scripted import ScriptedServer
from tests.untested import importorskip_untested


class Gauge:
    """How many requests the shop is serving at once, and the most it ever was."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.now = self.most = self.total = 0

    def serve(self, server: ScriptedServer) -> None:
        @server.route("GET", "/pets/{petId}")
        def pet(request):
            with self.lock:
                self.now += 1
                self.total += 1
                self.most = max(self.most, self.now)
            threading.Event().wait(0.02)  # long enough for the others to pile up, if they may
            with self.lock:
                self.now -= 1
            return 200, {"id": int(request.params["petId"]), "name": "Rex"}


@pytest.fixture
def shop(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
    gauge = Gauge()
    with ScriptedServer() as server:
        gauge.serve(server)  # before the shop's own route for pets: the first route that matches answers
        serve_shop(server)
        yield write_shop(tmp_path), server, gauge


def test_an_answer_with_hundreds_of_tool_calls_runs_a_bounded_number(capsys, shop):
    path, server, gauge = shop
    calls = [("pet_details", json.dumps({"petId": n})) for n in range(300)]
    with ScriptedServer() as chat:
        chat.reply("POST", "/v1/chat/completions", completion(None, *calls), completion("Done."))
        result = cli(
            capsys, "agent", *tool_args(path, server), "--chat", f"{chat.url}/v1", "--model", "m",
            "--no-stream", "--prompt", "all the pets", "--max-tool-calls", "40",
            "--max-tool-calls-in-flight", "4", "--format", "json",
        )  # fmt: skip
        sent = [r.json() for r in chat.requests]
    assert result.code == 0, result.err
    assert_no_secret(result.out + result.err)
    outcomes = result.json["toolCalls"]
    assert [c["status"] for c in outcomes] == ["passed"] * 40 + ["rejected"] * 260
    assert gauge.total == 40 and 1 <= gauge.most <= 4, (gauge.total, gauge.most)
    assert sorted(int(r.params["petId"]) for r in server.requests) == list(range(40))
    refused = outcomes[40]["error"]["message"]
    assert refused == (
        "not run: this answer made 300 tool calls and at most 40 run per answer (the first 40 did); "
        "call this one again in your next answer if it is still needed"
    )
    # every call is answered, in order, under its own id: the model reads why the rest did not run
    tool_messages = [m for m in sent[1]["messages"] if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in tool_messages] == [f"call_pet_details_{n}" for n in range(300)]
    assert json.loads(tool_messages[299]["content"]) == {"status": "rejected", "error": {"message": refused}}


def test_the_defaults_bound_an_answer_too(capsys, shop):
    from arazzo_runner.bounds import limits

    path, server, gauge = shop
    calls = [("pet_details", json.dumps({"petId": n})) for n in range(limits.MAX_TOOL_CALLS + 36)]
    with ScriptedServer() as chat:
        chat.reply("POST", "/v1/chat/completions", completion(None, *calls), completion("Done."))
        result = cli(
            capsys, "agent", *tool_args(path, server), "--chat", f"{chat.url}/v1", "--model", "m",
            "--no-stream", "--prompt", "all the pets", "--format", "json",
        )  # fmt: skip
    assert result.code == 0, result.err
    statuses = [c["status"] for c in result.json["toolCalls"]]
    assert statuses.count("passed") == limits.MAX_TOOL_CALLS and statuses.count("rejected") == 36
    assert gauge.total == limits.MAX_TOOL_CALLS and gauge.most <= limits.TOOL_CALLS_IN_FLIGHT


def test_the_mcp_server_runs_a_bounded_number_of_calls_at_once(shop, tmp_path):
    mcp = importorskip_untested("mcp", "`arazzo mcp` (the MCP server)")
    from tests.e2e.test_mcp import stdio

    path, server, gauge = shop

    async def main():
        with open(tmp_path / "server.log", "w", encoding="utf-8") as errlog:
            async with stdio(path, server, errlog, "--max-tool-calls-in-flight", "3") as client:
                return await asyncio.gather(
                    *(client.call_tool("pet_details", {"petId": n}) for n in range(24))
                )

    results = asyncio.run(main())
    assert [r.is_error for r in results] == [False] * 24
    assert isinstance(mcp.Client, type)
    assert gauge.total == 24 and 1 <= gauge.most <= 3, (gauge.total, gauge.most)
