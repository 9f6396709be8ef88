"""The MCP server over the official SDK, imported only by `arazzo mcp`: the server and its tools
(`server`), streamable HTTP with its Host/Origin gate and bearer check (`http`), and the bound on its
sessions (`sessions`)."""
