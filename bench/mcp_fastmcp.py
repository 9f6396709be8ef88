"""The MCP server a user would write instead of `arazzo mcp`, for `mcp_calls.py --fastmcp`: the official
SDK's high-level server (`FastMCP` in mcp 1.x, renamed `MCPServer` in 2.x) with one tool whose function
awaits `arazzo_runner.arun()` of the bench document's workflow and returns its outputs, over stdio.
The document is loaded once, as a user would; each call's run makes its own client (the plain `arun`),
and the server logs as the SDK sets it up by default (INFO, through rich, to stderr: httpx's line for each
request is rendered, ~2 ms of CPU a call here, though stderr is the null device in the benchmark). With
`--pooled`, what a careful user would write: the calls' runs share one connection pool as ours do
(`runtime=PooledRuntime()`, which `arun`'s docstring names) and the server logs warnings only (as ours):
the SDK's server and ours then differ only in the server around the run.
With `--empty` the tool returns the same outputs without a run: the floor of any tool call on this
SDK's server (its stdio transport, session, pydantic), whatever the tool does.

    python bench/mcp_fastmcp.py DOCUMENT URL [--pooled | --empty]
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from documents import SOURCE, WORKFLOW

try:
    from mcp.server.mcpserver import MCPServer as FastMCP
except ImportError:  # mcp 1.x
    from mcp.server.fastmcp import FastMCP  # type: ignore[no-redef]


def main() -> None:
    import arazzo_runner

    document, url = sys.argv[1:3]
    loaded = arazzo_runner.load(document)
    runtime, empty, pooled = None, "--empty" in sys.argv[3:], "--pooled" in sys.argv[3:]
    if pooled:
        from arazzo_runner.executor.runtime import PooledRuntime

        runtime = PooledRuntime()
    server = FastMCP("bench", log_level="WARNING") if pooled or empty else FastMCP("bench")

    @server.tool()
    async def chain(start: int) -> dict[str, Any]:
        """Run the bench workflow `chain` from item `start`; its outputs."""
        if empty:
            return {"last": start + 1}
        result = await arazzo_runner.arun(
            loaded, WORKFLOW, {"start": start}, runtime=runtime, servers={SOURCE: url}
        )
        if not result.ok:
            raise RuntimeError(f"the workflow failed: {result}")
        return result.workflow(WORKFLOW).outputs

    server.run("stdio")


if __name__ == "__main__":
    main()
