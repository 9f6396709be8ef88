"""The process's verifying TLS context, whose trust store is read at the first TLS handshake.

Reading the CA bundle costs ~14 ms, a tenth of a one-step `arazzo run`, and a run whose servers are all
plain http (local services, most API tests in CI) never needs it. A run whose preflight finds an https
base URL reads it in a background thread while httpx is imported and the client set up (`prefetch`).

The context is otherwise the one `httpx.create_ssl_context()` builds: the same trust sources
(`SSL_CERT_FILE`, `SSL_CERT_DIR`, else certifi's bundle) and the settings of
`ssl.create_default_context()` (held to them by a test).
"""

from __future__ import annotations

import contextlib
import functools
import os
import ssl
import sys
import threading
from typing import Any

_LOCK = threading.Lock()


class DeferredTrustContext(ssl.SSLContext):
    """A client context that verifies certificates and host names; its CA certificates are loaded by
    the first `wrap_socket`/`wrap_bio` (every TLS connection goes through one of them), never later."""

    _cafile: str | None
    _capath: str | None
    _trust_loaded: bool
    _prefetching: bool

    def __new__(cls, cafile: str | None = None, capath: str | None = None) -> DeferredTrustContext:
        context = super().__new__(cls, ssl.PROTOCOL_TLS_CLIENT)  # CERT_REQUIRED, check_hostname
        context._cafile, context._capath, context._trust_loaded = cafile, capath, False
        context._prefetching = False
        return context

    def __init__(self, cafile: str | None = None, capath: str | None = None) -> None:
        # As ssl.create_default_context() does after loading the trust store.
        if sys.version_info >= (3, 13):
            self.verify_flags |= ssl.VERIFY_X509_PARTIAL_CHAIN | ssl.VERIFY_X509_STRICT
        keylog = os.environ.get("SSLKEYLOGFILE")
        if keylog and not sys.flags.ignore_environment:
            self.keylog_filename = keylog

    def load_trust(self) -> None:
        if self._trust_loaded:
            return
        with _LOCK:
            if not self._trust_loaded:
                if self._cafile is None and self._capath is None:
                    import certifi

                    self._cafile = certifi.where()
                try:
                    self.load_verify_locations(cafile=self._cafile, capath=self._capath)
                except OSError as exc:  # an SSLError fails this connection like any TLS failure
                    where = self._cafile or self._capath
                    message = f"cannot read the trusted CA certificates from {where}: {exc}"
                    raise ssl.SSLError(message) from None
                self._trust_loaded = True

    def prefetch(self) -> None:
        """Start reading the trust store in a background thread, when a run will use https: OpenSSL reads
        it without holding the GIL, so it overlaps the imports and setup before the first request, whose
        handshake waits for it (and reports a failure to read it, as `load_trust` does)."""
        with _LOCK:
            if self._trust_loaded or self._prefetching:
                return
            self._prefetching = True
        threading.Thread(target=self._load_quietly, name="arazzo-tls-trust", daemon=True).start()

    def _load_quietly(self) -> None:
        with contextlib.suppress(ssl.SSLError):  # the handshake's own load_trust raises it again
            self.load_trust()

    def wrap_socket(self, *args: Any, **kwargs: Any) -> ssl.SSLSocket:
        self.load_trust()
        return super().wrap_socket(*args, **kwargs)

    def wrap_bio(self, *args: Any, **kwargs: Any) -> ssl.SSLObject:
        self.load_trust()
        return super().wrap_bio(*args, **kwargs)


def client_certificate_context(cert: str, key: str | None, password: str | None) -> DeferredTrustContext:
    """A verifying context like the default one that also presents a client certificate (mutualTLS):
    `cert` is a PEM file with the certificate (and its chain; the private key too when `key` is None).
    OSError/ssl.SSLError when a file cannot be read or the key does not match."""
    context = DeferredTrustContext(*_trust_sources())
    context.load_cert_chain(cert, key, password)
    return context


@functools.lru_cache(maxsize=1)
def default_tls_context() -> DeferredTrustContext:
    """httpx's default verifying context, one per process, shared by every run (only its trust store is
    loaded later, once): the CAs come from `SSL_CERT_FILE`, else `SSL_CERT_DIR`, else certifi, as in
    httpx."""
    return DeferredTrustContext(*_trust_sources())


def _trust_sources() -> tuple[str | None, str | None]:
    """(cafile, capath): `SSL_CERT_FILE`, else `SSL_CERT_DIR`, else neither (certifi's bundle)."""
    if os.environ.get("SSL_CERT_FILE"):
        return os.environ["SSL_CERT_FILE"], None
    if os.environ.get("SSL_CERT_DIR"):
        return None, os.environ["SSL_CERT_DIR"]
    return None, None
