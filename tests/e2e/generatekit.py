"""Helpers for the `arazzo generate` tests: generate a document into a folder, read it, run it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from arazzo_runner.loader import load_path
from tests.e2e.helpers import CliRun, cli


def generate(capsys: Any, folder: Path, *descriptions: Any, flags: tuple = ()) -> tuple[CliRun, Path, Path]:
    """`arazzo generate DESCRIPTIONS -o folder/generated.arazzo.yaml --inputs-out folder/inputs.json`."""
    document, inputs = folder / "generated.arazzo.yaml", folder / "inputs.json"
    run = cli(capsys, "generate", *descriptions, "-o", document, "--inputs-out", inputs, *flags)
    return run, document, inputs


def data(document: Path) -> dict[str, Any]:
    return load_path(document).data


def workflow(document: Path, workflow_id: str) -> dict[str, Any]:
    return next(w for w in data(document)["workflows"] if w["workflowId"] == workflow_id)


def source_name(document: Path) -> str:
    return data(document)["sourceDescriptions"][0]["name"]


def declared_inputs(document: Path, workflow_ids: list[str]) -> set[str]:
    found: set[str] = set()
    for workflow_id in workflow_ids:
        found.update((workflow(document, workflow_id).get("inputs") or {}).get("properties") or {})
    return found


def inputs_for(document: Path, inputs: Path, workflow_ids: list[str], folder: Path) -> Path:
    """The example inputs the given workflows declare, in a file of their own: `arazzo run --workflow`
    refuses an input that no selected workflow declares."""
    values = json.loads(inputs.read_text(encoding="utf-8"))
    wanted = declared_inputs(document, workflow_ids)
    path = folder / f"inputs-{abs(hash(tuple(workflow_ids)))}.json"
    path.write_text(json.dumps({k: v for k, v in values.items() if k in wanted}), encoding="utf-8")
    return path


def run(capsys: Any, document: Path, server: Any, source: str, *flags: Any) -> CliRun:
    """`arazzo run DOCUMENT --format json --server SOURCE=URL FLAGS...` (the server already started)."""
    return cli(capsys, "run", document, "--format", "json", "--server", f"{source}={server.url}", *flags)


def statuses(result: CliRun) -> dict[str, str]:
    return {w["workflowId"]: w["status"] for w in result.json["workflows"]}
