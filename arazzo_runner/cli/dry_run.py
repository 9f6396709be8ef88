"""`arazzo run --dry-run`: print the requests of the linear path, masked, without sending anything.

Exit 0 when every request could be built, 1 when one could not (the real run would fail there), 2 on a
usage or document error.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..executor.dry_run import PlannedRequest
from ..masking.secrets import Masker
from ..report.terminal import escape
from ..result import Exchange
from .common import EXIT_FAILED, EXIT_OK, dump_json
from .report_flags import masked_errors, masker_for


def dry_run_command(args: argparse.Namespace, workspace: Any, inputs: dict[str, Any], options: Any) -> int:
    from ..api import plan_requests

    masker = masker_for(args, options, workspace)
    with masked_errors(masker):
        planned = plan_requests(workspace, args.workflows, inputs, options=options)
    if args.format == "json":
        dump_json(masker.data({"dryRun": True, "requests": [planned_dict(p, masker) for p in planned]}))
    else:
        # each line escaped: a document's value cannot start a line of its own or drive the terminal
        sys.stdout.write("".join(escape(line) + "\n" for line in plan_lines(planned, masker)))
    return EXIT_FAILED if any(p.error for p in planned) else EXIT_OK


def planned_dict(planned: PlannedRequest, masker: Masker) -> dict[str, Any]:
    data = planned.to_dict()
    request = data.get("request")
    if request is not None:
        request["url"] = masker.url(request["url"])
        pairs = masker.headers([(h["name"], h["value"]) for h in request["headers"]])
        request["headers"] = [{"name": n, "value": v} for n, v in pairs]
    return data


def plan_lines(planned: list[PlannedRequest], masker: Masker) -> list[str]:
    from ..report.verbose import request_lines

    lines = ["dry run: nothing is sent; values from earlier responses are shown as <$expression>"]
    workflow = None
    for entry in planned:
        indent = "  " * (entry.depth + 1)
        if (entry.workflow_id, entry.depth) != workflow:
            workflow = (entry.workflow_id, entry.depth)
            lines.append(f"{indent[:-2]}workflow {entry.workflow_id}")
        if entry.kind == "not_run":  # a workflow the run refuses: what it would say
            lines.append(f"{indent}{entry.error}")
            continue
        if entry.kind == "workflow":
            lines.append(f"{indent}{entry.step_id}  -> workflow {entry.target}")
        elif entry.method:
            exchange = Exchange(
                entry.method, entry.display_url or "", entry.display_headers, entry.display_body
            )
            head, *rest = request_lines(exchange, masker)
            lines.append(f"{indent}{entry.step_id}  {head[2:]}")
            lines.extend(f"{indent}  {line}" for line in rest)
        if entry.error:
            lines.append(f"{indent}{entry.step_id}  {entry.error}")
        lines.extend(f"{indent}  warning: {w}" for w in entry.warnings)
    return [masker.text(line) for line in lines]
