"""Benchmark (issue 43, "big bodies"): one step reading a 20 MB JSON body (not a test).

    python bench/big_body.py [--runs N] [--megabytes 20] [--json PATH] [--against CHECKOUT] [--jentic VENV]

One `GET /big` against a stdlib `ThreadingHTTPServer` in its own process (this file with `--serve`),
which answers a generated JSON document of `--megabytes` MB (`{"meta": {...}, "items": [...]}`, items
of ~300 bytes: numbers, a flag, tags, an owner object, a sentence). The step checks `$statusCode ==
200` and one RFC 9535 JSONPath criterion (`$.items[?@.price > 999.5]`, a filter over every item) and
outputs two JSON pointers (`#/meta/total`, `#/items/0/id`); `--max-response-bytes 64M` (the default,
16 MiB, refuses the body). The baseline is the script a user would write instead (`SCRIPT`): httpx's
GET, `json.loads`, the same query with the same library (`jsonpath_rfc9535`), the same two lookups.

Whole processes, paired rounds (every command once per round, the order reversed every other round),
medians: CPU (user + system, from `wait4`) and wall, and the peak resident memory of each process as
the process itself reports it (`VmHWM` from /proc/self/status, written to a file as it ends: a child's
`ru_maxrss` would start at the size of the process that forked it). Also the same pair on a 20 KB
body, whose difference from the big one is what the body costs each side (the fixed cost of `arazzo
run`, ~0.3 s of imports and the document, is not the body's). The load average before and after.
`--jentic VENV` runs Jentic's arazzo-runner too, from the venv `bench/engines/compare.py` installs
(`bench/engines/jentic_driver.py`: its library with the source's server pointed at ours). `--against
CHECKOUT` runs another checkout's engine in the same rounds (e.g. the tree before a change,
exported with `git archive`). In the engine's processes the query's budget (`limits.QUERY_TIMEOUT`,
5 s of wall-clock time) is raised to 120 s: on a machine at a load of 10-20 a query of 0.5 s of CPU
took more than 5 s of wall-clock time and was stopped; the CPU it costs is what is measured. Goal
(issue 43): the engine's body cost <= 1.1x the script's, peak memory <= ~2x the body over the
process's size without it. `--schema`: the responses are described by the items' schema (else `{}`),
which the contract check (on by default) reads the whole body against.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import ROOT, load_average, machine_line, median, mib, ms, paired, write_json
from server import BenchServer

QUERY = "$.items[?@.price > 999.5]"
DRIVER = Path(__file__).resolve().parent / "engines" / "jentic_driver.py"
JENTIC_FILES = ("inputs.json", "servers.json", "jentic.json")
GOAL = 1.1  # issue 43: the engine's CPU <= 1.1x json.loads + the query alone
MB = 1_000_000

# The script a user writes instead: one request, the body parsed, the query, the two lookups.
SCRIPT = """
import json, sys, httpx, jsonpath_rfc9535
url, query = sys.argv[1], sys.argv[2]
response = httpx.get(url, timeout=60)
assert response.status_code == 200, response.status_code
body = json.loads(response.content)
assert jsonpath_rfc9535.compile(query).find(body).values()
print(body["meta"]["total"], body["items"][0]["id"])
"""

# Runs `target` (the script's text, or the engine's `arazzo` command line) and then appends this
# process's own peak resident memory (VmHWM, KiB) to the file named by BIG_BODY_PEAKS.
PEAK = """
import os, sys
def _peak():
    with open("/proc/self/status") as status:
        kib = next(line.split()[1] for line in status if line.startswith("VmHWM:"))
    with open(os.environ["BIG_BODY_PEAKS"], "a") as out:
        out.write(os.environ["BIG_BODY_LABEL"] + " " + kib + "\\n")
kind = sys.argv[1]
if sys.path[0] == "":  # `-c` puts the working directory first: the engine is PYTHONPATH's checkout
    del sys.path[0]
if kind == "engine":
    sys.argv = ["arazzo", *sys.argv[2:]]
    from arazzo_runner.bounds import limits
    limits.QUERY_TIMEOUT = 120.0  # wall-clock: a loaded machine must not stop the query being measured
    from arazzo_runner.cli import entry
    code = entry()
    _peak()
    sys.exit(code)
if kind == "jentic":  # Jentic's driver (bench/engines), run in its own venv's interpreter
    import runpy
    sys.argv = sys.argv[2:]
    runpy.run_path(sys.argv[0], run_name="__main__")
    with open(sys.argv[5]) as result:
        assert '"status": "workflow_complete"' in result.read(), "Jentic's run did not complete"
    _peak()
    sys.exit(0)
sys.argv = ["script", *sys.argv[2:]]
exec(compile(os.environ["BIG_BODY_SCRIPT"], "<script>", "exec"))
_peak()
"""


def body(megabytes: float) -> bytes:
    """A JSON document of about `megabytes` MB: `meta` and a list of items (fixed seed)."""
    rng = random.Random(43)
    words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet"]
    items: list[dict[str, Any]] = []
    size, target = 0, int(megabytes * MB)
    while size < target:
        index = len(items)
        item = {
            "id": index,
            "name": f"item-{index}",
            "price": 999.99 if index == 0 else round(rng.random() * 1000, 2),
            "active": index % 3 == 0,
            "tags": ["red", "green"] if index % 2 else ["blue"],
            "owner": {"id": index % 977, "email": f"user{index % 977}@example.com"},
            "description": " ".join(rng.choice(words) for _ in range(22)),
        }
        size += len(json.dumps(item)) + 2
        items.append(item)
    return json.dumps({"meta": {"total": len(items), "page": 1}, "items": items}).encode()


# `--schema`: the responses' schema the contract check (on by default) reads the whole body against
ITEMS_SCHEMA = {
    "type": "object",
    "required": ["meta", "items"],
    "properties": {
        "meta": {"type": "object", "required": ["total"], "properties": {"total": {"type": "integer"}}},
        "items": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["id", "name", "price", "owner"],
                "properties": {
                    "id": {"type": "integer"},
                    "name": {"type": "string"},
                    "price": {"type": "number"},
                    "tags": {"type": "array", "items": {"type": "string"}},
                    "owner": {"type": "object", "properties": {"email": {"type": "string"}}},
                },
            },
        },
    },
}


def documents(folder: Path, schema: dict[str, Any] | None = None) -> Path:
    """The OpenAPI description of `GET /big` and `GET /small`, and the one-step workflows reading them;
    `schema`: their responses' schema (else `{}`, which the contract check has nothing to check against)."""
    content = {"application/json": {"schema": schema or {}}}
    operation = {"responses": {"200": {"description": "the items", "content": content}}}
    openapi = {
        "openapi": "3.1.0",
        "info": {"title": "big bodies", "version": "1"},
        "paths": {
            "/big": {"get": {"operationId": "getBig", **operation}},
            "/small": {"get": {"operationId": "getSmall", **operation}},
        },
    }
    (folder / "big.openapi.json").write_text(json.dumps(openapi, indent=1))

    def workflow(name: str) -> dict[str, Any]:
        return {
            "workflowId": name,
            "steps": [
                {
                    "stepId": "read",
                    "operationId": f"get{name.capitalize()}",
                    "successCriteria": [
                        {"condition": "$statusCode == 200"},
                        {"context": "$response.body", "type": "jsonpath", "condition": QUERY},
                    ],
                    "outputs": {"total": "$response.body#/meta/total", "first": "$response.body#/items/0/id"},
                }
            ],
            "outputs": {"total": "$steps.read.outputs.total", "first": "$steps.read.outputs.first"},
        }

    document = {
        "arazzo": "1.0.1",
        "info": {"title": "one big body", "version": "1"},
        "sourceDescriptions": [{"name": "big", "url": "./big.openapi.json", "type": "openapi"}],
        "workflows": [workflow("big"), workflow("small")],
    }
    path = folder / "big.arazzo.json"
    path.write_text(json.dumps(document, indent=1))
    return path


class BigBodyServer(BenchServer):
    """This file's server in a child process, answering the bodies written in `folder`."""

    def __init__(self, folder: Path) -> None:
        super().__init__()
        self.folder = folder

    def command(self) -> list[str]:
        return [sys.executable, str(Path(__file__).resolve()), "--serve", str(self.port), str(self.folder)]


def serve(port: int, folder: Path) -> None:
    bodies = {"/big": (folder / "big.json").read_bytes(), "/small": (folder / "small.json").read_bytes()}

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True

        def do_GET(self) -> None:
            content = bodies.get(self.path.split("?", 1)[0])
            if content is None:
                self.send_response(404)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(content)))
            self.end_headers()
            self.wfile.write(content)

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    server.daemon_threads = True
    server.handle_error = lambda request, address: None  # a client that hangs up early (the 16 MiB limit)
    with server:
        server.serve_forever()


def commands(
    folder: Path, url: str, engines: dict[str, Path], jentic: Path | None = None, schema: bool = False
) -> dict[str, tuple[list[str], dict[str, str]]]:
    document = documents(folder, ITEMS_SCHEMA if schema else None)
    peaks = str(folder / "peaks.txt")
    todo: dict[str, tuple[list[str], dict[str, str]]] = {}
    for size in ("big", "small"):
        label = f"script ({size})"
        env = {"BIG_BODY_PEAKS": peaks, "BIG_BODY_LABEL": label, "BIG_BODY_SCRIPT": SCRIPT}
        todo[label] = ([sys.executable, "-c", PEAK, "script", f"{url}/{size}", QUERY], env)
        for name, checkout in engines.items():
            label = f"{name} ({size})"
            env = {
                "BIG_BODY_PEAKS": peaks,
                "BIG_BODY_LABEL": label,
                "PYTHONPATH": str(checkout),
                "ARAZZO_CACHE_DIR": str(folder / f"cache-{name}"),
            }
            argv = ["run", str(document), "--workflow", size, "--server", f"big={url}"]
            todo[label] = ([sys.executable, "-c", PEAK, "engine", *argv, "--max-response-bytes", "64M"], env)
        if jentic is not None:
            label = f"jentic ({size})"
            env = {"BIG_BODY_PEAKS": peaks, "BIG_BODY_LABEL": label}
            (folder / "inputs.json").write_text("{}")
            (folder / "servers.json").write_text(json.dumps({"big": url}))
            driver = [str(DRIVER), str(document), size, *(str(folder / n) for n in JENTIC_FILES)]
            todo[label] = ([str(jentic / "bin" / "python"), "-I", "-c", PEAK, "jentic", *driver], env)
    return todo


def run(
    runs: int, megabytes: float, against: Path | None, jentic: Path | None = None, schema: bool = False
) -> dict[str, Any]:
    load_before = load_average()
    engines = {"engine": ROOT, **({"before": against} if against else {})}
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        big = body(megabytes)
        (folder / "big.json").write_bytes(big)
        (folder / "small.json").write_bytes(body(0.02))
        with BigBodyServer(folder) as server:
            found = paired(commands(folder, server.url, engines, jentic, schema), runs, quiet=True)
        peaks: dict[str, list[int]] = {}
        for line in (folder / "peaks.txt").read_text().splitlines():
            label, kib = line.rsplit(" ", 1)
            peaks.setdefault(label, []).append(int(kib) * 1024)
    failed = [label for label, results in found.items() if results[0].code != 0]
    if failed:
        raise RuntimeError(f"exit code not 0: {', '.join(failed)}")
    rows = {
        label: {
            "cpu": median([r.cpu for r in results]),
            "wall": median([r.wall for r in results]),
            "peak": median(peaks[label]),
        }
        for label, results in found.items()
    }
    compared = {}
    for name in [*engines, *(["jentic"] if jentic else [])]:
        big_pairs = list(zip(found[f"{name} (big)"], found["script (big)"], strict=True))
        small_pairs = list(zip(found[f"{name} (small)"], found["script (small)"], strict=True))
        compared[name] = {
            "cpu": median([a.cpu / b.cpu for a, b in big_pairs]),
            "wall": median([a.wall / b.wall for a, b in big_pairs]),
            # what the body costs each side: big - small, per round
            "body_cpu": median(
                [
                    (a.cpu - s.cpu) / (b.cpu - t.cpu)
                    for (a, b), (s, t) in zip(big_pairs, small_pairs, strict=True)
                ]
            ),
        }
    return {
        "machine": machine_line(),
        "load_before": load_before,
        "load_after": load_average(),
        "runs": runs,
        "body_bytes": len(big),
        "rows": rows,
        "compared": compared,
    }


def report(result: dict[str, Any]) -> None:
    print(f"body {result['body_bytes'] / MB:.1f} MB, {result['runs']} paired rounds, query {QUERY}")
    print(f"load average {result['load_before']} before, {result['load_after']} after")
    print(f"{'process':<18} {'CPU':>10} {'wall':>10} {'peak (VmHWM)':>14}")
    for label, row in result["rows"].items():
        print(f"{label:<18} {ms(row['cpu']):>10} {ms(row['wall']):>10} {mib(row['peak']):>14}")
    rows = result["rows"]
    for name, ratio in result["compared"].items():
        body_cost = rows[f"{name} (big)"]["cpu"] - rows[f"{name} (small)"]["cpu"]
        script_cost = rows["script (big)"]["cpu"] - rows["script (small)"]["cpu"]
        grown = rows[f"{name} (big)"]["peak"] - rows[f"{name} (small)"]["peak"]
        verdict = "PASS" if ratio["body_cpu"] <= GOAL else "MISS"
        print(
            f"{name}: whole process {ratio['cpu']:.2f}x CPU ({ratio['wall']:.2f}x wall) of the script; "
            f"the body: {ms(body_cost)} against {ms(script_cost)}, {ratio['body_cpu']:.2f}x "
            f"(goal <= {GOAL}x: {verdict}); memory for the body +{mib(grown)} "
            f"({grown / result['body_bytes']:.1f}x the body)"
        )


def main() -> None:
    if len(sys.argv) == 4 and sys.argv[1] == "--serve":
        serve(int(sys.argv[2]), Path(sys.argv[3]))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--megabytes", type=float, default=20)
    parser.add_argument("--against", type=Path, help="another checkout's engine in the same rounds")
    parser.add_argument("--jentic", type=Path, help="a venv holding Jentic's arazzo-runner (bench/engines)")
    parser.add_argument("--schema", action="store_true", help="the responses' schema: the items' (else {})")
    parser.add_argument("--json", help="also write the results to this JSON file")
    args = parser.parse_args()
    print(machine_line())
    result = run(args.runs, args.megabytes, args.against, args.jentic, args.schema)
    report(result)
    write_json(args.json, result)


if __name__ == "__main__":
    main()
