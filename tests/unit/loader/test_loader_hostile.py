"""Hostile documents end in a clear error (or a load) within a fixed CPU-time and memory bound.

Extends test_loader_limits.py (billion laughs, 100k-deep flow/block/JSON nesting, the size check, one
bad UTF-8 byte, small duplicate keys) with: documents of 50 MB (they load: the limit is 64 MiB) and just
over the limit (refused before any parsing), alias bombs through mappings and merge keys, mixed deep
nesting, deep values reaching the compiler, more encodings, and duplicate keys at the end of huge
mappings. Limits: `Limits()` defaults (64 MiB, depth 500, 5M nodes after alias expansion, 100k aliases).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from arazzo_runner.errors import DocumentError
from arazzo_runner.loader import DEFAULT_LIMITS, load_path, load_text
from arazzo_runner.workspace import Workspace
from tests.cputime import cpu_bound
from tests.timeouts import long_test
from tests.untested import skipif_untested

MiB = 2**20


def bounded(call: Callable[[], Any], seconds: float, megabytes: float) -> tuple[Any, float, float]:
    """Run `call` under tracemalloc; its result (or the DocumentError it raised), CPU time and peak MB.

    `seconds` bounds the CPU time of this process (tracemalloc included, which makes loading about 4x
    slower), never the wall clock: other processes on the machine must not fail the test."""
    tracemalloc.start()
    try:
        with cpu_bound(seconds, "loading") as spent:
            try:
                result: Any = call()
            except DocumentError as error:
                result = error
        peak = tracemalloc.get_traced_memory()[1] / MiB
    finally:
        tracemalloc.stop()
    assert peak < megabytes, f"peak {peak:.1f} MB (bound {megabytes} MB)"
    return result, spent.seconds, peak


# -- size -----------------------------------------------------------------------------------------

MEASURE = textwrap.dedent(
    """
    import json, resource, sys, time
    from arazzo_runner.loader import load_text
    kind, size = sys.argv[1], int(sys.argv[2])
    if kind == "json":
        item = json.dumps({"stepId": "s", "operationId": "listPets", "description": "x" * 40})
        text = '{"arazzo": "1.0.1", "items": [' + ",".join([item] * (size // (len(item) + 1))) + "]}"
    else:
        line = "- {stepId: s, operationId: listPets, description: " + "x" * 60 + "}\\n"
        text = "items:\\n" + line * (size // len(line))
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.process_time()  # CPU time: other processes on the machine do not count
    doc = load_text(text, "big." + kind)
    seconds = time.process_time() - started
    growth = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) * 1024
    items = len(doc.data["items"])
    print(json.dumps({"bytes": len(text), "items": items, "seconds": seconds, "growth": growth}))
    """
)


@long_test
@skipif_untested(
    sys.platform != "linux", "ru_maxrss is in KiB on Linux only", "the 50 MB document memory bound"
)
@pytest.mark.parametrize(("kind", "seconds", "times_size"), [("json", 10, 6), ("yaml", 40, 16)])
def test_a_50_mb_document_loads_within_a_time_and_memory_bound(
    kind: str, seconds: float, times_size: int
) -> None:
    """Measured in a fresh process (peak RSS is per process): about 0.4 s of CPU and 2.5x the size for
    JSON, 4.5 s and 11x for YAML (positions included) on a laptop; the bounds leave room for slow CI."""
    size = 50 * MiB
    done = subprocess.run(
        [sys.executable, "-c", MEASURE, kind, str(size)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    measured = json.loads(done.stdout)
    assert size - 200 <= measured["bytes"] <= size and measured["items"] > 400_000
    assert measured["seconds"] < seconds
    assert measured["growth"] < times_size * size


@pytest.mark.parametrize("as_bytes", [False, True], ids=["str", "bytes"])
def test_over_the_limit_is_refused_before_parsing(as_bytes: bool) -> None:
    text = "a: " + "x" * (DEFAULT_LIMITS.max_bytes - 2)
    raw = text.encode() if as_bytes else text
    err, _, _ = bounded(lambda: load_text(raw, "huge.yaml"), seconds=0.5, megabytes=1)
    assert str(err) == f"huge.yaml:1:1: document is {64 * MiB + 1} bytes, above the limit of {64 * MiB} bytes"


def test_an_oversized_file_is_refused_without_reading_it(tmp_path: Path) -> None:
    path = tmp_path / "huge.yaml"
    with open(path, "wb") as handle:
        handle.truncate(DEFAULT_LIMITS.max_bytes + 1)  # sparse: nothing is written
    err, _, _ = bounded(lambda: load_path(path), seconds=0.2, megabytes=1)
    assert "above the limit of 67108864 bytes" in err.message


# -- alias bombs ----------------------------------------------------------------------------------


def mapping_bomb(levels: int = 9) -> str:
    lines = ["m0: &m0 {" + ", ".join(f"k{i}: lol" for i in range(9)) + "}"]
    for level in range(1, levels + 1):
        members = ", ".join(f"k{i}: *m{level - 1}" for i in range(9))
        lines.append(f"m{level}: &m{level} {{{members}}}")
    return "\n".join(lines) + "\n"


def merge_bomb(levels: int = 9) -> str:
    lines = ["m0: &m0 {" + ", ".join(f"k{i}: [lol, lol]" for i in range(9)) + "}"]
    for level in range(1, levels + 1):
        fanout = ", ".join(f"x{i}: *m{level - 1}" for i in range(9))
        lines.append(f"m{level}: &m{level} {{<<: *m{level - 1}, {fanout}}}")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize(
    "text",
    [
        mapping_bomb(),
        merge_bomb(),
        "a: &a [" + ", ".join(["1"] * 1000) + "]\nb: [" + "*a, " * 10_000 + "]\n",
        "a: &a " + "[" * 400 + "1" + "]" * 400 + "\nb: [" + "*a, " * 20_000 + "]\n",
    ],
    ids=["mapping-fanout", "merge-keys", "one-wide-node-many-times", "one-deep-node-many-times"],
)
def test_alias_bombs_fail_fast_in_little_memory(text: str) -> None:
    err, _, _ = bounded(lambda: load_text(text, "bomb.yaml"), seconds=1.0, megabytes=20)
    assert isinstance(err, DocumentError), "the bomb loaded"
    assert "document expands to more than 5000000 nodes" in err.message
    assert err.file == "bomb.yaml" and err.line >= 2


# -- depth ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "file"),
    [
        ("[{a: " * 50_000 + "1" + "}]" * 50_000, "mixed.yaml"),
        ('[{"a": ' * 50_000 + "1" + "}]" * 50_000, "mixed.json"),
        ("".join(" " * depth + "a:\n" for depth in range(3000)), "block.yaml"),
        ("- " * 100_000 + "[" * 100_000, "mixed-block.yaml"),
        ('{"a": ' * 100_000, "unclosed.json"),
    ],
    ids=[
        "yaml-flow-mixed",
        "json-mixed",
        "yaml-block-mappings-3000",
        "yaml-block-then-flow",
        "json-unclosed",
    ],
)
def test_deep_nesting_fails_fast_in_little_memory(text: str, file: str) -> None:
    err, _, _ = bounded(lambda: load_text(text, file), seconds=1.0, megabytes=64)
    assert err.message == "nesting is deeper than the limit of 500 levels"
    assert err.line >= 1 and err.column >= 1


def deep_document(payload: Any) -> str:
    step = {"stepId": "s", "operationId": "op", "requestBody": {"payload": payload}}
    return json.dumps({"arazzo": "1.0.1", "info": {}, "workflows": [{"workflowId": "w", "steps": [step]}]})


def nested(depth: int, bottom: Any) -> Any:
    for _ in range(depth):
        bottom = [bottom]
    return bottom


def test_the_deepest_loadable_value_compiles_without_exhausting_the_stack() -> None:
    """The loader allows 500 levels; the compiler recurses only where expressions sit (100 levels)."""
    workspace = Workspace.from_text(deep_document(nested(490, "plain text")), "deep.json")
    plan, _, _ = bounded(
        lambda: workspace.compiled(workspace.document.workflows[0]), seconds=1.0, megabytes=20
    )
    assert plan.steps[0].body.payload.is_constant

    workspace = Workspace.from_text(deep_document(nested(490, "$inputs.x")), "deep.json")
    err, _, _ = bounded(
        lambda: workspace.compiled(workspace.document.workflows[0]), seconds=1.0, megabytes=20
    )
    assert isinstance(err, DocumentError)
    assert "an expression nested more than 100 levels deep in a value" in err.message
    assert err.file == "deep.json" and err.pointer.startswith("/workflows/0/steps/0/requestBody/payload/0/0/")


# -- encodings --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (b"a: \xc0\xaf\n", "not valid UTF-8: byte 0xc0 at offset 3"),  # overlong '/'
        (b"a: \xed\xa0\x80\n", "not valid UTF-8: byte 0xed at offset 3"),  # an encoded surrogate
        (b"a: \xf4\x90\x80\x80\n", "not valid UTF-8: byte 0xf4 at offset 3"),  # above U+10FFFF
        (b"\xff\xfea\x00:\x00 \x001", "not valid UTF-16-LE"),  # odd length after the BOM
        (b"\x00\x00\xfe\xffa", "not valid UTF-32-BE"),
        (b"a: 1\x00\n", "unacceptable character"),  # NUL in YAML
        (b'{"a": "x\x01"}', "Invalid control character"),  # raw control character in a JSON string
    ],
    ids=[
        "overlong",
        "surrogate",
        "beyond-unicode",
        "utf16-odd",
        "utf32-short",
        "nul",
        "json-control",
    ],
)
def test_bad_encodings_are_clear_errors(raw: bytes, message: str) -> None:
    file = "doc.json" if raw.startswith(b"{") else "doc.yaml"
    err, _, _ = bounded(lambda: load_text(raw, file), seconds=0.2, megabytes=5)
    assert isinstance(err, DocumentError) and message in err.message, err


@pytest.mark.parametrize(
    ("text", "file", "where", "message"),
    [
        (
            '{"a": "x\\ud800"}',
            "d.json",
            (1, 9),
            "\\ud800 is half of a UTF-16 surrogate pair, not a character",
        ),
        (
            '{"ok": "\\ud83d\\ude00", "\\uDC00": 1}',
            "d.json",
            (1, 25),
            "\\udc00 is half of a UTF-16 surrogate",
        ),
        ('a: "\\ud800"\n', "d.yaml", (1, 7), "invalid Unicode character escape code"),
        ("a: \ud800\n", "d.yaml", (1, 4), "the text holds U+D800, half of a UTF-16 surrogate pair"),
    ],
    ids=["json-escape", "json-key-after-a-valid-pair", "yaml-escape", "str-input"],
)
def test_lone_surrogates_are_refused(text: str, file: str, where: tuple[int, int], message: str) -> None:
    """Such a string cannot be encoded: printing or sending it would fail far from the document."""
    err, _, _ = bounded(lambda: load_text(text, file), seconds=0.2, megabytes=5)
    assert isinstance(err, DocumentError) and message in err.message, err
    assert (err.line, err.column) == where
    assert load_text('{"a": "\\\\ud800"}', "d.json").data == {"a": "\\ud800"}  # an escaped backslash


def test_python_only_json_constants_are_read_as_yaml_outside_json_files() -> None:
    """Python's json reads NaN and Infinity (accepted in a .json file, see test_loader_json.py); found by
    the fuzz suite: the flow-style YAML `[Infinity]` was read as JSON, a float instead of a string."""
    assert load_text("[Infinity, NaN, -Infinity]\n", "d.yaml").data == ["Infinity", "NaN", "-Infinity"]
    assert load_text("{a: .inf}\n", "d.yaml").data == {"a": float("inf")}
    assert load_text('{"b": -Infinity}', "d.json").data == {"b": float("-inf")}


# -- duplicate keys -------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["yaml", "json"])
def test_a_duplicate_at_the_end_of_a_huge_mapping(kind: str) -> None:
    keys = [f"key{i}" for i in range(100_000)] + ["key0"]
    if kind == "json":
        text = "{\n" + ",\n".join(f'"{k}": 1' for k in keys) + "\n}"
    else:
        text = "".join(f"{k}: 1\n" for k in keys)
    # About 1 s of CPU, 3-4 s under tracemalloc; a quadratic duplicate check would take minutes.
    err, _, _ = bounded(lambda: load_text(text, f"dup.{kind}"), seconds=15.0, megabytes=100)
    assert err.message == "duplicate key 'key0' (first at line {})".format(2 if kind == "json" else 1)
    assert err.line == len(keys) + (1 if kind == "json" else 0)


def test_duplicates_hidden_by_escapes_and_quotes_are_found() -> None:
    for text, file in [
        ('{"a": 1, "\\u0061": 2}', "d.json"),
        ("a: 1\n'a': 2\n", "d.yaml"),
        ('a: 1\n"\\x61": 2\n', "d.yaml"),
    ]:
        err, _, _ = bounded(lambda t=text, f=file: load_text(t, f), seconds=0.2, megabytes=5)
        assert isinstance(err, DocumentError) and err.message.startswith("duplicate key 'a'"), (text, err)


def test_a_stream_of_several_documents_is_refused() -> None:
    text = "---\na: 1\n" * 2
    err, _, _ = bounded(lambda: load_text(text, "multi.yaml"), seconds=0.2, megabytes=5)
    assert isinstance(err, DocumentError), "a YAML stream of several documents is not one document"
    assert os.path.basename(err.file or "") == "multi.yaml"
