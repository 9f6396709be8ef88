"""`errors_for_run`: what `arazzo run` calls first. Reuses the workspace's document and loaded sources, is
memoised per workspace, and returns errors only."""

from __future__ import annotations

from pathlib import Path

import pytest

from arazzo_runner.validate import errors_for_run, validate_workspace
from arazzo_runner.workspace import Workspace
from tests.cputime import cpu_bound

ROOT = Path(__file__).resolve().parents[3]
SCENARIOS = ROOT / "workflows" / "chat-completions-scenarios.arazzo.yaml"
SEED = ROOT / "workflows" / "seed-chat-completion-tool-call.arazzo.yaml"


def test_a_clean_document_has_no_errors_and_is_validated_once() -> None:
    workspace = Workspace.from_path(SCENARIOS)
    with cpu_bound(2.0, "validating"):
        assert errors_for_run(workspace) == []
    first = validate_workspace(workspace)
    assert validate_workspace(workspace) is first  # memoised per workspace


def test_warnings_do_not_stop_a_run() -> None:
    workspace = Workspace.from_path(SEED)
    assert errors_for_run(workspace) == []
    assert {f.rule for f in validate_workspace(workspace).warnings} >= {"bare-expression"}


def test_sources_already_loaded_by_the_workspace_are_reused(monkeypatch: pytest.MonkeyPatch) -> None:
    workspace = Workspace.from_path(SCENARIOS)
    workspace.source("chatCompletionsApi")

    def refuse(self: Workspace, name: str) -> None:
        raise AssertionError(f"source {name!r} loaded a second time")

    monkeypatch.setattr(Workspace, "_load_source", refuse)
    assert errors_for_run(workspace) == []


def test_errors_are_returned_located(write, tmp_path: Path) -> None:
    from .conftest import OPENAPI

    write("api.yaml", OPENAPI)
    path = write(
        "flow.arazzo.yaml",
        """\
        arazzo: 1.0.1
        info: {title: t, version: '1'}
        sourceDescriptions: [{name: api, url: ./api.yaml, type: openapi}]
        workflows:
          - workflowId: w
            steps:
              - stepId: s
                operationId: listPets
            outputs:
              first: $steps.s.outputs.missing
        """,
    )
    errors = errors_for_run(Workspace.from_path(path))
    assert [(e.rule, e.line, e.severity) for e in errors] == [("output-reference", 10, "error")]
    assert str(errors[0]).startswith(f"{path}:10:")
