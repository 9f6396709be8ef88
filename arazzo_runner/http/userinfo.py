"""A user and password in a server URL (`--server api=https://user:pass@host`, a description's
`servers.url`, Respect's `x-serverUrl` or an `x-operation` URL): sent as HTTP Basic authentication to
that URL's origin, and nowhere else.

Why it is sent: whoever writes a password into a server URL means it to authenticate there, and curl,
httpx and requests (Jentic's runner) all send it so; dropping it would fail the request for a reason
nothing says (RFC 3986 deprecates `user:password` in URLs for the leak below, which is what the rules
here prevent). How: the request goes to the URL without its userinfo (never on the wire, in `$url`, or
in a printed URL), with `Authorization: Basic base64(user:password)`, percent-decoded, unless the
request carries an `Authorization` header already (a security scheme's credential, or the step's own),
which wins: the URL's user and password are then not sent, and a warning says so. The header is a
credential the engine added: not readable by `$request.header.Authorization`, masked by name wherever
the request is shown, the password (and the encoded pair) join the run's secrets, masked by value, and
are bound to the URL's origin (`outbound.py`): a document cannot forward them to another host. Over
plain http to another machine it is sent with a warning, once per host, as every credential is.

What is printed of any URL with a password (an error naming a source URL, the agent's chat URL) shows
`user:***@`: `secrets.mask_userinfo`, which every `Masker` applies.
"""

from __future__ import annotations

import base64
from urllib.parse import unquote, urlsplit, urlunsplit

from .outbound import origin_of, remote_plain_http_host
from .request import USERINFO, ParamValue


def split_userinfo(url: str) -> tuple[str, str | None, str | None]:
    """(`url` without its userinfo, the user, the password), both percent-decoded; (url, None, None)
    when it has none."""
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url, None, None
    userinfo, _, host = parts.netloc.rpartition("@")
    user, sep, password = userinfo.partition(":")
    return urlunsplit(parts._replace(netloc=host)), unquote(user), unquote(password) if sep else None


def userinfo_header(
    url: str, params: list[ParamValue], session: object, warnings: list[str]
) -> ParamValue | None:
    """The Basic `Authorization` header the user and password of `url` make (None when it has none, or
    when `params` carry an `Authorization` header already: then a warning says they are not sent); the
    password and the header join the run's secrets, bound to the URL's origin, in `session`
    (`HttpSession`). The request goes to `split_userinfo(url)[0]`."""
    bare, user, password = split_userinfo(url)
    if user is None:
        return None
    origin = origin_of(bare)
    encoded = base64.b64encode(f"{user}:{password or ''}".encode()).decode("ascii")
    value = f"Basic {encoded}"
    secrets = [password, encoded, value] if password else [encoded, value]
    session.secret(*secrets)  # type: ignore[attr-defined]
    label = f"the password in the server URL of {origin}"
    for secret in secrets:
        session.guard.bind(secret, label, origin)  # type: ignore[attr-defined]
    if any(p.in_ == "header" and p.name.lower() == "authorization" for p in params):
        warnings.append(
            f"the user and password in the server URL of {origin} are not sent: the request carries an "
            "Authorization header already"
        )
        return None
    host = remote_plain_http_host(bare)
    said: set[str] = getattr(session, "cleartext_warned", set())
    if host and host not in said:
        said.add(host)
        warnings.append(
            f"the password in the server URL is sent over plain http to {host}: anyone on the network can "
            "read it; use an https server URL"
        )
    return ParamValue("Authorization", "header", value, USERINFO)
