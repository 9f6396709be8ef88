"""Event streams whose decoded form would dwarf their bytes: 16 MiB of tiny events (1.9 million of them)
end the step with the cause instead of taking gigabytes, measured as the peak memory of a real `arazzo
run` process; a large but ordinary stream (a long chat completion, a list of events) is still read."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from arazzo_runner.bounds.limits import DEFAULT_MAX_BODY
from arazzo_runner.http.sse import EventLimits
from tests.e2e.conftest import arazzo_doc
from tests.e2e.helpers import ROOT, CliRun, op_step, run_json, workflow
from tests.servers.scripted import ScriptedServer
from tests.untested import skipif_untested

MiB = 2**20
SSE = {"Content-Type": "text/event-stream"}
BODY = {"body": "$response.body"}
# `arazzo run ARGV...` in a child process that reports its own peak resident memory on its last line:
# VmHWM, in KiB, which starts afresh at exec (ru_maxrss would include the parent's size at the fork).
PEAK = (
    "import sys\n"
    "from arazzo_runner.cli import main\n"
    "code = main(sys.argv[1:])\n"
    "with open('/proc/self/status') as status:\n"
    "    print(next(line for line in status if line.startswith('VmHWM:')).split()[1], file=sys.stderr)\n"
    "sys.exit(code)\n"
)


def _stream(event: bytes, total: int) -> Callable[[Callable[..., None]], None]:
    """A writer of `event` repeated up to `total` bytes, in 64 KiB writes."""
    per_write = max(1, 2**16 // len(event))

    def write(send: Callable[..., None]) -> None:
        left = total // len(event)
        while left > 0:
            count = min(per_write, left)
            send(event * count)
            left -= count

    return write


def _peak_run(path: Path, server: ScriptedServer) -> tuple[CliRun, int]:
    """`arazzo run PATH --format json` as a child process: its result and its peak memory in bytes."""
    argv = ["run", str(path), "--server", f"pets={server.url}", "--format", "json"]
    done = subprocess.run(
        [sys.executable, "-c", PEAK, *argv],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
        check=False,
    )
    assert "Traceback" not in done.stderr, done.stderr
    peak_kib = int(done.stderr.strip().splitlines()[-1])
    return CliRun(done.returncode, done.stdout, done.stderr), peak_kib * 1024


LIMITS = EventLimits.for_body(DEFAULT_MAX_BODY)
EMPTY_LISTS = b"data: [" + b"[]," * 340 + b"[]]\n\n"  # 1 KiB of text, 21 KiB of lists once parsed


@skipif_untested(not Path("/proc/self/status").exists(), "no /proc (VmHWM)", "the event-stream memory bound")
@pytest.mark.parametrize(
    ("event", "cause"),
    [
        (b"data: 1\n\n", f"the event stream has more than {LIMITS.max_events} events"),
        (EMPTY_LISTS, f"the event stream decodes to more than {LIMITS.max_decoded // MiB} MiB"),
    ],
    ids=["tiny events", "events of empty lists"],
)
def test_sixteen_mib_of_events_fail_the_step_within_a_memory_bound(write, event, cause):
    path = write(arazzo_doc(workflow("flow", op_step("list", "listPets", outputs=BODY))))
    with ScriptedServer() as server:
        server.reply("GET", "/pets", (200, _stream(event, 10 * len(event)), SSE))
        small, baseline = _peak_run(path, server)
    with ScriptedServer() as server:
        server.reply("GET", "/pets", (200, _stream(event, DEFAULT_MAX_BODY - 64), SSE))
        big, peak = _peak_run(path, server)
    assert small.code == 0, small.out
    assert big.code == 1, big.out
    [step] = json.loads(big.out)["workflows"][0]["steps"]
    assert step["error"].startswith(f"HTTP 200: {cause}")
    assert step["error"].endswith(": reading stopped, the body was not decoded")
    # Before the bounds, 1.33 GB for the tiny events; now at most the decoded bound and the body's bytes.
    print(f"peak {peak / MiB:.0f} MiB, baseline {baseline / MiB:.0f} MiB")
    assert peak - baseline < LIMITS.max_decoded + 2 * DEFAULT_MAX_BODY, f"peak {peak // MiB} MiB"


def _chunk(index: int, content: str) -> bytes:
    chunk = {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1700000000,
        "model": "gpt-test",
        "system_fingerprint": "fp_44709d6fcb",
        "choices": [{"index": 0, "delta": {"content": content}, "logprobs": None, "finish_reason": None}],
    }
    return b"data: " + json.dumps(chunk).encode() + b"\n\n"


def test_a_long_chat_completion_stream_is_still_merged(capsys, write, server):
    """60,000 ordinary chunks (14 MiB, under the body limit): the merged completion holds every token."""
    pieces = [f"t{i % 10}" for i in range(60_000)]
    stream = b"".join(_chunk(i, p) for i, p in enumerate(pieces)) + b"data: [DONE]\n\n"
    assert 12 * MiB < len(stream) < DEFAULT_MAX_BODY
    server.reply("GET", "/pets", (200, stream, SSE))
    outputs = {
        "content": "$response.body#/choices/0/message/content",
        "complete": "$response.body#/stream_complete",
    }
    result = run_json(
        capsys,
        write(arazzo_doc(workflow("flow", op_step("list", "listPets", outputs=outputs)))),
        server=server,
    )
    assert result.code == 0, result.out[-2000:]
    got = result.json["workflows"][0]["steps"][0]["outputs"]
    assert got == {"content": "".join(pieces), "complete": True}


def test_a_large_list_of_events_is_still_read(capsys, write, server):
    """20,000 events of 500 bytes of JSON each (10 MiB): the list form, every event in order."""
    data = {"items": list(range(100)), "note": "x" * 100}
    event = b"data: " + json.dumps(data).encode() + b"\n\n"
    server.reply("GET", "/pets", (200, event * 20_000, SSE))
    outputs = {"count": "$response.body#/19999/data/items/99", "first": "$response.body#/0/event"}
    path = write(arazzo_doc(workflow("flow", op_step("list", "listPets", outputs=outputs))))
    result = run_json(capsys, path, server=server)
    assert result.code == 0, result.out[-2000:]
    assert result.json["workflows"][0]["steps"][0]["outputs"] == {"count": 99, "first": "message"}


@pytest.mark.parametrize(
    ("stream", "cause"),
    [
        (b"data: x\n\n" * 300_000, "the event stream has more than"),  # many events, little decoded
        (b'data: {"choices":[{"index":0,"delta":{}}]}\n\n' * 300_000, "the event stream has more than"),
        (b"data: " + b"[" * 200 + b"]" * 200 + b"\n\n", "the data of event 1 nests deeper than 128 levels"),
    ],
    ids=["plain", "chat", "deep"],
)
def test_other_streams_past_the_bounds_fail_with_their_cause(capsys, write, server, stream, cause):
    server.reply("GET", "/pets", (200, stream, SSE))
    path = write(arazzo_doc(workflow("flow", op_step("list", "listPets", outputs=BODY))))
    result = run_json(capsys, path, server=server)
    assert result.code == 1, result.out[-2000:]
    error = result.json["workflows"][0]["steps"][0]["error"]
    assert error.startswith(f"HTTP 200: {cause}"), error
