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
