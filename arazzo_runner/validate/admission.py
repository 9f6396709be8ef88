"""Which of the selected workflows a run may start, read off the validator's findings.

A run refuses only what it cannot execute with one meaning, workflow by workflow (`run_policy.py` says
which errors those are). A blocking finding belongs to:

- the workflow it is located in (`/workflows/3/...`);
- the workflows that use the component it is located in (`/components/parameters/page/...`), through a
  `$components.<kind>.<name>` reference or a `#/components/<kind>/<name>` `$ref`, directly or through
  other components;
- every workflow, when it is anywhere else (the source descriptions, the document's root): what it
  touches cannot be told apart.

A selected workflow is refused when a blocking finding belongs to it or to a workflow it reaches
(`reach.py`: the workflows of its `workflowId` steps, goto/retry actions and `dependsOn`). The other
errors in what the run reaches are its warnings. Nothing is refused when the document validated clean
before (`cache.py`, for the command line) or has no error at all.
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Iterable, Iterator
from typing import Any

from ..loader.pointer import format_pointer
from ..model import Workflow
from ..records import Record, field
from .findings import ERROR, Finding
from .reach import reachable
from .run_policy import blocks

# pattern texts, compiled on first use (`re`'s cache): a run whose document has no errors needs none
_IN_WORKFLOW = r"^/workflows/(\d+)(?:/|$)"
_IN_COMPONENT = r"^/components/([^/]+)/([^/]+)(?:/|$)"
_COMPONENT_USE = r"\$components\.([A-Za-z]+)\.([A-Za-z0-9.\-_]+)|#/components/([^/\s\"']+)/([^/\s\"'#]+)"

_MEMO: weakref.WeakKeyDictionary[Any, dict[tuple[str, ...], Admission]] = weakref.WeakKeyDictionary()


class Admission(Record):
    """What a run of the selected workflows may start: `refused` maps each workflow that may not to the
    findings that stop it (its own first, then those of the workflows it reaches); `warnings` are the
    errors a run shows and goes on (in the workflows the run reaches, or outside any workflow)."""

    refused: dict[str, list[Finding]] = field(default_factory=dict)
    warnings: list[Finding] = field(default_factory=list)

    def runnable(self, selected: Iterable[Workflow]) -> list[Workflow]:
        return [w for w in selected if w.workflow_id not in self.refused]


def admit(workspace: Any, selected: Iterable[Workflow], *, clean: bool = False) -> Admission:
    """The admission of a run of `selected` in `workspace` (memoised per workspace and selection).
    `clean`: the document is known to have validated clean (nothing is validated again)."""
    selected = list(selected)
    key = tuple(w.workflow_id for w in selected)
    memo = _MEMO.setdefault(workspace, {})
    found = memo.get(key)
    if found is None:
        found = Admission() if clean else _admit(workspace, selected)
        memo[key] = found
    return found


def _admit(workspace: Any, selected: list[Workflow]) -> Admission:
    from .core import validate_workspace

    report = validate_workspace(workspace, schema=False)  # schema findings never stop a run
    found = (*report.findings, *_hidden_shape_problems(workspace, report))
    errors = [f for f in found if f.severity == ERROR]
    if not errors:
        return Admission()
    owners = _Owners(workspace)
    blocking: dict[str, list[Finding]] = {}
    shown: list[tuple[Finding, set[str] | None]] = []
    for finding in errors:
        scope = owners.of(finding.path)
        if blocks(finding):
            for workflow_id in scope if scope is not None else owners.all_ids:
                blocking.setdefault(workflow_id, []).append(finding)
        else:
            shown.append((finding, scope))
    refused: dict[str, list[Finding]] = {}
    reached_by_run: set[str] = set()
    for workflow in selected:
        reached = reachable(workspace, [workflow])
        reached_by_run |= reached
        order = [workflow.workflow_id, *sorted(reached - {workflow.workflow_id})]
        stops = [f for workflow_id in order for f in blocking.get(workflow_id, ())]
        if stops:
            refused[workflow.workflow_id] = list(dict.fromkeys(stops))
    warnings = [f for f, scope in shown if scope is None or scope & reached_by_run]
    return Admission(refused, warnings)


def _hidden_shape_problems(workspace: Any, report: Any) -> Iterator[Finding]:
    """The model's shape problems the report left out because the schema finding at the same place said
    it (the report shows each problem once): a run still cannot use that field."""
    reported = {f.path for f in report.findings if f.rule == "document-shape"}
    positions = workspace.loaded.positions
    for at, message in workspace.document.problems:
        path = format_pointer(at)
        if path not in reported:
            line, column = positions.locate(path)
            yield Finding("document-shape", ERROR, message, workspace.loaded.file, path, line, column)


class _Owners:
    """The workflows a finding's location belongs to (None: every workflow)."""

    def __init__(self, workspace: Any) -> None:
        document = workspace.document
        self.by_index = {w.at[1]: w.workflow_id for w in document.workflows if len(w.at) == 2}
        self.all_ids = set(self.by_index.values())
        self._document = document
        self._users: dict[tuple[str, str], set[str]] | None = None

    def of(self, path: str) -> set[str] | None:
        match = re.match(_IN_WORKFLOW, path)
        if match:
            workflow_id = self.by_index.get(int(match.group(1)))
            return {workflow_id} if workflow_id is not None else set()
        match = re.match(_IN_COMPONENT, path)
        if match:
            return self.component_users().get((match.group(1), match.group(2)), set())
        return None

    def component_users(self) -> dict[tuple[str, str], set[str]]:
        """(kind, name) of a component -> the workflows using it, directly or through other components."""
        if self._users is None:
            raw = self._document.raw if isinstance(self._document.raw, dict) else {}
            components = raw.get("components")
            if not isinstance(components, dict):
                components = {}
            uses = {
                (kind, name): set(_component_uses(value))
                for kind, group in components.items()
                if isinstance(group, dict)
                for name, value in group.items()
            }
            users: dict[tuple[str, str], set[str]] = {key: set() for key in uses}
            workflows = raw.get("workflows")
            if not isinstance(workflows, list):
                workflows = []
            for index, data in enumerate(workflows):
                workflow_id = self.by_index.get(index)
                if workflow_id is None:
                    continue
                pending, seen = list(_component_uses(data)), set()
                while pending:
                    key = pending.pop()
                    if key in seen:
                        continue
                    seen.add(key)
                    users.setdefault(key, set()).add(workflow_id)
                    pending.extend(uses.get(key, ()))
            self._users = users
        return self._users


def _component_uses(value: Any) -> Iterator[tuple[str, str]]:
    """The components a piece of the document names, by `$components.<kind>.<name>` or `$ref`."""
    if isinstance(value, str):
        for match in re.finditer(_COMPONENT_USE, value):
            yield (match.group(1), match.group(2)) if match.group(1) else (match.group(3), match.group(4))
    elif isinstance(value, dict):
        for item in value.values():
            yield from _component_uses(item)
    elif isinstance(value, list):
        for item in value:
            yield from _component_uses(item)
