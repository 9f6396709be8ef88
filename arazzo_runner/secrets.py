"""Secret masking: the ONE function every writer applies (console, JSON, JUnit, HAR, verbose, errors).

A `Masker` replaces secrets with `***` in two ways:

- by value: every secret of the run (credentials, `format: password` / `writeOnly` inputs, values a step
  put in a credential's place) and the forms it takes on the wire (URL-encoded, JSON-escaped, base64) are
  replaced wherever they appear. Values shorter than `MIN_LENGTH` are never masked by value: replacing
  every `ab` in a report would destroy it while hiding nothing; they are masked by name only.
- by name: the values of `Authorization`, `Proxy-Authorization`, `Cookie`, `Set-Cookie` and of the
  headers and query parameters that apiKey security schemes name, whatever they hold (every cookie value is
  masked, so an apiKey cookie needs no name).

The secret set is read live (the run adds fetched tokens as it goes), so one Masker serves a whole run.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Iterable
from typing import Any
from urllib.parse import parse_qsl, quote, quote_plus, urlsplit, urlunsplit

MASK = "***"
MIN_LENGTH = 4
SENSITIVE_HEADERS = frozenset({"authorization", "proxy-authorization", "cookie", "set-cookie"})
_AUTH_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9_-]*) +\S")
# `Bearer <token>` shows as `Bearer ***`: the scheme word stays only when it is a known scheme (the IANA
# registry and common others), never a first word that could be the credential itself.
KNOWN_AUTH_SCHEMES = frozenset(
    s.lower()
    for s in (
        "Basic", "Bearer", "Concealed", "Digest", "DPoP", "GNAP", "HOBA", "Mutual", "Negotiate", "OAuth",
        "PrivateToken", "SCRAM-SHA-1", "SCRAM-SHA-256", "vapid", "Token", "ApiKey", "NTLM",
        "AWS4-HMAC-SHA256",
    )
)  # fmt: skip


class Masker:
    """Masks secrets in text, data, headers and URLs; `enabled=False` (`--no-mask`) passes all through."""

    def __init__(
        self,
        secrets: Iterable[str] = (),
        *,
        headers: Iterable[str] = (),
        query: Iterable[str] = (),
        enabled: bool = True,
    ) -> None:
        # A set given is kept by reference: values the run adds later are masked too.
        self.secrets: set[str] = secrets if isinstance(secrets, set) else set(secrets)
        self._headers = SENSITIVE_HEADERS | {h.lower() for h in headers}
        self._query = frozenset(query)
        self.enabled = enabled
        self._sources: Any = None  # a run's SourceCache: apiKey names of the descriptions it has loaded
        self._seen = -1  # how many descriptions the names were last read from
        self._known: frozenset[str] = frozenset({""})  # never equal to a real set of secrets
        self._forms: list[str] = []

    @classmethod
    def for_run(cls, options: Any, workspace: Any = None, *, enabled: bool = True) -> Masker:
        """A Masker over `options.secrets`, with the names the apiKey schemes of the workspace's sources
        use: of the sources loaded so far, read again whenever the run has loaded more. Nothing is
        fetched for it: a request can only go to an operation of a loaded source, so the scheme that
        names its header is known before anything is sent."""
        masker = cls(options.secrets, enabled=enabled)
        masker._sources = None if workspace is None else workspace.cache
        return masker

    def add(self, *values: Any) -> None:
        self.secrets.update(v for v in values if isinstance(v, str) and v)

    # -- by value ----------------------------------------------------------------------------------

    def text(self, text: str) -> str:
        """`text` with every secret (in any of its encoded forms) replaced by `***`."""
        if not self.enabled or not text:
            return text
        for form in self._masked_forms():
            if form in text:
                text = text.replace(form, MASK)
        return text

    def data(self, value: Any) -> Any:
        """A masked copy of JSON-like data (strings masked, containers copied, other values kept)."""
        if not self.enabled:
            return value
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {self.text(str(k)): self.data(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [self.data(v) for v in value]
        if isinstance(value, (bytes, bytearray)):
            return self.text(bytes(value).decode("utf-8", "replace"))
        return value

    def _masked_forms(self) -> list[str]:
        # Plain replacements, longest first (`Bearer x` before `x`); no regex, so no pattern holding the
        # secrets outlives this Masker in a module-level cache.
        if len(self.secrets) != len(self._known) or not self._known.issuperset(self.secrets):
            self._known = frozenset(self.secrets)  # the run adds secrets as it goes
            forms = {f for s in self.secrets if len(s) >= MIN_LENGTH for f in variants(s)}
            self._forms = sorted((f for f in forms if len(f) >= MIN_LENGTH), key=len, reverse=True)
        return self._forms

    # -- by name -----------------------------------------------------------------------------------

    @property
    def header_names(self) -> frozenset[str]:
        self._read_names()
        return self._headers

    @property
    def query_names(self) -> frozenset[str]:
        self._read_names()
        return self._query

    def _read_names(self) -> None:
        if self._sources is None:
            return
        added = self._sources.descriptions_added()
        if added != self._seen:
            self._seen = added
            headers, query = api_key_names(self._sources.loaded_descriptions())
            self._headers = self._headers | {h.lower() for h in headers}
            self._query = self._query | query

    def header(self, name: str, value: str) -> str:
        if not self.enabled:
            return value
        lowered = name.lower()
        if lowered in ("authorization", "proxy-authorization"):
            scheme = _AUTH_SCHEME.match(value)
            if scheme is not None and scheme.group(1).lower() in KNOWN_AUTH_SCHEMES:
                return f"{scheme.group(1)} {MASK}"
            return MASK
        if lowered == "cookie":
            return "; ".join(_mask_pair(p) for p in value.split(";"))
        if lowered == "set-cookie":
            first, sep, attributes = value.partition(";")
            return _mask_pair(first) + (sep + self.text(attributes) if sep else "")
        if lowered in self.header_names:
            return MASK
        return self.text(value)

    def headers(self, pairs: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
        return [(name, self.header(name, value)) for name, value in pairs]

    def url(self, url: str) -> str:
        """The URL with apiKey query parameters masked by name and every secret by value."""
        if not self.enabled or not url:
            return url
        if self.query_names and "?" in url:
            parts = urlsplit(url)
            query = "&".join(self._query_pair(p) for p in parts.query.split("&"))
            url = urlunsplit(parts._replace(query=query))
        return self.text(url)

    def query(self, name: str, value: str) -> str:
        """One decoded query parameter's value (for HAR's queryString)."""
        if self.enabled and name in self.query_names:
            return MASK
        return self.text(value)

    def _query_pair(self, pair: str) -> str:
        decoded = parse_qsl(pair, keep_blank_values=True)
        if decoded and decoded[0][0] in self.query_names:
            return pair.split("=", 1)[0] + "=" + MASK
        return pair


def _mask_pair(pair: str) -> str:
    name, sep, _ = pair.strip().partition("=")
    return f"{name}={MASK}" if sep else MASK


def variants(secret: str) -> set[str]:
    """The forms a secret takes in requests, responses and reports."""
    encoded = secret.encode("utf-8")
    return {
        secret,
        quote(secret, safe=""),
        quote(secret),
        quote_plus(secret),
        json.dumps(secret)[1:-1],
        json.dumps(secret, ensure_ascii=False)[1:-1],
        base64.b64encode(encoded).decode("ascii"),
        base64.urlsafe_b64encode(encoded).decode("ascii").rstrip("="),
    }


def api_key_names(descriptions: Iterable[Any]) -> tuple[set[str], set[str]]:
    """Header and query parameter names of the apiKey schemes of OpenAPI `descriptions` (an apiKey cookie
    needs no name: every Cookie value is masked)."""
    from .errors import ArazzoError

    names: dict[str, set[str]] = {"header": set(), "query": set(), "cookie": set()}
    for description in descriptions:
        try:
            schemes = description.security_schemes
        except ArazzoError:
            continue
        for scheme in schemes.values():
            if isinstance(scheme, dict) and scheme.get("type") == "apiKey":
                where = scheme.get("in", "header")
                if where in names and isinstance(scheme.get("name"), str):
                    names[where].add(scheme["name"])
    return names["header"], names["query"]
