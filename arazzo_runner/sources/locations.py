"""Where a source lives: turn a source URL or `$ref` target into one canonical location string.

A location is either an absolute http(s) URL or an absolute, normalised local path. Using one canonical
form lets the cache recognise the same document reached through different relative paths.

Which local files a document may read (`roots`), the rule compilers and bundlers follow:
- None: a local document reads the local files it references, wherever they are;
- (): a document fetched over http(s) reads no local file at all: its relative paths resolve against
  its URL, and an absolute path or a `file:` URL in it is refused;
- folders: the sandbox (the CLI's `--sandbox DIR`, `allow_paths=` in the library), for documents one
  does not trust: local reads outside those folders are refused. Symlinks are resolved before the check,
  which compares path components (`proj/` does not hold `proj-evil/`).
The rule covers sources, nested Arazzo documents and every `$ref` they reach.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import PurePath
from urllib.parse import urljoin, urlsplit

from ..errors import SourceError, UsageError

HTTP_SCHEMES = ("http", "https")


def is_http(location: str) -> bool:
    return _scheme(location) in HTTP_SCHEMES


def resolve_location(url: str, base: str | None) -> str:
    """Resolve `url` (relative or absolute path, `file:` URI or http(s) URL) against `base`.

    `base` is the location of the referring document (a file path, `file:` URI or URL); relative
    references resolve against its directory. An existing local directory is used as the directory
    itself. Without a base, relative paths resolve against the working directory. An absolute path
    is a local file whatever the base (a document fetched over http(s) is then refused it, see
    `check_allowed`), as a local document whose `$self` is a URL expects.
    """
    if not url:
        raise SourceError("a source URL must not be empty", file=base)
    scheme = _scheme(url)
    if scheme in HTTP_SCHEMES:
        return url.partition("#")[0]
    if scheme == "file":
        return _file_uri_to_path(url)
    if scheme:
        raise SourceError(f"cannot read {url}: unsupported URL scheme {scheme!r}", file=base)
    if os.path.isabs(url):
        return os.path.normpath(url)
    if base is None:
        return os.path.abspath(url)
    if _scheme(base) in HTTP_SCHEMES:
        return urljoin(base, url)
    base_path = _file_uri_to_path(base) if _scheme(base) == "file" else base
    directory = base_path if os.path.isdir(base_path) else os.path.dirname(base_path)
    return os.path.normpath(os.path.join(os.path.abspath(directory), url))


def _scheme(url: str) -> str:
    scheme = urlsplit(url).scheme.lower()
    # A one-letter scheme is a Windows drive ("C:\\specs\\api.yaml"), not a URL.
    return "" if len(scheme) == 1 else scheme


def _file_uri_to_path(uri: str) -> str:
    from urllib.request import url2pathname  # ~13 ms to import (http.client, ssl): only for file: URIs

    parts = urlsplit(uri)
    if parts.netloc not in ("", "localhost"):
        raise SourceError(f"cannot read {uri}: file URIs on another host are not supported")
    return os.path.normpath(url2pathname(parts.path))  # url2pathname also percent-decodes


REMOTE_MAY_NOT_READ = "a document fetched over http(s) may not read local files"


def allowed_roots(
    location: str | None, allow_paths: Iterable[str | os.PathLike[str]] = ()
) -> tuple[str, ...] | None:
    """The `roots` of a document read from `location`: () when that is an http(s) URL (no local file,
    whatever `allow_paths` says), else the sandbox folders `allow_paths` (absolute, symlinks resolved;
    each must be an existing folder: UsageError), else None (local files anywhere)."""
    if location is not None and is_http(location):
        return ()
    folders = [os.path.realpath(os.fspath(path)) for path in allow_paths]
    for given, folder in zip(allow_paths, folders, strict=True):
        if not os.path.isdir(folder):
            raise UsageError(f"sandbox folder {os.fspath(given)!r} is not an existing folder")
    return tuple(dict.fromkeys(folders)) or None


def check_allowed(location: str, roots: tuple[str, ...] | None, url: str, base: str | None) -> None:
    """SourceError unless the local `location` may be read under `roots` (see the module docstring)."""
    if roots is None or is_http(location):
        return
    if not roots:
        raise SourceError(f"cannot read {url}: {REMOTE_MAY_NOT_READ} ({location})", file=base)
    real = os.path.realpath(location)
    if any(inside(real, root) for root in roots):
        return
    via = "" if real == os.path.normpath(location) else f" (through a symbolic link at {location})"
    raise SourceError(
        f"cannot read {url}: {real}{via} is outside the sandbox ({', '.join(roots)}); "
        "add its folder to the sandbox if the document may read it (--sandbox DIR; allow_paths= in the "
        "library; --arazzo-sandbox DIR in pytest)",
        file=base,
    )


def inside(path: str, root: str) -> bool:
    """`path` is `root` or lies below it, compared by components: a string prefix would let the sandbox
    `/srv/proj` hold `/srv/proj-evil/x.yaml`. Both must be absolute with symlinks already resolved."""
    return PurePath(path).is_relative_to(root)


def location_uri(location: str) -> str:
    """The URI of a loaded document's location (an absolute path or an http(s) URL)."""
    if not location or is_http(location) or "://" in location:
        return location
    from pathlib import Path

    return Path(location).as_uri()
