"""`arazzo tools FILE...`: the documents' workflows as tool definitions, one JSON array on stdout in the
form an API takes (`--format openai|anthropic|mcp`, default openai). Each renamed workflow (its id is
not a valid tool name, or another workflow has that name) is a `note:` line on stderr."""

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
    from ..tools import build_catalog
    from .tool_flags import tool_sources

    catalog = build_catalog(tool_sources(args, runs=False))
    for note in catalog.notes:
        print(f"note: {note}", file=sys.stderr)
    dump_json(catalog.definitions(args.format))
    return EXIT_OK
