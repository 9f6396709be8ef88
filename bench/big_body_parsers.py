"""Benchmark (issue 43, "big bodies"): which JSON reader could hold a 20 MB body in ~2x its size.

    python bench/big_body_parsers.py [--runs N] [--megabytes 20] [--documents N] [--packages DIR]
        [--json PATH]

Not a test.

The engine reads a response body with `bounds/json_text.loads` (`json.loads` behind the untrusted-JSON
rule): the objects it builds cost ~3.3x the text, ~5.5x with the bytes held. This measures the readers
that could replace it on the body of `big_body.py` (the same generator), each in its own process: the
bytes read first, then the reader, then the work of that benchmark's step done by hand (the items whose
`price > 999.5`, and `/meta/total`, `/items/0/id`). Per reader: the CPU of the parse and of that work
(`time.process_time`), the memory it holds once done and its peak, both over the process with the bytes
already held (VmRSS / VmHWM). Medians of `--runs` rounds, the readers' order reversed every other round.

  - `json.loads`: the engine's reader before (behind the depth and lone-surrogate rule, which cost
    ~0.1 s more on this body: a scan of the bytes).
  - `json_text`: the engine's reader (`bounds/json_text.loads`: jiter where installed for a text of
    1 MiB or more, behind the same rule).
  - `jiter`: `jiter.from_json` (Python objects, read from the bytes without a str copy).
  - `simdjson lazy`: pysimdjson's `Parser().parse`, its lazy proxies over simdjson's tape, never made
    Python objects but for the values read (`at_pointer` for the pointers).
  - `simdjson per item`: the same, each item made a dict (`as_dict`) as an evaluator of ours would need.
  - `ijson stream`: ijson (yajl2_c) reading the bytes as a stream, each item built then dropped, each
    pointer a stream read to its first match (one pass for the work, one per pointer).

Then the same readers against `json_text.loads` on `--documents` generated texts (a fixed seed): nested
objects and arrays with duplicate keys, ints past 64 bits, -0, exponents, floats at the edges, escapes,
lone surrogates, a BOM, NaN. For each reader: how many give the same value (types, float bits and key
order compared), how many refuse a text the engine reads (a fallback could send those to the engine's
reader), and how many give another value silently (no fallback can catch those). For the lazy reader the
pointer to every value of the engine's document is read too, as a pointer output would be.

`--packages DIR`: a folder holding the readers not installed (`pip install --target DIR pysimdjson ijson`);
a reader missing is reported as such.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from big_body import body
from common import ROOT, load_average, machine_line, median, mib, ms, write_json

READERS = ("json.loads", "json_text", "jiter", "simdjson lazy", "simdjson per item", "ijson stream")


def _status() -> dict[str, int]:
    with open("/proc/self/status") as status:
        return {
            line.split(":")[0]: int(line.split()[1]) * 1024
            for line in status
            if line.startswith(("VmRSS:", "VmHWM:"))
        }


def read_with(reader: str, data: bytes) -> tuple[Any, Any]:
    """The reader's document (kept alive by the caller) and a function doing the step's work on it."""
    if reader in ("json.loads", "json_text"):
        from arazzo_runner.bounds.json_text import loads

        doc = json.loads(data) if reader == "json.loads" else loads(data)
        return doc, lambda: _work_on_objects(doc)
    if reader == "jiter":
        import jiter

        doc = jiter.from_json(data)
        return doc, lambda: _work_on_objects(doc)
    if reader.startswith("simdjson"):
        import simdjson

        parser = simdjson.Parser()
        doc = parser.parse(data)
        each = (lambda item: item.as_dict()) if reader.endswith("per item") else (lambda item: item)

        def work() -> tuple[int, Any, Any]:
            found = sum(1 for item in doc["items"] if each(item)["price"] > 999.5)
            return found, doc.at_pointer("/meta/total"), doc.at_pointer("/items/0/id")

        return (parser, doc), work
    import ijson

    def stream() -> tuple[int, Any, Any]:
        found = sum(1 for item in ijson.items(data, "items.item", use_float=True) if item["price"] > 999.5)
        total = next(ijson.items(data, "meta.total", use_float=True))
        return found, total, next(ijson.items(data, "items.item.id", use_float=True))

    return None, stream


def _work_on_objects(doc: Any) -> tuple[int, Any, Any]:
    return (
        sum(1 for item in doc["items"] if item["price"] > 999.5),
        doc["meta"]["total"],
        doc["items"][0]["id"],
    )


def child(reader: str, path: str) -> None:
    import time

    data = Path(path).read_bytes()
    before = _status()
    start = time.process_time()
    try:
        doc, work = read_with(reader, data)
    except ImportError:
        print(json.dumps({"missing": True}))
        return
    parsed = time.process_time()
    found = work()
    done = time.process_time()
    after = _status()
    print(
        json.dumps(
            {
                "parse": parsed - start,
                "work": done - parsed,
                "held": after["VmRSS"] - before["VmRSS"],
                "peak": after["VmHWM"] - before["VmRSS"],
                "found": list(found),
            }
        )
    )
    del doc


def measure(runs: int, megabytes: float, packages: str | None) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), packages) if p)}
    found: dict[str, list[dict[str, Any]]] = {reader: [] for reader in READERS}
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "big.json"
        data = body(megabytes)
        path.write_bytes(data)
        for round_ in range(runs):
            for reader in READERS if round_ % 2 == 0 else reversed(READERS):
                command = [sys.executable, __file__, "--child", reader, str(path)]
                out = subprocess.run(command, env=env, capture_output=True, text=True, check=True).stdout
                found[reader].append(json.loads(out))
    rows: dict[str, Any] = {}
    for reader, results in found.items():
        if results[0].get("missing"):
            rows[reader] = None
            continue
        rows[reader] = {key: median([r[key] for r in results]) for key in ("parse", "work", "held", "peak")}
        rows[reader]["found"] = results[0]["found"]
    return {"body_bytes": len(data), "rows": rows}


# Generated documents: JSON texts written here (not dumped), so that they hold what json.dumps never writes.
_EDGE_NUMBERS = [
    "-0", "-0.0", "0e0", "1E2", "1e-7", "0.1", "2.5e-324", "5e-324", "1.7976931348623157e308", "1e400",
    "-1e400", "18446744073709551615", "18446744073709551616", "-9223372036854775808",
    "-9223372036854775809", "123456789012345678901234567890", "1.0000000000000002", "9007199254740993",
    "3.141592653589793238462643383279", "NaN", "Infinity",
]  # fmt: skip
_EDGE_STRINGS = [
    '"\\ud800"', '"a\\udc00b"', '"\\ud83d\\ude00"', '"\\u0000"', '"\\n\\t\\"\\\\\\/"',
    '"\u00e9\u4e2d\U0001f600"', '""', '"\\u00e9"',
]  # fmt: skip


def _text(rng: random.Random, depth: int) -> str:
    roll = rng.random()
    if depth > 0 and roll < 0.25:
        keys = [rng.choice("abcde") for _ in range(rng.randint(0, 5))]  # duplicates on purpose
        return "{" + ",".join(f'"{key}":{_text(rng, depth - 1)}' for key in keys) + "}"
    if depth > 0 and roll < 0.45:
        return "[" + ",".join(_text(rng, depth - 1) for _ in range(rng.randint(0, 4))) + "]"
    if roll < 0.65:
        return rng.choice(_EDGE_NUMBERS) if rng.random() < 0.5 else repr(rng.uniform(-1e6, 1e6))
    if roll < 0.85:
        return rng.choice(_EDGE_STRINGS)
    return rng.choice(["true", "false", "null", str(rng.randint(-(10**6), 10**6))])


def _canonical(value: Any) -> Any:
    """A form equal only for equal JSON values: types kept (1 is not 1.0), float bits, key order."""
    if isinstance(value, float):
        return ("float", "nan" if math.isnan(value) else value.hex())
    if isinstance(value, dict):
        return ("object", [(key, _canonical(item)) for key, item in value.items()])
    if isinstance(value, list):
        return ("array", [_canonical(item) for item in value])
    return (type(value).__name__, value)


def _pointers(value: Any, prefix: str = "") -> list[tuple[str, Any]]:
    found = [(prefix, value)]
    if isinstance(value, dict):
        for key, item in value.items():
            found += _pointers(item, f"{prefix}/{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += _pointers(item, f"{prefix}/{index}")
    return found


def _materialised(value: Any) -> Any:
    import simdjson

    if isinstance(value, simdjson.Object):
        return value.as_dict()
    if isinstance(value, simdjson.Array):
        return value.as_list()
    return value


def differential(documents: int) -> dict[str, dict[str, int]]:
    from arazzo_runner.bounds.json_text import loads

    rng = random.Random(43)
    texts = [_text(rng, 4).encode("utf-8", "surrogatepass") for _ in range(documents)]
    texts += [b'\xef\xbb\xbf{"a":1}', b'{"a":1,"b":2,"a":3}']
    counts: dict[str, dict[str, int]] = {}
    for reader in ("jiter", "simdjson lazy", "ijson stream"):
        try:
            if reader == "jiter":
                import jiter

                parse = jiter.from_json
            elif reader == "simdjson lazy":
                import simdjson

                parse = lambda text: simdjson.Parser().parse(text)  # noqa: E731
            else:
                import ijson

                parse = lambda text: next(ijson.items(text, "", use_float=True))  # noqa: E731
        except ImportError:
            continue
        tally = {"same": 0, "refused": 0, "different": 0, "pointer different": 0, "both refuse": 0}
        for text in texts:
            try:
                expected = loads(text)
            except ValueError:
                expected = ValueError
            try:
                got = parse(text)
            except Exception:  # each reader's own errors (ValueError, RuntimeError, IncompleteJSONError)
                tally["both refuse" if expected is ValueError else "refused"] += 1
                continue
            if expected is ValueError:
                tally["different"] += 1
                continue
            lazy = reader == "simdjson lazy"
            same = _canonical(_materialised(got) if lazy else got) == _canonical(expected)
            tally["same" if same else "different"] += 1
            if same and lazy and isinstance(expected, dict | list):
                for pointer, value in _pointers(expected)[1:]:
                    try:
                        read = _materialised(got.at_pointer(pointer))
                    except (ValueError, KeyError, IndexError, TypeError):
                        read = KeyError
                    if read is KeyError or _canonical(read) != _canonical(value):
                        tally["pointer different"] += 1
                        break
        counts[reader] = tally
    return counts


def report(result: dict[str, Any]) -> None:
    size = result["body_bytes"]
    print(f"body {size / 1e6:.1f} MB, {result['runs']} rounds; load average {result['load_before']} before, "
          f"{result['load_after']} after")  # fmt: skip
    print(f"{'reader':<18} {'parse':>10} {'the work':>10} {'held':>22} {'peak':>22}")
    for reader, row in result["rows"].items():
        if row is None:
            print(f"{reader:<18} not installed (--packages DIR)")
            continue
        held, peak = (f"+{mib(row[key])} ({row[key] / size:.1f}x)" for key in ("held", "peak"))
        print(f"{reader:<18} {ms(row['parse']):>10} {ms(row['work']):>10} {held:>22} {peak:>22}")
    print("(held/peak: over the process with the bytes held; the body with its bytes is 1x more)")
    for reader, tally in result["differential"].items():
        print(f"{reader}: " + ", ".join(f"{key} {count}" for key, count in tally.items()))


def main() -> None:
    if len(sys.argv) == 4 and sys.argv[1] == "--child":
        child(sys.argv[2], sys.argv[3])
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--megabytes", type=float, default=20)
    parser.add_argument("--documents", type=int, default=2000)
    parser.add_argument("--packages", help="a folder holding readers not installed (pip install --target)")
    parser.add_argument("--json", help="also write the results to this JSON file")
    args = parser.parse_args()
    if args.packages:
        sys.path.insert(0, args.packages)
    print(machine_line())
    load_before = load_average()
    result = measure(args.runs, args.megabytes, args.packages)
    result.update(runs=args.runs, load_before=load_before, load_after=load_average())
    result["differential"] = differential(args.documents)
    report(result)
    write_json(args.json, result)


if __name__ == "__main__":
    main()
