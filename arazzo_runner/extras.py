"""How to install an optional extra, said the way that fits how this copy of the engine was installed.

A message that names a missing extra gives one command, and the right one: from a clone installed in
development mode (`pip install -e .`: pip records it as editable, PEP 610's `direct_url.json`) or run
from a source tree, `pip install -e '.[mcp]'` (with the project's folder instead of `.` when the
working directory is another); from an installed distribution, `pip install 'arazzo-engine[mcp]'`.
Read only when such a message is made.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from urllib.parse import unquote, urlsplit

from . import DISTRIBUTION

_PACKAGE_DIR = Path(__file__).resolve().parent


def install_hint(extra: str) -> str:
    """`pip install ...` bringing `extra` (`mcp`, `load`, `validation`, `mqtt`, ...)."""
    project = source_project()
    if project is None:
        return f"pip install '{DISTRIBUTION}[{extra}]'"
    here = Path.cwd().resolve() == project
    target = f".[{extra}]" if here else f"{project}[{extra}]"
    return f"pip install -e {shlex.quote(target)}"


def source_project() -> Path | None:
    """The project folder when this copy runs from a source tree (an editable install, or no install
    at all: the package imported from a checkout); None for an installed distribution."""
    editable = _editable_project()
    if editable is not None:
        return editable
    if any(part in ("site-packages", "dist-packages") for part in _PACKAGE_DIR.parts):
        return None
    root = _PACKAGE_DIR.parent
    pyproject = root / "pyproject.toml"
    named = pyproject.is_file() and f'name = "{DISTRIBUTION}"' in pyproject.read_text(encoding="utf-8")
    return root if named else None


def _editable_project() -> Path | None:
    from importlib import metadata

    try:
        text = metadata.distribution(DISTRIBUTION).read_text("direct_url.json")
    except metadata.PackageNotFoundError:
        return None
    try:
        data = json.loads(text or "{}")
    except ValueError:
        return None
    if not isinstance(data, dict) or not (data.get("dir_info") or {}).get("editable"):
        return None
    url = urlsplit(str(data.get("url", "")))
    if url.scheme != "file":
        return None
    project = Path(unquote(url.path)).resolve()
    return project if (project / "arazzo_runner").resolve() == _PACKAGE_DIR else None
