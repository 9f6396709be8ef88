"""Which workflows a run can reach (`validate/reach.py`), and the findings as a run sees them: an error in
a workflow the run cannot reach is a warning for it; errors outside any workflow stay errors."""

from __future__ import annotations

import textwrap
from pathlib import Path

from arazzo_runner.validate import errors_for_run, findings_for_run, validate_workspace
from arazzo_runner.validate.reach import reachable
from arazzo_runner.workspace import Workspace

from .conftest import OPENAPI

GRAPH = """\
arazzo: 1.1.0
info: {title: t, version: '1'}
sourceDescriptions:
  - {name: api, url: ./api.yaml, type: openapi}
  - {name: other, url: ./other.arazzo.yaml, type: arazzo}
workflows:
  - workflowId: main
    dependsOn: [setup]
    steps:
      - {stepId: call, workflowId: child}
      - {stepId: away, workflowId: $sourceDescriptions.other.remote}
      - stepId: wait
        operationId: listPets
        dependsOn: [$workflows.readOnly.steps.s]
        outputs: {seen: $workflows.readOnly.outputs.x}
  - workflowId: setup
    steps: [{stepId: s, operationId: listPets}]
  - workflowId: child
    steps:
      - stepId: s
        operationId: listPets
        onFailure: [{reference: $components.failureActions.recover}]
  - workflowId: rescue
    steps: [{stepId: s, operationId: listPets}]
    successActions: [{name: more, type: goto, workflowId: fromWorkflowAction}]
  - workflowId: fromWorkflowAction
    steps: [{stepId: s, operationId: listPets}]
  - workflowId: backHere
    steps: [{stepId: s, operationId: listPets}]
  - workflowId: readOnly
    steps: [{stepId: s, operationId: listPets}]
    outputs: {x: $steps.s.outputs.nothing}
  - workflowId: alone
    steps: [{stepId: s, operationId: listPets, outputs: {n: $respons.body}}]
components:
  failureActions:
    recover: {name: recover, type: goto, workflowId: rescue}
"""
OTHER = """\
arazzo: 1.1.0
info: {title: other, version: '1'}
sourceDescriptions:
  - {name: first, url: ./flow.arazzo.yaml, type: arazzo}
workflows:
  - workflowId: remote
    steps: [{stepId: back, workflowId: $sourceDescriptions.first.backHere}]
"""


def _workspace(tmp_path: Path, text: str = GRAPH) -> Workspace:
    (tmp_path / "api.yaml").write_text(textwrap.dedent(OPENAPI))
    (tmp_path / "other.arazzo.yaml").write_text(OTHER)
    path = tmp_path / "flow.arazzo.yaml"
    path.write_text(text)
    return Workspace.from_path(path)


def test_steps_actions_component_actions_depends_on_and_other_documents_are_followed(tmp_path) -> None:
    workspace = _workspace(tmp_path)
    assert reachable(workspace, [workspace.document.workflow("main")]) == {
        "main",
        "setup",  # dependsOn
        "child",  # a workflowId step
        "rescue",  # a goto in a components failure action of child's step
        "fromWorkflowAction",  # a goto in rescue's successActions
        "backHere",  # through the arazzo source `other`, whose workflow calls back into this document
    }
    assert reachable(workspace, [workspace.document.workflow("alone")]) == {"alone"}


def test_errors_in_unreachable_workflows_are_warnings_for_the_run(tmp_path) -> None:
    workspace = _workspace(tmp_path)
    errors = {(f.rule, f.line) for f in validate_workspace(workspace).errors}
    assert errors == {("output-reference", 32), ("output-value", 34)}  # readOnly's and alone's

    assert [(f.rule, f.line) for f in errors_for_run(workspace, ["alone"])] == [("output-value", 34)]
    assert errors_for_run(workspace, ["main"]) == []  # step dependsOn and reading values run nothing
    demoted = [f for f in findings_for_run(workspace, ["main"]) if f.line in (32, 34)]
    assert [(f.rule, f.severity) for f in demoted] == [
        ("output-reference", "warning"),
        ("output-value", "warning"),
    ]
    assert demoted[1].message.endswith("(in workflow 'alone', which this run does not execute)")
    assert [f.rule for f in errors_for_run(workspace, None)] == ["output-reference", "output-value"]


def test_errors_outside_any_workflow_stay_errors(tmp_path) -> None:
    broken = GRAPH + "  parameters:\n    unused: {name: q, in: query, value: $steps.x}\n"
    errors = errors_for_run(_workspace(tmp_path, broken), ["main"])
    assert [(f.rule, f.severity, f.path) for f in errors] == [
        ("expression-syntax", "error", "/components/parameters/unused/value")
    ]
