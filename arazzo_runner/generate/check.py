"""Nothing invalid is written: the text is validated by `arazzo validate`'s own checks (schema, rules and
the sources), as the file it will be, and a workflow with an error is dropped with the errors as its
reason; the rest is written and validated again. An error outside the workflows (which no workflow
can be dropped for) stops the generation: nothing is written.
"""

from __future__ import annotations

import re
from typing import Any

from ..errors import ArazzoError
from ..records import Record
from .emit import emit, verify

_WORKFLOW = re.compile(r"^/workflows/(\d+)(/|$)")
MAX_PASSES = 5


class Dropped(Record, frozen=True):
    workflow_id: str
    origin: str  # operation | chain | model
    reason: str


class GenerateError(ArazzoError):
    """The generated document has errors that dropping workflows cannot remove (a bug: reported)."""


def checked(draft: Any, file: str) -> tuple[str, Any, list[Dropped]]:
    """(text, report, dropped): the YAML of `draft` (workflows with errors removed) and its validation."""
    from ..validate import validate_text

    dropped: list[Dropped] = []
    for _ in range(MAX_PASSES):
        data = draft.data()
        comments = {
            ("workflows", index): draft.comments[w["workflowId"]]
            for index, w in enumerate(draft.workflows)
            if w["workflowId"] in draft.comments
        }
        text = emit(data, comments, draft.header())
        verify(text, data)
        report = validate_text(text, file)
        errors = [f for f in report.errors]
        if not errors:
            return text, report, dropped
        bad: dict[int, list[str]] = {}
        for finding in errors:
            found = _WORKFLOW.match(finding.path)
            if found is None:
                listed = "; ".join(f"{f.rule}: {f.message} ({f.path})" for f in errors[:5])
                raise GenerateError(f"the generated document has errors outside its workflows: {listed}")
            bad.setdefault(int(found.group(1)), []).append(f"{finding.rule}: {finding.message}")
        for index in sorted(bad):
            workflow_id = draft.workflows[index]["workflowId"]
            reason = "; ".join(dict.fromkeys(bad[index]))
            dropped.append(Dropped(workflow_id, draft.origin.get(workflow_id, "operation"), reason))
        draft.workflows[:] = [w for index, w in enumerate(draft.workflows) if index not in bad]
        if not draft.workflows:
            raise GenerateError("every generated workflow had errors: " + dropped[0].reason)
    raise GenerateError("the generated document still had errors after dropping the workflows with some")
