"""`arazzo demo`: the tool-call workflow end to end against the bundled reference server, offline.

It runs `workflows/chat-completion-tool-call.arazzo.yaml` twice over real HTTP: once with a message that
makes the scripted model call the offered tool (the follow-up feeds the tool result back), once with a
message it answers directly. Each run prints a live step trace, the workflow outputs and the model's
answer: `finalContent` after the tool call, `directContent` when the model answered directly.
"""

from __future__ import annotations

from pathlib import Path
from typing import TextIO

from ..errors import UsageError
from ..records import Record

WORKFLOW = "workflows/chat-completion-tool-call.arazzo.yaml"
SOURCE = "chatCompletionsApi"


class Branch(Record, frozen=True):
    title: str
    user_message: str
    answer: str  # the workflow output holding the model's answer on this branch


BRANCHES = (
    Branch(
        "the model calls the tool, then answers with its result",
        "What's the weather in Sydney today?",
        "finalContent",
    ),
    Branch("the model answers directly", "Say hello to the Arazzo community.", "directContent"),
)


def find_workflow(root: Path | None = None) -> Path:
    """The bundled workflow, found next to the package in a source checkout or editable install."""
    root = root or Path(__file__).resolve().parents[2]
    path = root / WORKFLOW
    if not path.is_file():
        raise UsageError(f"cannot find {WORKFLOW} next to the package ({root}); run from a source checkout")
    return path


def run_demo(out: TextIO, *, color: bool | None = None) -> int:
    """Run both branches; return 0 when both pass. The workflow does not set `stream`, so the
    server streams (the API's default) and the engine merges the chunks."""
    from ..api import load, run
    from ..executor.options import RunOptions
    from ..report.console import ConsoleReporter
    from . import ReferenceServer

    path = find_workflow()
    workspace = load(path)  # it reads its OpenAPI description from the sibling `openapi/` folder
    failures = 0
    with ReferenceServer() as server:
        out.write(f"Reference chat-completions server at {server.url}\n")
        for number, branch in enumerate(BRANCHES, 1):
            out.write(f"\n== Branch {number}: {branch.title}\n   user: {branch.user_message}\n")
            reporter = ConsoleReporter(out, color=color)
            inputs = {
                "apiKey": "sk-demo-not-a-secret",
                "model": "agentaus",
                "userMessage": branch.user_message,
                "toolName": "get_current_weather",
                "toolResult": '{"location": "Sydney", "temperature_c": 19, "conditions": "sunny"}',
            }
            options = RunOptions(servers={SOURCE: server.url}, on_event=reporter.on_event)
            result = run(workspace, None, inputs, options=options)
            reporter.summary(result)
            answer = result.workflows[0].outputs.get(branch.answer)
            out.write(f"   answer ({branch.answer}): {answer if answer is not None else '(none)'}\n")
            failures += not result.ok or not answer
    out.write("\nDemo " + ("passed: both branches ran end to end.\n" if not failures else "FAILED.\n"))
    return 0 if not failures else 1
