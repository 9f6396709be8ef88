"""An agent scenario run again from its recording, as a test (the pytest plugin's
`arazzo_agent_replay`): the documents' workflows as tools, the model's answers from the recording, the
tools' workflows run for real. Or, given a chat API, the scenario recorded again.

The run is a test that passes when it ends as the recorded run ended (answered, or failed the same
way) without asking anything the recording does not hold (`apis/recording.py`).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any


def replay_scenario(
    recording: str | os.PathLike[str],
    documents: Sequence[str | os.PathLike[str]],
    *,
    servers: dict[str, str] | None = None,
    auth: dict[str, str] | None = None,
    inputs: dict[str, Any] | None = None,
    workflows: str | Sequence[str] | None = None,
    prompt: str | None = None,
    system: str | None = None,
    timeout: float | None = None,
    record: dict[str, str] | None = None,
) -> tuple[Any, str | None]:
    """(the `AgentResult`, or None when nothing ran; why the scenario fails, or None when it passes).
    `record` (`chat_url`, `model`, `api_key`): run against that chat API and write `recording` anew."""
    from ..errors import ArazzoError
    from ..executor.options import RunOptions
    from .apis.recording import read_recording
    from .loop import agent

    path = os.fspath(recording)
    if not documents:
        return None, "arazzo_agent_replay: name the Arazzo document(s) whose workflows are the tools"
    recorded = None
    try:
        if record is None or os.path.exists(path):
            recorded = read_recording(path)
        prompt = prompt if prompt is not None else recorded.prompt if recorded else None
        if not isinstance(prompt, str):
            return None, f"agent scenario {path}: no prompt (the recording has none; give prompt=...)"
        system = system if system is not None else recorded.system if recorded else None
        chosen = {"replay": path} if record is None else {**record, "record": path}
        options = RunOptions(servers=dict(servers or {}), auth=dict(auth or {}))
        if timeout is not None:
            options.timeout = timeout
        result = agent(
            [os.fspath(d) for d in documents], prompt, workflows=workflows, inputs=inputs,
            options=options, system=system, **chosen,
        )  # fmt: skip
    except ArazzoError as exc:
        return None, f"agent scenario {path}: {exc}"
    error = result.error or {}
    if error.get("kind") == "replay":
        return result, error["message"]
    expected = (recorded.status if recorded is not None and record is None else None) or "answered"
    if result.status != expected:
        why = f": {error.get('kind')}: {error.get('message')}" if error else ""
        return result, f"agent scenario {path}: the recorded run {expected}, this one {result.status}{why}"
    return result, None
