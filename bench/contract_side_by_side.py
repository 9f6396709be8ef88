"""Issue 39's evidence (not a test): the contract checks of `arazzo run` (`--contract warn`, the default)
and Redocly Respect's (`redocly respect`, Redocly CLI 2.77.0) on the field corpus, side by side.

    python bench/contract_side_by_side.py [--install-redocly] [--shared DIR] [--json PATH]

Each corpus document runs, by both runners, against two servers made from its OpenAPI description:

- `mock`: every operation answers its lowest 2xx response with its documented example (Prism's static
  mode: `tests/servers/openapi_mock.py`; with `--prism`, Stoplight Prism itself when
  `@stoplight/prism-cli` is in bench/.node);
- `drift`: the same answers, each operation's drifting in one way, chosen by its place in the
  description (`DRIFTS`, in turn): a documented property's value of the wrong type, a required property
  left out, an undocumented status code (`299`), a Content-Type not documented (`text/plain`), a body
  that is not JSON under `application/json`.

A violation is counted once per runner, workflow, step and kind (`status`, `content-type`, `body`,
`header`): ours from each step's `contract` (`--format json`), Respect's from the failed checks of its
`--json-output` (`status code check`, `content-type check`, `schema check`). Then, per server: found by
both, by ours only, by Respect only. The servers record nothing but the requests.

Redocly CLI runs from `bench/.node` (git-ignored), as for `bench/validate_corpus.py`, with no telemetry
and no update check. Results: bench/RESULTS.md, *Contract checks side by side with Respect*.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import ROOT, machine_line, write_json
from validate_corpus import QUIET_NODE, REDOCLY_VERSION, redocly

sys.path.insert(0, str(ROOT))
from tests.servers.openapi_mock import OpenAPIMock

SHARED = ROOT.parent / "shared"
# (name, arazzo document, the OpenAPI description, the source's name, where the description goes
# relative to the document's folder: the documents' own `url`s, kept as written)
CASES = (
    ("museum", "corpus/redocly-museum/museum-api.arazzo.yaml", "corpus/redocly-museum/openapi.yaml",
     "museum-api", "../openapi.yaml"),
    ("train", "corpus/jentic-runner-fixtures/fixtures/train/train.arazzo.yaml",
     "corpus/jentic-runner-fixtures/fixtures/train/train.openapi.yaml", None, None),
    ("pet-coupons", "corpus/jentic-runner-fixtures/fixtures/pet_coupons/pet-coupons.arazzo.yaml",
     "corpus/jentic-runner-fixtures/fixtures/pet_coupons/pet-coupons.openapi.yaml", None, None),
    ("bnpl", "corpus/jentic-runner-fixtures/fixtures/bnpl/bnpl-arazzo.yaml",
     "corpus/jentic-runner-fixtures/fixtures/bnpl/bnpl-openapi.yaml", None, None),
    ("museum-tickets", "corpus/redocly-museum/museum-tickets.arazzo.yaml",
     "corpus/redocly-museum/openapi.yaml", "museum-api", "../openapi.yaml"),
    ("fapi-par", "arazzo/examples/1.0.0/FAPI-PAR.arazzo.yaml", "arazzo/examples/1.0.0/FAPI-PAR.openapi.yaml",
     None, None),
    ("oauth", "arazzo/examples/1.0.0/oauth.arazzo.yaml", "arazzo/examples/1.0.0/oauth.openapi.yaml",
     None, None),
)  # fmt: skip
PRISM = ROOT / "bench" / ".node" / "node_modules" / ".bin" / "prism"
DRIFTS = ("type", "missing", "status", "content-type", "not-json")
RESPECT_KINDS = {"status code check": "status", "content-type check": "content-type", "schema check": "body"}


class DriftingMock(OpenAPIMock):
    """The mock, each operation's answer drifting in one of `DRIFTS`: by the operation's place, turned
    by `offset` (five runs, offsets 0 to 4, give every operation every drift)."""

    def __init__(self, description: Path, offset: int = 0) -> None:
        self.count = offset
        super().__init__(description)

    def _handler(self, operation: dict[str, Any]) -> Any:
        answer = super()._handler(operation)
        drift = DRIFTS[self.count % len(DRIFTS)]
        self.count += 1
        schema = _success_schema(self, operation)

        def drifting(request: Any) -> tuple:
            status, body, *rest = answer(request)
            if not (200 <= status < 300) or body in (b"", None):
                return (status, body, *rest)
            headers = rest[0] if rest else {}
            text = body.decode() if isinstance(body, bytes) else json.dumps(body)
            if drift == "status":
                return 299, body, headers
            if drift == "content-type":
                return status, text, {"Content-Type": "text/plain"}
            if drift == "not-json":
                return status, text[:-1] + " ,", headers
            return status, _drifted(body, drift, schema), headers

        return drifting


def _success_schema(mock: OpenAPIMock, operation: dict[str, Any]) -> Any:
    for key in sorted(str(k) for k in (operation.get("responses") or {})):
        if key.startswith("2"):
            response = mock._deref(operation["responses"].get(key) or operation["responses"].get(int(key)))
            media = ((response or {}).get("content") or {}).get("application/json") or {}
            return mock._deref(media.get("schema"))
    return None


def _drifted(body: Any, drift: str, schema: Any) -> Any:
    """`body` with its first object's first documented property of a scalar value retyped (`type`), or
    its first required property left out (`missing`); an array's first item stands for the array."""
    target = body[0] if isinstance(body, list) and body else body
    if not isinstance(target, dict):
        return body
    target = dict(target)
    if drift == "missing":
        required = (schema or {}).get("required") or (((schema or {}).get("items") or {}).get("required"))
        for name in required or list(target)[:1]:
            if name in target:
                del target[name]
                break
    else:
        for name, value in target.items():
            if isinstance(value, str):
                target[name] = 12345
                break
            if isinstance(value, bool | int | float):
                target[name] = "drifted"
                break
    return [target, *body[1:]] if isinstance(body, list) else target


def ours(document: Path, source: str, url: str) -> dict[str, set[tuple[str, str, str]]]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "ARAZZO_NO_CACHE": "1"}
    argv = [sys.executable, "-m", "arazzo_runner.cli", "run", document.name, "--format", "json"]
    argv += ["--server", f"{source}={url}", "--no-dotenv", "--no-inputs-env"]
    done = subprocess.run(argv, cwd=document.parent, capture_output=True, text=True, env=env, check=False)
    try:
        result = json.loads(done.stdout)
    except ValueError:
        return {"error": {("-", "-", f"exit {done.returncode}: {done.stderr.strip()[-200:]}")}}
    found: set[tuple[str, str, str]] = set()
    ran: set[tuple[str, str, str]] = set()
    for workflow in _walk(result.get("workflows") or []):
        for step in workflow.get("steps") or ():
            if step.get("statusCode") is None:  # nothing sent, or no answer: nothing to check
                continue
            ran.add((workflow["workflowId"], step["stepId"], ""))
            for violation in step.get("contract") or ():
                part = violation["part"].split(" ")[0]
                found.add((workflow["workflowId"], step["stepId"], part))
    return {"found": found, "ran": ran}


def _walk(workflows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for workflow in workflows:
        out.append(workflow)
        for step in workflow.get("steps") or ():
            if isinstance(step.get("workflow"), dict):
                out += _walk([step["workflow"]])
        out += _walk(workflow.get("dependencies") or [])
    return out


def respect(node: list[str], document: Path, source: str, url: str) -> dict[str, Any]:
    out = document.parent / "respect.json"
    out.unlink(missing_ok=True)
    argv = [*node, "respect", document.name, "-S", f"{source}={url}", "--json-output", out.name]
    done = subprocess.run(
        argv, cwd=document.parent, capture_output=True, text=True, env={**os.environ, **QUIET_NODE}
    )
    if not out.is_file():
        said = [ln for ln in done.stderr.splitlines() if ln.strip() and "║" not in ln and "╔" not in ln]
        return {"error": {("-", "-", f"exit {done.returncode}: {' / '.join(said[-2:])[:200]}")}}
    found: set[tuple[str, str, str]] = set()
    ran: set[tuple[str, str, str]] = set()
    others: set[str] = set()
    for file in json.loads(out.read_text(encoding="utf-8"))["files"].values():
        for workflow in _respect_walk(file.get("executedWorkflows") or []):
            for step in workflow.get("executedSteps") or ():
                if "stepId" not in step or not (step.get("response") or {}).get("statusCode"):
                    continue
                ran.add((workflow["workflowId"], step["stepId"], ""))
                for check in step.get("checks") or ():
                    kind = RESPECT_KINDS.get(str(check.get("name")))
                    if kind is None:
                        others.add(str(check.get("name")))
                    elif not check.get("passed"):
                        found.add((workflow["workflowId"], step["stepId"], kind))
    return {"found": found, "ran": ran, "other checks": others}


def _respect_walk(workflows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for workflow in workflows:
        out.append(workflow)
        for step in workflow.get("executedSteps") or ():
            if isinstance(step, dict) and "executedSteps" in step:  # a workflow step's run
                out += _respect_walk([step])
    return out


def compare(case: tuple, node: list[str] | None, shared: Path, scratch: Path, prism: bool) -> dict[str, Any]:
    name, document, description, source, placed = case
    folder = scratch / name / "docs"
    folder.mkdir(parents=True)
    doc = folder / Path(document).name
    for sibling in (shared / document).parent.glob("*.arazzo.yaml"):  # arazzo sources beside it
        shutil.copy(sibling, folder / sibling.name)
    shutil.copy(shared / document, doc)
    target = (folder / placed) if placed else folder / Path(description).name
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(shared / description, target)
    if source is None:
        from arazzo_runner.loader import load_path

        source = next(
            s["name"] for s in load_path(doc).data["sourceDescriptions"] if s.get("type") == "openapi"
        )
    servers: list[tuple[str, Any]] = [("mock", lambda: OpenAPIMock(target))]
    if prism:
        servers.append(("prism", lambda: Prism(target)))
    servers += [(f"drift {k}", lambda k=k: DriftingMock(target, k)) for k in range(len(DRIFTS))]
    result: dict[str, Any] = {}
    for server, make in servers:
        try:
            with make() as running:
                sides = {"ours": ours(doc, source, running.url)}
            if node is not None:
                with make() as running:
                    sides["respect"] = respect(node, doc, source, running.url)
        except RuntimeError as exc:  # a mock that cannot serve the description
            sides = {"ours": {"error": {("-", "-", str(exc))}}}
        result[server] = sides
    return result


class Prism:
    """Stoplight Prism's mock server (`prism mock`, static mode: documented examples) on a free port."""

    def __init__(self, description: Path) -> None:
        import socket

        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.description = description
        self.url = f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> Prism:
        argv = [str(PRISM), "mock", "-h", "127.0.0.1", "-p", str(self.port), str(self.description)]
        self.process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        assert self.process.stdout is not None
        said = []
        for line in self.process.stdout:  # it says so once it listens
            if "Prism is listening" in line:
                break
            said.append(line.strip())
        else:
            self.process.wait()
            last = " / ".join(line for line in said if line)[-240:]
            raise RuntimeError(f"prism mock did not start: {last}")
        import threading

        threading.Thread(target=self.process.stdout.read, daemon=True).start()  # drained, never full
        return self

    def __exit__(self, *_: Any) -> None:
        self.process.terminate()
        self.process.wait(timeout=30)


def tally(result: dict[str, Any]) -> dict[str, Any]:
    """Per server: both, ours only, Respect only (on the steps both ran)."""
    out = {}
    for server, sides in result.items():
        mine, theirs = sides.get("ours", {}), sides.get("respect", {})
        if "error" in mine or "error" in theirs or not theirs:
            out[server] = {"error": sorted(map(list, mine.get("error", set()) | theirs.get("error", set())))}
            continue
        steps = {s[:2] for s in mine["ran"]} & {s[:2] for s in theirs["ran"]}
        a = {v for v in mine["found"] if v[:2] in steps}
        b = {v for v in theirs["found"] if v[:2] in steps}
        out[server] = {
            "steps both ran": len(steps),
            "both": sorted(map(list, a & b)),
            "ours only": sorted(map(list, a - b)),
            "respect only": sorted(map(list, b - a)),
            "respect's other checks": sorted(theirs.get("other checks", ())),
        }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--install-redocly", action="store_true", help="npm install Redocly CLI into bench/.node"
    )
    parser.add_argument("--shared", type=Path, default=SHARED, help=f"the shared folder (default {SHARED})")
    parser.add_argument("--json", help="also write the results as JSON here")
    parser.add_argument("--prism", action="store_true", help="also on Prism's mock (from bench/.node)")
    args = parser.parse_args()
    command, skipped = redocly(args.install_redocly)
    node = command[:2] if command else None
    if node is None:
        print(f"redocly skipped: {skipped}")
    results = {}
    with tempfile.TemporaryDirectory() as scratch:
        for case in CASES:
            if not (args.shared / case[1]).is_file():
                print(f"{case[0]}: not under {args.shared}; left out")
                continue
            found = compare(case, node, args.shared, Path(scratch), prism=args.prism and PRISM.is_file())
            results[case[0]] = tally(found)
            print(f"{case[0]}: {json.dumps(results[case[0]])}", flush=True)
    print(machine_line())
    print(f"Redocly CLI {REDOCLY_VERSION if node else '(not run)'}")
    write_json(args.json, {"redocly": REDOCLY_VERSION if node else None, "results": results})


if __name__ == "__main__":
    main()
