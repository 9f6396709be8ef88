"""Side-by-side run of Arazzo engines over the real-world documents whose OpenAPI files are on disk.

For each such document (corpus.py) a Prism mock per OpenAPI file (mocks.py) sits behind a counting
proxy (proxy.py); each workflow gets inputs generated from its schema (inputs.py), the same for every
engine, and is run by each engine (engines.py, peers.py) in turn, bounded in time and memory
(bounded.py). Outcome per (engine, workflow):

- passed: the engine reports success (a *possible false pass* when fewer requests reached the mocks
  than the operation steps it reports having run);
- failed: it reports a failure and at least one request reached a mock;
- refused: nothing reached a mock (a document or usage error, our exit 2 or a workflow "not run", or a
  step failed before its request left);
- error: it crashed (traceback, unexpected exit, timeout, memory limit, no report).

Writes results.json, results.csv and RESULTS.md next to this file (report.py). See README.md.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

sys.path.append(str(Path(__file__).resolve().parents[2]))  # the checkout: bench.engines (never its engine)

from bench.engines import bounded, report
from bench.engines.corpus import Document, discover
from bench.engines.engines import Engine, Job, Ours, Verdict
from bench.engines.inputs import workflow_inputs
from bench.engines.mocks import PRISM_PACKAGE, MockSet, mock_copy, npm_install, start_prism
from bench.engines.peers import (
    AEXEC_VERSION,
    JENTIC_VERSION,
    REDOCLY_VERSION,
    ArazzoExec,
    Jentic,
    Respect,
    venv_install,
)

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
SHARED = (ROOT.parent / "shared").resolve()
ENGINES = ("ours", "respect", "jentic", "aexec")


def classify(verdict: Verdict, requests: int) -> tuple[str, bool]:
    """The outcome and whether a pass is a possible false pass."""
    if verdict.status == "passed":
        return "passed", verdict.claimed is not None and requests < verdict.claimed
    if verdict.status in ("error", "refused"):
        return verdict.status, False
    return ("failed" if requests else "refused"), False


def clean_env(home: Path) -> dict[str, str]:
    import os

    keep = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "LC_ALL", "TMPDIR", "TZ")}
    home.mkdir(parents=True, exist_ok=True)
    return {
        **keep,
        "HOME": str(home),
        "NO_COLOR": "1",
        "REDOCLY_TELEMETRY": "off",
        "REDOCLY_SUPPRESS_UPDATE_NOTICE": "true",
        "NODE_OPTIONS": "--max-old-space-size=1536",
    }


def slug(text: str) -> str:
    """A folder name for `text`: its last 60 safe characters after a hash of the whole (never two alike)."""
    safe = "".join(c if c.isalnum() or c in "-._" else "_" for c in text)
    return f"{hashlib.sha256(text.encode()).hexdigest()[:8]}-{safe[-60:]}"


def shown(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(SHARED))
    except ValueError:
        return str(path)


def run_document(doc: Document, engines: list[Engine], args: argparse.Namespace, env: dict[str, str]) -> dict:
    cache: Path = args.cache
    folder = cache / "run" / slug(shown(doc.path))
    shutil.rmtree(folder, ignore_errors=True)
    mocks, notes = MockSet(), []
    try:
        for source in doc.sources:
            if source.path in mocks.mocks:
                continue
            served = mock_copy(source.path, cache / "served", args.keep_security)
            mock = start_prism(args.prism, source.path, served, folder / "mocks")
            mocks.mocks[source.path] = mock
            if mock.problem:
                notes.append(f"mock of {shown(source.path)}: {mock.problem}")
        rows, skipped = [], []
        for workflow in doc.workflows:
            remote = outside_mocks(workflow)
            if remote:
                skipped.append([str(workflow.get("workflowId")), remote])
            else:
                rows.append(run_workflow(doc, workflow, engines, mocks, folder, args, env, bool(notes)))
        served = [{"description": shown(p), "mock": m.kind, "port": m.port} for p, m in mocks.mocks.items()]
        return {
            "document": shown(doc.path),
            "mock_servers": served,
            "mocks": notes,
            "workflows": rows,
            "skipped_workflows": skipped,
        }
    finally:
        mocks.stop()


def outside_mocks(workflow: dict[str, Any]) -> str | None:
    """Why a workflow's requests would go elsewhere than the mocks: a step with Respect's `x-operation`
    extension names an absolute URL of its own."""
    for step in workflow.get("steps") or []:
        target = step.get("x-operation") if isinstance(step, dict) else None
        if isinstance(target, dict) and "://" in str(target.get("url", "")):
            return f"step '{step.get('stepId')}' calls {target.get('url')} (x-operation), not a mocked source"
    return None


def run_workflow(
    doc, workflow, engines, mocks: MockSet, folder: Path, args, env, broken: bool
) -> dict[str, Any]:
    wid = str(workflow.get("workflowId"))
    values = workflow_inputs(workflow, doc.data)
    work = folder / slug(wid)
    work.mkdir(parents=True, exist_ok=True)
    inputs_path = work / "inputs.json"
    inputs_path.write_text(json.dumps(values, indent=1))
    row: dict[str, Any] = {
        "workflow": wid,
        "steps": len(workflow.get("steps") or []),
        "inputs": values,
        "engines": {},
    }
    if broken:
        row["engines"] = {
            e.key: {"outcome": "not compared", "reason": "a mock did not start"} for e in engines
        }
        return row
    families = {s.family: mocks.mocks[s.path].url for s in doc.sources}
    plain: dict[str, str] = {}
    for source in sorted(doc.sources, key=lambda s: "/" in s.family):  # the document's own names first
        plain.setdefault(source.name, mocks.mocks[source.path].url)
    for engine in engines:
        job = Job(doc.path.resolve(), doc.data, wid, values, inputs_path, families, plain, work / engine.key)
        shutil.rmtree(job.workdir, ignore_errors=True)
        job.workdir.mkdir(parents=True)
        command = engine.command(job)
        marks = mocks.mark()
        done = bounded.run(
            command, cwd=job.workdir, env=env, timeout=args.timeout, memory_mib=args.memory_mib
        )
        time.sleep(0.05)  # a proxy thread may still be recording the last answer
        seen = mocks.since(marks)
        verdict = engine.verdict(job, done)
        outcome, false_pass = classify(verdict, len(seen))
        row["engines"][engine.key] = {
            "outcome": outcome,
            "reason": verdict.reason,
            "details": verdict.details,
            "engine_said": verdict.status,
            "exit": done.code,
            "requests": len(seen),
            "claimed_steps": verdict.claimed,
            "false_pass": false_pass,
            "seconds": round(done.seconds, 2),
            "sent": [f"{m} {t} -> {s}" for m, t, s in seen[:20]],
        }
        print(
            f"  {wid:40.40} {engine.key:8} {outcome:8} req={len(seen):<3} {verdict.reason[:70]}", flush=True
        )
    return row


def install(args: argparse.Namespace) -> list[str]:
    problems = []
    if not args.no_install:
        problem = npm_install(args.cache / "node", [PRISM_PACKAGE, f"@redocly/cli@{REDOCLY_VERSION}"])
        problems += [problem] if problem else []
        for folder, requirement in (
            ("jentic", f"arazzo-runner=={JENTIC_VERSION}"),
            ("aexec", f"arazzo-exec=={AEXEC_VERSION}"),
        ):
            problem = (
                venv_install(args.cache / folder, requirement) if folder in args.engines_wanted else None
            )
            problems += [problem] if problem else []
    return problems


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--arazzo", default="arazzo", help="this project's `arazzo` executable (default: on PATH)"
    )
    parser.add_argument(
        "--engines", default=",".join(ENGINES), help=f"comma-separated, of {', '.join(ENGINES)}"
    )
    parser.add_argument(
        "--root",
        type=Path,
        action="append",
        help="folder to search (repeatable); default ../shared/corpus and ../shared/arazzo/examples",
    )
    parser.add_argument("--only", default="", help="only documents whose path contains this")
    parser.add_argument("--timeout", type=float, default=60, help="seconds per engine run (default 60)")
    parser.add_argument(
        "--memory-mib", type=int, default=2048, help="RSS limit per engine run (default 2048)"
    )
    parser.add_argument("--jobs", type=int, default=1, help="documents at a time, each with its own mocks")
    parser.add_argument(
        "--no-install",
        action="store_true",
        help="do not install missing peers and Prism "
        "(by default npm and pip put the pinned versions under --cache)",
    )
    parser.add_argument("--keep-security", action="store_true", help="mock the descriptions as they are")
    parser.add_argument("--cache", type=Path, default=HERE / ".cache", help="installs and run files")
    parser.add_argument("--out", type=Path, default=HERE, help="where results.json/.csv and RESULTS.md go")
    args = parser.parse_args()
    args.engines_wanted = [e.strip() for e in args.engines.split(",") if e.strip()]
    args.cache = args.cache.resolve()
    args.prism = args.cache / "node" / "node_modules" / ".bin" / "prism"
    problems = install(args)
    catalogue = {
        "ours": Ours(args.arazzo),
        "respect": Respect(args.cache / "node"),
        "jentic": Jentic(args.cache / "jentic"),
        "aexec": ArazzoExec(args.cache / "aexec"),
    }
    engines = []
    for key in args.engines_wanted:
        problem = catalogue[key].problem()
        if problem:
            problems.append(f"{key}: {problem}")
        else:
            engines.append(catalogue[key])
    if not args.prism.exists():
        sys.exit(
            f"Prism is not installed at {args.prism}: rerun without --no-install ({'; '.join(problems)})"
        )
    roots = args.root or [SHARED / "corpus", SHARED / "arazzo" / "examples"]
    found = discover([r.resolve() for r in roots])
    docs = [d for d in found.runnable if args.only in shown(d.path)]
    names = ", ".join(e.key for e in engines)
    print(f"{len(docs)} documents to run, {len(found.skipped)} skipped; engines: {names}")
    env = clean_env(args.cache / "home")
    started = time.monotonic()
    results: list[dict] = []

    def one(doc: Document) -> dict:
        print(f"{shown(doc.path)}", flush=True)
        return run_document(doc, engines, args, env)

    with ThreadPoolExecutor(max(1, args.jobs)) as pool:
        results = list(pool.map(one, docs))
    meta = report.machine(engines, args.prism, problems)
    meta.update(
        seconds=round(time.monotonic() - started),
        command=report.command_line(sys.argv),
        keep_security=args.keep_security,
        timeout=args.timeout,
        memory_mib=args.memory_mib,
    )
    skipped = [(shown(p), why) for p, why in found.skipped]
    report.write(
        args.out, meta, [e.key for e in engines], {e.key: e.title for e in engines}, results, skipped
    )
    print(report.table([e.key for e in engines], {e.key: e.title for e in engines}, results))
    for problem in problems:
        print(f"problem: {problem}", file=sys.stderr)


if __name__ == "__main__":
    main()
