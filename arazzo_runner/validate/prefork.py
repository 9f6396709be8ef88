"""What `arazzo validate --jobs N` does before it forks (`parallel.map_ordered`): load once what every
process needs, and estimate what each file will cost, so the heaviest files are handed out first.

`warm()`: the modules a validation imports on first use and the official schemas compiled by the fast
validator, ~0.2 s of CPU that each forked process paid again for itself before (a second process then
cost ~19% more CPU for ~10% less wall time). Done here once, a child inherits them. Only when forking:
one process imports them as it needs them, as before. jsonschema is among them: every document the
fast validator rejects and every OpenAPI payload check use it, and a batch of files large enough to
fork (16 or more) almost always holds one of either.

`weight(file)`: the size of the file plus the sizes of the local files its `url:` fields name: the
cost of validating a document is mostly loading its sources (a 3.7 KB document naming a 2.3 MB
description costs 40 times its neighbours). An estimate for the order of the queue only: the text is
scanned, not parsed; the named files are stat'ed (sizes), never opened; a relative path is the only
kind considered (an absolute path, a `file:` or http(s) URL count nothing), and a wrong guess costs
balance, never a finding.
"""

from __future__ import annotations

import contextlib
import os
import re
import stat

from ..loader.limits import DEFAULT_LIMITS

# a `url` field's value: YAML (`url: x`, `- url: 'x'`) or JSON (`"url": "x"`)
_URL = re.compile(rb"""["']?\burl["']?\s*:\s*["']?([^"'\s,}\]#]+)""")


def warm() -> None:
    """Import the modules validation uses and compile the official schemas (see the module docstring);
    what cannot be imported (an optional extra) is left to fail where it is used, as before. The
    modules: what validating the documents under ../shared imports past `validate.core`."""
    from . import async_rules, core, openapi_schemas, rules, source_facts, sources  # noqa: F401
    from .schema import SCHEMA_LINES, fast_validator

    with contextlib.suppress(ImportError):
        from ..criteria import contextual, jsonpath, regex  # noqa: F401
    with contextlib.suppress(ImportError):
        from ..query import goessner  # noqa: F401
        from ..query import jsonpath as selectors  # noqa: F401
    with contextlib.suppress(ImportError):
        from ..loader import yaml_load  # noqa: F401
        from ..sources import asyncapi, openapi, schema_registry  # noqa: F401
        from ..workspace import operations  # noqa: F401
    with contextlib.suppress(ImportError):
        import jsonschema  # noqa: F401
        import jsonschema_specifications  # noqa: F401
        import referencing.jsonschema  # noqa: F401
    for line in SCHEMA_LINES:
        fast_validator(line)


def weight(file: str) -> int:
    """Bytes to load for `file`: its size and that of the local files its `url` fields name."""
    try:
        with open(file, "rb") as stream:
            text = stream.read(DEFAULT_LIMITS.max_bytes + 1)
    except OSError:
        return 0
    folder = os.path.dirname(os.path.abspath(file))
    named = {_local(folder, url) for url in _URL.findall(text)}
    return len(text) + sum(_size(path) for path in named if path)


def _local(folder: str, url: bytes) -> str | None:
    try:
        path = url.decode("utf-8").partition("#")[0]
    except UnicodeDecodeError:
        return None
    if not path or os.path.isabs(path) or ":" in path:  # absolute, a URL or a drive: not estimated
        return None
    return os.path.normpath(os.path.join(folder, path))


def _size(path: str) -> int:
    try:
        found = os.stat(path)
    except (OSError, ValueError):
        return 0
    return found.st_size if stat.S_ISREG(found.st_mode) else 0
