"""The pieces of bench/engines (the side-by-side engine comparison) that its verdicts rest on: the inputs
every engine gets, which documents are runnable, the counting proxy that tells "refused" from "failed",
the bounded runner, and how reports are read and classified."""

from __future__ import annotations

import http.client
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from bench.engines import bounded
from bench.engines.compare import classify, outside_mocks
from bench.engines.corpus import discover, local_path
from bench.engines.engines import Job, Ours, Verdict
from bench.engines.inputs import sample, workflow_inputs
from bench.engines.mocks import mock_copy
from bench.engines.peers import Respect
from bench.engines.proxy import CountingProxy


def test_inputs_prefer_examples_then_defaults_then_enums_then_placeholders():
    schema = {
        "type": "object",
        "properties": {
            "a": {"type": "string", "examples": ["ex"], "default": "d"},
            "b": {"type": "string", "default": "d", "enum": ["e"]},
            "c": {"type": "string", "enum": ["e1", "e2"]},
            "d": {"type": "integer", "minimum": 5},
            "e": {"type": "boolean"},
            "f": {"type": "string", "format": "email"},
            "g": {"type": "string", "format": "uuid"},
            "h": {"type": "string", "format": "date-time"},
            "i": {"type": "string", "minLength": 6},
            "j": {"type": "array", "items": {"type": "number"}},
            "k": {"$ref": "#/components/inputs/shared"},
            "l": {"allOf": [{"properties": {"x": {"type": "integer"}}}, {"properties": {"y": {"const": 3}}}]},
            "m": {"oneOf": [{"type": "string", "format": "date"}, {"type": "integer"}]},
            "n": {"type": ["null", "integer"]},
        },
    }
    document = {
        "components": {"inputs": {"shared": {"type": "object", "properties": {"z": {"type": "string"}}}}}
    }
    assert sample(schema, document) == {
        "a": "ex",
        "b": "d",
        "c": "e1",
        "d": 5,
        "e": True,
        "f": "test@example.com",
        "g": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
        "h": "2024-01-01T00:00:00Z",
        "i": "testxx",
        "j": [1],
        "k": {"z": "test"},
        "l": {"x": 1, "y": 3},
        "m": "2024-01-01",
        "n": 1,
    }
    assert workflow_inputs({"workflowId": "w"}, {}) == {}
    assert workflow_inputs({"inputs": {"type": "string"}}, {}) == "test"
    recursive = {"type": "object", "properties": {"next": {"$ref": "#/r"}}}
    assert "next" in sample(recursive, {"r": recursive})  # stops, does not loop


def _write(path: Path, data: dict) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))
    return path


def _arazzo(sources: list[dict]) -> dict:
    workflow = {"workflowId": "w", "steps": [{"stepId": "s", "operationId": "op"}]}
    return {"arazzo": "1.0.1", "info": {}, "sourceDescriptions": sources, "workflows": [workflow]}


def test_discovery_keeps_documents_whose_sources_are_local_files_nested_ones_included(tmp_path):
    _write(tmp_path / "api" / "oas.json", {"openapi": "3.1.0", "paths": {}})
    _write(tmp_path / "local.arazzo.json", _arazzo([{"name": "a", "type": "openapi", "url": "api/oas.json"}]))
    _write(tmp_path / "kid.arazzo.json", _arazzo([{"name": "b", "url": "./api/oas.json#/paths"}]))
    parent = [
        {"name": "a", "url": "api/oas.json"},
        {"name": "kid", "type": "arazzo", "url": "kid.arazzo.json"},
    ]
    _write(tmp_path / "parent.arazzo.json", _arazzo(parent))
    _write(tmp_path / "remote.arazzo.json", _arazzo([{"name": "r", "url": "https://example.com/oas.yaml"}]))
    _write(tmp_path / "missing.arazzo.json", _arazzo([{"name": "m", "url": "gone.yaml"}]))
    nested_remote = [{"name": "kid", "type": "arazzo", "url": "remote.arazzo.json"}]
    _write(tmp_path / "nested.arazzo.json", _arazzo(nested_remote))
    _write(tmp_path / "not-arazzo.json", {"openapi": "3.1.0"})

    found = discover([tmp_path])

    runnable = {d.path.name: [(s.family, s.name, s.path.name) for s in d.sources] for d in found.runnable}
    assert runnable == {
        "kid.arazzo.json": [("b", "b", "oas.json")],
        "local.arazzo.json": [("a", "a", "oas.json")],
        "parent.arazzo.json": [("a", "a", "oas.json"), ("kid/b", "b", "oas.json")],
    }
    skipped = {p.name: why for p, why in found.skipped}
    assert skipped["remote.arazzo.json"].startswith("remote source description: r = https://")
    assert skipped["missing.arazzo.json"].startswith(
        "local source description missing on disk: m = gone.yaml"
    )
    assert skipped["nested.arazzo.json"].startswith("nested Arazzo source not mockable: remote source")
    assert set(skipped) == {"remote.arazzo.json", "missing.arazzo.json", "nested.arazzo.json"}
    assert local_path("file:///x/y.yaml", tmp_path / "d.yaml") == Path("/x/y.yaml")


def test_the_mock_copy_drops_security_and_extensions_and_makes_external_refs_absolute(tmp_path):
    operation = {"security": [{"k": []}], "responses": {"200": {"$ref": "parts/ok.yaml"}}}
    description = {
        "openapi": "3.1.0",
        "security": [{"k": []}],
        "x-topics": [{"$ref": "missing.md"}],
        "paths": {"/p": {"get": operation}},
    }
    source = _write(tmp_path / "api" / "oas.json", description)
    served = json.loads(mock_copy(source, tmp_path / "served").read_text())
    assert "security" not in served and "x-topics" not in served
    assert served["paths"]["/p"]["get"] == {
        "responses": {"200": {"$ref": str(tmp_path / "api/parts/ok.yaml")}}
    }
    kept = json.loads(mock_copy(source, tmp_path / "served", keep_security=True).read_text())
    assert kept["security"] == [{"k": []}] and kept["paths"]["/p"]["get"]["security"] == [{"k": []}]


class _Echo(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    seen: list = []

    def log_message(self, *args):
        pass

    def _answer(self):
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        _Echo.seen.append(
            (
                self.command,
                self.path,
                self.headers.get_all("X-Twice"),
                self.headers.get_all("Content-Length"),
                body,
            )
        )
        status = 404 if self.path.startswith("/missing") else 200
        payload = json.dumps({"got": body.decode()}).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    do_GET = do_POST = do_DELETE = _answer


@pytest.fixture
def upstream():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Echo)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    _Echo.seen = []
    yield server
    server.shutdown()
    server.server_close()


def test_the_counting_proxy_forwards_unchanged_and_records_each_request_in_order(upstream):
    proxy = CountingProxy(upstream.server_address[1]).start()
    try:
        start = proxy.mark()
        client = http.client.HTTPConnection("127.0.0.1", proxy.server_address[1], timeout=30)
        client.request("GET", "/a?q=1", headers={"X-Twice": "1"})
        first = client.getresponse()
        assert (first.status, json.loads(first.read())) == (200, {"got": ""})
        client.putrequest("POST", "/b")  # same connection, a chunked body, a repeated header
        client.putheader("Transfer-Encoding", "chunked")
        client.putheader("X-Twice", "1")
        client.putheader("X-Twice", "2")
        client.endheaders()
        client.send(b"3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n")
        second = client.getresponse()
        assert json.loads(second.read()) == {"got": "abcde"}
        client.request("DELETE", "/missing/1")
        assert client.getresponse().status == 404
        client.close()
        assert [tuple(s) for s in proxy.since(start)] == [
            ("GET", "/a?q=1", 200),
            ("POST", "/b", 200),
            ("DELETE", "/missing/1", 404),
        ]
        assert [s[:4] for s in _Echo.seen] == [
            ("GET", "/a?q=1", ["1"], None),
            ("POST", "/b", ["1", "2"], ["5"]),  # one Content-Length, the chunks joined
            ("DELETE", "/missing/1", None, None),
        ]
        assert proxy.since(proxy.mark()) == []
    finally:
        proxy.stop()


def test_a_request_the_upstream_never_answers_is_counted_as_a_502():
    proxy = CountingProxy(upstream_port=1).start()  # nothing listens on port 1
    try:
        client = http.client.HTTPConnection("127.0.0.1", proxy.server_address[1], timeout=30)
        client.request("GET", "/x")
        answer = client.getresponse()
        assert answer.status == 502 and b"upstream failed" in answer.read()
        assert [tuple(s) for s in proxy.since(0)] == [("GET", "/x", 502)]
    finally:
        proxy.stop()


def test_the_bounded_runner_kills_on_memory_and_reports_exit_codes(tmp_path):
    hog = "import time; x = bytearray(400 * 2**20); x[::4096] = b'1' * len(x[::4096]); time.sleep(600)"
    done = bounded.run([sys.executable, "-c", hog], cwd=tmp_path / "a", env={}, timeout=600, memory_mib=100)
    assert done.code is None and done.killed == "memory over 100 MiB"
    done = bounded.run(
        [sys.executable, "-c", "print('out'); raise SystemExit(3)"],
        cwd=tmp_path / "b",
        env={},
        timeout=600,
        memory_mib=500,
    )
    assert (done.code, done.stdout, done.killed) == (3, "out\n", None)


def test_classification_and_false_passes():
    assert classify(Verdict("passed", "", claimed=2), requests=2) == ("passed", False)
    assert classify(Verdict("passed", "", claimed=2), requests=1) == ("passed", True)
    assert classify(Verdict("failed", "x"), requests=0) == ("refused", False)
    assert classify(Verdict("failed", "x"), requests=3) == ("failed", False)
    assert classify(Verdict("refused", "x"), requests=0) == ("refused", False)
    assert classify(Verdict("error", "x"), requests=5) == ("error", False)
    remote = {"steps": [{"stepId": "s", "x-operation": {"url": "https://example.com/x", "method": "get"}}]}
    assert "https://example.com/x" in outside_mocks(remote)
    assert outside_mocks({"steps": [{"stepId": "s", "operationId": "op"}]}) is None


def test_our_exit_2_names_each_finding_and_the_workflow_it_belongs_to(tmp_path):
    data = {"workflows": [{"workflowId": "good"}, {"workflowId": "bad"}]}
    job = Job(tmp_path / "d.yaml", data, "good", {}, tmp_path / "i.json", {}, {}, tmp_path)
    errors = [
        {
            "message": "operation 'x' not found",
            "rule": "operation-exists",
            "path": "/workflows/1/steps/0",
            "line": 9,
            "column": 7,
        },
        {
            "message": "bad output",
            "rule": "output-name",
            "path": "/workflows/0/outputs",
            "line": 3,
            "column": 5,
        },
    ]
    done = bounded.Done(2, json.dumps({"status": "error", "errors": errors}), "", 0.1)
    verdict = Ours("arazzo").verdict(job, done)
    assert verdict.status == "refused"
    assert verdict.details == [
        "9:7 operation-exists [in workflow 'bad']: operation 'x' not found",
        "3:5 output-name: bad output",
    ]
    assert verdict.reason.endswith("(+1 more)")


def test_respects_lint_refusal_is_read_with_place_message_and_rule():
    text = """
[1] ../doc.arazzo.yaml:60:34 at #/workflows/0/outputs/id

Output key "my_id" is not defined in step "place-order". Available outputs: [ order_id ].

58 |         my_id: $outputs.x
60 |     id: $steps.place-order.outputs.my_id

Error was generated by the outputs-defined rule.
"""
    from bench.engines.engines import meaningful_lines

    assert Respect._lint(meaningful_lines(text)) == [
        '60:34 outputs-defined at #/workflows/0/outputs/id: Output key "my_id" is not defined in step '
        '"place-order". Available outputs: [ order_id ].'
    ]
