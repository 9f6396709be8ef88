"""https: certificates are verified against the trust store, read at the first TLS handshake only.

The server's certificate (tests/servers/tls/) is issued by a test CA that no public bundle holds: with
the default trust store the step fails on verification; `SSL_CERT_FILE` naming the test CA trusts it,
as in httpx. A plain-http run never reads the trust store (sources/tls.py says why).
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from arazzo_runner.sources.tls import DeferredTrustContext, default_tls_context
from tests.e2e.execkit import execute, ok200, only, pet
from tests.servers.scripted import TEST_CA, ScriptedServer


@pytest.fixture(autouse=True)
def fresh_context():
    """The context is one per process, built from the environment: each test builds its own."""
    default_tls_context.cache_clear()
    yield
    default_tls_context.cache_clear()


@pytest.fixture
def tls_server():
    with ScriptedServer(tls=True) as running:
        running.reply("GET", "/pets/{petId}", (200, {"id": 1}))
        yield running


def test_an_untrusted_certificate_fails_the_step_with_its_cause(write, tls_server) -> None:
    assert tls_server.url.startswith("https://")
    flow = _run_one(write, tls_server)
    assert flow["status"] == "failed"
    step = flow["steps"][0]
    assert step["status"] == "failed"
    assert "certificate verify failed" in step["error"]
    assert tls_server.requests == []  # nothing was sent over the unverified connection


def test_ssl_cert_file_names_the_trusted_cas(write, tls_server, monkeypatch) -> None:
    monkeypatch.setenv("SSL_CERT_FILE", str(TEST_CA))
    flow = _run_one(write, tls_server)
    assert flow["status"] == "passed", flow
    assert [r.path for r in tls_server.requests] == ["/pets/1"]
    assert default_tls_context()._trust_loaded


def test_an_unreadable_ssl_cert_file_is_a_named_step_failure(write, tls_server, monkeypatch, tmp_path):
    missing = tmp_path / "no-such-ca.pem"
    monkeypatch.setenv("SSL_CERT_FILE", str(missing))
    flow = _run_one(write, tls_server)
    assert flow["status"] == "failed"
    assert f"cannot read the trusted CA certificates from {missing}" in flow["steps"][0]["error"]


def test_a_plain_http_run_never_reads_the_trust_store(write, server) -> None:
    server.reply("GET", "/pets/{petId}", (200, {"id": 1}))
    flow = _run_one(write, server)
    assert flow["status"] == "passed"
    assert default_tls_context()._trust_loaded is False
    assert default_tls_context()._prefetching is False


def test_a_run_with_https_servers_reads_the_trust_store_ahead(write, tls_server, monkeypatch) -> None:
    """The preflight knows every base URL: with an https one, the CAs are read in the background while
    the client is set up (sources/tls.py `prefetch`)."""
    monkeypatch.setenv("SSL_CERT_FILE", str(TEST_CA))
    calls = []
    real = DeferredTrustContext.prefetch
    monkeypatch.setattr(DeferredTrustContext, "prefetch", lambda self: (calls.append(1), real(self))[1])
    assert _run_one(write, tls_server)["status"] == "passed"
    assert calls == [1]


def test_cli_run_over_https_exit_codes(write, tls_server, tmp_path) -> None:
    doc = write(
        {
            "arazzo": "1.0.1",
            "info": {"title": "t", "version": "1"},
            "sourceDescriptions": [{"name": "pets", "url": "./pets.openapi.yaml", "type": "openapi"}],
            "workflows": [{"workflowId": "w", "steps": [pet("get", successCriteria=ok200())]}],
        }
    )
    command = [sys.executable, "-m", "arazzo_runner.cli", "run", str(doc), "--server"]
    command.append(f"pets={tls_server.url}")
    untrusted = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path)
    assert untrusted.returncode == 1
    assert "certificate verify failed" in untrusted.stdout + untrusted.stderr
    env = {**_environment(), "SSL_CERT_FILE": str(TEST_CA)}
    trusted = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path, env=env)
    assert trusted.returncode == 0, trusted.stdout + trusted.stderr


def _run_one(write, server) -> dict:
    """One `getPet` step checking for a 200, run through the library; the workflow's result."""
    return only(execute(write, server, {"workflowId": "w", "steps": [pet("get", successCriteria=ok200())]}))


def _environment() -> dict[str, str]:
    import os

    return {key: value for key, value in os.environ.items() if key not in ("SSL_CERT_FILE", "SSL_CERT_DIR")}


def test_a_source_description_fetched_over_https_is_verified(tmp_path, tls_server, monkeypatch) -> None:
    import json

    import arazzo_runner
    from arazzo_runner import SourceError
    from tests.e2e.conftest import PETS_OPENAPI, arazzo_doc

    tls_server.reply("GET", "/openapi.json", (200, PETS_OPENAPI))
    doc = arazzo_doc({"workflowId": "w", "steps": [pet("get", successCriteria=ok200())]})
    doc["sourceDescriptions"][0]["url"] = f"{tls_server.url}/openapi.json"
    path = tmp_path / "remote.arazzo.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(SourceError, match="certificate verify failed"):
        arazzo_runner.run(path, servers={"pets": tls_server.url})
    default_tls_context.cache_clear()
    monkeypatch.setenv("SSL_CERT_FILE", str(TEST_CA))
    result = arazzo_runner.run(path, servers={"pets": tls_server.url})
    assert result.status == "passed", result.to_dict()
    assert [r.path for r in tls_server.requests] == ["/openapi.json", "/pets/1"]
