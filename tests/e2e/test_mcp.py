"""`arazzo mcp` end to end with the official MCP client (the SDK's `mcp.Client`), over stdio and over
streamable HTTP, the server a real `arazzo` process and the tools' API a real local server."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import subprocess
import sys
import threading

import httpx
import pytest

from arazzo_runner.extras import install_hint
from tests.e2e.agentkit import OWNER_KEY, TOKEN, assert_no_secret, serve_shop, tool_args, write_shop
from tests.e2e.helpers import ROOT, cli
from tests.servers.scripted import ScriptedServer
from tests.untested import not_installed

mcp = pytest.importorskip("mcp", reason=not_installed("mcp", "`arazzo mcp` (the MCP server)"))
from mcp import Client, StdioServerParameters  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402
from mcp.shared.exceptions import MCPError  # noqa: E402


@pytest.fixture
def shop(tmp_path):
    with ScriptedServer() as server:
        yield write_shop(tmp_path), server


def environment(**extra):
    return {**{k: v for k, v in os.environ.items() if k.startswith(("ARAZZO_", "PATH", "HOME"))}, **extra}


def stdio(path, server, errlog, *extra, mode="auto"):
    argv = ["-m", "arazzo_runner.cli", "mcp", *tool_args(path, server), *extra]
    params = StdioServerParameters(command=sys.executable, args=argv, cwd=str(ROOT), env=environment())
    return Client(stdio_client(params, errlog=errlog), mode=mode)


async def exercise(client):
    """List the tools, call one that passes (with progress), one that fails, one the server refuses, and
    two at once; everything the client received, as text."""
    seen = []
    listed = await client.list_tools()
    progress = []

    async def on_progress(value, total, message):
        progress.append((value, message))

    passed = await client.call_tool("pet_details", {"petId": 3}, progress_callback=on_progress)
    failed = await client.call_tool("adoption_cancel", {"adoptionId": 1})
    refused = await client.call_tool("pet_details", {"petId": 3, "token": "guess"})
    both = await asyncio.gather(
        client.call_tool("pet_details", {"petId": 4}),
        client.call_tool("owner_lookup", {"ownerName": "Alice"}),
    )
    with pytest.raises(MCPError, match="no tool named 'nope'"):
        await client.call_tool("nope", {})
    for result in (listed, passed, failed, refused, *both):
        seen.append(result.model_dump_json())
    return listed, progress, passed, failed, refused, both, "\n".join(seen)


def check(listed, progress, passed, failed, refused, both, seen, shop_server):
    tools = {tool.name: tool for tool in listed.tools}
    assert list(tools) == ["pet_details", "owner_lookup", "adoption_cancel"]
    pet = tools["pet_details"]
    assert pet.input_schema["required"] == ["petId"] and "token" not in pet.input_schema["properties"]
    assert pet.annotations.read_only_hint is True and pet.title == "pet_details"
    cancel = tools["adoption_cancel"].annotations
    assert (cancel.read_only_hint, cancel.destructive_hint, cancel.open_world_hint) == (False, True, True)
    assert pet.description == "Look up a pet by its id.\n\nReturns its outputs: name, seen."

    assert passed.is_error is False
    assert passed.structured_content == {"status": "passed", "outputs": {"name": "Rex", "seen": "***"}}
    assert passed.content[0].text == "workflow 'pet_details' passed; outputs: name, seen"
    assert progress == [(1.0, "step 'getPet' started"), (2.0, "step 'getPet' passed (HTTP 200)")]

    assert failed.is_error is True
    error = failed.structured_content["error"]
    assert failed.structured_content["status"] == "failed"
    assert (error["stepId"], error["statusCode"], error["failedCriteria"]) == (
        "cancel",
        409,
        ["$statusCode == 204: got 409"],
    )
    assert failed.content[0].text == (
        "workflow 'adoption_cancel' failed at step 'cancel': "
        "successCriteria failed: $statusCode == 204: got 409"
    )
    assert refused.is_error is True and refused.structured_content["status"] == "rejected"
    assert refused.structured_content["error"]["message"] == (
        "'***' is not a parameter of tool 'pet_details'\nits parameters: petId (what the server supplies, "
        "such as credentials, is never passed); nothing was sent"
    )
    assert [r.is_error for r in both] == [False, False]
    assert both[1].structured_content["outputs"] == {"owner": "Alice", "echo": "***"}
    assert_no_secret(seen)
    by_path = {r.path: r.headers for r in shop_server.requests}
    assert by_path["/pets/3"]["authorization"] == f"Bearer {TOKEN}"
    assert by_path["/owners"]["x-owner-key"] == OWNER_KEY
    assert "/pets/3" in by_path and len([r for r in shop_server.requests if r.path == "/pets/3"]) == 1


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_over_stdio(shop, tmp_path, mode):
    path, server = shop
    serve_shop(server, threading.Barrier(2, timeout=60), alone=("3",))  # pet 4 and the owner: at once
    log = tmp_path / "server.log"

    async def main():
        with open(log, "w", encoding="utf-8") as errlog:
            async with stdio(path, server, errlog, mode=mode) as client:
                return await exercise(client)

    found = asyncio.run(main())
    check(*found, server)
    text = log.read_text(encoding="utf-8")
    assert "arazzo mcp: 3 tool(s) over stdio" in text
    assert_no_secret(text)


@contextlib.contextmanager
def http_process(path, server, *extra, env=None):
    """`arazzo mcp ... --transport http --port 0` as a real process; yields (its URL, its stderr so far)
    and leaves the rest of stderr in `http_process.rest`."""
    argv = [sys.executable, "-m", "arazzo_runner.cli", "mcp", *tool_args(path, server)]
    argv += ["--transport", "http", "--port", "0", *extra]
    proc = subprocess.Popen(
        argv,
        cwd=ROOT,
        env=environment(**(env or {})),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        first = proc.stderr.readline()
        found = re.search(r" at (http://\S+/mcp) ", first)
        assert found, first + proc.stderr.read()
        yield found.group(1), first
    finally:
        proc.terminate()
        _, rest = proc.communicate(timeout=60)
        http_process.rest = rest


def test_over_streamable_http(shop):
    path, server = shop
    serve_shop(server, threading.Barrier(2, timeout=60), alone=("3",))

    async def main(url):
        async with Client(url) as client:
            return await exercise(client)

    with http_process(path, server) as (url, first):
        assert url.startswith("http://127.0.0.1:")
        assert "(streamable HTTP; loopback only, no token)" in first
        found = asyncio.run(main(url))
    check(*found, server)
    assert_no_secret(http_process.rest)
    assert "Traceback" not in http_process.rest


def test_an_api_answering_a_lone_surrogate_escape_reaches_the_official_client_as_u_fffd(shop, tmp_path):
    """`"\\ud800"` in an API's JSON reads as a lone surrogate, which no UTF-8 carries and whose escape
    the official client's parser refuses ("Failed to parse JSON response"): the result carries U+FFFD
    in its place, over both transports (stdio: the call answered beside the SDK's session)."""
    path, server = shop
    server.route("GET", "/pets/{petId}")(lambda request: (200, {"id": 3, "name": "x\ud800y"}))

    async def call(client):
        first = await client.call_tool("pet_details", {"petId": 3})
        return first, await client.call_tool("pet_details", {"petId": 3})  # the second: beside the SDK

    async def over_stdio():
        with open(tmp_path / "server.log", "w", encoding="utf-8") as errlog:
            async with stdio(path, server, errlog) as client:
                return await call(client)

    async def over_http(url):
        async with Client(url) as client:
            return await call(client)

    found = list(asyncio.run(over_stdio()))
    with http_process(path, server) as (url, _):
        found += asyncio.run(over_http(url))
    for result in found:
        assert result.is_error is False
        assert result.structured_content["outputs"]["name"] == "x\ufffdy"
        assert "x\ufffdy" in result.content[1].text


def test_another_address_needs_a_bearer_token(capsys, shop):
    path, server = shop
    result = cli(
        capsys, "mcp", *tool_args(path, server), "--transport", "http", "--host", "0.0.0.0", "--port", "0"
    )
    assert result.code == 2
    assert result.err.strip() == (
        "error: --host 0.0.0.0 is not a loopback address: the server would be reachable from other "
        "machines, so it needs a bearer token (--token, or the variable ARAZZO_MCP_TOKEN)"
    )
    assert server.requests == []


def test_with_a_token_every_request_must_carry_it(shop):
    import httpx2

    path, server = shop
    serve_shop(server)
    secret = "mcp-token-4b8e2d6f"

    async def main(url):
        headers = {"Authorization": f"Bearer {secret}"}
        async with (
            httpx2.AsyncClient(headers=headers, timeout=60) as http,
            Client(streamable_http_client(url, http_client=http)) as client,
        ):
            return await client.list_tools(), await client.call_tool("pet_details", {"petId": 3})

    with http_process(path, server, "--host", "0.0.0.0", env={"ARAZZO_MCP_TOKEN": secret}) as (url, first):
        assert "every request needs the bearer token" in first
        local = url.replace("0.0.0.0", "127.0.0.1")
        for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": secret}):
            refused = httpx.post(local, json={"jsonrpc": "2.0", "id": 1, "method": "ping"}, headers=headers)
            assert refused.status_code == 401 and refused.headers["www-authenticate"] == "Bearer"
        listed, passed = asyncio.run(main(local))
    assert len(listed.tools) == 3 and passed.structured_content["outputs"]["name"] == "Rex"
    assert secret not in http_process.rest


def test_without_the_sdk_one_line_says_what_to_install(capsys, shop, monkeypatch):
    path, server = shop
    for name in [n for n in sys.modules if n == "mcp" or n.startswith("mcp.")]:
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.setitem(sys.modules, "mcp", None)
    result = cli(capsys, "mcp", *tool_args(path, server))
    assert result.code == 2
    assert result.err == (
        f"error: arazzo mcp needs the MCP SDK: {install_hint('mcp')} (or pip install 'mcp>=2.3')\n"
    )
