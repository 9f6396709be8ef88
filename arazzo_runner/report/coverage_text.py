"""API coverage as text: the console table of a coverage section (`report/coverage.py`), and
`--min-coverage`: its thresholds read and checked, each figure below its minimum said with what was
missed.

    api (examples/drift/drift.openapi.yaml)
      operation            calls  statuses  parameters  body
      GET /nested  nested      1  1/1       -           -
      GET /fine    fine        0  0/1       -           -
      operations 1/2 (50.0%), statuses 1/2 (50.0%), parameters -, body properties -
"""

from __future__ import annotations

from collections.abc import Callable
from types import MappingProxyType
from typing import Any

from ..errors import UsageError
from .coverage import KINDS

LABELS = MappingProxyType(
    {
        "operations": "operations",
        "statuses": "statuses",
        "parameters": "parameters",
        "bodyProperties": "body properties",
    }
)
# `--min-coverage ops:80,status:60`: the names each kind may be given by
NAMES = MappingProxyType(
    {
        "ops": "operations",
        "operations": "operations",
        "status": "statuses",
        "statuses": "statuses",
        "params": "parameters",
        "parameters": "parameters",
        "body": "bodyProperties",
    }
)
MISSED_SHOWN = 10  # missed items named per figure below its minimum; the rest counted


def table(section: dict[str, Any]) -> list[str]:
    """The console lines: per source, a row per operation, then its totals; the totals of all sources
    last when there are several."""
    lines = ["API coverage"]
    sources = section.get("sources") or []
    if not sources:
        lines.append("  no OpenAPI source description")
    for source in sources:
        lines.append(f"  {source['name']} ({source.get('url')})")
        if source.get("error"):
            lines.append(f"    not read: {source['error']}")
            continue
        rows = [("operation", "", "calls", "statuses", "parameters", "body")]
        for op in source["operations"]:
            rows.append(
                (
                    f"{op['method']} {op['path']}",
                    op.get("operationId") or "",
                    str(op["calls"]),
                    _ratio(op["statuses"], "seen"),
                    _ratio(op["parameters"], "sent"),
                    _ratio(op["bodyProperties"], "sent"),
                )
            )
        widths = [max(len(row[i]) for row in rows) for i in range(6)]
        for row in rows:
            cells = [row[0].ljust(widths[0]), row[1].ljust(widths[1]), row[2].rjust(widths[2])]
            cells += [cell.ljust(width) for cell, width in zip(row[3:], widths[3:], strict=True)]
            lines.append(("    " + "  ".join(cells)).rstrip())
        lines.append("    " + totals_line(source["totals"]))
    if len(sources) > 1:
        lines.append("  all sources: " + totals_line(section["totals"]))
    return lines


def markdown(section: dict[str, Any], cell: Callable[[Any], str], limit: int) -> list[str]:
    """The Markdown summary's *API coverage* section (`report/summary.py`): per source its totals and a
    table of its operations, those never called first (at most `limit` rows a source); `cell` makes a
    text safe in a table cell."""
    lines = ["", "#### API coverage", ""]
    sources = section.get("sources") or []
    if not sources:
        lines.append("No OpenAPI source description.")
    for source in sources:
        head = f"**{cell(source['name'])}** ({cell(source.get('url'))})"
        if source.get("error"):
            lines += [f"{head}: not read: {cell(source['error'])}", ""]
            continue
        lines += [f"{head}: {cell(totals_line(source['totals']))}", ""]
        lines += [
            "| | operation | operationId | calls | statuses | parameters | body |",
            "|---|---|---|---|---|---|---|",
        ]
        ops = sorted(source["operations"], key=lambda op: op["calls"] > 0)  # (stable: document order)
        for op in ops[:limit]:
            cells = [
                "✅" if op["calls"] else "❌",
                cell(f"{op['method']} {op['path']}"),
                cell(op.get("operationId") or ""),
                str(op["calls"]),
                _ratio(op["statuses"], "seen"),
                _ratio(op["parameters"], "sent"),
                _ratio(op["bodyProperties"], "sent"),
            ]
            lines.append("| " + " | ".join(cells) + " |")
        if len(ops) > limit:
            lines.append(f"\n{len(ops) - limit} more operations are not listed.")
        lines.append("")
    if len(sources) > 1:
        lines.append(f"All sources: {cell(totals_line(section['totals']))}")
    return lines if lines[-1] else lines[:-1]


def _ratio(part: dict[str, list[str]], done: str) -> str:
    wanted = part["documented"]
    if not wanted:
        return "-"
    return f"{sum(1 for name in part[done] if name in wanted)}/{len(wanted)}"


def totals_line(totals: dict[str, Any]) -> str:
    return ", ".join(f"{LABELS[kind]} {_figure(totals[kind])}" for kind in KINDS)


def _figure(figure: dict[str, Any]) -> str:
    if figure["percent"] is None:
        return "-"
    return f"{figure['covered']}/{figure['total']} ({figure['percent']:.1f}%)"


def parse_minimum(text: str) -> dict[str, float]:
    """`80` (operations) or `ops:80,status:60` (also `params`, `body`) -> {kind: percent}; a usage
    error naming what is wrong."""
    minimum: dict[str, float] = {}
    for item in (part.strip() for part in text.split(",")):
        name, sep, value = item.rpartition(":")
        kind = NAMES.get(name.strip().lower()) if sep else "operations"
        if kind is None:
            raise UsageError(f"--min-coverage {text}: unknown kind '{name}' (ops, status, params, body)")
        try:
            percent = float(value.strip().rstrip("%"))
        except ValueError:
            percent = -1.0
        if not 0 <= percent <= 100:
            raise UsageError(f"--min-coverage {text}: '{value}' is not a percentage from 0 to 100")
        minimum[kind] = percent
    return minimum


def below(section: dict[str, Any], minimum: dict[str, float]) -> list[str]:
    """A line per figure below its minimum: the figure, the minimum, what was missed (stderr, exit 1).
    A kind with nothing documented is not below any minimum."""
    lines = []
    for kind, wanted in minimum.items():
        figure = section["totals"][kind]
        if figure["percent"] is None or figure["percent"] >= wanted:
            continue
        missed = _missed(section, kind)
        shown = ", ".join(missed[:MISSED_SHOWN])
        more = f" and {len(missed) - MISSED_SHOWN} more" if len(missed) > MISSED_SHOWN else ""
        lines.append(
            f"coverage: {LABELS[kind]} {_figure(figure)} is below the minimum of {wanted:g}%; "
            f"missed: {shown}{more}"
        )
    return lines


def _missed(section: dict[str, Any], kind: str) -> list[str]:
    out = []
    several = len(section["sources"]) > 1
    for source in section["sources"]:
        prefix = f"{source['name']}: " if several else ""
        for op in source["operations"]:
            name = f"{prefix}{op['method']} {op['path']}"
            if kind == "operations":
                if not op["calls"]:
                    out.append(name)
                continue
            done = "seen" if kind == "statuses" else "sent"
            out += [f"{name} {item}" for item in op[kind]["documented"] if item not in op[kind][done]]
    return out
