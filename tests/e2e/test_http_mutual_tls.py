"""mutualTLS security schemes over real TLS: the server demands a client certificate issued by the test
CA; the engine presents the one given as the scheme's credential (`cert`, `key`, `password`)."""

from __future__ import annotations

import pytest

import arazzo_runner
from arazzo_runner.sources.tls import default_tls_context
from tests.e2e.helpers import cli
from tests.e2e.httpkit import op, openapi, step, write_flow
from tests.servers.scripted import (
    CLIENT_CERT,
    CLIENT_KEY,
    CLIENT_KEY_ENCRYPTED,
    CLIENT_KEY_PASSWORD,
    TEST_CA,
    ScriptedServer,
)

SCHEMES = {"mtls": {"type": "mutualTLS", "description": "a client certificate"}}


@pytest.fixture(autouse=True)
def trust_the_test_ca(monkeypatch):
    monkeypatch.setenv("SSL_CERT_FILE", str(TEST_CA))
    default_tls_context.cache_clear()
    yield
    default_tls_context.cache_clear()


@pytest.fixture
def mtls_server():
    with ScriptedServer(tls=True, client_certs=True) as running:
        running.route("GET", "/.*")(lambda request: (200, {"who": request.client_cn}))
        yield running


def _flow(tmp_path):
    api = openapi({"/a": {"get": op("a", security=[{"mtls": []}])}}, components={"securitySchemes": SCHEMES})
    return write_flow(tmp_path, api, [step("a", "a", outputs={"who": "$response.body#/who"})])


def _run(tmp_path, server, **auth):
    result = arazzo_runner.run(_flow(tmp_path), servers={"api": server.url}, environ={}, auth=auth)
    [workflow] = result.workflows
    return workflow


def test_the_client_certificate_is_presented(tmp_path, mtls_server) -> None:
    workflow = _run(tmp_path, mtls_server, **{"mtls.cert": str(CLIENT_CERT), "mtls.key": str(CLIENT_KEY)})
    assert workflow.status == "passed", workflow.error
    assert workflow.steps[0].outputs == {"who": "arazzo-runner test client"}


def test_an_encrypted_key_with_its_passphrase_which_stays_secret(tmp_path, mtls_server) -> None:
    auth = {
        "mtls.cert": str(CLIENT_CERT),
        "mtls.key": str(CLIENT_KEY_ENCRYPTED),
        "mtls.password": CLIENT_KEY_PASSWORD,
    }
    workflow = _run(tmp_path, mtls_server, **auth)
    assert workflow.status == "passed", workflow.error
    wrong = _run(tmp_path, mtls_server, **{**auth, "mtls.password": "not-the-pass"})
    error = wrong.steps[0].error
    assert error.startswith(
        f"request not sent: security scheme 'mtls': cannot load the client certificate {CLIENT_CERT}"
    )
    assert "not-the-pass" not in error


def test_environment_variables_and_arazzo_auth_name_them(tmp_path, mtls_server, capsys, monkeypatch) -> None:
    path = _flow(tmp_path)
    listing = cli(capsys, "auth", path)
    assert "ARAZZO_AUTH_MTLS_CERT" in listing.out
    monkeypatch.setenv("ARAZZO_AUTH_MTLS_CERT", str(CLIENT_CERT))
    monkeypatch.setenv("ARAZZO_AUTH_MTLS_KEY", str(CLIENT_KEY))
    result = cli(capsys, "run", path, "--server", f"api={mtls_server.url}")
    assert result.code == 0, result.out + result.err
    assert [r.client_cn for r in mtls_server.requests] == ["arazzo-runner test client"]


def test_without_a_certificate_the_step_warns_and_the_server_refuses(tmp_path, mtls_server) -> None:
    workflow = _run(tmp_path, mtls_server)
    step = workflow.steps[0]
    assert step.status == "failed"
    # the server's refusal arrives as a TLS 1.3 alert or as a reset, whichever the client reads first
    assert step.error.startswith(("TLS error: ", "connection reset by the server")), step.error
    assert any("for 'mtls' set ARAZZO_AUTH_MTLS_CERT" in w for w in step.warnings)
    assert mtls_server.requests == []  # the server never read a request


def test_an_unreadable_certificate_is_a_named_failure(tmp_path, mtls_server) -> None:
    missing = tmp_path / "nope.pem"
    workflow = _run(tmp_path, mtls_server, **{"mtls.cert": str(missing)})
    error = workflow.steps[0].error
    assert error.startswith(
        f"request not sent: security scheme 'mtls': cannot load the client certificate {missing}"
    )
    assert "No such file or directory" in error
    assert mtls_server.requests == []
    # `--auth mtls=VALUE` (the main field) works too; such a value is masked like any --auth value
    main = _run(tmp_path, mtls_server, mtls=str(missing)).steps[0].error
    assert main.startswith("request not sent: security scheme 'mtls': cannot load the client certificate ***")


def test_the_main_field_is_the_certificate_file(tmp_path, mtls_server) -> None:
    both = tmp_path / "both.pem"  # certificate and key in one file
    both.write_text(CLIENT_CERT.read_text() + CLIENT_KEY.read_text())
    workflow = _run(tmp_path, mtls_server, mtls=str(both))
    assert workflow.status == "passed", workflow.steps[0].error


def test_plain_http_presents_no_certificate_and_says_so(tmp_path, server) -> None:
    server.route("GET", "/.*")(lambda request: (200, {}))
    workflow = _run(tmp_path, server, **{"mtls.cert": str(CLIENT_CERT), "mtls.key": str(CLIENT_KEY)})
    assert workflow.status == "passed"
    assert any("(mutualTLS) needs https" in w for w in workflow.steps[0].warnings)
