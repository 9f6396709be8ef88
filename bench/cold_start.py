"""Benchmark (a): cold start, whole processes (not a test).

    python bench/cold_start.py [--runs N] [--json PATH]

Median wall time and peak RSS of N runs (interleaved) of: `python -c pass` (the floor), `arazzo --version`,
`arazzo validate` of a 1-step document, `arazzo run` of that 1-step workflow against the bench server
(`--server bench=URL`), and a raw python process doing the same single request with httpx (parse the
JSON, check the status and `ok`): `httpx.get` (the target's baseline) and, for reference, with an
`httpx.AsyncClient` under `asyncio.run` (the engine's async core imports asyncio and anyio too). Prints
the engine/raw ratios of the run.

The same run and raw request over https, for reference: the engine reads the CA bundle at the first TLS
handshake only (never on plain http), httpx when the client is made; both are given certifi's bundle
plus the test CA of the bench server's certificate (`SSL_CERT_FILE`), so both pay a real bundle's load.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import arazzo_command, machine_line, median, mib, ms, run_process, self_peak_rss, write_json
from documents import SOURCE, write_chain
from server import TEST_CA, BenchServer

RAW = (
    "import sys, httpx\n"
    "r = httpx.get(sys.argv[1])\n"
    "body = r.json()\n"
    "assert r.status_code == 200 and body['ok'] is True\n"
)
RAW_ASYNC = (
    "import asyncio, sys, httpx\n"
    "async def main():\n"
    "    async with httpx.AsyncClient() as client:\n"
    "        r = await client.get(sys.argv[1])\n"
    "        body = r.json()\n"
    "        assert r.status_code == 200 and body['ok'] is True\n"
    "asyncio.run(main())\n"
)


def commands(document: Path, url: str, https_url: str) -> dict[str, tuple[list[str], dict[str, str]]]:
    """label -> (command, environment added). `arazzo run` validates a document first and remembers a
    clean verdict (until the document, its sources or the engine change): the target's row is the usual
    case, a document run before (a cache in the temp folder, filled by the warm-up run); the next row
    validates every time."""
    arazzo = arazzo_command()
    run = [*arazzo, "run", str(document), "--server", f"{SOURCE}={url}"]
    cached = {"ARAZZO_CACHE_DIR": str(document.parent / "cache")}
    trust = {"SSL_CERT_FILE": str(ca_bundle(document.parent))}
    run_https = [*arazzo, "run", str(document), "--server", f"{SOURCE}={https_url}"]
    return {
        "python -c pass": ([sys.executable, "-c", "pass"], {}),
        "arazzo --version": ([*arazzo, "--version"], {}),
        "arazzo validate (1 step)": ([*arazzo, "validate", str(document)], {}),
        "arazzo run (1 step)": (run, cached),
        "arazzo run (no valid. cache)": (run, {"ARAZZO_NO_CACHE": "1"}),
        "raw httpx (1 request)": ([sys.executable, "-c", RAW, f"{url}/items/1"], {}),
        "raw httpx async (1 request)": ([sys.executable, "-c", RAW_ASYNC, f"{url}/items/1"], {}),
        "arazzo run https (1 step)": (run_https, {**cached, **trust}),
        "raw httpx https (1 request)": ([sys.executable, "-c", RAW, f"{https_url}/items/1"], trust),
    }


def ca_bundle(folder: Path) -> Path:
    """certifi's bundle plus the test CA: a trust store of realistic size that trusts the bench server."""
    import certifi

    bundle = folder / "ca-bundle.pem"
    bundle.write_text(Path(certifi.where()).read_text() + "\n" + TEST_CA.read_text())
    return bundle


def run(runs: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as folder, BenchServer() as server, BenchServer(tls=True) as secure:
        document = write_chain(Path(folder), 1)
        todo = commands(document, server.url, secure.url)
        for label, (command, env) in todo.items():  # warm the page cache and check each one works
            _, _, code = run_process(command, env)
            if code != 0:
                raise RuntimeError(f"{label}: exit code {code}: {' '.join(command)}")
        times: dict[str, list[float]] = {label: [] for label in todo}
        rss: dict[str, list[int]] = {label: [] for label in todo}
        for _ in range(runs):
            for label, (command, env) in todo.items():
                elapsed, peak, _ = run_process(command, env)
                times[label].append(elapsed)
                rss[label].append(peak)
    rows = {
        label: {"median": median(times[label]), "min": min(times[label]), "rss": max(rss[label])}
        for label in todo
    }
    engine = rows["arazzo run (1 step)"]["median"]
    ratio = engine / rows["raw httpx (1 request)"]["median"]
    ratio_async = engine / rows["raw httpx async (1 request)"]["median"]
    ratio_https = rows["arazzo run https (1 step)"]["median"] / rows["raw httpx https (1 request)"]["median"]
    return {
        "runs": runs,
        "rows": rows,
        "ratio": ratio,
        "ratio_async": ratio_async,
        "ratio_https": ratio_https,
        "process_peak_rss": self_peak_rss(),
    }


def report(result: dict[str, Any]) -> None:
    print(f"(a) cold start, whole processes: median of {result['runs']} runs")
    print(f"| {'command':<28} | {'median':>9} | {'min':>9} | {'peak RSS':>9} |")
    print(f"|{'-' * 30}|{'-' * 11}|{'-' * 11}|{'-' * 11}|")
    for label, row in result["rows"].items():
        print(f"| {label:<28} | {ms(row['median']):>9} | {ms(row['min']):>9} | {mib(row['rss']):>9} |")
    print(f"arazzo run / raw httpx = {result['ratio']:.2f}x (target <= 1.3x)")
    print(f"arazzo run / raw httpx async = {result['ratio_async']:.2f}x (reference: same async stack)")
    https = result["ratio_https"]
    print(f"arazzo run https / raw httpx https = {https:.2f}x (reference: both read the CA bundle)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=11)
    parser.add_argument("--json", help="also write the results to this JSON file")
    args = parser.parse_args()
    print(machine_line())
    result = run(args.runs)
    report(result)
    write_json(args.json, result)


if __name__ == "__main__":
    main()
