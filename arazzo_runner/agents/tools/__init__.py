"""Arazzo workflows as tools for LLM agents: one tool per workflow, shared by `arazzo tools`, `arazzo mcp`
and `arazzo agent`.

- `names`: a workflowId made a tool name (`^[A-Za-z0-9_-]{1,64}$`), collisions resolved and reported;
- `schema`: the inputs JSON Schema with its local `$ref`s inlined (bounded, never fetched), the inputs
  the server supplies left out;
- `credentials`: which inputs are credentials (never offered to a model);
- `hidden`: the names of hidden inputs kept out of every text a caller reads (refusals, errors);
- `hints`: read-only / destructive, from the operations a workflow can reach;
- `outputs`: the MCP `outputSchema`, derived from the response schemas the outputs read, and the check
  that keeps every structured content valid against it;
- `catalog`: the `Tool`s of some documents and their openai / anthropic / mcp forms;
- `call`: running a tool call (a workflow run), its outcome masked for a model to read;
- `mcp_server`, `mcp_http`: the MCP server (the official SDK, imported only there).

    catalog = build_catalog([ToolSource(load("flow.arazzo.yaml"))])
    outcome = await call_tool(catalog.get("get_pet"), {"petId": 1})
"""

from __future__ import annotations

from .call import ToolOutcome, call_tool
from .catalog import Catalog, Tool, ToolSource, build_catalog

__all__ = ["Catalog", "Tool", "ToolOutcome", "ToolSource", "build_catalog", "call_tool"]
