"""The pytest plugin's agent scenarios: the fixture `arazzo_agent_replay` runs an agent scenario from its
recording (`arazzo agent --record`; `docs/agents.md`, *Agent runs in CI*), and
`--arazzo-agent-chat URL --arazzo-agent-model M` (the key in `OPENAI_API_KEY`) record them again."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest


def add_options(group: Any) -> None:
    group.addoption(
        "--arazzo-agent-chat",
        metavar="URL",
        help="arazzo_agent_replay records again: each scenario runs against this chat API and rewrites "
        "its recording (the key in OPENAI_API_KEY)",
    )
    group.addoption("--arazzo-agent-model", metavar="M", help="the model of --arazzo-agent-chat")


@pytest.fixture
def arazzo_agent_replay(request: pytest.FixtureRequest, arazzo_servers: dict[str, str]) -> Any:
    """`arazzo_agent_replay(recording, *documents, workflows=None, inputs=None, servers=None,
    auth=None, prompt=None, system=None)`: the agent scenario of `recording` run again, the documents'
    workflows as tools (paths relative to the test's file), its `AgentResult` returned. The model's
    answers come from the recording (no model, no key); the tools run their workflows for real,
    against `servers` over the `arazzo_servers` fixture's. The test fails, saying where, when the run
    asks what the recording does not hold (a workflow's outputs changed, another tool set, another
    prompt) or ends otherwise than the recorded run (answered, or failed)."""
    from .agents.replay import replay_scenario

    folder = request.path.parent
    config = request.config

    def replay(recording: str | Path, *documents: str | Path, **given: Any) -> Any:
        servers = {**arazzo_servers, **(given.pop("servers", None) or {})}
        chat = config.getoption("arazzo_agent_chat")
        record = None
        if chat is not None:
            import os

            model, key = config.getoption("arazzo_agent_model"), os.environ.get("OPENAI_API_KEY")
            if not model or not key:
                raise pytest.UsageError("--arazzo-agent-chat needs --arazzo-agent-model and OPENAI_API_KEY")
            record = {"chat_url": chat, "model": model, "api_key": key}
        result, problem = replay_scenario(
            folder / recording, [folder / d for d in documents], servers=servers, record=record,
            timeout=config.getoption("arazzo_timeout"), **given,
        )  # fmt: skip
        if problem is not None:
            pytest.fail(problem, pytrace=False)
        return result

    return replay
