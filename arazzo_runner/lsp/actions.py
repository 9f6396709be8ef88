"""Code actions and commands.

- Quick fixes: each finding that has a `validate --fix` fix, as that fix (`validate.edit.apply_edits`
  on the editor's text: the same characters `--fix` would change), one action per finding.
- `source.fixAll.arazzo`: every fix, as `arazzo validate --fix` makes them (passes until none is left,
  fixes that would add a finding set aside: `validate.fix.fix_text`).
- "Run workflow <id>": the command `arazzo.runWorkflow` (workspace/executeCommand) with the document's
  URI, the workflowId and optionally inputs ({name: value}) and servers ({source: URL}); it runs the
  editor's text of the document (its sources read from disk) and returns the result's summary.
"""

from __future__ import annotations

from typing import Any

from lsprotocol import types

from . import model
from .diagnostics import finding_range

RUN_WORKFLOW = "arazzo.runWorkflow"
FIX_ALL = "source.fixAll.arazzo"
RUN_DEADLINE = 300.0  # seconds a run from the editor may take (`RunOptions.deadline`)


def code_actions(
    analysis: Any, uri: str, wanted: types.Range, only: list[str] | None
) -> list[types.CodeAction]:
    if analysis is None or analysis.loaded is None:
        return []
    found: list[types.CodeAction] = []
    if _asked(only, types.CodeActionKind.QuickFix):
        for finding in analysis.report.findings:
            where = finding_range(analysis, finding)
            if finding.fix and _overlaps(where, wanted):
                action = _quick_fix(analysis, uri, finding, where)
                if action is not None:
                    found.append(action)
    if _asked(only, FIX_ALL) and any(f.fix for f in analysis.report.findings):
        title = "Fix all mechanical problems (arazzo validate --fix)"
        found.append(types.CodeAction(title=title, kind=FIX_ALL, data={"uri": uri, "fixAll": True}))
    if _asked(only, types.CodeActionKind.Source):
        workflow, _ = model.enclosing_at_line(analysis, wanted.start.line + 1)
        ids = [w.get("workflowId") for w in model.workflows(analysis.data)]
        if workflow is not None and isinstance(ids[workflow], str):
            title = f"Run workflow {ids[workflow]}"
            command = types.Command(title=title, command=RUN_WORKFLOW, arguments=[uri, ids[workflow]])
            found.append(types.CodeAction(title=title, kind=types.CodeActionKind.Source, command=command))
    return found


def fix_all(analysis: Any, uri: str, offline: bool) -> types.WorkspaceEdit | None:
    """The edit of `arazzo validate --fix` on the editor's text, or None when nothing changes."""
    from ..validate.core import validate_loaded
    from ..validate.fix import fix_text
    from .state import configured

    def validate(loaded: Any) -> Any:
        return configured(validate_loaded(loaded, analysis.location, remote=not offline), analysis.location)

    result = fix_text(analysis.text, analysis.location, validate)
    if not result.changed:
        return None
    return types.WorkspaceEdit(changes={uri: [_minimal_edit(analysis, result.after)]})


def _asked(only: list[str] | None, kind: str) -> bool:
    return not only or any(kind == wanted or kind.startswith(f"{wanted}.") for wanted in only)


def _overlaps(a: types.Range, b: types.Range) -> bool:
    def key(position: types.Position) -> tuple[int, int]:
        return (position.line, position.character)

    return key(a.start) <= key(b.end) and key(b.start) <= key(a.end)


def _quick_fix(analysis: Any, uri: str, finding: Any, where: types.Range) -> types.CodeAction | None:
    from ..validate.edit import EditError, apply_edits

    try:
        after = apply_edits(analysis.text, analysis.loaded.format, analysis.data, finding.fix)
    except EditError:
        return None  # not in place here (`--fix` would say why): no action rather than a wrong one
    edit = _minimal_edit(analysis, after)
    diagnostic = types.Diagnostic(range=where, message=finding.message, code=finding.rule, source="arazzo")
    return types.CodeAction(
        title=f"Fix {finding.rule}: {_describe(finding)}",
        kind=types.CodeActionKind.QuickFix,
        diagnostics=[diagnostic],
        edit=types.WorkspaceEdit(changes={uri: [edit]}),
        is_preferred=True,
    )


def _describe(finding: Any) -> str:
    changes = [f"{e.old!r} -> {e.new!r}" if e.old else f"write {e.new!r}" for e in finding.fix]
    return ", ".join(changes)


def _minimal_edit(analysis: Any, after: str) -> types.TextEdit:
    """One edit replacing only what differs between the text and `after` (common head and tail kept)."""
    before = analysis.text
    head = 0
    limit = min(len(before), len(after))
    while head < limit and before[head] == after[head]:
        head += 1
    tail = 0
    while tail < limit - head and before[len(before) - 1 - tail] == after[len(after) - 1 - tail]:
        tail += 1
    return types.TextEdit(analysis.lines.range(head, len(before) - tail), after[head : len(after) - tail])


async def run_workflow(doc: Any, arguments: list[Any]) -> dict[str, Any]:
    """`arazzo.runWorkflow URI WORKFLOW_ID [INPUTS] [SERVERS]`: the run's summary, {"status",
    "workflows": [{"workflowId", "status", "steps": [{"stepId", "status", ...}], "error"}]}; a document
    that cannot run is {"status": "error", "error": message}."""
    from ..api import arun
    from ..errors import ArazzoError
    from ..workspace import Workspace

    workflow_id = arguments[1] if len(arguments) > 1 and isinstance(arguments[1], str) else None
    inputs = arguments[2] if len(arguments) > 2 and isinstance(arguments[2], dict) else None
    servers = arguments[3] if len(arguments) > 3 and isinstance(arguments[3], dict) else None
    if workflow_id is None:
        return {"status": "error", "error": "arazzo.runWorkflow needs the document's URI and a workflowId"}
    try:
        workspace = Workspace.from_text(doc.text, doc.location)
        options: dict[str, Any] = {"servers": servers} if servers else {}
        result = await arun(workspace, workflow_id, inputs, deadline=RUN_DEADLINE, **options)
    except ArazzoError as exc:
        return {"status": "error", "error": str(exc)}
    return _summary(result.to_dict())


def _summary(data: dict[str, Any]) -> dict[str, Any]:
    """The result without response excerpts and headers: what an editor shows in a notification."""
    workflows = []
    for workflow in data.get("workflows", []):
        steps = [
            {
                k: step[k]
                for k in ("stepId", "status", "statusCode", "error", "failedCriteria", "outputs")
                if step.get(k) is not None
            }
            for step in workflow.get("steps", [])
        ]
        entry = {
            k: workflow[k]
            for k in ("workflowId", "status", "error", "outputs")
            if workflow.get(k) is not None
        }
        workflows.append({**entry, "steps": steps})
    return {"status": data.get("status"), "workflows": workflows}
