"""https under Locust: gevent patches `ssl` and `socket` in the process that runs the engine's asyncio,
and the engine's TLS (its one verifying context, the trust store read in a background thread that is a
greenlet there) must behave as in `arazzo run`: a trusted server is loaded and counted, an untrusted one
is a failure whose cause says so, in Locust's failure table."""

from __future__ import annotations

import sys

from tests.e2e.loadkit import (
    SECRET,
    Counter,
    failures_rows,
    finish,
    serve,
    start,
    stats_rows,
    write_documents,
)
from tests.servers.scripted import TEST_CA, ScriptedServer


def load(path, server, prefix, env=None, drop=()):
    argv = [sys.executable, "-m", "arazzo_runner.cli", "load", path, "-w", "browse", "--server",
            f"pets={server.url}", "--auth", f"bearer={SECRET}", "--input", "who=x", "-u", 3, "-t", "2s",
            "--only-summary", "--csv", prefix]  # fmt: skip
    return finish(start(argv, env=env, drop=drop))


def test_a_trusted_https_server_is_loaded_and_counted(tmp_path) -> None:
    path = write_documents(tmp_path)
    counter = Counter()
    with ScriptedServer(tls=True) as server:
        serve(server, counter)
        code, out, err = load(path, server, tmp_path / "stats", env={"SSL_CERT_FILE": str(TEST_CA)})
    assert code == 0, out + err
    rows = stats_rows(tmp_path / "stats")
    assert int(rows["browse.list"]["Request Count"]) == counter.count["list"] > 0
    assert int(rows["browse.show"]["Request Count"]) == counter.count["show"]
    assert rows["Aggregated"]["Failure Count"] == "0"


def test_an_untrusted_certificate_is_a_failure_that_says_so(tmp_path) -> None:
    path = write_documents(tmp_path)
    counter = Counter()
    with ScriptedServer(tls=True) as server:
        serve(server, counter)
        code, out, err = load(path, server, tmp_path / "stats", drop=("SSL_CERT_FILE", "SSL_CERT_DIR"))
    assert code == 1, out + err
    assert counter.total == 0  # no request got through the handshake
    failures = {row["Name"]: row["Error"] for row in failures_rows(tmp_path / "stats")}
    assert set(failures) == {"browse.list", "workflow browse"}
    assert "certificate verify failed" in failures["browse.list"]
    assert "Traceback" not in err
