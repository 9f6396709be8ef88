"""Which Arazzo documents can be run against local mocks: those whose OpenAPI sources are files on disk.

Every YAML/JSON file under the roots whose top level has an `arazzo` key is a document. Each of its
`sourceDescriptions` is resolved relative to the document (a `file:` URL or a plain path; a fragment is
dropped); an `arazzo` source is followed into its own sources, so a nested document's OpenAPI files get
mocks too. A document is runnable when every source, nested ones included, is a local OpenAPI file that
exists; anything else (a URL, a missing file, an AsyncAPI source, which no HTTP mock can stand in for)
skips the whole document, with the reason, because a workflow of it may reach that source.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

import yaml

_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_ARAZZO_KEY = re.compile(r"""^\s*["']?arazzo["']?\s*:""", re.MULTILINE)  # a YAML top-level key
_ARAZZO_MEMBER = re.compile(r'"arazzo"\s*:')  # JSON: anywhere (the parse decides whether it is top-level)
SUFFIXES = (".yaml", ".yml", ".json")


@dataclass
class Mocked:
    """An OpenAPI source that gets a mock: its name in the document family and the file."""

    family: str  # "a" for the document's own source, "kid/a" for source a of its arazzo source kid
    name: str  # the source's own name, "a"
    path: Path


@dataclass
class Document:
    path: Path
    data: dict[str, Any]
    sources: list[Mocked] = field(default_factory=list)

    @property
    def workflows(self) -> list[dict[str, Any]]:
        found = self.data.get("workflows")
        return [w for w in found if isinstance(w, dict)] if isinstance(found, list) else []


@dataclass
class Discovery:
    runnable: list[Document]
    skipped: list[tuple[Path, str]]  # document, why

    def skip_reasons(self) -> Counter[str]:
        return Counter(reason.split(":")[0] for _, reason in self.skipped)


def load(path: Path) -> Any:
    text = path.read_text(encoding="utf-8")
    return json.loads(text) if path.suffix == ".json" else yaml.load(text, Loader=_LOADER)


def local_path(url: str, base: Path) -> Path | None:
    """The file a source URL names relative to the document `base`, or None for a remote URL."""
    parsed = urlparse(url)
    if parsed.scheme == "file":
        return Path(unquote(parsed.path))
    if parsed.scheme and len(parsed.scheme) > 1:  # http(s) and friends; a one-letter scheme is a drive
        return None
    return (base.parent / unquote(url.split("#", 1)[0])).resolve()


def _sources(
    path: Path, data: dict[str, Any], prefix: str, seen: set[Path]
) -> tuple[list[Mocked], str | None]:
    """The OpenAPI files of a document and its nested arazzo sources, or the reason it cannot be mocked."""
    found: list[Mocked] = []
    entries = data.get("sourceDescriptions")
    if not isinstance(entries, list) or not entries:
        return [], "no sourceDescriptions"
    for entry in entries:
        if not isinstance(entry, dict) or not isinstance(entry.get("url"), str):
            return [], "malformed sourceDescription"
        name, kind = str(entry.get("name")), str(entry.get("type") or "openapi")
        target = local_path(entry["url"], path)
        if target is None:
            return [], f"remote source description: {prefix}{name} = {entry['url']}"
        if not target.is_file():
            return [], f"local source description missing on disk: {prefix}{name} = {entry['url']}"
        if kind == "asyncapi":
            return [], f"AsyncAPI source (no HTTP mock): {prefix}{name}"
        if kind == "arazzo":
            if target in seen:
                continue
            try:
                nested = load(target)
            except Exception as exc:
                return [], f"nested Arazzo source does not parse: {prefix}{name}: {exc}"
            more, problem = _sources(target, nested, f"{prefix}{name}/", seen | {target})
            if problem:
                return [], f"nested Arazzo source not mockable: {problem}"
            found += more
        else:
            found.append(Mocked(family=f"{prefix}{name}", name=name, path=target))
    return found, None


def is_arazzo(path: Path) -> bool:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    return bool((_ARAZZO_MEMBER if path.suffix == ".json" else _ARAZZO_KEY).search(text))


def discover(roots: list[Path]) -> Discovery:
    runnable: list[Document] = []
    skipped: list[tuple[Path, str]] = []
    for root in roots:
        for path in sorted(p for p in root.rglob("*") if p.suffix in SUFFIXES and p.is_file()):
            if "node_modules" in path.parts or not is_arazzo(path):
                continue
            try:
                data = load(path)
            except Exception as exc:
                skipped.append((path, f"does not parse: {str(exc).splitlines()[0]}"))
                continue
            if not isinstance(data, dict) or "arazzo" not in data:
                continue
            sources, problem = _sources(path.resolve(), data, "", {path.resolve()})
            if problem:
                skipped.append((path, problem))
            elif not Document(path, data).workflows:
                skipped.append((path, "no workflows"))
            else:
                runnable.append(Document(path=path, data=data, sources=sources))
    return Discovery(runnable, skipped)
