"""Remember documents that validated clean, so `arazzo run` need not validate them again.

Like a linter's cache: the key is the validator itself (the package version and its own files), the
document's bytes, the sandbox it was read in (if any), and every local file the validation read (sources
and the files their `$ref`s reach), each by content hash. Anything changed, missing or remote means
"validate again". Only clean verdicts are stored: a document with errors is always validated (and
refused).

Location: `$ARAZZO_CACHE_DIR`, else `$XDG_CACHE_HOME/arazzo-engine`, else `~/.cache/arazzo-engine`.
`ARAZZO_NO_CACHE=1` disables it. A cache that cannot be written is silently not used.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

_PACKAGE = Path(__file__).resolve().parents[1]  # the whole engine: any change may change a verdict


class ValidationCache:
    def __init__(self, folder: Path) -> None:
        self.folder = folder

    @classmethod
    def default(cls, environ: Any = None) -> ValidationCache | None:
        from ..sources.stored import cache_base

        base = cache_base(environ)
        return None if base is None else cls(Path(base) / "validated")

    def is_clean(self, workspace: Any) -> bool:
        """True when this exact document, with these exact dependencies, validated clean before."""
        entry = self._entry(workspace)
        if entry is None:
            return False
        try:
            recorded = json.loads(entry.read_text())
        except (OSError, ValueError):
            return False
        deps = recorded.get("dependencies")
        if not isinstance(deps, list):
            return False
        return all(isinstance(d, list) and len(d) == 2 and _digest_of(d[0]) == d[1] for d in deps)

    def remember_clean(self, workspace: Any) -> None:
        entry = self._entry(workspace)
        deps = dependencies(workspace)
        if entry is None or deps is None:
            return
        try:
            entry.parent.mkdir(parents=True, exist_ok=True)
            partial = entry.with_suffix(f".{os.getpid()}.tmp")
            partial.write_text(json.dumps({"dependencies": deps}))
            partial.replace(entry)  # atomic: concurrent runs never read half an entry
        except OSError:
            pass

    def _entry(self, workspace: Any) -> Path | None:
        digest = _digest_of(workspace.location)
        if digest is None:
            return None
        # the sandbox too: a source it refused was never checked, so an unconfined run must validate again
        sandbox = "\0".join(workspace.roots) if workspace.roots else ""
        text = f"{_validator_key()}\0{workspace.location}\0{digest}\0{sandbox}"
        key = hashlib.sha256(text.encode()).hexdigest()
        return self.folder / f"{key}.json"


def dependencies(workspace: Any) -> list[list[str]] | None:
    """[location, digest] of every file the validation read; None if one is remote or unreadable."""
    from ..workspace import Workspace

    locations = [workspace.location, *workspace.cache.locations()]
    for value in workspace.cache.values():
        if isinstance(value, Workspace):
            locations.append(value.location)
    deps = []
    for location in dict.fromkeys(locations):
        digest = _digest_of(location)
        if digest is None:
            return None
        deps.append([location, digest])
    return deps


def _digest_of(location: str) -> str | None:
    if location.startswith(("http://", "https://")) or location.startswith("<"):
        return None
    try:
        return hashlib.sha256(Path(location).read_bytes()).hexdigest()
    except OSError:
        return None


def _validator_key() -> str:
    """The package version and the size/mtime of every file of the engine: any edit invalidates."""
    from .. import __version__

    stamps = [__version__, *_stamps(str(_PACKAGE), "")]
    return hashlib.sha256("\n".join(stamps).encode()).hexdigest()


def _stamps(folder: str, prefix: str) -> list[str]:
    """`relative/path:size:mtime_ns` of the engine's files (code and bundled schemas), sorted; os.scandir
    rather than Path.rglob: this runs before every `arazzo run` and is 5x cheaper."""
    found: list[str] = []
    with os.scandir(folder) as entries:
        for entry in sorted(entries, key=lambda e: e.name):
            if entry.is_dir(follow_symlinks=False):
                if entry.name != "__pycache__":
                    found += _stamps(entry.path, f"{prefix}{entry.name}/")
            elif entry.name.endswith((".py", ".yaml", ".json")):
                stat = entry.stat()
                found.append(f"{prefix}{entry.name}:{stat.st_size}:{stat.st_mtime_ns}")
    return found
