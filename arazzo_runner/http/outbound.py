"""The outbound guard: a credential the engine added never leaves for another origin.

Expressions cannot read the credentials the engine adds (`RequestView.withheld`), but a document can
bounce one off an endpoint of the right origin that reflects it, then send `$response.body` to another
host. So every credential the engine adds from `--auth` or `ARAZZO_AUTH_*`, every OAuth2 token it
obtains and every client secret it sends is *bound* to the origins it was added for (the API's, the token
URL's), and before a request is sent its URL, headers (cookies included) and body are searched for each
bound value, in every form masking knows (`secrets.variants`: percent-encoded, base64, JSON-escaped...),
that is not bound to the request's origin; the URL and a form body are also searched decoded once (an
encoded value sent on is encoded again). A hit fails the step unsent with a message naming the scheme
and the origin the credential stays with, never the value.

Cost: nothing while no value is bound, and nothing for a request to an origin every bound value may go
to (the usual run: one API). Otherwise one substring search per form of each foreign value over the URL,
the headers and the body bytes (forms are built once per value per run). A credential given as an input
is the document's own (it can read `$inputs`), so it is not bound; nor are values shorter than
`secrets.MIN_LENGTH`, which masking does not recognise either.

Also here: what an origin is (`origin_of`) and whether a URL is plain http to another machine
(`remote_plain_http_host`), which the security code asks too.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote, unquote_plus, urlsplit

from ..masking.secrets import MIN_LENGTH, variants
from ..records import Record, field


class Bound(Record):
    """One credential value: which scheme it is (for messages) and the origins it may go to."""

    label: str
    origins: set[str] = field(default_factory=set)


class OutboundGuard:
    """The run's bound credentials (in its `HttpSession`)."""

    def __init__(self) -> None:
        self.bound: dict[str, Bound] = {}
        self._forms: dict[str, tuple[bytes, ...]] = {}

    def bind(self, value: str | None, label: str, origin: str) -> None:
        """`value` (a credential the engine added, for scheme `label`) may go to `origin`."""
        if not value or len(value) < MIN_LENGTH:
            return
        found = self.bound.get(value)
        if found is None:
            found = self.bound[value] = Bound(label, set())
        found.origins.add(origin)

    def foreign(self, url: str, headers: list[tuple[str, str]], content: bytes | None) -> str | None:
        """Why the request may not be sent (a bound credential of another origin is in it), or None."""
        if not self.bound:
            return None
        origin = origin_of(url)
        foreign = [(value, b) for value, b in self.bound.items() if origin not in b.origins]
        if not foreign:
            return None
        texts = [url.encode("utf-8", "replace")]
        if "%" in url:  # decoded once too: a percent-encoded value sent in a query is encoded again
            texts.append(unquote(url).encode("utf-8", "replace"))
        texts.extend(f"{name}:{value}".encode("utf-8", "replace") for name, value in headers)
        if content:
            texts.append(content)
            if _is_form(headers) and (b"%" in content or b"+" in content):
                texts.append(unquote_plus(content.decode("utf-8", "replace")).encode("utf-8", "replace"))
        haystack = b"\n".join(texts)  # one search per form
        for value, bound in foreign:
            if any(form in haystack for form in self._forms_of(value)):
                stays = " and ".join(sorted(bound.origins))
                return (
                    f"it carries the credential of {bound.label}, which stays with {stays}: the engine "
                    f"never sends a credential it added to another origin ({origin})"
                )
        return None

    def held_in(self, value: Any) -> list[Bound]:
        """The bound credentials `value` (text, or data as its JSON text) holds in a form masking knows:
        what a value computed from it derives from (`taint.Taint.credentials`)."""
        if not self.bound:
            return []
        from ..masking.secrets import json_text

        text = value if isinstance(value, (str, bytes)) else json_text(value)
        haystack = text if isinstance(text, bytes) else text.encode("utf-8", "replace")
        return [b for v, b in self.bound.items() if any(form in haystack for form in self._forms_of(v))]

    def derived_foreign(self, url: str, carried: tuple[Bound, ...]) -> str | None:
        """Why a request carrying values derived from the credentials `carried` may not go to `url`
        (one of them is not bound to its origin), or None."""
        if not carried:
            return None
        origin = origin_of(url)
        for bound in carried:
            if origin not in bound.origins:
                stays = " and ".join(sorted(bound.origins))
                return (
                    f"it carries a value derived from the credential of {bound.label}, which stays with "
                    f"{stays}: the engine never sends a credential it added, or what is computed from it, "
                    f"to another origin ({origin})"
                )
        return None

    def _forms_of(self, value: str) -> tuple[bytes, ...]:
        forms = self._forms.get(value)
        if forms is None:
            found = {f.encode("utf-8") for f in variants(value) if len(f) >= MIN_LENGTH}
            forms = self._forms[value] = tuple(sorted(found, key=len))
        return forms


def origin_of(url: str) -> str:
    """The origin of a URL as RFC 6454 writes it (`scheme://host[:port]`, a default port left out, so
    equal origins are equal strings); a URL whose port cannot be read is its own origin."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    try:
        port = parts.port
    except ValueError:
        return url
    host = (parts.hostname or "").lower()
    host = f"[{host}]" if ":" in host else host
    return (
        f"{scheme}://{host}"
        if port in (None, {"http": 80, "https": 443}.get(scheme))
        else f"{scheme}://{host}:{port}"
    )


def remote_plain_http_host(url: str) -> str | None:
    """The host of an `http:` URL that is not this machine (loopback, `localhost`), else None."""
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    if parts.scheme.lower() != "http" or not host or host == "localhost" or host.endswith(".localhost"):
        return None
    import ipaddress

    try:
        return None if ipaddress.ip_address(host).is_loopback else host
    except ValueError:  # a name
        return host


def _is_form(headers: list[tuple[str, str]]) -> bool:
    return any(
        n.lower() == "content-type" and v.lower().startswith("application/x-www-form-urlencoded")
        for n, v in headers
    )
