"""`--no-cache`, for every command that loads a document: neither the parsed-source store
(`sources/stored.py`) nor the cache of clean verdicts (`validate/cache.py`) is read or written.

It means `ARAZZO_NO_CACHE=1` for the command (and the processes it starts, such as `validate --jobs`'s),
and the environment is as it was afterwards: a program calling `main()` keeps its own.
"""

from __future__ import annotations

import argparse
import contextlib
import os
from collections.abc import Iterator

VARIABLE = "ARAZZO_NO_CACHE"


def add_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--no-cache",
        action="store_true",
        help="neither read nor write the cache of parsed descriptions and validation verdicts "
        f"(as {VARIABLE}=1)",
    )


@contextlib.contextmanager
def honoured(args: argparse.Namespace) -> Iterator[None]:
    """The command's block, with the caches off when `--no-cache` was given."""
    if not getattr(args, "no_cache", False) or os.environ.get(VARIABLE):
        yield
        return
    os.environ[VARIABLE] = "1"
    try:
        yield
    finally:
        os.environ.pop(VARIABLE, None)
