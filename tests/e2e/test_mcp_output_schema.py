"""`arazzo mcp` declares each tool's `outputSchema`, derived from the response schemas its outputs read,
and keeps every structured content valid against it: the official MCP client (which validates the
structured content of a result that is not an error) over stdio and streamable HTTP, on a document
whose outputs read response schemas (`tests/e2e/vaultkit.py`) and on a shipped workflow against the
reference server; failed and refused calls are checked against the schema here (the client checks
only successes). No hidden input's name reaches the client either."""

from __future__ import annotations

import asyncio
import re
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from tests.e2e.helpers import ROOT, cli
from tests.e2e.vaultkit import assert_unspoken, serve_vault, vault_args, write_vault
from tests.servers.scripted import ScriptedServer
from tests.untested import not_installed

mcp = pytest.importorskip("mcp", reason=not_installed("mcp", "`arazzo mcp` (the MCP server)"))
from mcp import Client, StdioServerParameters  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402

NULL_OR_MASKED = [{"type": "null"}, {"const": "***"}]


def derived(schema):
    return {"anyOf": [schema, *NULL_OR_MASKED]}


@pytest.fixture
def vault(tmp_path):
    with ScriptedServer() as server:
        serve_vault(server)
        yield write_vault(tmp_path), server


def stdio_client_for(argv, errlog):
    params = StdioServerParameters(command=sys.executable, args=["-m", "arazzo_runner.cli", "mcp", *argv])
    return Client(stdio_client(params, errlog=errlog))


async def exercise(client):
    listed = await client.list_tools()
    calls = {}
    for key, (name, arguments) in {
        "passed": ("find_pet", {"petId": 1}),
        "null": ("find_pet", {"petId": 8}),
        "outside": ("find_pet", {"petId": 7}),
        "failed": ("find_pet", {"petId": 13}),
        "refused": ("find_pet", {"petId": 1, "realm": "x"}),
        "nested": ("pet_report", {"petId": 1}),
    }.items():
        calls[key] = await client.call_tool(name, arguments)  # the client validates the successes
    return listed, calls


def check(listed, calls):
    assert_unspoken(listed.model_dump_json())
    tools = {tool.name: tool for tool in listed.tools}
    schema = tools["find_pet"].output_schema
    jsonschema.Draft202012Validator.check_schema(schema)
    outputs = schema["properties"]["outputs"]["properties"]
    assert outputs["id"] == derived({"type": "integer", "exclusiveMinimum": 0})  # OpenAPI 3.0's boolean form
    assert outputs["name"] == derived({"type": ["string", "null"]})  # nullable
    assert outputs["status"] == derived({"type": "integer"})  # $statusCode
    assert outputs["firstTag"] == derived({"type": "string"})  # /tags/0/label through a $ref
    assert outputs["code"] == derived({"type": "string"})  # its pattern left out
    assert outputs["note"] == derived({"type": "string"})  # a visible input's own schema
    pet = outputs["pet"]["anyOf"][0]
    assert pet["properties"]["parent"] == {}  # the cycle cut
    assert pet["properties"]["tags"]["items"] == {
        "type": "object",
        "properties": {"label": {"type": "string"}},
    }
    assert tools["pet_report"].output_schema["properties"]["outputs"]["properties"]["name"] == outputs["name"]

    for key, result in calls.items():
        assert_unspoken(result.model_dump_json())
        tool = "pet_report" if key == "nested" else "find_pet"
        jsonschema.validate(result.structured_content, tools[tool].output_schema)
    assert (
        calls["passed"].is_error is False
        and calls["passed"].structured_content["outputs"]["firstTag"] == "good"
    )
    assert calls["null"].is_error is False and calls["null"].structured_content["outputs"]["name"] is None
    outside = calls["outside"]
    assert outside.is_error is True
    error = outside.structured_content["error"]
    assert error["message"].startswith(
        "the workflow ran, but its output(s) id, pet did not fit the tool's output schema "
        "(the API answered outside its description?): outputs/id: "
    )
    assert error["outputs"]["id"] == "seven"  # kept, for whoever reads it
    assert outside.content[0].text.startswith("tool 'find_pet' failed: the workflow ran, but")
    assert (
        calls["failed"].is_error is True and calls["failed"].structured_content["error"]["statusCode"] == 200
    )
    assert calls["refused"].structured_content["status"] == "rejected"
    assert calls["nested"].structured_content["status"] == "failed"


def test_over_stdio(vault, tmp_path):
    path, server = vault

    async def main():
        with open(tmp_path / "server.log", "w", encoding="utf-8") as errlog:
            async with stdio_client_for(vault_args(path, server), errlog) as client:
                return await exercise(client)

    check(*asyncio.run(main()))


def test_over_streamable_http(vault):
    path, server = vault
    argv = [sys.executable, "-m", "arazzo_runner.cli", "mcp", *vault_args(path, server)]
    argv += ["--transport", "http", "--port", "0"]
    proc = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        first = proc.stderr.readline()
        found = re.search(r" at (http://\S+/mcp) ", first)
        assert found, first

        async def main():
            async with Client(found.group(1)) as client:
                return await exercise(client)

        check(*asyncio.run(main()))
    finally:
        proc.terminate()
        proc.communicate(timeout=60)


def test_a_shipped_workflow_through_the_client(reference_server, tmp_path):
    """The shipped tool-call workflow: its outputs read the chat-completions API's response schemas."""
    path = ROOT / "workflows" / "chat-completion-tool-call.arazzo.yaml"
    argv = [
        str(path),
        "--server",
        f"chatCompletionsApi={reference_server.url}",
        "--input",
        "apiKey=sk-test-1",
    ]
    argv += ["--input", "model=agentaus", "--input", "toolName=get_weather"]

    async def main():
        with open(tmp_path / "server.log", "w", encoding="utf-8") as errlog:
            async with stdio_client_for(argv, errlog) as client:
                listed = await client.list_tools()
                message = {"userMessage": "What's the weather in Sydney today?", "toolResult": "Sunny, 22 C"}
                passed = await client.call_tool("chat-completion-tool-call", message)
                refused = await client.call_tool("chat-completion-tool-call", {"apiKey": "x", **message})
                return listed, passed, refused

    listed, passed, refused = asyncio.run(main())
    [tool] = listed.tools
    assert "apiKey" not in listed.model_dump_json() and "apiKey" not in refused.model_dump_json()
    outputs = tool.output_schema["properties"]["outputs"]["properties"]
    assert outputs["totalTokens"]["anyOf"][0]["type"] == "integer"
    assert passed.is_error is False  # validated by the client against the schema
    assert passed.structured_content["outputs"]["finalContent"] == "Based on the tool result: Sunny, 22 C"
    jsonschema.validate(refused.structured_content, tool.output_schema)


@pytest.mark.parametrize("path", sorted((ROOT / "workflows").glob("*.arazzo.yaml")), ids=lambda p: p.name)
def test_every_shipped_workflow_has_a_valid_output_schema(capsys, path: Path):
    result = cli(capsys, "tools", str(path), "--format", "mcp")
    assert result.code == 0, result.err
    for tool in result.json:
        jsonschema.Draft202012Validator.check_schema(tool["outputSchema"])
        assert tool["outputSchema"]["type"] == "object"
        assert "$ref" not in str(tool["outputSchema"])
