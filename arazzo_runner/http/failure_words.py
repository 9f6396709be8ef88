"""The one line that names a transport failure: a connect refused, a name not resolved, a TLS error, a
timeout (which one, after how long), a connection reset or closed mid-response, a malformed answer. Each
front end (a step, a token request, an agent's model call) says it in these words, with the request it
was about; the reports and the tests read them."""

from __future__ import annotations

import contextlib
import re
import socket
import ssl

from ..masking.secrets import clip

_BYTEARRAY = re.compile(r"bytearray\((b(['\"]).*?\2)\)")


def describe_error(exc: Exception, timeout: float | None, request_line: str = "", own: bool = False) -> str:
    """A one-line cause for a transport failure, e.g. 'connection refused (GET http://127.0.0.1:9/x)';
    `request_line` names the request when the error does not carry it (a raw ssl.SSLError), or always
    with `own` (the request's printed form, whose parts derived from a secret are `***`)."""
    import httpx

    if getattr(exc, "replayed", False):  # `--replay-http`: its own words (http/har_replay.py)
        return str(exc)
    url = f" ({request_line})" if request_line else ""
    with contextlib.suppress(AttributeError, RuntimeError):  # not every error carries its request
        if not own:
            url = f" ({exc.request.method} {clip(str(exc.request.url))})"  # type: ignore[attr-defined]
    if isinstance(exc, httpx.TimeoutException):
        kind = {
            httpx.ConnectTimeout: "connect",
            httpx.ReadTimeout: "read",
            httpx.WriteTimeout: "write",
            httpx.PoolTimeout: "pool",
        }.get(type(exc), "")
        limit = f" after {timeout:g} s" if timeout else ""
        return f"{kind + ' ' if kind else ''}timed out{limit}{url}"
    from .run_client import AnswerTooLarge

    if isinstance(exc, AnswerTooLarge):  # its own words: the limit, and the coding that passed it
        return f"{exc}{url}"
    causes = _causes(exc)
    if isinstance(exc, ssl.SSLError):
        return f"TLS error: {exc.reason or exc}{url}"
    if isinstance(exc, httpx.ConnectError):
        if any(isinstance(c, ConnectionRefusedError) for c in causes):
            return f"connection refused{url}"
        if any(isinstance(c, socket.gaierror) for c in causes):
            return f"cannot resolve the host name: {exc}{url}"
        if any(isinstance(c, ssl.SSLError) for c in causes) or "ssl" in str(exc).lower():
            return f"TLS error: {exc}{url}"
        return f"cannot connect: {_connect_reason(exc, causes)}{url}"
    tls = next((c for c in causes if isinstance(c, ssl.SSLError)), None)
    if tls is not None:  # a TLS alert after the handshake (raw on asyncio, in a ReadError when sync)
        return f"TLS error: {tls.reason or tls}{url}"
    reset = next((c for c in causes if isinstance(c, ConnectionResetError)), None)
    if reset is not None:  # httpx's sync stack repeats the OS error's text, its async one says nothing
        return f"connection reset by the server{'' if str(exc) == str(reset) else _detail(exc)}{url}"
    if isinstance(exc, httpx.RemoteProtocolError):
        if "without sending a response" in str(exc):  # closed before any byte of the status line
            return f"the server closed the connection without answering{url}"
        if "peer closed" in str(exc) or "incomplete" in str(exc):
            return f"the server closed the connection mid-response{_detail(exc)}{url}"
        return f"the server sent a malformed response{_detail(exc)}{url}"  # e.g. an illegal status line
    if isinstance(exc, httpx.ReadError):
        return f"connection error while reading the response{_detail(exc)}{url}"
    if isinstance(exc, httpx.UnsupportedProtocol):
        return f"unsupported URL: {exc}{url}"
    return f"{type(exc).__name__}: {exc}{url}"


def _connect_reason(exc: BaseException, causes: list[BaseException]) -> str:
    """Why a connection could not be made: its error's words; without any (a server closing the
    connection while it is set up, as a plain-HTTP port does a TLS hello: asyncio's bare
    ConnectionResetError, anyio's EndOfStream under httpx's transport), what happened."""
    text = str(exc)
    if text:
        return text
    if any(isinstance(c, ConnectionResetError) or type(c).__name__ == "EndOfStream" for c in causes):
        return "the server closed the connection while it was being set up"
    return "connection failed"


def _detail(exc: BaseException) -> str:
    text = _BYTEARRAY.sub(r"\1", str(exc).strip())  # h11 shows the offending line as bytearray(b'...')
    return f": {text}" if text else ""


def _causes(exc: BaseException) -> list[BaseException]:
    """`exc` and the exceptions it was raised from (httpx wraps the OS error two or three levels down)."""
    chain: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in chain and len(chain) < 16:
        chain.append(current)
        current = current.__cause__ or current.__context__
    return chain
