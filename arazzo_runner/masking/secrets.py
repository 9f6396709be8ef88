"""Secret masking: the ONE function every writer applies (console, JSON, JUnit, HAR, verbose, errors).

A `Masker` replaces secrets with `***` in two ways:

- by value: every secret of the run (credentials, `format: password` / `writeOnly` inputs, values a step
  put in a credential's place, cookie values sent or set) and the forms it takes on the wire and in
  messages (`variants`: percent-encoded with or without `allowReserved`, as a cookie, JSON-escaped,
  base64, quoted) are replaced wherever they appear. Values shorter than `MIN_LENGTH` are never masked
  by value: replacing every `ab` in a report would destroy it while hiding nothing; they are masked by
  name only.
- by name: the values of `Authorization`, `Proxy-Authorization`, `Cookie`, `Set-Cookie` and of the
  headers and query parameters that apiKey security schemes name, whatever they hold (every cookie value is
  masked, so an apiKey cookie needs no name).

Long values in messages are cut by `clip`, which leaves a marker (`...(N more chars)`). Masking after a
cut cannot recognise a secret the cut split, so `text` also masks the start of a secret that ends at a
marker: a cut never shows the first characters of a secret, whether it came before masking or after.

The secret set is read live (the run adds fetched tokens as it goes), so one Masker serves a whole run.
"""

from __future__ import annotations

import base64
import json
import os
import re
from collections.abc import Iterable
from typing import Any
from urllib.parse import parse_qsl, quote, quote_plus, urlsplit, urlunsplit

MASK = "***"
# What a value derived from a secret is while the printed form of a request is built (`taint.py`):
# letters and digits only, so every encoding (path, query, form, cookie, JSON, XML, multipart) leaves it
# as it is, and it is then replaced by MASK (`Masker.shown`). Random per process: no document can hold it.
SHOWN_MASK = "ARAZZOMASK" + os.urandom(8).hex().upper()
MIN_LENGTH = 4
VALUE_LIMIT = 500  # characters of one value a message quotes (a URL, an error's detail, an output)
MESSAGE_LIMIT = 4000  # characters of a whole message (an error, a warning)
URL_LIMIT = 2000  # characters of the URL a step shows (the request itself is never cut)
_CUT = re.compile(r"\.\.\.\((\d+) more chars\)")
# `scheme://user:PASSWORD@host`: the password of a URL's userinfo (up to the last `@` before the path)
_USERINFO = re.compile(r"\b([A-Za-z][A-Za-z0-9+.-]*://[^\s/?#@:\"'<>]*:)([^\s/?#\"'<>]+)@")
SENSITIVE_HEADERS = frozenset({"authorization", "proxy-authorization", "cookie", "set-cookie"})
_NO_NAMES: frozenset[str] = frozenset()
_NEVER_KNOWN: frozenset[str] = frozenset({""})  # never equal to a real set of secrets (`_masked_forms`)
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
        # (frozen: `_read_names` makes new ones, so a masker made per row shares the common ones)
        self._headers = SENSITIVE_HEADERS | {h.lower() for h in headers} if headers else SENSITIVE_HEADERS
        self._query = frozenset(query) if query else _NO_NAMES
        self.enabled = enabled
        self._sources: Any = None  # a run's SourceCache: apiKey names of the descriptions it has loaded
        self._seen = -1  # how many descriptions the names were last read from
        self._known: frozenset[str] = _NEVER_KNOWN
        self._forms: list[str] = []
        # The paths of a row's inputs that its workflows' schemas mark secret (`cli.run.secret_row_inputs`):
        # shown as `***` by name in the row's header and entry (`inputs`), whatever their type.
        self.named: tuple[tuple[Any, ...], ...] = ()

    @classmethod
    def for_run(cls, options: Any, workspace: Any = None, *, enabled: bool = True) -> Masker:
        """A Masker over `options.secrets`, with the names the apiKey schemes of the workspace's sources
        use: of the sources loaded so far, read again whenever the run has loaded more. Nothing is
        fetched for it: a request can only go to an operation of a loaded source, so the scheme that
        names its header is known before anything is sent."""
        return cls.over(options.secrets, workspace, enabled=enabled)

    @classmethod
    def over(cls, secrets: set[str], workspace: Any = None, *, enabled: bool = True) -> Masker:
        """`for_run` for a secret set given directly (the run's taint rule shares the run's set)."""
        masker = cls(secrets, enabled=enabled)
        masker._sources = None if workspace is None else workspace.cache
        return masker

    def add(self, *values: Any) -> None:
        self.secrets.update(v for v in values if isinstance(v, str) and v)

    # -- by value ----------------------------------------------------------------------------------

    def text(self, text: str) -> str:
        """`text` with every secret (in any of its encoded forms) replaced by `***`, and the start of a
        secret that a cut (`clip`) left just before its marker."""
        if not self.enabled or not text:
            return text
        if "@" in text:
            text = mask_userinfo(text)
        forms = self._masked_forms()
        for form in forms:
            if form in text:
                text = text.replace(form, MASK)
        if forms and "more chars)" in text:
            text = self._mask_cut_starts(text)
        return text

    def masks_text(self) -> bool:
        """Whether `text` may change a text with no `@` in it (a secret is known to mask)."""
        return self.enabled and bool(self._masked_forms())

    def leaves(self, text: str = "") -> bool:
        """Whether masking leaves `text` as it is, known without a pass over it: no `@` in it (a URL's
        password, which masking finds whatever the secrets, `mask_userinfo`) and no secret known to
        mask (`masks_text`; an empty set of secrets answers at once, without looking at the forms).
        The writers on the hot paths (a console line, the one-block summary, a row's header: each row
        of `--inputs-file`) ask it first and then write the text as it is, rather than mask each part
        or copy a row's values: one question, so that they cannot come to differ on what masking
        may change. (A row's header asks it with no text: its values are data, `batch_text`.)"""
        return "@" not in text and not (self.secrets and self.masks_text())

    def longest_form(self) -> int:
        """Characters of the longest form of a secret masked in text (0: none known)."""
        return max(map(len, self._masked_forms()), default=0) if self.enabled else 0

    def binary(self, content: bytes) -> bytes:
        """A binary body with every secret form in it replaced by `***` (a HAR recording keeps binary
        bodies whole: `--record-http`)."""
        if not self.enabled or not content:
            return content
        for form in self._masked_forms():
            encoded = form.encode("utf-8", "surrogatepass")
            if encoded in content:
                content = content.replace(encoded, MASK.encode())
        return content

    def clip(self, text: str, limit: int = VALUE_LIMIT) -> str:
        """`text` masked, then cut to `limit` characters by `clip`."""
        return self.text(clip(self.text(text), limit))

    def outputs(self, values: Any) -> Any:
        """Outputs with those derived from a secret (named in their `secret`, see
        `arazzo_runner.masking.taint`) as `***`, and the secret members of the others (their `members`,
        `masking/members.py`); the rest as they are (`data` masks them by value)."""
        marked = getattr(values, "secret", None) or ()
        members = getattr(values, "members", None)
        if not self.enabled or not (marked or members):
            return values
        if members:
            from .members import masked_at

            return {
                name: MASK if name in marked else masked_at(value, members.get(name, ()), MASK)
                for name, value in values.items()
            }
        return {name: MASK if name in marked else value for name, value in values.items()}

    def inputs(self, values: dict[str, Any], as_text: bool = False) -> Any:
        """A row's inputs as its header and entry show them: those its workflows' schemas mark secret
        (`named`) as `***`, whatever their type (a number is never masked by value), then masked by
        value (`data`). `as_text`: for the header, a line of text, where a number is text like the
        rest of the console's lines: masked by value as text (`petId=***` when a secret's text is
        `1234`, as the step's line shows `/pets/***`); the entry is data, where numbers stay."""
        from .members import masked_at, numbers_as_text

        if self.enabled and self.named:
            values = masked_at(values, self.named, MASK)
        shown = self.data(values)
        return numbers_as_text(shown, self.text) if as_text and self.masks_text() else shown

    def touches(self, value: Any) -> bool:
        """Whether `value` (text, or data as its JSON text) holds a secret in one of its forms."""
        if not self.enabled or not self._masked_forms():
            return False
        text = value if isinstance(value, str) else json_text(value)
        return any(form in text for form in self._forms)

    def _mask_cut_starts(self, text: str) -> str:
        pieces, last = [], 0
        for cut in _CUT.finditer(text):
            before = text[last : cut.start()]
            size = self._secret_start(before)
            pieces.append(before[: len(before) - size] + MASK if size else before)
            pieces.append(cut.group(0))
            last = cut.end()
        pieces.append(text[last:])
        return "".join(pieces)

    def _secret_start(self, text: str) -> int:
        """How many characters at the end of `text` begin one of the secrets' forms (MIN_LENGTH or more,
        short of the whole form, which is masked already); 0 when none do."""
        longest = 0
        for form in self._forms:
            tail = text[-(len(form) - 1) :] if len(form) > 1 else ""
            head = form[:MIN_LENGTH]
            found = tail.find(head)
            while found != -1 and len(tail) - found > longest:
                if form.startswith(tail[found:]):
                    longest = len(tail) - found
                    break
                found = tail.find(head, found + 1)
        return longest

    def data(self, value: Any) -> Any:
        """A masked copy of JSON-like data (strings masked, containers copied, other values kept)."""
        if not self.enabled:
            return value
        kind = type(value)  # leaves first, by their exact type (each isinstance below costs as much)
        if kind is int or kind is float or kind is bool or value is None:
            return value
        if kind is str or isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            text, data = self.text, self.data
            return {text(str(k)): data(v) for k, v in value.items()}
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
        if "?" in url and self.query_names:
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


def mask_userinfo(text: str) -> str:
    """`text` with the password of every URL's userinfo as `***` (`https://user:***@host`): how a
    password written into a URL is shown, wherever it is (`http/userinfo.py`)."""
    if "@" not in text or "://" not in text:
        return text
    return _USERINFO.sub(lambda m: m.group(1) + MASK + "@" if m.group(2) != MASK else m.group(0), text)


def clip(text: str, limit: int = VALUE_LIMIT) -> str:
    """`text` cut to `limit` characters, followed by `...(N more chars)`: how every message builder cuts
    a long value (a result never repeats megabytes), with the marker `Masker.text` recognises."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}...({len(text) - limit} more chars)"


def json_text(value: Any) -> str:
    """Compact JSON text of any value (what `touches` searches in data)."""
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
    except (TypeError, ValueError, RecursionError):  # circular or too deep data
        return str(value)


def _mask_pair(pair: str) -> str:
    name, sep, _ = pair.strip().partition("=")
    return f"{name}={MASK}" if sep else MASK


def variants(secret: str) -> set[str]:
    """The forms a secret takes in requests, responses and reports: as sent (percent-encoded in a path,
    a query or a form, with or without `allowReserved`; as a cookie value), JSON-escaped, base64, and as
    messages quote it (`'it''s'` in criteria, Python's repr in input errors)."""
    from .encodings import cookie_encode, encode, form_encode

    encoded = secret.encode("utf-8")
    return {
        secret,
        quote(secret, safe=""),
        quote(secret),
        quote_plus(secret),
        encode(secret, allow_reserved=True),
        form_encode(secret, allow_reserved=True),
        cookie_encode(secret),
        json.dumps(secret)[1:-1],
        json.dumps(secret, ensure_ascii=False)[1:-1],
        secret.replace("'", "''"),
        repr(secret)[1:-1],
        base64.b64encode(encoded).decode("ascii"),
        base64.urlsafe_b64encode(encoded).decode("ascii").rstrip("="),
    }


def cookie_values(headers: Iterable[tuple[str, str]]) -> list[str]:
    """The values of the cookies of `Cookie` headers and the first pair of `Set-Cookie` ones: masked by
    name where they are sent, they join the secrets by value, so a server echoing one is masked too."""
    found: list[str] = []
    for name, value in headers:
        lowered = name.lower()
        if lowered == "cookie":
            pairs = value.split(";")
        elif lowered == "set-cookie":
            pairs = value.split(";")[:1]
        else:
            continue
        found.extend(pair.partition("=")[2].strip() for pair in pairs if "=" in pair)
    return [value for value in found if value]


def api_key_names(descriptions: Iterable[Any]) -> tuple[set[str], set[str]]:
    """Header and query parameter names of the apiKey schemes of OpenAPI `descriptions` (an apiKey cookie
    needs no name: every Cookie value is masked)."""
    from ..errors import ArazzoError

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
