"""Text output: --verbose exchanges (bodies cut at 2 KB, binary as a size, event streams merged, small
JSON pretty-printed), the summary's failed criteria with the values seen, and the progress line that
only a terminal gets."""

from __future__ import annotations

import io
import json
import re
import sys
import time

from arazzo_runner.cli import main
from tests.e2e.conftest import arazzo_doc
from tests.e2e.helpers import cli, op_step, workflow


def _verbose(capsys, write, server, *steps: dict) -> str:
    result = cli(
        capsys, "run", write(arazzo_doc(workflow("flow", *steps))), "--server", f"pets={server.url}", "-v"
    )
    assert "Traceback" not in result.err
    return result.out


def test_verbose_shows_request_and_response_with_small_json_pretty(capsys, write, server):
    server.reply("POST", "/pets", (201, {"id": 1, "tags": ["a"]}))
    out = _verbose(
        capsys, write, server, op_step("create", "createPet", requestBody={"payload": {"name": "rex"}})
    )
    lines = [line.strip() for line in out.splitlines()]
    start = lines.index(f"> POST {server.url}/pets")
    assert lines[start + 1 : start + 6] == [
        "> Content-Type: application/json",
        ">",
        "> {",
        '>   "name": "rex"',
        "> }",
    ]
    assert re.fullmatch(r"< 201 Created  \d+ ms", lines[start + 6])
    assert '<   "tags": [' in lines
    # the exchange comes before the step's own line, as it happens
    assert start < next(i for i, line in enumerate(lines) if line.startswith("✓  create"))


def test_verbose_truncates_long_bodies_and_counts_binary_ones(capsys, write, server):
    server.reply("GET", "/pets", (200, "x" * 5000, {"Content-Type": "text/plain"}))
    server.reply(
        "GET", "/pets/{petId}", (200, b"\x89PNG\r\n\x1a\n" + bytes(200), {"Content-Type": "image/png"})
    )
    get = op_step("get", "getPet", parameters=[{"name": "petId", "in": "path", "value": "1"}])
    out = _verbose(capsys, write, server, op_step("list", "listPets"), get)
    assert "< " + "x" * 2048 + "\n" in out
    assert "< ... (2952 more bytes)" in out
    assert "x" * 2049 not in out
    assert "< (208 bytes of binary data)" in out


def test_verbose_shows_an_event_stream_as_its_merged_body(capsys, write, server):
    chunks = [
        {
            "object": "chat.completion.chunk",
            "choices": [{"index": 0, "delta": {"role": "assistant", "content": "Hel"}}],
        },
        {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"content": "lo"}}]},
    ]
    stream = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
    server.reply("GET", "/pets", (200, stream, {"Content-Type": "text/event-stream"}))
    out = _verbose(capsys, write, server, op_step("list", "listPets"))
    assert "(event stream: 3 events," in out
    assert '"content": "Hello"' in out


def test_summary_lists_failed_criteria_with_the_values_seen(capsys, write, server):
    server.reply("GET", "/pets", (503, {"state": "down"}))
    step = op_step(
        "list",
        "listPets",
        successCriteria=[{"condition": "$statusCode == 200"}, {"condition": "$response.body#/state == 'up'"}],
    )
    result = cli(capsys, "run", write(arazzo_doc(workflow("flow", step))), "--server", f"pets={server.url}")
    assert result.code == 1
    lines = result.out.splitlines()
    start = lines.index("  failed criteria:")
    assert lines[start + 1 : start + 4] == [
        "    list:",
        "      $statusCode == 200 -> got 503",
        "      $response.body#/state == 'up' -> got 'down'",
    ]
    assert re.fullmatch(r"✗ flow failed \(1 step, \d+ ms\)", lines[start - 2]), lines
    assert lines[-1] == "0 of 1 workflows passed"


class _Terminal(io.StringIO):
    encoding = "utf-8"

    def isatty(self) -> bool:
        return True


def _slow_run(monkeypatch, write, server, stderr: io.StringIO, *extra: str, env: dict | None = None) -> int:
    """A run whose one step takes 0.4 s, with the progress delay shortened to 0.05 s."""
    import arazzo_runner.report.progress as progress

    monkeypatch.setattr(progress, "DELAY", 0.05)
    monkeypatch.setattr(progress, "INTERVAL", 0.02)
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.setenv("TERM", "xterm")
    for key, value in (env or {}).items():
        monkeypatch.setenv(key, value)
    monkeypatch.setattr(sys, "stdout", io.StringIO())
    monkeypatch.setattr(sys, "stderr", stderr)
    path = write(arazzo_doc(workflow("flow", op_step("slow", "listPets"))))
    return main(["run", str(path), "--server", f"pets={server.url}", *extra])


def _slow(server) -> None:
    server.route("GET", "/pets")(lambda r: (time.sleep(0.4), (200, []))[1])


def test_a_progress_line_on_a_terminal_for_a_slow_step(monkeypatch, write, server):
    _slow(server)
    terminal = _Terminal()
    assert _slow_run(monkeypatch, write, server, terminal) == 0
    err = terminal.getvalue()
    assert re.search(r"\r. slow \d\.\d s\x1b\[K", err)
    assert err.endswith("\r\x1b[K")  # erased: nothing of it stays on the screen
    assert "\r" not in sys.stdout.getvalue()


def test_no_progress_line_without_a_terminal_or_when_turned_off(monkeypatch, write, server):
    _slow(server)
    for stream, extra, env in [
        (io.StringIO(), (), {}),
        (_Terminal(), ("--no-progress",), {}),
        (_Terminal(), (), {"TERM": "dumb"}),
        (_Terminal(), (), {"CI": "true"}),
    ]:
        with monkeypatch.context() as patch:
            assert _slow_run(patch, write, server, stream, *extra, env=env) == 0
        assert "\r" not in stream.getvalue(), (extra, env)
