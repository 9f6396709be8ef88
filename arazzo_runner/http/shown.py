"""The printed form of a request whose parameters or body carry values derived from a secret.

Masking by value finds a secret's own forms, 4 characters or more. A document can compute pieces from a
secret (XPath `substring`, `string-to-codepoints`: 1-3 characters, numbers) and send them on: too short to
mask by value, and masking "X" everywhere would garble every report. So the printed form is masked by
construction: the engine knows which parameters, headers, cookies and body members it filled from a
value derived from a secret (`arazzo_runner.masking.taint`), evaluates those again with each leaf as
`SHOWN_MASK` and builds the request a second time from them; every writer prints that one, with
`SHOWN_MASK` as `***`, while the wire gets the real request. Requests that carry no derived value are
built once, as before.
"""

from __future__ import annotations

from typing import Any

from .body import EncodedBody
from .request import SAME, ParamValue, PreparedRequest, RequestBuildError, Shown, build_request, join_url


def build_shown(
    request: PreparedRequest,
    *,
    base_url: str,
    path_template: str,
    params: list[ParamValue],
    specs: dict[tuple[str, str], Any],
    body: EncodedBody | None,
    shown_body: EncodedBody | None,
    implicit: frozenset[tuple[str, str]] = frozenset(),
    url_derived: bool = False,
) -> None:
    """Give `request` its printed form when a parameter or the body carries a value derived from a secret
    (`ParamValue.shown`, `shown_body`: built with those values' leaves as `SHOWN_MASK`): the same request
    built again from the shown values, `SHOWN_MASK` then written `***`; and mark the parts in `view`, so
    that `$request.<part>` and `$url` read later are derived too. If the shown values cannot be built into
    a request, the printed form keeps only what holds no such value. `base_url` and `path_template` are
    those of the printed form (an x-operation's URL may itself be derived: `url_derived`)."""
    from ..masking.secrets import MASK, SHOWN_MASK

    derived = {
        (p.in_, p.name.casefold() if p.in_ == "header" else p.name) for p in params if p.shown is not SAME
    }
    if shown_body is not None:
        derived.add(("body", ""))
    if url_derived:  # the base URL or path template came from a derived value (an x-operation URL)
        derived.add(("path", ""))
    if not derived:
        return
    request.view.derived = frozenset(derived)
    shown_params = [
        p if p.shown is SAME else ParamValue(p.name, p.in_, p.shown, p.credential) for p in params
    ]
    try:
        built = build_request(
            method=request.method,
            base_url=base_url,
            path_template=path_template,
            params=shown_params,
            specs=specs,
            body=shown_body or body,
            implicit=implicit,
        )
        url, headers, content = built.url, built.headers, built.content
    except (RequestBuildError, ValueError, TypeError):  # what the masks cannot be built into
        url = join_url(base_url, path_template) + ("?" + MASK if "?" in request.url else "")
        names = {name for part, name in derived if part == "header"}
        headers = [(n, MASK if n.casefold() in names else v) for n, v in request.headers]
        content = MASK.encode() if request.content is not None else None
    encoded = SHOWN_MASK.encode()
    request.shown = Shown(
        url.replace(SHOWN_MASK, MASK),
        [(name, value.replace(SHOWN_MASK, MASK)) for name, value in headers],
        None if content is None else content.replace(encoded, MASK.encode()),
    )
