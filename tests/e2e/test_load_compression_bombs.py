"""`arazzo load`'s two HTTP lanes (geventhttpclient, the default, and httpx) against compression bombs: a
body of a few hundred bytes that decodes to 256 MiB fails its step at the decoded limit, in the same words
on both lanes, and the Locust process's peak resident memory (its own VmHWM, said as it ends) stays
far below the bomb's decoded size, where decoding whole took all of it.
Locust runs as a real child process (it monkey-patches the process that imports it)."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path
from typing import Any

import yaml

from tests.e2e.conftest import arazzo_doc
from tests.e2e.loadkit import failures_rows, finish, start
from tests.servers import faults
from tests.servers.bombs import HAS_BROTLI, MiB, bomb, bounded_brotli, headers
from tests.timeouts import long_test
from tests.untested import skipif_untested

MAX_BODY = 65536
SIZE = 256 * MiB
CODINGS = {"gzip2": "gzip, gzip", "br": "br"}

LOCUSTFILE = """
    import atexit
    import sys

    from locust import constant, task

    from arazzo_runner.locust import ArazzoUser


    class Client(ArazzoUser):
        document = "flows.arazzo.yaml"
        servers = {{"api": "{url}"}}
        options = {{"timeout": 5, "max_body": {max_body}}}
        wait_time = constant(0.05)

        @task
        def every_workflow(self):
            for workflow_id in {ids!r}:
                self.run_workflow(workflow_id)


    @atexit.register
    def _peak():  # this process's own peak (VmHWM), said as it ends
        for line in open("/proc/self/status"):
            if line.startswith("VmHWM:"):
                print("VMHWM_KIB", line.split()[1], file=sys.stderr, flush=True)
"""

# The Locust process's peak is its own VmHWM, printed by the locustfile as the process ends: the
# ru_maxrss a parent reads of its children keeps, on Linux, the peak of whatever process forked them
# (the pytest process itself, hundreds of MiB into a serial run), and said nothing of Locust's own.


def _documents(folder: Path, ids: list[str]) -> None:
    paths = {
        f"/{name}": {"get": {"operationId": name, "responses": {"200": {"description": "ok"}}}}
        for name in ids
    }
    api = {"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": paths}
    (folder / "api.openapi.yaml").write_text(yaml.safe_dump(api, sort_keys=False))
    status_only = [{"condition": "$statusCode == 200"}]
    flows = [
        {
            "workflowId": name,
            "steps": [{"stepId": "call", "operationId": name, "successCriteria": status_only}],
        }
        for name in ids
    ]
    sources = [{"name": "api", "url": "./api.openapi.yaml", "type": "openapi"}]
    (folder / "flows.arazzo.yaml").write_text(
        yaml.safe_dump(arazzo_doc(*flows, sources=sources), sort_keys=False)
    )


def _locust(folder: Path, lane: str) -> tuple[int, dict[str, str], int, str]:
    """(Locust's exit code, its failure by row name, the Locust process's peak RSS in bytes, its stderr)."""
    prefix = folder / lane
    env = {} if lane == "fast" else {"ARAZZO_LOAD_HTTP": "httpx"}
    argv: list[Any] = [sys.executable, "-m", "locust", "-f",
                       folder / "locustfile.py", "--headless", "-u", 1, "-r", 1, "-t", "2s",
                       "--stop-timeout", 5, "--csv", prefix, "--only-summary"]  # fmt: skip
    code, out, err = finish(start(argv, env, drop=("ARAZZO_LOAD_HTTP",)))
    assert "VMHWM_KIB " in err, out + err
    peak = int(err.rsplit("VMHWM_KIB ", 1)[1].split()[0]) * 1024
    return code, {row["Name"]: row["Error"] for row in failures_rows(prefix)}, peak, err


@long_test
@skipif_untested(not HAS_BROTLI, "no brotli to make the br bomb", "`arazzo load` bounds a brotli bomb")
def test_both_lanes_fail_a_bomb_at_the_decoded_limit_within_bounded_memory(tmp_path: Path) -> None:
    ids = list(CODINGS)
    _documents(tmp_path, ids)
    with faults.FaultServer() as server:
        for name, coding in CODINGS.items():
            data = bomb(coding, SIZE)
            server.script(f"/{name}", faults.answer(200, headers(coding, data), data))
        locustfile = LOCUSTFILE.format(url=server.url, max_body=MAX_BODY, ids=ids)
        (tmp_path / "locustfile.py").write_text(textwrap.dedent(locustfile))
        runs = {lane: _locust(tmp_path, lane) for lane in ("fast", "httpx")}
    for lane, (code, failures, peak, err) in runs.items():
        assert peak < SIZE // 2, f"{lane}: peak RSS {peak / MiB:.0f} MiB for {SIZE // MiB} MiB bombs"
        assert code == 1, err  # failed requests: Locust's exit code 1
        for name, coding in CODINGS.items():
            error = failures[f"{name}.call"]
            if coding == "br" and not bounded_brotli():
                assert "the response body is encoded with br (Content-Encoding: br)" in error, (lane, error)
                continue
            assert (
                f"HTTP 200: the response body is larger than the limit of {MAX_BODY} bytes (decoded; "
                f"max-response-bytes): it came with Content-Encoding: {coding}, reading stopped at the limit"
            ) in error, (lane, error)
    assert "HTTP requests sent on geventhttpclient" in runs["fast"][3]
