"""Where a source lives: turn a source URL or `$ref` target into one canonical location string.

A location is either an absolute http(s) URL or an absolute, normalised local path. Using one canonical
form lets the cache recognise the same document reached through different relative paths.

Local reads are confined to allowed folders (`roots`): a `Workspace` allows the Arazzo document's folder
plus any `allow_paths` (the CLI's `--allow-path DIR`), for its sources and every `$ref` they reach.
Symlinks are resolved before the check, so a link pointing out of an allowed folder counts as outside.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from urllib.parse import urljoin, urlsplit

from ..errors import SourceError

HTTP_SCHEMES = ("http", "https")


def is_http(location: str) -> bool:
    return _scheme(location) in HTTP_SCHEMES


def resolve_location(url: str, base: str | None) -> str:
    """Resolve `url` (relative or absolute path, `file:` URI or http(s) URL) against `base`.

    `base` is the location of the referring document (a file path, `file:` URI or URL); relative
    references resolve against its directory. An existing local directory is used as the directory
    itself. Without a base, relative paths resolve against the working directory.
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


def allowed_roots(
    location: str | None, allow_paths: Iterable[str | os.PathLike[str]] = ()
) -> tuple[str, ...]:
    """The folders a document read from `location` may read: its own folder (none for a URL), the
    working directory when the document lies inside it (the project being worked on; never when that is
    the filesystem root or the home directory), then `allow_paths`; absolute, symlinks resolved."""
    folders: list[str] = []
    if location is not None and not is_http(location):
        path = _file_uri_to_path(location) if _scheme(location) == "file" else location
        folder = os.path.realpath(os.path.dirname(os.path.abspath(path)))
        folders.append(folder)
        project = _project_root(folder)
        if project:
            folders.append(project)
    folders.extend(os.fspath(path) for path in allow_paths)
    return tuple(dict.fromkeys(os.path.realpath(folder) for folder in folders))


def _project_root(folder: str) -> str | None:
    """The working directory, if `folder` is inside it and it is a plausible project folder."""
    cwd = os.path.realpath(os.getcwd())
    too_wide = {os.path.realpath(os.sep), os.path.realpath(os.path.expanduser("~"))}
    if cwd in too_wide or not _inside(folder, cwd):
        return None
    return cwd


def check_allowed(location: str, roots: tuple[str, ...] | None, url: str, base: str | None) -> None:
    """SourceError unless the local `location` lies inside one of `roots` (None: no restriction)."""
    if roots is None or is_http(location):
        return
    real = os.path.realpath(location)
    if any(_inside(real, root) for root in roots):
        return
    via = "" if real == os.path.normpath(location) else f" (through a symbolic link at {location})"
    allowed = ", ".join(roots) if roots else "none"
    raise SourceError(
        f"cannot read {url}: {real}{via} is outside the folders this document may read ({allowed}); "
        "allow another folder with --allow-path DIR (allow_paths= in the library)",
        file=base,
    )


def _inside(path: str, root: str) -> bool:
    try:
        return os.path.commonpath([path, root]) == root
    except ValueError:  # different drives (Windows)
        return False
