"""A tool call as a run (`tools.call_tool`): a failure inside nested workflows is reported down to the
step that failed, with what it saw; progress lines name nested steps; arguments are checked first."""

from __future__ import annotations

import asyncio

import arazzo_runner
from arazzo_runner.agents.mcp.calls import progress_message
from arazzo_runner.agents.tools import ToolSource, build_catalog, call_tool
from tests.e2e.conftest import arazzo_doc

OK = [{"condition": "$statusCode == 200"}]
DOC = arazzo_doc(
    {
        "workflowId": "outer",
        "inputs": {"type": "object", "properties": {"petId": {"type": "string"}}},
        "steps": [
            {
                "stepId": "callChild",
                "workflowId": "inner",
                "parameters": [{"name": "petId", "value": "$inputs.petId"}],
            }
        ],
    },
    {
        "workflowId": "inner",
        "inputs": {"type": "object", "properties": {"petId": {"type": "string"}}},
        "steps": [
            {
                "stepId": "get",
                "operationId": "getPet",
                "parameters": [{"name": "petId", "in": "path", "value": "$inputs.petId"}],
                "successCriteria": OK,
            }
        ],
    },
)


def test_a_nested_failure_names_the_path_and_what_the_step_saw(write, server):
    server.reply("GET", "/pets/{petId}", (503, {"error": "down for maintenance"}))
    workspace = arazzo_runner.load(write(DOC))
    options = arazzo_runner.RunOptions(servers={"pets": server.url})
    catalog = build_catalog([ToolSource(workspace, options=options, workflows=["outer"])])
    events = []
    outcome = asyncio.run(call_tool(catalog.get("outer"), {"petId": "9"}, on_event=events.append))
    assert outcome.status == "failed"
    error = outcome.error
    assert error["path"] == ["step 'callChild'", "workflow 'inner' step 'get'"]
    assert error["statusCode"] == 503 and error["failedCriteria"] == ["$statusCode == 200: got 503"]
    assert "down for maintenance" in error["response"]["body"]
    assert outcome.summary.startswith(
        "workflow 'outer' failed at step 'callChild' > workflow 'inner' step 'get': "
    )
    lines = [line for line in map(progress_message, events) if line]
    assert lines == [
        "step 'callChild' started",
        "workflow 'inner' step 'get' started",
        "workflow 'inner' step 'get' failed (HTTP 503)",
        "step 'callChild' failed (HTTP 503)",
    ]


def test_arguments_that_the_workflow_refuses_send_nothing(write, server):
    workspace = arazzo_runner.load(write(DOC))
    catalog = build_catalog(
        [ToolSource(workspace, options=arazzo_runner.RunOptions(servers={"pets": server.url}))]
    )
    outcome = asyncio.run(call_tool(catalog.get("outer"), {"petId": 9}))
    assert outcome.status == "rejected" and outcome.error["message"] == (
        "invalid arguments for tool 'outer':\n  - petId: 9 is not of type \"string\"\nnothing was sent"
    )
    outcome = asyncio.run(call_tool(catalog.get("outer"), {"petid": "9"}))
    assert outcome.status == "rejected" and outcome.error["message"].startswith(
        "'petid' is not a parameter of tool 'outer': did you mean 'petId'?"
    )
    assert server.requests == []


PET_ID = [{"name": "petId", "in": "path", "value": "$inputs.petId"}]
JSON_DOC = arazzo_doc(
    {
        "workflowId": "fast",  # an inputs schema the jsonschema-free check takes
        "inputs": {
            "type": "object",
            "properties": {"petId": {"type": "integer"}, "mode": {"enum": ["a", None, False]}},
        },
        "steps": [{"stepId": "get", "operationId": "getPet", "parameters": PET_ID, "successCriteria": OK}],
    },
    {
        "workflowId": "full",  # `oneOf`: jsonschema's check
        "inputs": {
            "type": "object",
            "properties": {"filter": {"oneOf": [{"type": "string"}, {"type": "integer"}]}},
        },
        "steps": [{"stepId": "get", "operationId": "getPet", "parameters": PET_ID, "successCriteria": OK}],
    },
)


def test_refused_arguments_quote_their_values_in_json(write, server):
    """A tool's caller is a JSON client: the values a refusal quotes are JSON's (`null`, `false`, `"a"`,
    `{"a": [1, null, false]}`), never Python's (`None`, `False`, `'a'`) (issue 37, item 5)."""
    workspace = arazzo_runner.load(write(JSON_DOC))
    options = arazzo_runner.RunOptions(servers={"pets": server.url})
    catalog = build_catalog([ToolSource(workspace, options=options)])
    fast = asyncio.run(call_tool(catalog.get("fast"), {"petId": None, "mode": True}))
    assert fast.status == "rejected" and fast.error["message"] == (
        "invalid arguments for tool 'fast':\n"
        '  - petId: null is not of type "integer"\n'
        '  - mode: true is not one of ["a", null, false]\n'
        "nothing was sent"
    )
    full = asyncio.run(call_tool(catalog.get("full"), {"filter": {"a": [1, None, False]}}))
    assert full.status == "rejected" and full.error["message"] == (
        "invalid arguments for tool 'full':\n"
        '  - filter: {"a": [1, null, false]} is not valid under any of the given schemas\n'
        "nothing was sent"
    )
    assert server.requests == []
