"""OAuth2 client credentials (RFC 6749 section 4.4): fetch an access token, cache it for the run.

Tokens are cached per run by (token URL, client id, scope set) and fetched again once expired
(`expires_in` less a margin of a tenth of the lifetime, at most 30 s; no `expires_in`: kept for the
run). The client authenticates with HTTP Basic (`client_auth: basic`, the default, RFC 6749 2.3.1) or
with `client_id`/`client_secret` in the form body (`client_auth: post`). Each token request made is
recorded as an `Exchange` (purpose `oauth2 token`) in the caller's list, for verbose output and reports.
"""

from __future__ import annotations

import base64
import ssl
import sys
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import quote_plus, urlencode

from ..bounds import json_text
from ..records import Record, field
from .exchange import TOKEN_REQUEST, Exchange


class TokenError(Exception):
    """The token endpoint could not give a token; the message never holds a credential."""


class _Token(Record):
    value: str
    expires_at: float | None  # clock time; None: never within the run


class TokenCache(Record):
    """One per run (held by the run's HTTP session)."""

    clock: Callable[[], float] = time.monotonic
    _tokens: dict[tuple[str, str, frozenset[str]], _Token] = field(default_factory=dict)
    _locks: dict[tuple[str, str, frozenset[str]], Any] = field(default_factory=dict)
    fetches: int = 0  # tokens fetched by this run (for tests and reports)

    def __init__(  # written out: one per run that sends a request
        self,
        clock: Callable[[], float] = time.monotonic,
        _tokens: dict[tuple[str, str, frozenset[str]], _Token] | None = None,
        _locks: dict[tuple[str, str, frozenset[str]], Any] | None = None,
        fetches: int = 0,
    ) -> None:
        self.clock, self.fetches = clock, fetches
        self._tokens = {} if _tokens is None else _tokens
        self._locks = {} if _locks is None else _locks

    async def token(
        self,
        client: Any,
        token_url: str,
        fields: dict[str, str],
        scopes: list[str],
        timeout: float | None,
        exchanges: list[Exchange] | None = None,
    ) -> str:
        """The access token, from the cache or fetched (the request recorded in `exchanges`)."""
        key = (token_url, fields["client_id"], frozenset(scopes))
        lock = self._locks.get(key) or self._locks.setdefault(key, _lock())
        async with lock:  # concurrent steps share one fetch
            cached = self._tokens.get(key)
            if cached is not None and (cached.expires_at is None or self.clock() < cached.expires_at):
                return cached.value
            exchange = Exchange("POST", token_url, [], None, started_at=time.time(), purpose=TOKEN_REQUEST)
            if exchanges is not None:
                exchanges.append(exchange)
            token = await self._fetch(client, token_url, fields, scopes, timeout, exchange)
            self._tokens[key] = token
            return token.value

    async def _fetch(
        self,
        client: Any,
        token_url: str,
        fields: dict[str, str],
        scopes: list[str],
        timeout: float | None,
        exchange: Exchange,
    ) -> _Token:
        import httpx

        from .run_client import bounded_answer

        form = {"grant_type": "client_credentials"}
        if scopes:
            form["scope"] = " ".join(scopes)
        headers = {"Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"}
        if fields.get("client_auth", "basic").lower() == "post":
            form.update(client_id=fields["client_id"], client_secret=fields["client_secret"])
        else:
            pair = f"{quote_plus(fields['client_id'])}:{quote_plus(fields['client_secret'])}"
            headers["Authorization"] = "Basic " + base64.b64encode(pair.encode()).decode("ascii")
        content = urlencode(form).encode()
        exchange.request_headers, exchange.request_body = list(headers.items()), content
        started = self.clock()
        try:
            # streamed and read within a bound on any client: a caller's own httpx client's `post`
            # would read (and decode) the whole answer
            response = await bounded_answer(
                client.stream(
                    "POST",
                    token_url,
                    content=content,
                    headers=headers,
                    timeout=httpx.USE_CLIENT_DEFAULT if timeout is None else timeout,
                )
            )
        except (httpx.HTTPError, ssl.SSLError) as exc:  # a TLS alert after the handshake comes raw
            from .failure_words import describe_error

            message = f"token request to {token_url} failed: {describe_error(exc, timeout)}"
            exchange.error, exchange.duration_ms = message, (time.time() - exchange.started_at) * 1000
            raise TokenError(message) from None
        exchange.status_code, exchange.response_body = response.status_code, response.content
        exchange.response_headers = list(response.headers.multi_items())
        exchange.duration_ms = (time.time() - exchange.started_at) * 1000
        self.fetches += 1
        return _token_from(response, token_url, started)


class _Alone:
    """The lock of a run that blocks its thread: nothing else can fetch meanwhile."""

    async def __aenter__(self) -> None:
        return None

    async def __aexit__(self, *exc_info: Any) -> None:
        return None


def _lock() -> Any:
    """An asyncio.Lock, for steps that may fetch concurrently; without asyncio imported no event loop
    runs, so the run blocks its thread and nothing can (an uncontended asyncio.Lock needs no loop)."""
    asyncio = sys.modules.get("asyncio")
    return _Alone() if asyncio is None else asyncio.Lock()


def _token_from(response: Any, token_url: str, started: float) -> _Token:
    try:
        data = json_text.loads(response.content or b"null")
    except ValueError:
        data = None
    if response.status_code >= 400 or not isinstance(data, dict) or not data.get("access_token"):
        raise TokenError(f"token request to {token_url} failed: {_explain(response.status_code, data)}")
    lifetime = data.get("expires_in")
    expires_at = None
    if isinstance(lifetime, (int, float)) and not isinstance(lifetime, bool):
        expires_at = started + lifetime - min(30.0, lifetime / 10)
    return _Token(str(data["access_token"]), expires_at)


def _explain(status: int, data: Any) -> str:
    # Only the standard error fields (RFC 6749 5.2) are shown: a body could echo what was sent.
    if isinstance(data, dict) and isinstance(data.get("error"), str):
        detail = data["error"]
        if isinstance(data.get("error_description"), str):
            detail += f": {data['error_description']}"
        return f"HTTP {status} ({detail})"
    if status < 400:
        return f"HTTP {status} without an access_token in a JSON body"
    return f"HTTP {status}"
