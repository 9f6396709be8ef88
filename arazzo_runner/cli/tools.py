"""`arazzo tools FILE...`: the documents' workflows as tool definitions, one JSON array on stdout in the
form an API takes (`--format openai|anthropic|mcp`, default openai). Each renamed workflow (its id is
not a valid tool name, or another workflow has that name) is a `note:` line on stderr, and so are
`arazzo run`'s options that do not change a definition (`--server`, `--auth`, the bounds...): accepted
and checked, so that the command line of `arazzo mcp` or `agent` works here too, and ignored."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from .common import EXIT_OK, dump_json


def register(commands: Any) -> None:
    from .tool_flags import add_tool_flags

    parser = commands.add_parser(
        "tools", help="print the workflows as tool definitions for LLM APIs (OpenAI, Anthropic, MCP)"
    )
    add_tool_flags(parser, runs=False)
    parser.add_argument(
        "--format",
        choices=("openai", "anthropic", "mcp"),
        default="openai",
        help="the API's form: openai (chat completions), anthropic (messages), mcp (tools/list); "
        "default openai",
    )
    parser.set_defaults(handler=tools_command)


def tools_command(args: argparse.Namespace) -> int:
    from ..agents.tools import build_catalog
    from .tool_flags import ignored_flags, tool_sources

    catalog = build_catalog(tool_sources(args, runs=False))
    ignored = ignored_flags(args)
    if ignored:
        print(
            f"note: {', '.join(ignored)}: ignored by arazzo tools, which changes no tool definition by "
            "them (they apply where the tools run: arazzo mcp, arazzo agent)",
            file=sys.stderr,
        )
    for note in catalog.notes:
        print(f"note: {note}", file=sys.stderr)
    dump_json(catalog.definitions(args.format))
    return EXIT_OK
