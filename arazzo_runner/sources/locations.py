"""Where a source lives: turn a source URL or `$ref` target into one canonical location string.

A location is either an absolute http(s) URL or an absolute, normalised local path. Using one canonical
form lets the cache recognise the same document reached through different relative paths.
"""

from __future__ import annotations

import os
from urllib.parse import urljoin, urlsplit
from urllib.request import url2pathname

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
    parts = urlsplit(uri)
    if parts.netloc not in ("", "localhost"):
        raise SourceError(f"cannot read {uri}: file URIs on another host are not supported")
    return os.path.normpath(url2pathname(parts.path))  # url2pathname also percent-decodes
