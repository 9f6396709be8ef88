"""`arazzo list FILE`: workflows with their inputs (type, default, required) and outputs."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from .common import EXIT_OK, add_document, dump_json, load_document


def register(commands: Any) -> None:
    parser = commands.add_parser(
        "list", help="list the workflows of a document with their inputs and outputs"
    )
    add_document(parser)
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.set_defaults(handler=run_list)


def run_list(args: argparse.Namespace) -> int:
    from ..report.listing import describe_workflows, render_workflows

    data = describe_workflows(load_document(args))
    if args.format == "json":
        dump_json(data)
    else:
        sys.stdout.write(render_workflows(data))
    return EXIT_OK
