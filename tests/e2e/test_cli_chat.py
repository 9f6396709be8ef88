"""The bundled tool-call workflows through the CLI against the chat-completions servers."""

from __future__ import annotations

import json
import re

from tests.e2e.helpers import ROOT, cli, subprocess_cli

WORKFLOW = ROOT / "workflows" / "chat-completion-tool-call.arazzo.yaml"
SEED = ROOT / "workflows" / "seed-chat-completion-tool-call.arazzo.yaml"
SOURCE = "chatCompletionsApi"
TOOL_MESSAGE = "What's the weather in Sydney today?"
DIRECT_MESSAGE = "Tell me a joke"


def _argv(path, server, message: str, fmt: str = "json") -> list:
    return [
        "run", path,
        "--server", f"{SOURCE}={server.url}",
        "--format", fmt,
        "--input", "apiKey=sk-test",
        "--input", "model=agentaus",
        "--input", f"userMessage={message}",
        "--input", "toolName=get_weather",
        "--input", "toolResult=Sunny, 22 C",
    ]  # fmt: skip


def _steps(flow: dict) -> list[tuple]:
    return [(s["stepId"], s["status"], s["attempts"], s["statusCode"]) for s in flow["steps"]]


def test_the_tool_branch(capsys, reference_server):
    result = cli(capsys, *_argv(WORKFLOW, reference_server, TOOL_MESSAGE))
    assert result.code == 0, result.out
    [flow] = result.json["workflows"]
    assert flow["status"] == "passed"
    assert _steps(flow) == [("createCompletion", "passed", 1, 200), ("resolveToolCall", "passed", 1, 200)]
    first = flow["steps"][0]
    assert first["action"] == "goto resolveToolCall"
    assert first["outputs"]["finishReason"] == "tool_calls"
    assert first["outputs"]["toolCallId"].startswith("call_")
    assert json.loads(first["outputs"]["toolCallArgs"]) == {"query": TOOL_MESSAGE}
    assert first["outputs"]["directContent"] is None
    assert first["outputs"]["toolCalls"][0]["function"]["name"] == "get_weather"
    outputs = flow["outputs"]
    assert outputs["completionId"].startswith("chatcmpl-")
    assert outputs["completionId"] == first["outputs"]["completionId"]
    assert outputs["firstFinishReason"] == "tool_calls"
    assert outputs["finalContent"] == "Based on the tool result: Sunny, 22 C"
    assert isinstance(outputs["totalTokens"], int) and outputs["totalTokens"] > 0
    assert flow["steps"][1]["outputs"]["finalFinishReason"] == "stop"


def test_the_direct_answer_branch(capsys, reference_server):
    result = cli(capsys, *_argv(WORKFLOW, reference_server, DIRECT_MESSAGE))
    assert result.code == 0, result.out
    [flow] = result.json["workflows"]
    assert flow["status"] == "passed"
    assert _steps(flow) == [("createCompletion", "passed", 1, 200)]
    assert flow["steps"][0]["action"] == "end"
    assert flow["outputs"]["firstFinishReason"] == "stop"
    assert flow["steps"][0]["outputs"]["directContent"] == (
        f'You asked: "{DIRECT_MESSAGE}". This is the reference server\'s scripted answer.'
    )
    assert flow["outputs"]["finalContent"] is None  # resolveToolCall never ran
    assert flow["outputs"]["totalTokens"] is None


def test_the_verbatim_seed_fails_at_resolve_tool_call_with_400(capsys, reference_server):
    result = cli(capsys, *_argv(SEED, reference_server, TOOL_MESSAGE))
    assert result.code == 1
    data = result.json
    assert data["status"] == "failed"
    [flow] = data["workflows"]
    assert _steps(flow) == [("createCompletion", "passed", 1, 200), ("resolveToolCall", "failed", 1, 400)]
    assert flow["error"]["stepId"] == "resolveToolCall"
    assert flow["error"]["message"] == "successCriteria failed: $statusCode == 200: got 400"
    assert flow["outputs"]["firstFinishReason"] == "tool_calls"
    assert flow["outputs"]["finalContent"] is None


def test_the_tool_branch_as_text_in_a_child_process(reference_server):
    result = subprocess_cli(*_argv(WORKFLOW, reference_server, TOOL_MESSAGE, fmt="text"))
    assert result.code == 0, result.out + result.err
    lines = result.out.splitlines()
    assert lines[0] == "workflow chat-completion-tool-call"
    assert lines[1].startswith(f"  ✓  createCompletion  POST {reference_server.url}/chat/completions  200  ")
    assert lines[1].endswith("  -> goto resolveToolCall")
    assert lines[2].startswith(f"  ✓  resolveToolCall  POST {reference_server.url}/chat/completions  200  ")
    assert '    finalContent: "Based on the tool result: Sunny, 22 C"' in lines
    assert lines[-1] == "1 of 1 workflows passed"


def test_the_tool_branch_against_the_independent_server(capsys, compat_server):
    result = cli(capsys, *_argv(WORKFLOW, compat_server, TOOL_MESSAGE))
    assert result.code == 0, result.out
    [flow] = result.json["workflows"]
    assert _steps(flow) == [("createCompletion", "passed", 1, 200), ("resolveToolCall", "passed", 1, 200)]
    number = re.fullmatch(r"resp_(\d+)", flow["outputs"]["completionId"]).group(1)
    assert flow["steps"][0]["outputs"]["toolCallId"] == f"fc_{number}_0"
    assert json.loads(flow["steps"][0]["outputs"]["toolCallArgs"]) == {"query": "Sydney"}
    assert flow["outputs"]["finalContent"] == "The tool returned: Sunny, 22 C"
    assert flow["outputs"]["totalTokens"] is None  # this server reports no total_tokens
    assert any(w.startswith("output 'totalTokens'") for w in flow["steps"][1]["warnings"])
