"""`arazzo graph FILE [--workflow ID]`: the control flow as a Mermaid flowchart (or its graph as JSON)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from .common import EXIT_OK, add_document, dump_json, load_document
from .describe import add_workflow_flag


def register(commands: Any) -> None:
    parser = commands.add_parser("graph", help="print the control flow of workflows as a Mermaid flowchart")
    add_document(parser)
    add_workflow_flag(parser, "workflow to draw (repeatable; default: every workflow)")
    parser.add_argument(
        "--format", choices=("mermaid", "json"), default="mermaid", help="output format (default mermaid)"
    )
    parser.add_argument(
        "--direction", choices=("TD", "LR"), default="TD", help="flowchart direction (default TD)"
    )
    parser.set_defaults(handler=run_graph)


def run_graph(args: argparse.Namespace) -> int:
    from ..executor.preflight import select_workflows
    from ..report.graph import build_graph
    from ..report.mermaid import render_mermaid

    workspace = load_document(args)
    graph = build_graph(workspace, select_workflows(workspace, args.workflows))
    if args.format == "json":
        dump_json(graph.to_dict())
    else:
        sys.stdout.write(render_mermaid(graph, args.direction))
    return EXIT_OK
