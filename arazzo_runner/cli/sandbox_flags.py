"""`--sandbox DIR` (repeatable), shared by every command that loads a document, and `--allow-path DIR`,
its deprecated alias.

A local document reads the local files it references wherever they are (relative paths against the
document naming them); `--sandbox` confines a document one does not trust to the folders given. The old
`--allow-path` meant "these folders too" on top of the document's folder: with no confinement by
default that no longer means anything, so it now turns the sandbox on with its folders, and says so.

    add_flags(parser)
    load(path, allow_paths=folders(args))
"""

from __future__ import annotations

import argparse
import os
import sys

ALLOW_PATH_WARNING = (
    "warning: --allow-path is deprecated: local sources are read wherever they are unless --sandbox DIR "
    "is given; --allow-path DIR now means --sandbox DIR (reads outside the folders given are refused)"
)


def add_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--sandbox",
        action="append",
        default=[],
        type=folder,
        metavar="DIR",
        help="for a document you do not trust: refuse local reads (sources, $refs) outside DIR "
        "(repeatable); without it, local files are read wherever the document points",
    )
    parser.add_argument(
        "--allow-path",
        action="append",
        default=[],
        type=folder,
        metavar="DIR",
        help="deprecated alias of --sandbox DIR",
    )


def folders(args: argparse.Namespace) -> list[str]:
    """The sandbox folders of `--sandbox` and `--allow-path` (warning, on stderr, about the latter)."""
    allow = getattr(args, "allow_path", [])
    if allow:
        print(ALLOW_PATH_WARNING, file=sys.stderr)
    return [*getattr(args, "sandbox", []), *allow]


def folder(text: str) -> str:
    """An existing folder (argparse type): a sandbox naming a missing folder would refuse everything."""
    if not os.path.isdir(text):
        raise argparse.ArgumentTypeError(f"{text!r} is not an existing folder")
    return text
