"""Benchmark, issue 43 ("validate on big sources"): `arazzo validate` of 5 workflows over a 4 MB YAML
description, first and next times, beside `redocly lint` (not a test).

Rows (whole processes, paired rounds, the order reversed every other round, CPU time = user + system):

- `arazzo validate`, no cache (`ARAZZO_NO_CACHE=1`): the description parsed in the process, every time;
- `arazzo validate`, a description parsed before: read back from the parsed-source store
  (`sources/stored.py`; the store filled once beforehand, in the benchmark's temp folder);
- `arazzo validate --schema-only`: the floor (the interpreter, the imports, the official schema);
- `redocly lint` on the same document, when Redocly CLI is there (`--install-redocly`, as
  validate_corpus.py). It does not read source descriptions at all: it passes a step whose operationId
  the description does not have, which `arazzo validate` reports (checked here, and printed beside
  its figure).

Then in this process, the parse of the description alone: the engine's loader (libyaml's event stream
into its own builder, positions left for later), PyYAML's `yaml.load` with the C loader (no positions),
libyaml's events with nothing built (the floor of any loader on PyYAML), and the store's read-back.

The description: `--description PATH` (the figures in bench/RESULTS.md are for Stripe's published
`openapi/spec3.yaml` of September 2023, 4.16 MB, 468 operations); without one, a generated description
of about 4 MB (`--size`) with the same shape (operations returning large objects that expand into each
other through `$ref`s, some recursive), written to the temp folder.
"""

from __future__ import annotations

import argparse
import gc
import os
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

import yaml
from common import measure_process, paired
from validate_corpus import QUIET_NODE, redocly, redocly_version

PYTHON = sys.executable
WANTED = ("GetCustomers", "GetCharges", "GetAccount", "GetProducts", "GetInvoices")


def generated(size: int) -> str:
    """A description of about `size` bytes: N objects of 30 properties, each naming two others, one
    list operation and one fetch each."""
    count = max(10, size // 7000)
    schemas, paths = {}, {}
    for index in range(count):
        props = {
            f"field_{k}": {"type": "string", "description": f"Field {k} of object {index}, " + "words " * 6}
            for k in range(30)
        }
        props["parent"] = {"$ref": f"#/components/schemas/Object{(index + 1) % count}"}
        props["children"] = {"type": "array", "items": {"$ref": f"#/components/schemas/Object{index}"}}
        schemas[f"Object{index}"] = {"type": "object", "properties": props}
        ok = {
            "description": "ok",
            "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/Object{index}"}}},
        }
        paths[f"/v1/objects{index}"] = {
            "get": {"operationId": f"GetObjects{index}", "responses": {"200": ok}}
        }
    doc = {
        "openapi": "3.0.0",
        "info": {"title": "generated", "version": "1"},
        "servers": [{"url": "https://api.example.com"}],
        "paths": paths,
        "components": {"schemas": schemas},
    }
    return yaml.safe_dump(doc, sort_keys=False, width=100)


def operation_ids(text: str) -> list[str]:
    found = re.findall(r"^\s+operationId: ['\"]?([A-Za-z0-9_]+)", text, re.M)
    chosen = [op for op in WANTED if op in found]
    return (chosen + [op for op in found if op.startswith("Get") and op not in chosen])[:5]


def arazzo_document(description: str, ops: list[str], broken: bool) -> str:
    lines = [
        "arazzo: 1.0.1",
        "info: {title: Five workflows over a big description, version: 1.0.0}",
        "sourceDescriptions:",
        f"  - {{name: api, url: '{description}', type: openapi}}",
        "workflows:",
    ]
    for index, op in enumerate(ops):
        target = "NoSuchOperation" if broken and index == 0 else op
        lines += [
            f"  - workflowId: flow{index}",
            "    steps:",
            "      - stepId: call",
            f"        operationId: {target}",
            "        successCriteria: [{condition: $statusCode == 200}]",
        ]
    return "\n".join(lines) + "\n"


def cpu(function) -> float:
    gc.collect()
    started = time.process_time()
    function()
    return time.process_time() - started


def in_process(path: Path, rounds: int) -> dict[str, float]:
    """Best CPU seconds of each way of reading the description, in this process."""
    from arazzo_runner.loader import load_text
    from arazzo_runner.sources.parse import parse_source, parse_stored
    from arazzo_runner.sources.stored import ParsedStore

    raw = path.read_bytes()
    text = raw.decode()
    store = ParsedStore(Path(tempfile.mkdtemp()) / "sources")
    parse_stored(raw, str(path), store, parse_source)  # filled once

    def events() -> None:
        loader = yaml.CSafeLoader(text)
        try:
            while loader.get_event() is not None:
                pass
        finally:
            loader.dispose()

    ways = {
        "the engine's loader (libyaml events, positions later)": lambda: load_text(
            raw, str(path), positions=False
        ),
        "yaml.load(CSafeLoader): PyYAML's C loader, no positions": lambda: yaml.load(
            text, Loader=yaml.CSafeLoader
        ),
        "libyaml's events alone, nothing built": events,
        "read back from the parsed-source store": lambda: parse_stored(raw, str(path), store, _never),
    }
    return {label: min(cpu(way) for _ in range(rounds)) for label, way in ways.items()}


def _never(content: bytes, location: str) -> None:
    raise AssertionError("the store should have had it")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--description", type=Path, help="a big YAML description (default: generated)")
    parser.add_argument("--size", type=int, default=4_000_000, help="bytes of the generated description")
    parser.add_argument("--runs", type=int, default=7, help="paired rounds")
    parser.add_argument("--install-redocly", action="store_true", help="npm install Redocly CLI if missing")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="arazzo-big-source-"))
    description = args.description.resolve() if args.description else folder / "api.yaml"
    if not args.description:
        description.write_text(generated(args.size))
    text = description.read_text()
    ops = operation_ids(text)
    document = folder / "five.arazzo.yaml"
    document.write_text(arazzo_document(str(description), ops, broken=False))
    broken = folder / "broken.arazzo.yaml"
    broken.write_text(arazzo_document(str(description), ops, broken=True))
    cache = {"ARAZZO_CACHE_DIR": str(folder / "cache")}
    arazzo = [PYTHON, "-m", "arazzo_runner.cli", "validate"]
    assert measure_process([*arazzo, str(document)], cache).code == 0  # fills the store
    assert measure_process([*arazzo, str(broken)], cache).code == 1  # the unknown operationId is found
    commands = {
        "arazzo validate, no cache": ([*arazzo, str(document)], {"ARAZZO_NO_CACHE": "1"}),
        "arazzo validate, parsed before": ([*arazzo, str(document)], cache),
        "arazzo validate --schema-only": ([*arazzo, "--schema-only", str(document)], cache),
    }
    command, why = redocly(args.install_redocly)
    note = ""
    if command is not None:
        passes = measure_process([*command, str(broken)], QUIET_NODE, quiet=True).code == 0
        note = " (does not read descriptions: passes the unknown operationId)" if passes else ""
        commands[f"redocly lint {redocly_version()}{note}"] = ([*command, str(document)], QUIET_NODE)
    found = paired(commands, args.runs, quiet=True)
    size = description.stat().st_size / 1e6
    print(f"{description.name}: {size:.2f} MB, operations {', '.join(ops)}; {args.runs} paired rounds")
    print(f"{'command':<86} {'CPU median':>10} {'CPU min':>8} {'wall median':>11}")
    for label, runs in found.items():
        cpus = [r.cpu for r in runs]
        wall = statistics.median(r.wall for r in runs)
        print(f"{label:<86} {statistics.median(cpus):>9.3f}s {min(cpus):>7.3f}s {wall:>10.3f}s")
    if command is None:
        print(f"redocly lint: skipped ({why})")
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print("\nparse of the description alone, in one process (best CPU of 5):")
    for label, seconds in in_process(description, 5).items():
        print(f"  {label:<60} {seconds:.3f}s")


if __name__ == "__main__":
    main()
