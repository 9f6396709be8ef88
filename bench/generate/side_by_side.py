"""Issue 29's comparison (not a test): Redocly's `redocly generate-arazzo` (Respect's generator, Redocly CLI
2.77.0) and `arazzo generate` on five public OpenAPI descriptions, side by side.

    python bench/generate/side_by_side.py [--install-redocly] [--shared DIR] [--json PATH]

For each description, both generate a document from a copy of it in a scratch folder; then, for each
document:
- what was generated: workflows, steps, chained workflows (more than one step), typed inputs;
- validation findings: `arazzo validate --format json` and `redocly lint --format json` (errors and
  warnings, and which rules);
- runs against a mock of the description (`tests/servers/openapi_mock.py`, which answers every operation
  with its documented example): by `arazzo run` (ours with the example inputs it wrote; Redocly's one
  workflow at a time, as `arazzo run` refuses a workflow with validation errors and runs the others),
  and by Redocly's own runner (`redocly respect`, credentials given as the inputs its documents declare).

Redocly CLI runs from `bench/.node` (git-ignored), as for `bench/validate_corpus.py`; `--install-redocly`
puts it there with npm. No telemetry, no update check. Results: `bench/generate/RESULTS.md`.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from common import ROOT, machine_line, write_json
from validate_corpus import QUIET_NODE, REDOCLY_VERSION, redocly

from arazzo_runner.loader import load_path
from tests.servers.openapi_mock import OpenAPIMock

SHARED = ROOT.parent / "shared"
DESCRIPTIONS = (
    ("museum", "corpus/redocly-museum/openapi.yaml"),
    ("train-travel", "corpus/jentic-runner-fixtures/fixtures/train/train.openapi.yaml"),
    ("pet-coupons", "arazzo/examples/1.0.0/pet-coupons.openapi.yaml"),
    ("fapi-par", "arazzo/examples/1.0.0/FAPI-PAR.openapi.yaml"),
    ("twilio-accounts", "corpus/jentic-public-apis/twilio.com_twilio_accounts_v1.openapi.json"),
)
CREDENTIAL = "bench-secret-7q"  # what Respect is given for the credential inputs its documents declare


def _arazzo(*argv: Any, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "ARAZZO_NO_CACHE": "1"}
    command = [sys.executable, "-m", "arazzo_runner.cli", *map(str, argv)]
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, env=env, check=False)


def _node(node: list[str], *argv: Any, cwd: Path) -> subprocess.CompletedProcess:
    command = [*node, *map(str, argv)]
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, env={**os.environ, **QUIET_NODE})


def shape(document: Path) -> dict[str, Any]:
    data = load_path(document).data
    workflows = data.get("workflows") or []
    inputs = [w.get("inputs") or {} for w in workflows]
    return {
        "workflows": len(workflows),
        "steps": sum(len(w.get("steps") or ()) for w in workflows),
        "chained": sum(1 for w in workflows if len(w.get("steps") or ()) > 1),
        "typed_inputs": sum(len(i.get("properties") or {}) for i in inputs if isinstance(i, dict)),
        "source": data["sourceDescriptions"][0]["name"],
        "ids": [w["workflowId"] for w in workflows],
    }


def ours_findings(document: Path) -> dict[str, Any]:
    done = _arazzo("validate", "--format", "json", document, cwd=document.parent)
    findings = json.loads(done.stdout)["findings"]
    return _counted([(f["severity"], f["rule"]) for f in findings])


def redocly_findings(node: list[str], document: Path) -> dict[str, Any]:
    done = _node(node, "lint", "--format", "json", document.name, cwd=document.parent)
    text = done.stdout[done.stdout.index("{") :] if "{" in done.stdout else "{}"
    problems = json.loads(text).get("problems") or []
    return _counted([(p["severity"], p["ruleId"]) for p in problems])


def _counted(found: list[tuple[str, str]]) -> dict[str, Any]:
    rules = collections.Counter(f"{severity} {rule}" for severity, rule in found)
    return {
        "errors": sum(1 for s, _ in found if s == "error"),
        "warnings": sum(1 for s, _ in found if s in ("warning", "warn")),
        "rules": dict(rules.most_common()),
    }


def arazzo_runs(
    document: Path, mock: Any, source: str, ids: list[str], inputs: Path | None
) -> dict[str, Any]:
    """Passed workflows by `arazzo run`: all at once; when the run is refused (validation errors), one
    workflow at a time."""
    flags = ["--server", f"{source}={mock.url}", "--format", "json", "--no-dotenv", "--no-inputs-env"]
    flags += ["--inputs", inputs]
    done = _arazzo("run", document, *flags, cwd=document.parent)
    if done.returncode in (0, 1):
        workflows = json.loads(done.stdout)["workflows"]
        failed = {w["workflowId"]: str(w.get("error")) for w in workflows if w["status"] != "passed"}
        return {"passed": len(workflows) - len(failed), "refused": 0, "failed": failed}
    passed, refused, failed = 0, 0, {}
    given = json.loads(inputs.read_text(encoding="utf-8"))
    for workflow_id in ids:
        own = document.with_suffix(
            ".one.json"
        )  # `arazzo run -w` refuses inputs the workflow does not declare
        own.write_text(json.dumps({k: v for k, v in given.items() if k in _declared(document, workflow_id)}))
        one = _arazzo("run", document, "-w", workflow_id, *flags[:-2], "--inputs", own, cwd=document.parent)
        result = json.loads(one.stdout)
        if one.returncode == 2:
            refused += 1
            failed[workflow_id] = "refused: " + "; ".join(e["message"] for e in result["errors"])[:300]
        elif result["workflows"][-1]["status"] == "passed":
            passed += 1
        else:
            failed[workflow_id] = str(result["workflows"][-1].get("error"))[:300]
    return {"passed": passed, "refused": refused, "failed": failed}


def _declared(document: Path, workflow_id: str) -> set[str]:
    data = load_path(document).data
    schema = next(w for w in data["workflows"] if w["workflowId"] == workflow_id).get("inputs") or {}
    ref = schema.get("$ref", "")
    if ref.startswith("#/components/inputs/"):
        schema = data["components"]["inputs"][ref.rsplit("/", 1)[1]]
    return set(schema.get("properties") or {})


def respect_runs(
    node: list[str], document: Path, mock: Any, source: str, inputs: str | None
) -> dict[str, Any]:
    out = document.with_suffix(".respect.json")
    flags = ["-S", f"{source}={mock.url}", "--json-output", out.name]
    if inputs:
        flags += ["-i", inputs]
    done = _node(node, "respect", document.name, *flags, cwd=document.parent)
    if not out.is_file():
        said = [
            line for line in done.stderr.splitlines() if line.strip() and "║" not in line and "╔" not in line
        ]
        return {
            "passed": None,
            "crashed": f"exit {done.returncode}, no result ({' / '.join(said[-2:])[:200]})",
        }
    executed = next(iter(json.loads(out.read_text(encoding="utf-8"))["files"].values()))["executedWorkflows"]
    failed = {
        w["workflowId"]: [
            f"{s['stepId']}: {c['name']}"
            for s in w["executedSteps"]
            for c in s["checks"]
            if not c.get("passed")
        ]
        for w in executed
        if w.get("status") != "success"
    }
    return {"passed": sum(w.get("status") == "success" for w in executed), "crashed": None, "failed": failed}


def _respect_inputs(document: Path) -> str | None:
    """The credential inputs Respect's generated documents declare (`components.inputs`), given a value."""
    data = load_path(document).data
    names = set()
    for schema in ((data.get("components") or {}).get("inputs") or {}).values():
        names.update((schema.get("properties") or {}) if isinstance(schema, dict) else ())
    return ",".join(f"{name}={CREDENTIAL}" for name in sorted(names)) or None


def compare(name: str, relative: str, node: list[str] | None, shared: Path, folder: Path) -> dict[str, Any]:
    source = shared / relative
    work = folder / name
    work.mkdir()
    description = work / f"{name}{source.suffix}"
    shutil.copy(source, description)
    result: dict[str, Any] = {"description": relative}
    started = time.perf_counter()
    made = _arazzo(
        "generate", description.name, "-o", "ours.arazzo.yaml", "--inputs-out", "ours.inputs.json", cwd=work
    )
    result["ours"] = {"seconds": round(time.perf_counter() - started, 2), "exit": made.returncode}
    ours = work / "ours.arazzo.yaml"
    documents = {"ours": ours}
    if node is not None:
        started = time.perf_counter()
        theirs = _node(node, "generate-arazzo", description.name, "-o", "redocly.arazzo.yaml", cwd=work)
        result["redocly"] = {"seconds": round(time.perf_counter() - started, 2), "exit": theirs.returncode}
        documents["redocly"] = work / "redocly.arazzo.yaml"
    for side, document in documents.items():
        facts = result[side]
        facts.update(shape(document))
        facts["arazzo validate"] = ours_findings(document)
        if node is not None:
            facts["redocly lint"] = redocly_findings(node, document)
        inputs = work / "ours.inputs.json"
        if side == "redocly":  # its credential inputs, as Respect gets them
            inputs = work / "redocly.inputs.json"
            pairs = (_respect_inputs(document) or "").split(",")
            inputs.write_text(json.dumps(dict(p.split("=", 1) for p in pairs if p)), encoding="utf-8")
        with OpenAPIMock(description) as mock:
            facts["arazzo run"] = arazzo_runs(document, mock, facts["source"], facts["ids"], inputs)
        if node is not None:
            given = (
                (work / "ours.inputs.json").read_text(encoding="utf-8").strip() if side == "ours" else None
            )
            with OpenAPIMock(description) as mock:
                facts["redocly respect"] = respect_runs(node, document, mock, facts["source"],
                                                        given or _respect_inputs(document))  # fmt: skip
        del facts["ids"]
    return result


def table(results: dict[str, Any]) -> str:
    head = (
        "| description | generator | workflows (chained) | steps | typed inputs | arazzo validate E/W | "
        "redocly lint E/W | pass: arazzo run | pass: redocly respect |"
    )
    lines = [head, "|" + "---|" * 9]
    for name, result in results.items():
        for side in ("redocly", "ours"):
            facts = result.get(side)
            if facts is None:
                continue
            label = "redocly generate-arazzo" if side == "redocly" else "arazzo generate"
            validate, lint = facts["arazzo validate"], facts.get("redocly lint")
            ran = facts["arazzo run"]
            refused = f" ({ran['refused']} refused)" if ran["refused"] else ""
            respect = facts.get("redocly respect")
            respected = "-" if respect is None else (
                f"{respect['passed']}/{facts['workflows']}" if respect["crashed"] is None else "crashed"
            )  # fmt: skip
            lines.append(
                f"| {name} | {label} | {facts['workflows']} ({facts['chained']}) | {facts['steps']} | "
                f"{facts['typed_inputs']} | {validate['errors']}/{validate['warnings']} | "
                + (f"{lint['errors']}/{lint['warnings']}" if lint else "-")
                + f" | {ran['passed']}/{facts['workflows']}{refused} | {respected} |"
            )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--install-redocly", action="store_true", help="npm install Redocly CLI into bench/.node"
    )
    parser.add_argument("--shared", type=Path, default=SHARED, help=f"the shared folder (default {SHARED})")
    parser.add_argument("--json", help="also write the results as JSON here")
    args = parser.parse_args()
    command, skipped = redocly(args.install_redocly)
    node = command[:2] if command else None
    if node is None:
        print(f"redocly skipped: {skipped}")
    results = {}
    with tempfile.TemporaryDirectory() as scratch:
        for name, relative in DESCRIPTIONS:
            if not (args.shared / relative).is_file():
                print(f"{name}: {relative} is not under {args.shared}; left out")
                continue
            results[name] = compare(name, relative, node, args.shared, Path(scratch))
            print(f"{name}: done", flush=True)
    print(machine_line())
    print(f"Redocly CLI {REDOCLY_VERSION if node else '(not run)'}")
    print(table(results))
    for name, result in results.items():
        for side in ("redocly", "ours"):
            if side in result:
                facts = result[side]
                print(f"{name} {side}: arazzo validate rules {facts['arazzo validate']['rules']}")
                if "redocly lint" in facts:
                    print(f"{name} {side}: redocly lint rules {facts['redocly lint']['rules']}")
                with contextlib.suppress(KeyError, TypeError):
                    if facts["redocly respect"]["crashed"]:
                        print(f"{name} {side}: redocly respect {facts['redocly respect']['crashed']}")
    write_json(args.json, {"redocly": REDOCLY_VERSION if node else None, "results": results})


if __name__ == "__main__":
    main()
