"""The bundled chat-completions workflows, end to end over real HTTP, against two independent servers,
streamed and not streamed: the engine must hold to the API contract, not to one server's habits."""

from __future__ import annotations

import json

import pytest

import arazzo_runner
from arazzo_runner.reference import ReferenceServer
from tests.e2e.helpers import ROOT
from tests.servers.openai_compat import OpenAICompatServer

TOOL_CALL = ROOT / "workflows" / "chat-completion-tool-call.arazzo.yaml"
SCENARIOS = ROOT / "workflows" / "chat-completions-scenarios.arazzo.yaml"
SOURCE = "chatCompletionsApi"
TOOL_RESULT = '{"location": "Sydney", "temperature_c": 19}'


@pytest.fixture(scope="module", params=["reference-sse", "reference-json", "compat"])
def chat_server(request):
    """Three ways to serve the API: the reference server streaming by default (the API's default),
    the reference server answering JSON to requests without `stream`, and the independent server."""
    if request.param == "compat":
        server = OpenAICompatServer()
    else:
        server = ReferenceServer(stream_default=request.param == "reference-sse")
    with server:
        yield server


@pytest.fixture(scope="module")
def tool_call_doc():
    return arazzo_runner.load(TOOL_CALL)


@pytest.fixture(scope="module")
def scenarios_doc():
    return arazzo_runner.load(SCENARIOS)


def _run(doc, server, workflow=None, **inputs):
    result = arazzo_runner.run(doc, workflow, {"apiKey": "sk-test", **inputs}, servers={SOURCE: server.url})
    return result.to_dict()["workflows"][0]


def _tool_inputs(message: str) -> dict:
    return {
        "model": "agentaus",
        "userMessage": message,
        "toolName": "get_current_weather",
        "toolResult": TOOL_RESULT,
    }


def test_seed_flow_tool_branch(chat_server, tool_call_doc):
    flow = _run(tool_call_doc, chat_server, **_tool_inputs("What's the weather in Sydney today?"))
    assert flow["status"] == "passed", flow
    assert [(s["stepId"], s["status"]) for s in flow["steps"]] == [
        ("createCompletion", "passed"),
        ("resolveToolCall", "passed"),
    ]
    first = flow["steps"][0]["outputs"]
    assert first["finishReason"] == "tool_calls"
    assert isinstance(first["toolCallId"], str) and first["toolCallId"]
    assert first["toolCalls"][0]["id"] == first["toolCallId"]
    assert first["toolCalls"][0]["function"]["name"] == "get_current_weather"
    assert "query" in json.loads(first["toolCallArgs"])  # the tool's one required parameter
    outputs = flow["outputs"]
    assert outputs["firstFinishReason"] == "tool_calls"
    assert TOOL_RESULT in outputs["finalContent"]
    assert outputs["directContent"] is None  # the model called the tool instead of answering
    assert flow["steps"][1]["outputs"]["finalFinishReason"] == "stop"


def test_seed_flow_direct_branch(chat_server, tool_call_doc):
    flow = _run(tool_call_doc, chat_server, **_tool_inputs("Say hello to everyone"))
    assert flow["status"] == "passed", flow
    assert [s["stepId"] for s in flow["steps"]] == ["createCompletion"]
    assert flow["steps"][0]["action"] == "end"
    outputs = flow["steps"][0]["outputs"]
    assert outputs["finishReason"] == "stop"
    assert "Say hello to everyone" in outputs["directContent"]
    assert flow["outputs"]["directContent"] == outputs["directContent"]  # the workflow returns the answer
    assert flow["outputs"]["finalContent"] is None
    # the outputs of the branch not taken are null; kept as warnings in the JSON (the console shows
    # them with --verbose only)
    assert sorted(flow["warnings"]) == [
        "workflow output 'finalContent': step 'resolveToolCall' has not run (no outputs recorded)",
        "workflow output 'totalTokens': step 'resolveToolCall' has not run (no outputs recorded)",
    ]


def test_seed_flow_usage_is_read_from_the_follow_up(tool_call_doc):
    with ReferenceServer() as server:
        flow = _run(tool_call_doc, server, **_tool_inputs("What's the weather in Sydney today?"))
    assert isinstance(flow["outputs"]["totalTokens"], int) and flow["outputs"]["totalTokens"] > 0


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
class TestScenarios:
    def test_tool_choice_none(self, chat_server, scenarios_doc, stream):
        flow = _run(scenarios_doc, chat_server, "tool-choice-none", stream=stream)
        assert flow["status"] == "passed", flow
        assert flow["outputs"]["finishReason"] == "stop"
        assert "Sydney" in flow["outputs"]["content"]

    def test_tool_choice_required(self, chat_server, scenarios_doc, stream):
        flow = _run(scenarios_doc, chat_server, "tool-choice-required", stream=stream)
        assert flow["status"] == "passed", flow
        assert flow["outputs"]["toolName"] == "get_current_weather"
        assert json.loads(flow["outputs"]["arguments"]) == {"location": "Sydney"}
        assert '"conditions": "sunny"' in flow["outputs"]["finalContent"]

    def test_allowed_tools_called_in_parallel(self, chat_server, scenarios_doc, stream):
        flow = _run(scenarios_doc, chat_server, "allowed-tools-parallel", stream=stream)
        assert flow["status"] == "passed", flow
        outputs = flow["outputs"]
        assert (outputs["firstTool"], outputs["secondTool"]) == ("get_current_weather", "get_calendar_events")
        calls = flow["steps"][0]["outputs"]["toolCalls"]
        assert len(calls) == 2 and calls[0]["id"] != calls[1]["id"]
        assert json.loads(calls[1]["function"]["arguments"]) == {"date": "2026-09-16"}
        assert "Standup" in outputs["finalContent"]  # the last tool result is always quoted

    def test_server_side_tools(self, chat_server, scenarios_doc, stream):
        flow = _run(scenarios_doc, chat_server, "server-side-tools", stream=stream)
        assert flow["status"] == "passed", flow
        assert "agentaus_dataset_search" in flow["outputs"]["content"]

    def test_bad_request_recovered_through_on_failure(self, chat_server, scenarios_doc, stream):
        flow = _run(scenarios_doc, chat_server, "bad-request-recovery", stream=stream)
        assert flow["status"] == "passed", flow
        steps = [(s["stepId"], s["status"], s["statusCode"]) for s in flow["steps"]]
        assert steps == [
            ("sendOrphanToolMessage", "failed", 400),
            ("sendValidConversation", "passed", 200),
        ]
        outputs = flow["outputs"]
        assert outputs["errorStatus"] == 400
        assert outputs["errorMessage"] == "The request cannot be fulfilled"
        assert any("tool_call_id" in field for field in outputs["errorData"])
        assert "What's the weather in Sydney?" in outputs["content"]


def test_streamed_answer_is_merged(chat_server, scenarios_doc):
    if isinstance(chat_server, ReferenceServer) and not chat_server.streams_by_default:
        pytest.skip("this server was started with the non-default stream_default=False")
    flow = _run(scenarios_doc, chat_server, "streamed-answer")
    assert flow["status"] == "passed", flow
    assert flow["steps"][0]["action"] == "end"
    assert "What does this function do?" in flow["outputs"]["content"]
    usage = flow["outputs"]["usage"]
    assert usage["input_tokens"] > 0 and usage["output_tokens"] > 0


def test_every_scenario_in_one_run(scenarios_doc):
    with ReferenceServer() as server:
        result = arazzo_runner.run(scenarios_doc, None, {"apiKey": "sk"}, servers={SOURCE: server.url})
    assert result.ok
    assert [w.workflow_id for w in result.workflows] == [
        "tool-choice-none",
        "tool-choice-required",
        "allowed-tools-parallel",
        "server-side-tools",
        "streamed-answer",
        "bad-request-recovery",
    ]
