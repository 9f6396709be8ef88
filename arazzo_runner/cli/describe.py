"""`arazzo describe FILE [--workflow ID]`: steps, targets, parameters, criteria, actions and outputs."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from .common import EXIT_OK, add_document, dump_json, load_document


def register(commands: Any) -> None:
    parser = commands.add_parser(
        "describe", help="describe workflows: steps, targets, criteria, actions (in evaluation order)"
    )
    add_document(parser)
    add_workflow_flag(parser, "workflow to describe (repeatable; default: every workflow)")
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.set_defaults(handler=run_describe)


def add_workflow_flag(parser: argparse.ArgumentParser, help_text: str) -> None:
    parser.add_argument("--workflow", "-w", action="append", dest="workflows", metavar="ID", help=help_text)


def run_describe(args: argparse.Namespace) -> int:
    from ..executor.preflight import select_workflows
    from ..report.describe import describe_document
    from ..report.describe_text import render_description

    workspace = load_document(args)
    data = describe_document(workspace, select_workflows(workspace, args.workflows))
    if args.format == "json":
        dump_json(data)
    else:
        sys.stdout.write(render_description(data))
    return EXIT_OK
