"""(issue 42) `arazzo lsp`: how long a 1,000-line document takes to be validated again after an edit.

What the server does when the debounce fires: parse the edited text, build the model, run every rule of
`arazzo validate` and the source checks against the OpenAPI description the document's source cache
already holds (`lsp/store.py`: read once, kept while its file is unchanged), and turn the findings into
diagnostics. The document is `documents.chain_document` written as YAML (~1,000 lines); each edit
changes one step's output name (the next step's reference to it then fails: one finding), alternately
made and undone. Median and max of `--runs` edits, wall and CPU (goal: < 150 ms wall, issue 42).

    python bench/lsp_edit.py [--runs 31] [--lines 1000] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

from common import load_average, machine_line, median, ms, write_json
from documents import OPENAPI, chain_document

GOAL = 0.150


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=31)
    parser.add_argument("--lines", type=int, default=1000)
    parser.add_argument("--json", metavar="PATH")
    args = parser.parse_args()
    import yaml

    from arazzo_runner.lsp.diagnostics import diagnostics
    from arazzo_runner.lsp.state import OpenDocument

    folder = Path(tempfile.mkdtemp(prefix="lsp-bench-"))
    (folder / "bench.openapi.json").write_text(json.dumps(OPENAPI, indent=1))
    steps = 1
    while True:  # the chain whose YAML has about --lines lines
        text = yaml.safe_dump(chain_document(steps), sort_keys=False)
        if text.count("\n") >= args.lines:
            break
        steps += 1
    path = folder / "chain.arazzo.yaml"
    path.write_text(text)
    edited = text.replace("next: $response.body#/next", "nxt: $response.body#/next", 1)
    doc = OpenDocument(path.as_uri(), text)
    first = diagnostics(doc.analyse(), doc.uri)  # the sources are read here, once
    walls, cpus, counts = [], [], set()
    for run in range(args.runs):
        doc.text = edited if run % 2 == 0 else text
        wall, cpu = time.perf_counter(), time.process_time()
        found = diagnostics(doc.analyse(), doc.uri)
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
        counts.add(len(found))
    lines = text.count("\n")
    verdict = "PASS" if median(walls) < GOAL else "MISS"
    print(machine_line())
    print(f"load average: {load_average()} (on a busy machine the wall time waits for a CPU: see CPU)")
    print(f"{lines} lines, {steps} steps; diagnostics after an edit: {sorted(counts)} (before: {len(first)})")
    print(
        f"re-validation after an edit: median {ms(median(walls))} wall ({ms(median(cpus))} CPU), "
        f"max {ms(max(walls))}; goal < {ms(GOAL)}: {verdict}; sources read {doc.sources.loads} time(s)"
    )
    write_json(
        args.json,
        {
            "lines": lines,
            "median_wall": median(walls),
            "median_cpu": median(cpus),
            "max_wall": max(walls),
            "source_loads": doc.sources.loads,
            "verdict": verdict,
        },
    )


if __name__ == "__main__":
    sys.exit(main())
