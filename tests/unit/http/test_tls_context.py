"""The deferred-trust TLS context has the settings of `ssl.create_default_context()` and, once loaded,
the same trust store as httpx's default context; it is loaded once, by the first handshake."""

from __future__ import annotations

import ssl
import threading

import certifi
import pytest

from arazzo_runner.sources.tls import DeferredTrustContext, default_tls_context


def _settings(context: ssl.SSLContext) -> dict:
    return {
        "protocol": context.protocol,
        "verify_mode": context.verify_mode,
        "check_hostname": context.check_hostname,
        "options": context.options,
        "verify_flags": context.verify_flags,
        "minimum_version": context.minimum_version,
        "maximum_version": context.maximum_version,
        "post_handshake_auth": context.post_handshake_auth,
        "keylog_filename": context.keylog_filename,
    }


def test_settings_match_the_standard_default_context(monkeypatch) -> None:
    monkeypatch.delenv("SSLKEYLOGFILE", raising=False)
    reference = ssl.create_default_context(cafile=certifi.where())
    deferred = DeferredTrustContext()
    assert _settings(deferred) == _settings(reference)
    assert deferred.cert_store_stats()["x509_ca"] == 0  # nothing read yet
    deferred.load_trust()
    assert deferred.cert_store_stats() == reference.cert_store_stats()
    assert deferred.get_ca_certs() == reference.get_ca_certs()


def test_keylog_file_is_honoured_like_the_standard_context(monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("SSLKEYLOGFILE", str(tmp_path / "keys.log"))
    assert DeferredTrustContext().keylog_filename == ssl.create_default_context().keylog_filename


def test_the_trust_store_is_read_by_the_first_wrap_only(monkeypatch) -> None:
    context = DeferredTrustContext()
    loads = []
    real = ssl.SSLContext.load_verify_locations

    def counted(self, *args, **kwargs):
        loads.append(1)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(ssl.SSLContext, "load_verify_locations", counted)
    barrier = threading.Barrier(8)

    def wrap() -> None:
        barrier.wait()
        context.wrap_bio(ssl.MemoryBIO(), ssl.MemoryBIO(), server_hostname="example.org")

    threads = [threading.Thread(target=wrap) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert loads == [1]
    context.wrap_bio(ssl.MemoryBIO(), ssl.MemoryBIO(), server_hostname="example.org")
    assert loads == [1]


@pytest.mark.parametrize(
    ("env", "expected"),
    [({"SSL_CERT_FILE": "/x/ca.pem"}, ("/x/ca.pem", None)), ({"SSL_CERT_DIR": "/x"}, (None, "/x"))],
)
def test_trust_sources_follow_httpx(monkeypatch, env, expected) -> None:
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    default_tls_context.cache_clear()
    try:
        context = default_tls_context()
        assert (context._cafile, context._capath) == expected
    finally:
        default_tls_context.cache_clear()


def test_prefetch_reads_the_trust_store_once_in_the_background(monkeypatch) -> None:
    context = DeferredTrustContext()
    loads, threads = [], []
    real = ssl.SSLContext.load_verify_locations

    def counted(self, *args, **kwargs):
        loads.append(threading.current_thread().name)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(ssl.SSLContext, "load_verify_locations", counted)
    started = threading.Thread.start
    monkeypatch.setattr(threading.Thread, "start", lambda self: (threads.append(self), started(self))[1])
    context.prefetch()
    context.prefetch()  # already under way: no second thread
    context.wrap_bio(ssl.MemoryBIO(), ssl.MemoryBIO(), server_hostname="example.org")  # waits for it
    assert context._trust_loaded
    assert loads == ["arazzo-tls-trust"]
    assert [thread.name for thread in threads] == ["arazzo-tls-trust"]
    threads[0].join()
    context.prefetch()  # loaded: nothing to do
    assert len(threads) == 1


def test_a_failed_prefetch_is_reported_by_the_handshake(tmp_path) -> None:
    context = DeferredTrustContext(cafile=str(tmp_path / "missing.pem"))
    context.prefetch()
    with pytest.raises(ssl.SSLError, match="cannot read the trusted CA certificates from"):
        context.wrap_bio(ssl.MemoryBIO(), ssl.MemoryBIO(), server_hostname="example.org")
