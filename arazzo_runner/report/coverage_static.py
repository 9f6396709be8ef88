"""`arazzo coverage DOC...`: which operations of the documents' OpenAPI sources no workflow step
references (by `operationId`, `operationPath` or `$sourceDescriptions.NAME.ID`), without running
anything. Several documents are read together: a source of the same family name in two of them is one
source, an operation referenced by either is referenced. A step whose operation cannot be resolved is
`arazzo validate`'s to report; it references nothing here."""

from __future__ import annotations

from typing import Any

from .coverage import documented


def unreferenced(roots: list[Any]) -> dict[str, Any]:
    """{"sources": [{name, url, operations: [{method, path, operationId, referencedBy}]}], "totals":
    {referenced, total, percent}}: `referencedBy` lists the `workflowId.stepId` of each step calling it."""
    sources: dict[str, dict[str, Any]] = {}
    for root in roots:
        for source in documented(root):
            mine = sources.setdefault(source["name"], {"name": source["name"], "url": source["url"]})
            if source.get("error"):
                mine.setdefault("error", source["error"])
            ops = mine.setdefault("operations", [])
            known = {(o["method"], o["path"]) for o in ops}
            ops += [_bare(o) for o in source["operations"] if (o["method"], o["path"]) not in known]
        for family, method, path, where in _references(root):
            for op in sources.get(family, {}).get("operations", []):
                if (op["method"], op["path"]) == (method, path) and where not in op["referencedBy"]:
                    op["referencedBy"].append(where)
    listed = list(sources.values())
    everything = [o for s in listed for o in s.get("operations", [])]
    referenced = sum(1 for o in everything if o["referencedBy"])
    percent = round(100 * referenced / len(everything), 1) if everything else None
    return {
        "sources": listed,
        "totals": {"referenced": referenced, "total": len(everything), "percent": percent},
    }


def _bare(op: dict[str, Any]) -> dict[str, Any]:
    return {"method": op["method"], "path": op["path"], "operationId": op["operationId"], "referencedBy": []}


def _references(root: Any) -> list[tuple[str, str, str, str]]:
    """(source family name, METHOD, path, `workflowId.stepId`) of each operation step of the family."""
    from ..errors import ArazzoError
    from ..sources.family import documents, family_key

    found = []
    for workspace, chain in documents(root):
        for workflow in workspace.document.workflows:
            for step in workflow.steps:
                if step.target_kind != "operation":
                    continue
                try:
                    target = workspace.resolve_operation(step)
                except (ArazzoError, ValueError):
                    continue
                if target.source is None:  # an x-operation: no description
                    continue
                operation = target.operation
                where = f"{workflow.workflow_id}.{step.step_id}"
                found.append(
                    (family_key(chain, target.source), operation.method.upper(), operation.path, where)
                )
    return found


def lines(found: dict[str, Any]) -> list[str]:
    """The text form: per source, the operations not referenced, then the figure."""
    out = []
    for source in found["sources"]:
        out.append(f"{source['name']} ({source['url']})")
        if source.get("error"):
            out.append(f"  not read: {source['error']}")
            continue
        missing = [o for o in source["operations"] if not o["referencedBy"]]
        referenced = len(source["operations"]) - len(missing)
        out.append(f"  {referenced}/{len(source['operations'])} operations referenced by a workflow")
        if missing:
            out.append("  not referenced:")
        for op in missing:
            named = f"  {op['operationId']}" if op["operationId"] else ""
            out.append(f"    {op['method']} {op['path']}{named}")
    totals = found["totals"]
    if len(found["sources"]) > 1 and totals["percent"] is not None:
        out.append(f"all sources: {totals['referenced']}/{totals['total']} operations referenced "
                   f"({totals['percent']:.1f}%)")  # fmt: skip
    return out
