"""The names of hidden inputs (credentials, inputs fixed where the tools run) reach no model: not in
the tool definitions, not in the refusal of a wrong argument (whose did-you-mean still suggests the
declared, visible parameter), not in the error of a failed run (a criterion reading `$inputs.realm`, a
nested workflow refusing its inputs), not in `arazzo tools`' output. The agent loop runs against a
scripted chat server that records every request; the tools run against a real local API."""

from __future__ import annotations

import asyncio
import json

import pytest

import arazzo_runner
from arazzo_runner.agents.tools import ToolSource, build_catalog, call_tool
from tests.e2e.helpers import cli
from tests.e2e.vaultkit import VAULT_KEY, assert_unspoken, serve_vault, vault_args, write_vault
from tests.servers.scripted import ScriptedServer

API_KEY = "sk-test-hidden-names-41"


def completion(content=None, *calls):
    tool_calls = [
        {"id": f"call_{i}", "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}
        for i, (name, args) in enumerate(calls)
    ]
    message = {"role": "assistant", "content": content, "tool_calls": tool_calls}
    choice = {"index": 0, "message": message, "finish_reason": "tool_calls" if calls else "stop"}
    return 200, {"id": "c", "object": "chat.completion", "choices": [choice]}


@pytest.fixture
def vault(tmp_path):
    with ScriptedServer() as server:
        serve_vault(server)
        yield write_vault(tmp_path), server


CALLS = [
    ("find_pet", {"petid": 1}),  # a typo of a visible parameter
    ("find_pet", {"petId": 1, "vaultkey": "guess"}),  # near a hidden one: no hint towards it
    ("find_pet", {"petId": 1, "realm": "evil"}),  # a hidden one itself
    ("find_pet", {"petId": "one"}),  # refused by the schema
    ("find_pet", {"petId": 13}),  # a criterion reading $inputs.realm fails
    ("pet_report", {"petId": 1}),  # the nested workflow refuses its inputs, naming vaultKey
    ("find_pet", {"petId": 1, "note": "hi"}),  # passes
]


def test_the_model_never_reads_a_hidden_name(capsys, vault, monkeypatch):
    path, server = vault
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
    with ScriptedServer() as chat:
        chat.reply("POST", "/v1/chat/completions", completion(None, *CALLS), completion("Done."))
        chat_flags = ["--chat", f"{chat.url}/v1", "--model", "scripted", "--no-stream"]
        result = cli(
            capsys, "agent", *vault_args(path, server), *chat_flags, "--prompt", "go", "--format", "json"
        )
        bodies = [r.json() for r in chat.requests]
    assert result.code == 0, result.err
    assert len(bodies) == 2
    # what the engine wrote for the model: the tool definitions and every tool message
    tools = json.dumps(bodies[0]["tools"])
    tool_messages = [m for m in bodies[1]["messages"] if m["role"] == "tool"]
    assert len(tool_messages) == len(CALLS)
    assert_unspoken(tools)
    for message in tool_messages:
        assert_unspoken(message["content"])
    contents = [json.loads(m["content"]) for m in tool_messages]
    assert [c["status"] for c in contents] == [*["rejected"] * 4, "failed", "failed", "passed"]
    errors = [c.get("error", {}) for c in contents]
    assert errors[0]["message"] == (
        "'petid' is not a parameter of tool 'find_pet': did you mean 'petId'?\n"
        "its parameters: note, petId (what the server supplies, such as credentials, is never passed); "
        "nothing was sent"
    )
    assert errors[1]["message"].startswith("'vaultkey' is not a parameter of tool 'find_pet'\nits parameters")
    assert errors[2]["message"].startswith("'***' is not a parameter of tool 'find_pet'\nits parameters")
    assert errors[3]["message"] == (
        "invalid arguments for tool 'find_pet':\n"
        '  - petId: "one" is not of type "integer"\nnothing was sent'
    )
    assert errors[4]["failedCriteria"] == ["$response.body#/tenant == $inputs.***: got 'other' and 'acme'"]
    assert errors[5]["path"] == ["step 'lookup'"]
    assert errors[5]["message"] == (
        "invalid inputs for workflow 'find_pet':\n"
        '  - inputs: "***" is required but was not provided\n'
        '  - inputs: "***" is a dependency of "petId"'
    )
    assert contents[6]["outputs"]["name"] == "Rex" and contents[6]["outputs"]["note"] == "hi"
    definitions = {t["function"]["name"]: t["function"]["parameters"] for t in bodies[0]["tools"]}
    assert definitions["find_pet"] == {
        "type": "object",
        "required": ["petId"],
        "properties": {
            "petId": {"type": "integer", "description": "The pet's id."},
            "note": {"type": "string"},
        },
    }
    # only the two calls that reached the API sent anything; with the credential, to its origin
    sent = list(server.requests)
    expected = [("/pets/1", ["acme"]), ("/pets/13", ["acme"])]
    assert sorted((r.path, r.query["tenant"]) for r in sent) == expected
    assert all(r.headers["authorization"] == f"Bearer {VAULT_KEY}" for r in sent)
    assert VAULT_KEY not in result.out + result.err


def test_inputs_the_server_supplies_refused_by_the_schema_name_none(vault):
    path, server = vault
    workspace = arazzo_runner.load(str(path))
    options = arazzo_runner.RunOptions(servers={"vault": server.url})
    inputs = {"vaultKey": VAULT_KEY, "realm": "ab"}  # `realm` must have 3 characters at least
    catalog = build_catalog([ToolSource(workspace, inputs=inputs, options=options)])
    outcome = asyncio.run(call_tool(catalog.get("find_pet"), {"petId": 1}))
    assert outcome.content() == {
        "status": "rejected",
        "error": {
            "message": "tool 'find_pet' cannot run: the workflow's inputs schema refuses the inputs the "
            "server supplies (their values are set where the tools run, not by the caller); nothing was sent"
        },
    }
    outcome = asyncio.run(call_tool(catalog.get("find_pet"), {"petId": "x", "note": 5}))
    assert outcome.error["message"] == (
        'invalid arguments for tool \'find_pet\':\n  - petId: "x" is not of type "integer"\n'
        '  - note: 5 is not of type "string"\nnothing was sent'
    )
    assert server.requests == []


@pytest.mark.parametrize("form", ["openai", "anthropic", "mcp"])
def test_arazzo_tools_prints_no_hidden_name(capsys, vault, form):
    path, server = vault
    result = cli(capsys, "tools", *vault_args(path, server), "--format", form)
    assert result.code == 0, result.err
    assert_unspoken(result.out)
    assert len(result.json) == 2
