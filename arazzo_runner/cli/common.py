"""Pieces every sub-command shares: exit codes, NAME=VALUE flags, document arguments, error printing."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from ..errors import ArazzoError, DocumentError, UsageError

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
EXIT_INTERRUPTED = 130  # Ctrl-C: 128 + SIGINT, as shells report a process ended by it


def add_document(parser: argparse.ArgumentParser) -> None:
    """The FILE argument, `--sandbox` (with `--allow-path`) and `--no-cache`, for every command that loads
    a document."""
    from . import cache_flags, sandbox_flags

    parser.add_argument("file", help="the Arazzo document (YAML or JSON)")
    sandbox_flags.add_flags(parser)
    cache_flags.add_flag(parser)


def load_document(args: argparse.Namespace) -> Any:
    from ..api import load
    from .sandbox_flags import folders

    return load(args.file, allow_paths=folders(args))


def pairs(items: list[str], flag: str) -> dict[str, str]:
    """`NAME=VALUE` flags into a dict; a malformed one is a usage error."""
    found = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name or not value:
            raise UsageError(f"{flag} expects NAME=VALUE, got {item!r}")
        found[name] = value
    return found


def read_json_or_file(value: str, flag: str) -> dict[str, Any]:
    """A JSON object given inline, or the path of a JSON/YAML file holding one."""
    text = value.strip()
    if text.startswith(("{", "[")):
        from ..bounds import json_text

        try:
            data = json_text.loads(text)  # the rule for JSON from outside: 128 levels, U+FFFD
        except json_text.TooDeep as exc:
            raise UsageError(f"{flag} was not read: it {exc}") from None
        except ValueError as exc:
            raise UsageError(f"{flag} is not valid JSON: {exc}") from None
    else:
        from ..loader import load_path

        if not Path(value).exists():
            raise UsageError(f"{flag}: no such file {value!r} (give a JSON object or a JSON/YAML file)")
        data = load_path(value).data
    if not isinstance(data, dict):
        raise UsageError(f"{flag} must be a JSON object (or a file containing one)")
    return data


def dump_json(data: Any) -> None:
    """`data` as indented JSON on stdout, in one write: `json.dump` to a stream writes every token
    separately (tens of thousands of calls for a 200-step result), so the text is built first. On a
    stdout whose encoding is not a Unicode one (PYTHONIOENCODING=ascii, a latin-1 locale) the text is
    ASCII with `\\uXXXX` escapes: still exact JSON, where the stream's backslash escapes would not be."""
    ascii_only = not _unicode_stream(sys.stdout)
    sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=ascii_only, default=json_default) + "\n")


def _unicode_stream(stream: Any) -> bool:
    import codecs

    try:
        return codecs.lookup(getattr(stream, "encoding", None) or "utf-8").name.startswith("utf")
    except (LookupError, TypeError):
        return False


def print_error(exc: ArazzoError) -> None:
    from ..masking.secrets import mask_userinfo

    prefix = "" if isinstance(exc, DocumentError) else "error: "
    print(mask_userinfo(f"{prefix}{exc}"), file=sys.stderr)  # a URL's password: `http/userinfo.py`


def positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def positive_float(text: str) -> float:
    value = float(text)
    if value <= 0:
        raise argparse.ArgumentTypeError("must be greater than 0")
    return value


def json_default(value: Any) -> Any:
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return str(value)
