"""The agent loop: a chat-completions endpoint offered Arazzo workflows as function tools, each tool call
resolved by running its workflow (`arazzo agent`, `arazzo_runner.agent` / `aagent`).

- `chat`: the chat-completions client, on the engine's HTTP machinery (pooled client, bounded bodies,
  event streams merged as they arrive);
- `loop`: the turns, the concurrent tool calls, the result (`AgentResult`, its pinned JSON form).
"""

from __future__ import annotations

from .loop import AgentResult, aagent, agent, run_agent

__all__ = ["AgentResult", "aagent", "agent", "run_agent"]
