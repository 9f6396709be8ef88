"""Benchmark: loading and indexing large OpenAPI descriptions (not a test).

    python bench/load_descriptions.py [--runs N] [--json PATH]

For each description: the median (and min) wall time of a cold `load_openapi` (read, parse, index; a new
SourceCache each run), the time to resolve one operation's parameters/body/responses on first use, and the
mean time of an operationId lookup; the memory a loaded description retains and the peak while loading it
(tracemalloc), and the process's peak RSS. Descriptions: the largest ones in ../shared/corpus (Rebilly
2.2 MB YAML, Discord JSON, Stripe, Train Travel) and a generated one with 5,000 operations (in a temp dir).
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from common import self_peak_rss, write_json  # noqa: E402

from arazzo_runner.errors import SourceError  # noqa: E402
from arazzo_runner.sources import SourceCache, load_openapi  # noqa: E402

CORPUS = ROOT.parent / "shared" / "corpus"
CORPUS_FILES = {
    "rebilly (YAML)": "redocly-respect-fixtures/tests/smoke/rebilly/rebilly-description.yaml",
    "discord (JSON)": "jentic-runner-fixtures/fixtures/discord/discord.openapi.json",
    "stripe GET (YAML)": "api-evangelist-stripe/openapi/stripe-get-api-openapi.yml",
    "train travel (YAML)": "jentic-runner-fixtures/fixtures/train/train.openapi.yaml",
}


ID_PARAMETER = {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}


def generated_description(operations: int) -> dict[str, Any]:
    """`operations` operations over operations/2 paths, each with parameters and `$ref`d schemas."""
    paths: dict[str, Any] = {}
    schemas: dict[str, Any] = {}
    for index in range(operations // 2):
        name = f"Thing{index}"
        schemas[name] = {
            "type": "object",
            "required": ["id"],
            "properties": {"id": {"type": "string"}, "n": {"type": "integer"}, "tags": {"type": "array"}},
        }
        ref = {"$ref": f"#/components/schemas/{name}"}
        paths[f"/things{index}/{{id}}"] = {
            "parameters": [{"$ref": "#/components/parameters/Id"}],
            "get": {
                "operationId": f"get{name}",
                "parameters": [{"name": "expand", "in": "query", "schema": {"type": "boolean"}}],
                "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": ref}}}},
            },
            "put": {
                "operationId": f"put{name}",
                "requestBody": {"content": {"application/json": {"schema": ref}}},
                "responses": {"200": {"description": "ok"}, "4XX": {"description": "error"}},
            },
        }
    return {
        "openapi": "3.1.0",
        "info": {"title": "generated", "version": "1"},
        "servers": [{"url": "https://api.example.com"}],
        "paths": paths,
        "components": {
            "schemas": schemas,
            "parameters": {"Id": ID_PARAMETER},
        },
    }


def measure(path: Path, runs: int) -> dict[str, Any]:
    times = []
    description = None
    for _ in range(runs):
        started = time.perf_counter()
        description = load_openapi(str(path), cache=SourceCache())
        times.append(time.perf_counter() - started)
    assert description is not None
    tracemalloc.start()
    try:
        kept = load_openapi(str(path), cache=SourceCache())
        retained, peak = tracemalloc.get_traced_memory()
        del kept
    finally:
        tracemalloc.stop()
    operations = list(description.operations)
    ids = [op.operation_id for op in operations if op.operation_id]
    first_use = _first_use(operations)
    started = time.perf_counter()
    for _ in range(10):
        for operation_id in ids:
            description.operation(operation_id)
    lookup = (time.perf_counter() - started) / max(1, 10 * len(ids))
    return {
        "size": path.stat().st_size,
        "operations": len(operations),
        "median": statistics.median(times),
        "min": min(times),
        "first_use": first_use,
        "lookup": lookup,
        "retained": retained,
        "peak": peak,
    }


def _first_use(operations: list[Any]) -> float | None:
    """Resolving the last operation that resolves (a corpus file may hold a broken `$ref`)."""
    for operation in reversed(operations):
        started = time.perf_counter()
        try:
            _ = (operation.parameters, operation.request_body, operation.responses, operation.security)
        except SourceError:
            continue
        return time.perf_counter() - started
    return None


def machine() -> str:
    model = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    import os

    return f"{os.cpu_count()} CPUs ({model}), Python {platform.python_version()}, {platform.system()}"


def _ms(seconds: float | None) -> str:
    return "n/a" if seconds is None else f"{seconds * 1000:.2f} ms"


def run(runs: int) -> dict[str, Any]:
    """Every description's row, and this process's peak RSS (for run_all.py)."""
    targets = {label: CORPUS / rel for label, rel in CORPUS_FILES.items() if (CORPUS / rel).exists()}
    with tempfile.TemporaryDirectory() as folder:
        generated = Path(folder) / "generated-5000.openapi.yaml"
        generated.write_text(yaml.safe_dump(generated_description(5000), sort_keys=False))
        targets["generated 5,000 ops (YAML)"] = generated
        rows = {label: measure(path, runs) for label, path in targets.items()}
    return {"runs": runs, "rows": rows, "process_peak_rss": self_peak_rss()}


def report(result: dict[str, Any]) -> None:
    print(f"(d) loading descriptions: median of {result['runs']} cold loads")
    print("    retained / peak: tracemalloc, what a loaded description holds / the peak while loading it")
    print(
        f"| {'description':<28} | {'size':>8} | {'ops':>5} | {'load median':>11} | {'load min':>9} "
        f"| {'1st op use':>10} | {'lookup':>7} | {'retained':>9} | {'peak':>9} |"
    )
    widths = (30, 10, 7, 13, 11, 12, 9, 11, 11)
    print("|" + "|".join("-" * width for width in widths) + "|")
    for label, row in result["rows"].items():
        print(
            f"| {label:<28} | {row['size'] / 1e6:>6.2f}MB | {row['operations']:>5} "
            f"| {row['median'] * 1000:>8.0f} ms | {row['min'] * 1000:>6.0f} ms "
            f"| {_ms(row['first_use']):>10} | {row['lookup'] * 1e9:>4.0f} ns "
            f"| {row['retained'] / 2**20:>5.1f} MiB | {row['peak'] / 2**20:>5.1f} MiB |"
        )
    print(f"process peak RSS: {result['process_peak_rss'] / 2**20:.1f} MiB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--json", help="also write the results to this JSON file")
    args = parser.parse_args()
    print(f"machine: {machine()}")
    result = run(args.runs)
    report(result)
    write_json(args.json, result)


if __name__ == "__main__":
    main()
