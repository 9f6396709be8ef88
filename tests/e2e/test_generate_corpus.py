"""`arazzo generate` over every OpenAPI description of the shared corpus (`../shared/corpus`, and the
official examples' under `../shared/arazzo/examples`): documents without validation errors, a workflow
per operation (or the reason none could be made), and every workflow run against a mock of its
description (`tests/servers/openapi_mock.py`) with the example inputs written beside it. A workflow
whose inputs have no example that fits their schema (the description makes one impossible) is not run:
the generator names each such input, and there are few."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from arazzo_runner.generate import generate
from arazzo_runner.loader import load_path
from tests.e2e.helpers import cli
from tests.servers.openapi_mock import OpenAPIMock
from tests.shared import MISSING, SHARED

_HEAD = re.compile(r'^\s*"?openapi"?\s*:', re.M)


def _descriptions() -> list[Path]:
    found = []
    for folder in (SHARED / "corpus", SHARED / "arazzo" / "examples"):
        for path in sorted(folder.rglob("*")) if folder.is_dir() else ():
            if path.suffix not in (".yaml", ".yml", ".json") or not path.is_file():
                continue
            if not _HEAD.search(path.read_text(encoding="utf-8", errors="replace")[:4000]):
                continue
            data = load_path(path).data
            if isinstance(data, dict) and "openapi" in data and isinstance(data.get("paths"), dict):
                found.append(path)
    return found


DESCRIPTIONS = _descriptions()  # chosen when the tests are collected


def _operations(path: Path) -> int:
    methods = {"get", "put", "post", "delete", "patch", "head", "options", "trace"}
    paths = load_path(path).data["paths"]
    return sum(len(methods & set(item)) for item in paths.values() if isinstance(item, dict))


@pytest.mark.skipif(not DESCRIPTIONS, reason=MISSING)
@pytest.mark.parametrize("path", DESCRIPTIONS, ids=lambda p: str(p.relative_to(SHARED)))
def test_every_corpus_description_generates_workflows_that_run_against_its_mock(capsys, tmp_path, path):
    document = tmp_path / "generated.arazzo.yaml"
    result = generate([path], output=document)
    assert result.report.errors == []
    singles = [w for w in result.workflows if result.origin[w["workflowId"]] == "operation"]
    skipped = [d for d in result.dropped if d.origin == "operation"]
    assert len(singles) + len(skipped) == _operations(path), [d.reason for d in skipped]
    document.write_text(result.text, encoding="utf-8")
    runnable = [
        w["workflowId"]
        for w in result.workflows
        if not set((w.get("inputs") or {}).get("properties") or {}) & set(result.missing_examples)
    ]
    declared = {n for w in result.workflows if w["workflowId"] in runnable
                for n in (w.get("inputs") or {}).get("properties") or {}}  # fmt: skip
    inputs = tmp_path / "inputs.json"
    inputs.write_text(json.dumps({k: v for k, v in result.inputs.items() if k in declared}), encoding="utf-8")
    chosen = [] if len(runnable) == len(result.workflows) else [a for w in runnable for a in ("-w", w)]
    source = result.text.split("sourceDescriptions:\n  - name: ", 1)[1].split("\n", 1)[0]
    with OpenAPIMock(path) as mock:
        server = f"{source}={mock.url}"
        run = cli(
            capsys, "run", document, "--format", "json", "--server", server, "--inputs", inputs, *chosen
        )
    failed = [(w["workflowId"], w.get("error")) for w in run.json["workflows"] if w["status"] != "passed"]
    assert failed == [] and run.code == 0, failed[:5]
    assert len(run.json["workflows"]) == len(runnable)


@pytest.mark.skipif(not DESCRIPTIONS, reason=MISSING)
def test_few_inputs_of_the_corpus_lack_an_example():
    """Inputs no value can be made for: a request body whose schema is `false`, and rebilly's `oneOf`
    branches that the same values fit (without a discriminator to tell them apart)."""
    lacking = {}
    for path in DESCRIPTIONS:
        missing = generate([path]).missing_examples
        if missing:
            lacking[path.name] = sorted(missing)
    assert lacking == {
        "boolean_schema_test_spec.json": ["post-reject-all_body"],
        "rebilly-description.yaml": ["PatchPaymentInstrument_body", "StorefrontPostPayment_body"],
    }
