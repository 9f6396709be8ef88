"""What compare.py writes: results.json (everything), results.csv (a row per workflow) and RESULTS.md."""

from __future__ import annotations

import csv
import json
import os
import platform
import shlex
import subprocess
from collections import Counter
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

OUTCOMES = ("passed", "failed", "refused", "error")


def _version(command: list[str]) -> str:
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"? ({exc})"
    return (done.stdout.strip() or done.stderr.strip() or "?").splitlines()[0]


def machine(engines: list, prism: Path, problems: list[str]) -> dict[str, Any]:
    return {
        "date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "nproc": os.cpu_count(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "node": _version(["node", "--version"]),
        "mock": f"@stoplight/prism-cli {_version([str(prism), '--version'])}",
        "engines": {e.key: e.version() for e in engines},
        "problems": problems,
    }


def command_line(argv: list[str]) -> str:
    return " ".join(["python bench/engines/compare.py", *(shlex.quote(a) for a in argv[1:])])


def counts(keys: list[str], results: list[dict]) -> dict[str, Counter]:
    tally = {k: Counter() for k in keys}
    for doc in results:
        for row in doc["workflows"]:
            for key, cell in row["engines"].items():
                tally[key][cell["outcome"]] += 1
                tally[key]["false pass"] += bool(cell.get("false_pass"))
    return tally


def table(keys: list[str], titles: dict[str, str], results: list[dict]) -> str:
    tally = counts(keys, results)
    lines = [
        "| engine | passed | failed | refused | crashed | possible false passes |",
        "|---|---|---|---|---|---|",
    ]
    for key in keys:
        t = tally[key]
        lines.append(
            f"| {titles[key]} | {t['passed']} | {t['failed']} | {t['refused']} | {t['error']} "
            f"| {t['false pass']} |"
        )
    return "\n".join(lines)


def respect_runs_we_refuse(results: list[dict]) -> list[tuple[str, str, str, dict]]:
    out = []
    for doc in results:
        for row in doc["workflows"]:
            ours, respect = row["engines"].get("ours"), row["engines"].get("respect")
            if (
                ours
                and respect
                and ours["outcome"] == "refused"
                and respect["outcome"] in ("passed", "failed")
            ):
                out.append((doc["document"], row["workflow"], respect["outcome"], ours))
    return out


def respect_cell(results: list[dict], document: str, workflow: str) -> dict:
    for doc in results:
        for row in doc["workflows"]:
            if doc["document"] == document and row["workflow"] == workflow:
                return row["engines"]["respect"]
    return {}


def false_passes(results: list[dict]) -> list[str]:
    out = []
    for doc in results:
        for row in doc["workflows"]:
            for key, cell in row["engines"].items():
                if cell.get("false_pass"):
                    out.append(
                        f"{key}: `{doc['document']}` `{row['workflow']}`: reports success over "
                        f"{cell['claimed_steps']} operation step(s) it ran, "
                        f"{cell['requests']} request(s) reached the mocks"
                    )
    return out


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def write(
    out: Path, meta: dict, keys: list[str], titles: dict[str, str], results: list[dict], skipped: list
) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_text(
        json.dumps({"meta": meta, "skipped": skipped, "documents": results}, indent=1)
    )
    with (out / "results.csv").open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(
            ["document", "workflow"] + [f"{k}_{c}" for k in keys for c in ("outcome", "requests", "reason")]
        )
        for doc in results:
            for row in doc["workflows"]:
                cells = [row["engines"].get(k, {}) for k in keys]
                flat = [v for c in cells for v in (c.get("outcome"), c.get("requests"), c.get("reason"))]
                writer.writerow([doc["document"], row["workflow"], *flat])
    workflows = sum(len(d["workflows"]) for d in results)
    not_run = [(d["document"], w, why) for d in results for w, why in d.get("skipped_workflows", [])]
    reasons = Counter(why.split(":")[0] for _, why in skipped)
    security = (
        "kept" if meta["keep_security"] else "removed from the mock's copy (the engines read the originals)"
    )
    md = [
        "# Engines side by side over the corpus (issue 22, point 4)",
        "",
        f"Run {meta['date']}, {meta['seconds']} s, on {meta['platform']}, nproc {meta['nproc']}, Python "
        f"{meta['python']}, node {meta['node']}. Mock: {meta['mock']} (static examples), behind a counting "
        f"proxy; security requirements {security}. Each run bounded to "
        f"{meta['timeout']:.0f} s and {meta['memory_mib']} MiB.",
        "",
        "Engines: " + "; ".join(f"{titles[k]}: {meta['engines'][k]}" for k in keys) + ".",
        "",
        f"Command: `{meta['command']}`",
        "",
        f"{len(results)} documents, {workflows} workflows run; {len(skipped)} documents skipped: "
        + ", ".join(f"{n} {why}" for why, n in reasons.most_common())
        + " (list in results.json). "
        f"{len(not_run)} workflows of run documents left out: "
        + ("; ".join(f"`{d}` `{w}`: {why}" for d, w, why in not_run) or "none")
        + ".",
        "",
        table(keys, titles, results),
        "",
        "passed: the engine reports success. failed: it reports a failure after a request reached a mock. "
        "refused: no request reached a mock. crashed: traceback, unexpected exit, timeout, memory limit or "
        "no report. A possible false pass: success reported with fewer requests at the mocks than the "
        "operation steps it reports having run.",
    ]
    problems = meta.get("problems") or []
    md += ["", "Problems: " + "; ".join(problems)] if problems else []
    mock_notes = [f"- `{d['document']}`: {n}" for d in results for n in d.get("mocks", [])]
    md += ["", "## Mocks that did not start", "", *mock_notes] if mock_notes else []
    refused = respect_runs_we_refuse(results)
    md += ["", f"## Respect runs them, we refuse ({len(refused)})", ""]
    for d, w, o, ours in refused:
        theirs = respect_cell(results, d, w)
        said = "" if o == "passed" else f", {_cell(theirs.get('reason', ''))}"
        sent = "; ".join(theirs.get("sent", [])[:4])
        md.append(f"- `{d}` workflow `{w}`: Respect {o} (sent {sent}{said}); ours refused:")
        md += [f"  - {_cell(x)}" for x in ours.get("details") or [ours["reason"]]]
    md += [] if refused else ["None."]
    fp = false_passes(results)
    md += (
        ["", f"## Possible false passes ({len(fp)})", "", *(f"- {x}" for x in fp)]
        if fp
        else ["", "## Possible false passes", "", "None."]
    )
    md += [
        "",
        "## Per workflow",
        "",
        "Outcome (requests that reached the mocks); reasons in results.csv / results.json.",
        "",
    ]
    md += [
        "| document | workflow | " + " | ".join(titles[k] for k in keys) + " |",
        "|---|---|" + "---|" * len(keys),
    ]
    for doc in results:
        for row in doc["workflows"]:
            cells = [row["engines"].get(k, {}) for k in keys]
            shown = [
                f"{c.get('outcome')} ({c.get('requests', '-')}){' FP' if c.get('false_pass') else ''}"
                for c in cells
            ]
            md.append(f"| {doc['document']} | {_cell(row['workflow'])} | " + " | ".join(shown) + " |")
    (out / "RESULTS.md").write_text("\n".join(md) + "\n")
