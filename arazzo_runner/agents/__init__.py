"""Arazzo workflows for LLM agents: one tool per workflow, offered to a model and run when it calls it.

- `tools/`: the workflows as tools, shared by `arazzo tools`, `arazzo mcp` and `arazzo agent` (names,
  parameters, credential inputs left out, hints, the catalog and its openai / anthropic / mcp forms, a
  tool call as a run and its masked outcome);
- `mcp/`: the MCP server over the official SDK (imported only by `arazzo mcp`);
- `chat`: the chat-completions client, on the engine's HTTP machinery (pooled client, bounded bodies,
  event streams merged as they arrive);
- `apis/recording`, `replay`: a run's model exchanges recorded, answered again from the recording
  (`--record`, `--replay`, the pytest plugin's `arazzo_agent_replay`);
- `loop`: the agent loop (`arazzo agent`, `arazzo_runner.agent` / `aagent`): the turns, the concurrent
  tool calls; `run_types` its settings and its result (`AgentResult`, its pinned JSON form).

The names below are imported on first use: `arazzo tools` reads the catalog without the loop.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__all__ = ["AgentResult", "aagent", "agent", "run_agent"]


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module 'arazzo_runner.agents' has no attribute {name!r}")
    from . import loop

    value = getattr(loop, name)
    globals()[name] = value
    return value


if TYPE_CHECKING:
    from .loop import AgentResult, aagent, agent, run_agent
