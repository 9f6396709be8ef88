"""Every Arazzo document in the shared corpus and the official examples loads or fails with a location."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import arazzo_runner
from arazzo_runner.errors import ArazzoError
from arazzo_runner.loader import load_path
from arazzo_runner.report.listing import describe_workflows
from tests.shared import MISSING, SHARED

LOCATED = re.compile(r"^/\S+:\d+:\d+: ")


def _arazzo_files() -> list[Path]:
    if not SHARED.is_dir():
        return []
    found = []
    for path in sorted(SHARED.rglob("*")):
        if path.suffix not in (".yaml", ".yml", ".json") or not path.is_file():
            continue
        try:
            data = load_path(path).data
        except ArazzoError:
            continue
        if isinstance(data, dict) and "arazzo" in data:
            found.append(path)
    return found


FILES = _arazzo_files()


@pytest.mark.skipif(not FILES, reason=MISSING)
@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(SHARED)))
def test_document_loads_compiles_or_fails_located(path: Path) -> None:
    try:
        workspace = arazzo_runner.load(path)
        listing = describe_workflows(workspace)
        for workflow in workspace.document.workflows:
            workspace.compiled(workflow)
    except ArazzoError as exc:
        assert LOCATED.match(str(exc)), str(exc)
        assert str(path) in str(exc)
        return
    listed = [w["workflowId"] for w in listing["workflows"]]
    assert listed == [w.workflow_id for w in workspace.document.workflows]


@pytest.mark.skipif(not SHARED.is_dir(), reason=MISSING)
def test_official_examples_load_and_list() -> None:
    examples = SHARED / "arazzo" / "examples" / "1.0.0"
    expected = {
        "pet-coupons.arazzo.yaml": ["apply-coupon", "buy-available-pet", "place-order"],
        "LoginAndRetrievePets.arazzo.yaml": ["loginUserRetrievePet"],
        "bnpl-arazzo.yaml": ["ApplyForLoanAtCheckout"],
    }
    for name, ids in expected.items():
        workspace = arazzo_runner.load(examples / name)
        assert [w["workflowId"] for w in describe_workflows(workspace)["workflows"]] == ids
    for path in examples.glob("*arazzo*.yaml"):
        assert describe_workflows(arazzo_runner.load(path))["workflows"]


@pytest.mark.skipif(not SHARED.is_dir(), reason=MISSING)
def test_corpus_has_enough_documents() -> None:
    assert len(FILES) > 100
