"""The run report as one self-contained HTML page (`arazzo run --html`, `arazzo report`).

The page is `page.html` with its stylesheet (`report.css`) and script (`report.js`, `graph.js`, `step.js`,
`views.js`: the parts of one function) inlined, and the run's
data as JSON in a `<script type="application/json">` block that the script renders on demand (a step's
details when it is clicked, long lists a slice at a time), so a 10,000-step run opens as quickly as its
JSON parses. Nothing is fetched: no CDN, no font, no image; the page's Content-Security-Policy is
`default-src 'none'` with only this script and this stylesheet allowed, by their SHA-256 hashes, so no
script in it can reach the network even if a body held one.

The data is written so that no text in it can end the block: `<`, `>` and `&` are JSON escapes
(`\\u003c`...), as are U+2028/U+2029; a body holding `</script>` stays data.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
from importlib import resources
from string import Template
from types import MappingProxyType
from typing import Any

from .model import PAGE_BODY_LIMIT, Source, page_data

__all__ = ["PAGE_BODY_LIMIT", "Source", "page_data", "render_page", "script_json"]

# `<`, `>`, `&`, U+2028, U+2029 as JSON escapes (a read-only table)
_ESCAPES = MappingProxyType(
    str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"})
)


def _asset(name: str) -> str:
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


def _hash(text: str) -> str:
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return "'sha256-" + base64.b64encode(digest).decode("ascii") + "'"


def content_security_policy(script: str, style: str) -> str:
    """Nothing may load or connect; only the page's own inline script and stylesheet run (by hash)."""
    return (
        f"default-src 'none'; script-src {_hash(script)}; style-src {_hash(style)}; img-src data:; "
        "base-uri 'none'; form-action 'none'"
    )


def script_json(data: Any) -> str:
    """`data` as JSON that is safe inside a `<script>` element: no `<`, `>` or `&` appears raw (they
    only occur inside strings in JSON, where their `\\u` escapes mean the same)."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"), default=str).translate(_ESCAPES)


SCRIPTS = ("report.js", "graph.js", "step.js", "views.js")  # one script, in this order, in one function


def page_script() -> str:
    body = "".join(_asset(name) for name in SCRIPTS)
    return '(function () {\n  "use strict";\n' + body + "})();\n"


def render_page(page: dict[str, Any], generator: str = "arazzo") -> str:
    script, style = page_script(), _asset("report.css")
    return Template(_asset("page.html")).substitute(
        csp=content_security_policy(script, style),
        generator=html.escape(generator),
        title=html.escape(str(page.get("title") or "Arazzo report")),
        css=style,
        data=script_json(page),
        js=script,
    )


def write_page(path: str, sources: list[Source], *, diff: bool = False, generator: str = "arazzo") -> int:
    """Write the page of `sources` (report documents) to `path`; returns its size in bytes."""
    page = page_data(sources)
    if diff:
        from .diff import diff_runs

        page["diff"] = diff_runs(page)
    text = render_page(page, generator)
    data = text.encode("utf-8")
    with open(path, "wb") as handle:
        handle.write(data)
    return len(data)
