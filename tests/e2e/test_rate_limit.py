"""`arazzo run --rate HOST=N/s`: the rows of an `--inputs-file` run, however many run at once, start at
most N requests a second to that host. Checked by the least time the requests' arrivals can span (a busy
machine only spreads them more), never by how fast anything must be."""

from __future__ import annotations

import threading
import time

import yaml

from tests.e2e.helpers import subprocess_cli
from tests.servers.scripted import ScriptedServer

API = {
    "openapi": "3.1.0",
    "info": {"title": "rated", "version": "1"},
    "paths": {
        "/ping/{id}": {
            "get": {
                "operationId": "ping",
                "parameters": [{"name": "id", "in": "path", "required": True, "schema": {"type": "integer"}}],
                "responses": {"200": {"description": "ok"}},
            }
        }
    },
}


def _document(tmp_path):
    (tmp_path / "api.yaml").write_text(yaml.safe_dump(API))
    doc = {
        "arazzo": "1.0.1",
        "info": {"title": "rated", "version": "1"},
        "sourceDescriptions": [{"name": "api", "url": "api.yaml", "type": "openapi"}],
        "workflows": [{
            "workflowId": "ping",
            "inputs": {"type": "object", "properties": {"id": {"type": "integer"}}},
            "steps": [{"stepId": "ping", "operationId": "ping",
                       "parameters": [{"name": "id", "in": "path", "value": "$inputs.id"}]}],
        }],
    }  # fmt: skip
    path = tmp_path / "rated.arazzo.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    rows = tmp_path / "rows.jsonl"
    rows.write_text("".join(f'{{"id": {i}}}\n' for i in range(10)))
    return path, rows


def _arrivals(tmp_path, *flags, command=None):
    path, rows = _document(tmp_path)
    server = ScriptedServer()
    times: list[float] = []
    lock = threading.Lock()

    @server.route("GET", "/ping/{id}")
    def ping(request):
        with lock:
            times.append(time.monotonic())
        return 200, {}

    with server:
        host = server.url.split("//")[1].split("/")[0]
        argv = command or ["run", path, "--inputs-file", rows, "--concurrency", "10"]
        done = subprocess_cli(*argv, "--server", f"api={server.url}", *[f.format(host=host) for f in flags],
                              timeout=120)  # fmt: skip
    assert done.code == 0, done.err
    return times


def test_ten_rows_at_once_start_at_most_the_rate_a_second(tmp_path):
    # 10 requests at 10/s: the last starts 0.9 s after the first; the first may arrive late by its trip
    times = _arrivals(tmp_path, "--rate", "{host}=10/s")
    assert len(times) == 10
    assert max(times) - min(times) >= 0.6


def test_the_users_of_a_load_test_share_the_rate(tmp_path):
    path, _ = _document(tmp_path)
    load = ["load", path, "--input", "id=1", "--users", "4", "--run-time", "2s", "--only-summary"]
    times = _arrivals(tmp_path, "--rate", "{host}=5/s", command=load)
    # 4 users without pause would send hundreds; at 5/s, n requests span at least (n - 1) / 5 s
    assert len(times) >= 2
    assert max(times) - min(times) >= (len(times) - 1) / 5 * 0.7


def test_a_rate_not_understood_is_a_usage_error():
    refused = subprocess_cli("run", "x.yaml", "--rate", "h=fast")
    assert refused.code == 2 and "expected HOST=N/s" in refused.err
